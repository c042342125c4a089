"""The memory a compiled graph's call needs on a GPU, compiled and eagerly, side by side
(`run --check-accuracy`): measured once the program is over, on the inputs of the graph's first
checked call, with the device's peak counter reset around each run. Resetting it while the
program runs would change what the program itself reads of its peak (max_memory_allocated), so
it is done only after: the program's own figures were taken before (record/memory.py). Imports
torch: capture only."""

from __future__ import annotations

from typing import Any

import torch

import compilescope.record.torch_adapter as torch_adapter
from compilescope.record.accuracy import CheckedGraph
from compilescope.record.accuracy_compare import flat
from compilescope.record.staging import restored


def peaks(graph: CheckedGraph) -> dict[str, Any] | None:
    """{device, eager_peak, compiled_peak, eager_added, compiled_added} in bytes; {why} where not
    measured; None where its first call's inputs were not on a GPU."""
    first, graph.first = graph.first, None
    if first is None:
        return None
    if "why" in first:
        return {"why": f"not measured: {first['why']}"}
    inputs = restored(first["kept"])
    devices = {a.device for a in inputs if isinstance(a, torch.Tensor) and a.is_cuda}
    if len(devices) != 1:
        return {"why": "not measured: the graph's inputs are on more than one GPU"}
    device = devices.pop()
    facts: dict[str, Any] = {"device": str(device)}
    for name, run in (("eager", graph.graph), ("compiled", graph.compiled)):
        copies = [torch_adapter.clone_input(a) for a in inputs]
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
        base = torch.cuda.memory_allocated(device)
        with torch.set_grad_enabled(first["grad"]):
            outputs = flat(run(*copies))
        torch.cuda.synchronize(device)
        facts[f"{name}_peak"] = torch.cuda.max_memory_allocated(device) - base
        facts[f"{name}_added"] = torch.cuda.memory_allocated(device) - base  # its outputs, and what it saved for the backward
        del outputs, copies
    return facts
