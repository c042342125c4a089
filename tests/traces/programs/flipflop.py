"""Two input sizes taking turns: a function that recompiles and then switches between its versions
on every call (findings: a size recompile, its flip-flop from the call order, Python 3.12+)."""

import torch


@torch.compile(backend="eager", dynamic=False)
def norm(x):
    return x / x.norm()


for i in range(40):
    norm(torch.ones(8 if i % 2 else 16))
