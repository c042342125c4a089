"""Dynamo's part in a wrong result, for `compilescope run --check-accuracy`'s whole-call check
(tests/test_accuracy_whole_calls.py, and the committed trace tests/traces/accuracy_guards.log.gz): a
global changed while torch.compile runs its code without checking guards
(torch.compiler.set_stance(skip_guard_eval_unsafe=True)), so the code compiled for its old
value runs; beside it, a module compiled whole that matches, a function with a graph break, and
one that appends to a list (neither can be run a second time safely)."""

import torch

SCALE = 2.0
seen = []


@torch.compile(backend="eager")
def scaled(x):
    return torch.sin(x) * SCALE


@torch.compile(backend="eager")
def broken(x):
    y = torch.cos(x)
    print("between the graphs")  # (a graph break: its Python runs between two graphs)
    return y + 1


@torch.compile(backend="eager")
def noted(x):
    seen.append(x.shape[0])  # (a side effect Dynamo replays after its graph)
    return x * 2


torch.manual_seed(0)
model = torch.compile(torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Tanh()), backend="eager")
x = torch.randn(4)
print("first:", scaled(x).tolist())
with torch.compiler.set_stance(skip_guard_eval_unsafe=True):
    SCALE = 3.0
    print("second:", scaled(x).tolist())
print("model:", model(x).sum().item(), "broken:", broken(x).sum().item(), "noted:", noted(x).sum().item(), seen)
print("random after:", torch.rand(2).tolist())
