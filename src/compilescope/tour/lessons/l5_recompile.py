"""Lesson 5: a guard fails, and torch compiles again. 8 rows, then 16 (the size guard fails:
a new, dynamic version), then 32 (the dynamic version serves it)."""

import torch
from common import device, say, timed
from tinynet import TinyNet

model = torch.compile(TinyNet().to(device()))
with torch.no_grad():
    for rows in (8, 8, 16, 8, 16, 32):
        say(rows=rows, seconds=timed(model, torch.randn(rows, 64, device=device())))
