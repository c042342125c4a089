"""A global Python number the program changes between calls: Dynamo compiles it into the graph
as a constant, so a new value compiles again (tests/unit/test_findings_globals.py,
tests/test_advice_pasted.py: the fix, a tensor global, pasted)."""

import torch

SCALE = 2.0


@torch.compile(backend="eager")
def scaled(x):
    return torch.sin(x) * SCALE


x = torch.ones(3)
for step in range(4):
    SCALE = 2.0 + step
    print(round(scaled(x).sum().item(), 4))
