"""A compiled function too small to pay off: 300 calls of `x + 1` (findings: paid off, from the
calls recorded on Python 3.12+; with --profile, from its kernel time too)."""

import torch


@torch.compile
def add_one(x):
    return x + 1


x = torch.ones(4)
for _ in range(300):
    add_one(x)
