"""Lesson 6: AOT Autograd's graphs. A training call (gradients needed): a forward and a backward
graph. Then a new batch size without gradients: an inference graph."""

import torch
from common import device
from tinynet import TinyNet

model = torch.compile(TinyNet(4).to(device()), backend="aot_eager")
model(torch.randn(2, 4, device=device())).sum().backward()
with torch.no_grad():
    model(torch.randn(3, 4, device=device()))
