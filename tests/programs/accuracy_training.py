"""A small training loop, a function drawing random numbers and one that does not, compiled by
Inductor, for `compilescope run --check-accuracy` (tests/test_accuracy_run.py, and the committed
trace tests/traces/accuracy.log.gz). With --bug, torch's own testing switch makes Inductor's C++
code for relu wrong on purpose."""

import sys

import torch
import torch._inductor.config

if "--bug" in sys.argv:
    torch._inductor.config.cpp.inject_relu_bug_TESTING_ONLY = "accuracy"

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
compiled = torch.compile(model)
x, y = torch.randn(8, 16), torch.randn(8, 4)
for step in range(3):
    loss = torch.nn.functional.mse_loss(compiled(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.6f}")


@torch.compile
def noisy(t):
    return torch.nn.functional.dropout(t, 0.5, training=True) * 2


@torch.compile
def scaled(t):
    return torch.tanh(t) * 3


print("noisy:", round(noisy(x).sum().item(), 4), "scaled:", round(scaled(x).sum().item(), 4))
print("random after:", torch.rand(2).tolist())
