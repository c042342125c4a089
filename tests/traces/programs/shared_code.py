"""Functions that share one code, compiled one by one: a decorator's inner function wraps two
functions, as transformers' decorators wrap its models' forwards. A graph break inside each
wrapped function stops Dynamo tracing it into its caller, so it compiles the wrapper as a frame
of its own, once per function: recompiles that no input change caused (the zoo's Whisper in
training, after transformers' LayerDrop break). findings: one finding, pointing at the graph
breaks; the number of arguments is not the cause."""

import functools

import torch


def logged(function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        return function(*args, **kwargs)

    return wrapper


@logged
def encode(x):
    if x.sum() > 0:  # data-dependent branching: a graph break
        x = x * 2
    return x + 1


@logged
def decode(x, memory):
    if memory.sum() > 0:
        x = x - 1
    return x * memory


@torch.compile(backend="eager")
def model(x):
    memory = encode(x)
    return decode(x, memory)


x = torch.ones(4)
for _ in range(2):
    model(x)
