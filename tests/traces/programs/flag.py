"""A flag (True or False) passed to a compiled function that branches on it: Dynamo compiles each
value in, a version for each (findings: nothing to change; not a tensor, which would make the
branch data-dependent, nor dynamic=True, which makes numbers symbolic, never a bool)."""

import torch


@torch.compile(backend="eager")
def step(x, training):
    if training:
        return x * 2
    return x


x = torch.ones(3)
for training in (True, False, True):
    step(x, training)
