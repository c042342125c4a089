"""Copies of a call's inputs that wait in the CPU's memory (`run --check-accuracy`): made before
the program's call, a GPU's tensors copied to the CPU, so that the program's own call never runs
beside them and never runs out of GPU memory for them; put back on their devices once the call is
over (`restored`). The graph check (accuracy.py) stages a flat list of inputs; the whole-call
check (accuracy_calls.py) stages every tensor of a deep copy of the arguments and module
(`Staged`). Imports torch: capture only."""

from __future__ import annotations

import copy
from typing import Any

import torch

import compilescope.record.torch_adapter as torch_adapter


def staged(value: Any) -> Any:
    """One value copied before the call: a GPU tensor as (its copy in the CPU's memory, its
    device, whether it requires grad), which restored() puts back; a CPU tensor cloned as it is;
    anything else as it is."""
    if isinstance(value, torch.Tensor) and value.device.type != "cpu":
        return (value.detach().to("cpu"), value.device, value.requires_grad)
    return torch_adapter.clone_input(value)


def staged_copies(values: Any) -> list[Any]:
    return [staged(v) for v in values]


def kept(values: list[Any]) -> list[Any]:
    """Copies (already made) moved to the CPU's memory, with where each was, to be kept until the
    program ends (so that the GPU's memory stays the program's)."""
    return [(v.to("cpu"), v.device, v.requires_grad) if isinstance(v, torch.Tensor) else v for v in values]


def restored(values: list[Any]) -> list[Any]:
    """What staged() or kept() made, each tensor back on its device."""
    out = []
    for value in values:
        if isinstance(value, tuple) and len(value) == 3 and isinstance(value[0], torch.Tensor):
            tensor = value[0].to(value[1])
            out.append(tensor.requires_grad_(value[2]) if tensor.is_floating_point() or tensor.is_complex() else tensor)
        else:
            out.append(value)
    return out


class Staged:
    """A call's arguments and module deep-copied before it, each tensor staged (`add`, as the
    deep copy's memo asks for it); placed() gives the copies with every tensor on its device."""

    def __init__(self) -> None:
        self.copies: Any = None  # (function, args, kwargs), made of the tensors add() gave
        # (the tensor in the copies, what staged() made of it, whether a parameter)
        self._tensors: list[tuple[torch.Tensor, Any, bool]] = []

    def add(self, tensor: torch.Tensor) -> torch.Tensor:
        entry = staged(tensor)
        copied = entry[0] if isinstance(entry, tuple) else entry
        parameter = isinstance(tensor, torch.nn.Parameter)
        if parameter:
            copied = torch.nn.Parameter(copied.detach(), requires_grad=tensor.requires_grad)
        self._tensors.append((copied, entry, parameter))
        return copied

    def placed(self) -> Any:
        if not any(isinstance(entry, tuple) for _, entry, _ in self._tensors):
            return self.copies
        memo: dict[int, Any] = {}
        for copied, entry, parameter in self._tensors:
            moved = restored([entry])[0] if isinstance(entry, tuple) else copied
            if parameter and isinstance(entry, tuple):
                moved = torch.nn.Parameter(moved.detach(), requires_grad=entry[2])
            memo[id(copied)] = moved
        return copy.deepcopy(self.copies, memo)
