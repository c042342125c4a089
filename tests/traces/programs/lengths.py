"""A list and *args whose lengths change from call to call: Dynamo compiles each length in, and
no setting makes a length dynamic (findings: the recompiles say so, and advise no tensor and no
dynamic=True)."""

import torch


@torch.compile(backend="eager")
def total(*args):
    return sum(a * 2 for a in args)


@torch.compile(backend="eager")
def stack(items):
    return torch.stack(items).sum(0)


x = torch.ones(3)
for count in (1, 2, 3):
    total(*([x] * count))
    stack([x] * count)
