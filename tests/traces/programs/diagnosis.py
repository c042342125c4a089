"""Causes an expert would name, each once, in one program (tests/test_findings_diagnosis.py):
one sequence-length change met by two compiled functions, a dtype change, the recompile limit,
a float compiled in as a constant, a print of a tensor's value, a compile that fails, one module
compiled by two torch.compile calls, and torch's own break in a compiled optimizer step."""

import torch


@torch.compile(backend="eager")
def encode(x):
    return torch.relu(x) * 2


@torch.compile(backend="eager")
def decode(x):
    return x.sum(1)


def step(ids):
    return decode(encode(ids))


for n in (16, 24, 32):
    step(torch.ones(4, n))


@torch.compile(backend="eager")
def cast(x):
    return x * 2


cast(torch.ones(3))
cast(torch.ones(3, dtype=torch.float64))


@torch.compile(backend="eager", dynamic=False)
def limited(x):
    return x * 2 + 1


for n in range(1, 11):
    limited(torch.ones(n))


@torch.compile(backend="eager")
def scale(x, s):
    return x * s


for s in (0.5, 1.5, 2.5):
    scale(torch.ones(3), s)


@torch.compile(backend="eager")
def shout(x):
    y = x * 2
    print(float(y.mean()))
    return y + 1


shout(torch.ones(3))


@torch.compile(backend="eager")
def matmul(x, w):
    return x @ w


try:
    matmul(torch.ones(4, 8), torch.ones(5, 3))
except Exception as error:
    print("raised", type(error).__name__)


class Twice(torch.nn.Module):
    def forward(self, x):
        return x.relu() + 1


module = Twice()
first = torch.compile(module, backend="eager")
second = torch.compile(module, backend="aot_eager")
first(torch.ones(3))
second(torch.ones(3))

model = torch.nn.Linear(8, 8)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)


@torch.compile(backend="eager")
def optimizer_step():
    optimizer.step()


model(torch.ones(2, 8)).sum().backward()
optimizer_step()
