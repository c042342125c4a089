"""Two print() calls inside compiled functions, each a graph break: torch can move a print after
the graph (config.reorderable_logging_functions, `--try reorder-print`) only where its arguments
are tensors, constants and strings: the tensor's print goes, the torch.Size's stays."""

import torch


@torch.compile(backend="eager")
def scaled(x):
    y = x * 2
    print("y is", y)
    return y + 1


@torch.compile(backend="eager")
def shaped(x):
    y = x * 2
    print("shape", y.shape)
    return y + 1


for _ in range(2):
    scaled(torch.ones(3))
    shaped(torch.ones(3))
print("done")
