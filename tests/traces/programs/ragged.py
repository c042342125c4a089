"""An mnist-like training loop: a DataLoader of 136 samples in batches of 64, so the last batch
of each epoch has 8 (findings: one recompile of TinyNet.forward for the smaller batch; the fix
names `data`, the tensor at the call, and drop_last=True first)."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class TinyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


torch.manual_seed(0)
dataset = TensorDataset(torch.randn(136, 16), torch.randint(0, 4, (136,)))
loader = DataLoader(dataset, batch_size=64)
model = torch.compile(TinyNet(), backend="eager")
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for data, target in loader:
        optimizer.zero_grad()
        output = model(data)
        loss = nn.functional.cross_entropy(output, target)
        loss.backward()
        optimizer.step()
print(f"loss {loss.item():.3f}")
