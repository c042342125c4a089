"""The random number generators' states (the CPU's, each CUDA device's where CUDA is started):
what `run --check-accuracy` keeps before a compiled call and puts back after its eager run, so
that the program's random stream is the one it has without us. Imports torch: capture only."""

from __future__ import annotations

from typing import Any

import torch


def rng_states() -> list[Any]:
    states: list[Any] = [torch.random.get_rng_state()]
    if torch.cuda.is_initialized():
        states.append(torch.cuda.get_rng_state_all())
    return states


def set_rng_states(states: list[Any]) -> None:
    torch.random.set_rng_state(states[0])
    if len(states) > 1:
        torch.cuda.set_rng_state_all(states[1])


def moved(first: list[Any], second: list[Any]) -> bool:
    if not torch.equal(first[0], second[0]):
        return True
    if len(first) > 1 and len(second) > 1:
        return any(not torch.equal(a, b) for a, b in zip(first[1], second[1], strict=False))
    return False
