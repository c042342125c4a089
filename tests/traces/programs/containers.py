"""Guards on containers and names: a compiled nn.Sequential, nn.ModuleList and nn.ModuleDict, a
function of a dict and one of a tuple, one that reads a global, one that calls a function reading
a closure variable, and a compiled function that reads its own closure variable (findings: none;
`--show guards` lists each guard in plain words with its subject: the first key of the
Sequential's submodules is '0', the dict's keys, the tuple's length, the global's value, the
closure variable's value)."""

import torch
from torch import nn

torch.manual_seed(0)
sequential = torch.compile(nn.Sequential(nn.Linear(4, 4), nn.ReLU()), backend="eager")


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(4, 4), nn.Linear(4, 4)])
        self.heads = nn.ModuleDict({"up": nn.Linear(4, 4), "down": nn.Linear(4, 4)})

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.heads["up"](x) + self.heads["down"](x)


stack = torch.compile(Stack(), backend="eager")
SCALE = 3


@torch.compile(backend="eager")
def of_dict(batch):
    out = 0
    for value in batch.values():
        out = out + value
    return out


@torch.compile(backend="eager")
def of_tuple(pair):
    return pair[0] - pair[1]


@torch.compile(backend="eager")
def of_global(x):
    return x * SCALE


def make_scale(factor):
    def scale(x):
        return x * factor

    return scale


scale = make_scale(0.5)


@torch.compile(backend="eager")
def of_closure(x):
    return scale(x)


def make_shift(offset):
    @torch.compile(backend="eager")
    def shift(x):
        return x + offset

    return shift


x = torch.ones(2, 4)
sequential(x)
stack(x)
of_dict({"a": x, "b": x + 1})
of_tuple((x, x))
of_global(x)
of_closure(x)
make_shift(2.5)(x)
