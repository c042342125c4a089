"""A loop over a tensor's rows inside a compiled function (`for i in range(x.shape[0])`): the
count must be known, so torch specializes the dimension back to its size (a version per size,
whatever is marked: a dimension marked dynamic makes torch raise ConstraintViolationError); and
a function of the same tensor that torch makes dynamic at the first change."""

import torch


@torch.compile(backend="eager")
def squashed(x):
    return torch.tanh(x) * 2


@torch.compile(backend="eager")
def per_row(x):
    out = []
    for i in range(x.shape[0]):
        out.append(x[i].sum())
    return torch.stack(out)


for n in (2, 3, 4):
    x = torch.ones(n, 3)
    print(squashed(x).sum().item(), per_row(x).tolist())
