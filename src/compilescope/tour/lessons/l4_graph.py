"""Lesson 4: Dynamo's graph and its guards. The graph, node by node, and the guard on the input
come from the session compilescope saves of this run (tour/facts.py)."""

import torch
from common import device
from tinynet import TinyNet

torch.compile(TinyNet().to(device()), backend="eager")(torch.randn(8, 64, device=device()))
