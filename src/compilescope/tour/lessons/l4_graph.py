"""Lesson 4: Dynamo's graph and its guards. The graph, node by node, and the guard on the input
come from the session compilescope saves of this run (tour/facts.py)."""

import torch
from tinynet import TinyNet

torch.compile(TinyNet(), backend="eager")(torch.randn(8, 64))
