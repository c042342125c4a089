"""Lesson 7: fusion, and the kernels Inductor wrote. First the idea in plain Python (one trip
through the data against two); then two small models: a bias and a relu (one fused kernel), a
matmul and a relu (a library call, and a kernel for the rest)."""

import time

import torch
from common import device, say

numbers = [float(n % 7) - 3.0 for n in range(300_000)]


def two_trips():
    added = [n + 1.0 for n in numbers]
    return [max(n, 0.0) for n in added]


def one_trip():
    return [max(n + 1.0, 0.0) for n in numbers]


# each timed five times, taking turns, and the quickest kept: the machine's other work only
# ever adds time
two_s: list[float] = []
one_s: list[float] = []
for _ in range(5):
    for way, times in ((two_trips, two_s), (one_trip, one_s)):
        start = time.perf_counter()
        way()
        times.append(time.perf_counter() - start)
say(two_trips_s=min(two_s), one_trip_s=min(one_s), same=one_trip() == two_trips())


class BiasThenRelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(64))

    def forward(self, x):
        return torch.relu(x + self.bias)


class MatmulThenRelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = torch.nn.Parameter(torch.randn(64, 64))

    def forward(self, x):
        return torch.relu(x @ self.weights)


with torch.no_grad():
    for net in (BiasThenRelu(), MatmulThenRelu()):
        torch.compile(net.to(device()))(torch.randn(8, 64, device=device()))
