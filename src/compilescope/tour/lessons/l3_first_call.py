"""Lesson 3: torch.compile only wraps; the first call compiles; later calls reuse. Run twice by
the tour: with an empty compile cache, then with the cache the first run filled."""

import time

import torch
from common import device, say, timed
from tinynet import TinyNet

net = TinyNet().to(device())
x = torch.randn(8, 64, device=device())
torch.compile(net)  # the very first torch.compile loads the compiler's own modules: not timed
start = time.perf_counter()
model = torch.compile(net)
say(wrap_s=time.perf_counter() - start, wrapper=type(model).__name__, wrapped=type(net).__name__)
with torch.no_grad():
    say(calls_s=[timed(model, x) for _ in range(3)])
