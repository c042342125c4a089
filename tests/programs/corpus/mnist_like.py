"""A small convolutional classifier trained on random 28x28 images, the way pytorch/examples'
mnist does it, with torch.compile(model) added: a DataLoader of 200 samples in batches of 64,
so the last batch of each epoch has 8, then a test pass under torch.no_grad()."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, 1)
        self.conv2 = nn.Conv2d(8, 16, 3, 1)
        self.dropout = nn.Dropout(0.25)
        self.fc1 = nn.Linear(16 * 12 * 12, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.max_pool2d(x, 2)
        x = self.dropout(x)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


def train(model, loader, optimizer, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(loader):
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}: last loss {loss.item():.4f}")


def test(model, loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for data, target in loader:
            output = model(data)
            correct += (output.argmax(dim=1) == target).sum().item()
    print(f"test accuracy {correct}/{len(loader.dataset)}")


train_set = TensorDataset(torch.randn(200, 1, 28, 28), torch.randint(0, 10, (200,)))
test_set = TensorDataset(torch.randn(100, 1, 28, 28), torch.randint(0, 10, (100,)))
train_loader = DataLoader(train_set, batch_size=64, shuffle=True)
test_loader = DataLoader(test_set, batch_size=100)

model = torch.compile(Net(), backend="eager")
optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
for epoch in range(1, 3):
    train(model, train_loader, optimizer, epoch)
    test(model, test_loader)
