"""Python numbers passed to compiled functions where a tensor cannot stand in for them: a loop's
count read from a config object (torch makes it symbolic, then specializes it back: a version per
count, dynamic=True or not) and the sizes of a view (a tensor cannot be a size; dynamic=True
makes them symbolic from the first call)."""

from dataclasses import dataclass

import torch


@dataclass
class Config:
    scale: float
    repeats: int


@torch.compile(backend="eager")
def repeated(x, config):
    for _ in range(config.repeats):
        x = x * config.scale
    return x


@torch.compile(backend="eager")
def regrouped(x, shape):
    return x.view(shape).sum(-1)


x = torch.arange(24.0)
for step, shape in enumerate([(2, 12), (3, 8), (4, 6)]):
    config = Config(scale=0.5, repeats=step + 1)
    print(float(repeated(torch.ones(2), config).sum()), regrouped(x, shape).tolist())
