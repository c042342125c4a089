"""Modules whose number attributes change between calls, as training code often has them: a step
counter for a warm-up (an int, changed by forward), an annealed temperature (a float, changed by
forward), and a shift the training loop sets (an int). Dynamo compiles a module's int attribute
in as a constant and never makes it symbolic on its own, so each step compiles again; the float
is made symbolic at its first change (one recompile)."""

import torch
import torch.nn as nn


class WarmupScale(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.step = 0

    def forward(self, x):
        self.step += 1
        warmup = min(1.0, self.step / 4)
        return self.lin(x) * warmup


class Annealed(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.temperature = 1.0

    def forward(self, x):
        self.temperature *= 0.5
        return (self.lin(x) / self.temperature).softmax(-1)


class Shifted(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.shift = 0

    def forward(self, x):
        return self.lin(x) + self.shift


torch.manual_seed(0)
scaled = torch.compile(WarmupScale(), backend="eager")
annealed = torch.compile(Annealed(), backend="eager")
shifter = Shifted()
shifted = torch.compile(shifter, backend="eager")
x = torch.randn(2, 8)
for step in range(5):
    shifter.shift = step
    warm = scaled(x)
    soft = annealed(x)
    moved = shifted(x)
    print(round(float(warm.detach().sum()), 4), round(float(soft.detach().max()), 4), round(float(moved.detach().sum()), 4))
