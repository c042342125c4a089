"""A graph break inside a for loop: torch cannot handle it ("graph break in loop") and gives up
the whole function, which then runs without torch.compile on every call."""

import torch


@torch.compile(backend="eager")
def f(x):
    x = x * 2
    for _ in range(3):
        x = torch.sin(x)
        if x.sum().item() > 100:
            x = x - 1
    return x + 1


for _ in range(3):
    f(torch.randn(8))
print("done")
