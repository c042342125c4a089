"""A module compiled with Inductor's freezing on (weights folded in as constants), in inference:
torch's compile caches bypass such graphs, so every run compiles them again."""

import torch

torch._inductor.config.freezing = True
model = torch.compile(torch.nn.Linear(16, 16))
with torch.no_grad():
    print(model(torch.randn(8, 16)).shape)
