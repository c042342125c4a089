"""The program behind tests/data/small_trace.log: a graph break, two recompiles (one made
dynamic), and an Inductor compile with kernels, on torch 2.13 (CPU), Python 3.11.

The trace is `compilescope run small_program.py` (this file, under that name, in /tmp/cs/rich)
as compilescope-small_program.log, less the records the builder does not read and that make up
most of its size: chromium_event records other than entire_frame_compile, compile_file, code_gen
and automatic_dynamic, and the fx_graph_cache_miss artifact (280 kB left of 590 kB).
"""
import torch


def step(x):
    y = torch.sin(x) * 2
    if y.sum() > 0:  # data-dependent: a graph break
        return y + 1
    return y - 1


def fused(x, w):
    return torch.relu(x @ w + 1.0)


compiled = torch.compile(step, backend="eager")
compiled(torch.ones(4))
compiled(torch.ones(8))  # another size: compiled again
compiled(torch.ones(16))  # and again, now dynamic
torch.compile(fused)(torch.ones(4, 4), torch.ones(4, 4))  # Inductor: kernels and output code
