"""A torch.nn.Sequential compiled in place with module.compile(): every frame its call runs is in
torch's own files, which Dynamo skips, so nothing is compiled (tests/unit/test_findings_advice.py;
tests/test_advice_pasted.py pastes the fix, torch.compile(model), and runs it)."""

import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
model.compile(backend="eager")
x = torch.randn(4, 8)
for _ in range(3):
    print(round(model(x).sum().item(), 4))
