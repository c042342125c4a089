"""Lesson 9: is it faster? The first compiled call against the steady time per call, eager and
compiled taking turns, medians: many small steps (fusion wins) and one big matmul (a library
call either way: no win)."""

import statistics

import torch
from common import device, say, timed

WARM_UP = 3
TIMED = 30


class ManySmallSteps(torch.nn.Module):
    def forward(self, x):
        for _ in range(20):
            x = torch.relu(x + 0.1) * 0.99
        return x


class OneBigMatmul(torch.nn.Module):
    def forward(self, x):
        return x @ x


sizes = {"cpu": (256, 1024), "cuda": (4096, 8192)}[device()]
with torch.no_grad():
    for net, size in ((ManySmallSteps(), sizes[0]), (OneBigMatmul(), sizes[1])):
        x = torch.randn(size, size, device=device())
        model = torch.compile(net)
        first = timed(model, x)
        for _ in range(WARM_UP):
            timed(net, x), timed(model, x)
        eager, compiled = [], []
        for _ in range(TIMED):  # taking turns: neither gets a quieter moment of the machine
            eager.append(timed(net, x))
            compiled.append(timed(model, x))
        say(
            model=type(net).__name__,
            size=size,
            first_call_s=first,
            eager_ms=statistics.median(eager) * 1000,
            compiled_ms=statistics.median(compiled) * 1000,
            threads=torch.get_num_threads(),
            runs=TIMED,
            warm_up=WARM_UP,
        )
