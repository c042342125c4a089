"""Three uses of torch.nonzero inside compiled functions, each a graph break ("Dynamic shape
operator"): with config.capture_dynamic_output_shape_ops (`--try capture_dynamic_output_shape_ops`)
torch keeps it in the graph where its result stays a tensor (indexing), but not where the
result's size decides a Python `if` (torch then breaks on that branch instead), nor where it is
read out with .tolist() (the compile of that function then fails)."""

import torch


@torch.compile(backend="eager")
def picked(x):
    idx = torch.nonzero(x > 0)
    return x[idx[:, 0]] * 2


@torch.compile(backend="eager")
def counted(x):
    idx = torch.nonzero(x > 0)
    if idx.shape[0] > 2:
        return x * 2
    return x - 1


@torch.compile(backend="eager")
def listed(x):
    idx = torch.nonzero(x > 0)
    y = x * 2
    rows = idx.tolist()
    return y, rows


for _ in range(2):
    picked(torch.tensor([1.0, -1.0, 2.0, 0.5]))
    counted(torch.tensor([1.0, -1.0, 2.0, 0.5]))
    listed(torch.tensor([1.0, -1.0, 2.0, 0.5]))
print("done")
