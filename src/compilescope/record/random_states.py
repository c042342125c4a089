"""The random number generators' states: torch's (the CPU's, each CUDA device's where CUDA is
started), Python's `random` module's, and numpy's global one where the program imported numpy.
What `run --check-accuracy` keeps before a compiled call and puts back after its eager run, so
that the program's random streams are the ones it has without us: a compiled function that
calls `random.random()` or `np.random.rand()` (a graph break, run by Python) draws from them in
the check's eager run too. Imports torch: capture only; numpy is never imported here."""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass
from typing import Any

import torch


@dataclass(frozen=True)
class RandomStates:
    cpu: torch.Tensor
    cuda: list[torch.Tensor] | None  # where CUDA is started
    python: Any  # random.getstate()
    numpy: Any  # numpy.random.get_state(), where the program imported numpy


def rng_states() -> RandomStates:
    numpy = sys.modules.get("numpy")
    try:
        numpy_state = numpy.random.get_state() if numpy is not None else None
    except Exception:  # (a numpy without the legacy global generator)
        numpy_state = None
    return RandomStates(
        cpu=torch.random.get_rng_state(),
        cuda=torch.cuda.get_rng_state_all() if torch.cuda.is_initialized() else None,
        python=random.getstate(),
        numpy=numpy_state,
    )


def set_rng_states(states: RandomStates) -> None:
    torch.random.set_rng_state(states.cpu)
    if states.cuda is not None:
        torch.cuda.set_rng_state_all(states.cuda)
    random.setstate(states.python)
    numpy = sys.modules.get("numpy")
    if states.numpy is not None and numpy is not None:
        numpy.random.set_state(states.numpy)


def moved(first: RandomStates, second: RandomStates) -> bool:
    """Whether any generator drew between the two states."""
    if not torch.equal(first.cpu, second.cpu):
        return True
    if (
        first.cuda is not None
        and second.cuda is not None
        and any(not torch.equal(a, b) for a, b in zip(first.cuda, second.cuda, strict=False))
    ):
        return True
    if first.python != second.python:
        return True
    return _numpy_key(first.numpy) != _numpy_key(second.numpy)


def _numpy_key(state: Any) -> Any:
    """numpy's legacy state ('MT19937', keys, pos, has_gauss, cached_gaussian), comparable."""
    if state is None:
        return None
    try:
        return (state[0], state[1].tobytes(), *state[2:])
    except Exception:
        return repr(state)
