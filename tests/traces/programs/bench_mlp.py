"""A small MLP for `compilescope bench bench_mlp.py:make` (tests/traces/bench_mlp.json: its
results, as bench saved them; on a shared two-core machine, so its verdict is whatever the
machine allowed, said with the machine's state)."""

import torch


def make():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 64))
    return model, (torch.randn(16, 64),)
