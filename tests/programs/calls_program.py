"""A program whose calls are known: tests/test_calls.py checks what compilescope run recorded
against the comments here. Every compile uses backend="eager": the calls are the point."""
import threading
import time

import torch


def f(x):
    return torch.relu(x * 2 + 1)


def branchy(x):
    y = x + 1
    if y.sum() > 0:  # graph break: data-dependent branch
        return y * 2
    return y - 1


def slow(x):
    time.sleep(0.02)  # graph break: sleeps in Python
    return x + 1


def checked(x, fail):
    y = x * 2
    if fail:
        raise ValueError("asked to fail")
    return y


cf = torch.compile(f, backend="eager")
for n in (4, 4, 8, 8, 8):  # 0/0 x2 (static), then 0/1 x3 (dynamic)
    cf(torch.ones(n))
print("f uncompiled", f(torch.ones(3)).sum().item())  # no compiled code x1

cb = torch.compile(branchy, backend="eager")
for sign in (1, 1, -1):  # branchy x3; its resume functions: the `y * 2` side x2, the `y - 1` side x1
    cb(sign * torch.ones(4))

cs = torch.compile(slow, backend="eager")
for _ in range(3):  # x3, each at least 20 ms
    cs(torch.ones(2))

cc = torch.compile(checked, backend="eager")
cc(torch.ones(2), False)  # 1 compiled call
try:  # fail=True compiles again, that compile fails on the raise, the original code runs and raises
    cc(torch.ones(2), True)
except ValueError as error:
    print("raised", error)


def worker():
    for _ in range(50):
        cf(torch.ones(8))


threads = [threading.Thread(target=worker) for _ in range(2)]  # f: 0/1 x100 more, from two threads
for t in threads:
    t.start()
for t in threads:
    t.join()
print("done", cf(torch.ones(8)).sum().item())  # and 0/1 x1
