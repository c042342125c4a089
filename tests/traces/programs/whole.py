"""A module compiled whole (nn.Sequential, whose forward is torch's own code) and a plain
function, each called with a batch size that changes (findings: the recompiles name Sequential
and `scale`, located at the user's calls, not in torch's external_utils.py)."""

import torch
from torch import nn


def scale(x):
    return torch.relu(x) * 2


torch.manual_seed(0)
model = torch.compile(nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2)), backend="eager")
compiled_scale = torch.compile(scale, backend="eager")
for rows in (4, 6, 8):
    batch = torch.randn(rows, 8)
    out = model(batch)
    scaled = compiled_scale(batch)
print(out.shape, scaled.shape)
