"""How `run --check-accuracy` judges a compiled graph's values against the same graph run eagerly.

Compiled code may round and sum in another order than eager, so a float output is not expected
to be equal, only close: within its dtype's tolerance (TOLERANCES), or, where it is not, no
further from a float64 run of the graph than eager itself is, times a margin (as torch's own
accuracy checks judge: torch._dynamo.utils.same with an fp64 reference). Integers and booleans
must be equal; NaN and infinity must be where eager has them. Each pair gives a Compared: what
was compared, its shape and dtype, the largest absolute and relative difference, and whether it
matches (and how it was judged). Imports torch: capture only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

# (rtol, atol) per dtype: looser than torch.testing's defaults, as compiled code sums in another
# order (the same figures as `compilescope repro`'s scripts, render/repro.py)
TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float16: (1e-2, 1e-2),
    torch.bfloat16: (1.6e-2, 1e-2),
    torch.float32: (1e-4, 1e-5),
    torch.float64: (1e-7, 1e-7),
    torch.complex64: (1e-4, 1e-5),
    torch.complex128: (1e-7, 1e-7),
}
# How much further from a float64 run than eager compiled values may be (torch's `same` uses 2,
# and 3 for its half-precision models)
MARGIN = {torch.float16: 3.0, torch.bfloat16: 3.0}


@dataclass
class Compared:
    """One value compared: an output, an input the graph changed in place, or a gradient."""

    what: str  # "output 0", "input x after the call (changed in place)", "gradient of self.fc.weight"
    matches: bool
    shape: list[int] | None = None
    dtype: str | None = None
    max_abs: float | None = None  # the largest |compiled - eager|
    max_rel: float | None = None  # the largest |compiled - eager| / |eager| (where eager is not 0)
    judged: str = ""  # how: "within rtol 0.0001, atol 1e-05", "as close to a float64 run as eager", or what differs

    def facts(self) -> dict[str, Any]:
        return {k: v for k, v in vars(self).items() if v is not None and v != ""}


def flat(value: Any) -> list[Any]:
    """A graph's outputs as one list (Dynamo's graphs return a tuple, maybe nested)."""
    if isinstance(value, (list, tuple)):
        return [item for part in value for item in flat(part)]
    return [value]


def compare(what: str, compiled: Any, eager: Any, reference: Callable[[], Any] | None = None) -> Compared:
    """`compiled` against `eager`; `reference()` gives the float64 run's value, asked for only
    where a float value is not within its tolerance (None: no such run)."""
    if not isinstance(eager, torch.Tensor) or not isinstance(compiled, torch.Tensor):
        same = type(compiled) is type(eager) and _equal(compiled, eager)
        return Compared(what, same, judged="" if same else f"{_short(eager)} eagerly, {_short(compiled)} compiled")
    found = Compared(what, False, shape=list(eager.shape), dtype=str(eager.dtype).removeprefix("torch."))
    if compiled.shape != eager.shape:
        found.judged = f"shape {list(compiled.shape)} compiled, {list(eager.shape)} eagerly"
        return found
    if compiled.dtype != eager.dtype:
        found.judged = f"dtype {compiled.dtype} compiled, {eager.dtype} eagerly"
        return found
    if compiled.device != eager.device:
        compiled = compiled.to(eager.device)
    if not (eager.is_floating_point() or eager.is_complex()):
        found.matches = bool(torch.equal(compiled, eager))
        if not found.matches:
            wrong = int((compiled != eager).sum().item())
            found.judged = f"{wrong} of {eager.numel()} values differ (must be equal: {found.dtype})"
            _differences(found, compiled, eager)
        else:
            found.max_abs = 0.0
        return found
    _differences(found, compiled, eager)
    for kind, test in (("NaN", torch.isnan), ("infinity", torch.isinf)):
        if not torch.equal(test(compiled), test(eager)):
            found.judged = f"{kind} where eager has none, or the other way"
            return found
    rtol, atol = TOLERANCES.get(eager.dtype, (1e-4, 1e-5))
    if torch.allclose(compiled, eager, rtol=rtol, atol=atol, equal_nan=True):
        found.matches, found.judged = True, f"within rtol {rtol:g}, atol {atol:g}"
        return found
    exact = reference() if reference is not None else None
    if isinstance(exact, torch.Tensor) and exact.shape == eager.shape:
        eager_error, compiled_error = _rmse(exact, eager), _rmse(exact, compiled)
        margin = MARGIN.get(eager.dtype, 2.0)
        if compiled_error <= margin * eager_error + rtol / 10:
            found.matches = True
            found.judged = f"not within rtol {rtol:g}, atol {atol:g}, but as close to a float64 run as eager ({compiled_error:.3g} and {eager_error:.3g}, root-mean-square)"
            return found
        found.judged = f"not within rtol {rtol:g}, atol {atol:g}; root-mean-square distance from a float64 run: compiled {compiled_error:.3g}, eager {eager_error:.3g}"
        return found
    found.judged = f"not within rtol {rtol:g}, atol {atol:g} (no float64 run could be made to judge rounding)"
    return found


def _differences(found: Compared, compiled: torch.Tensor, eager: torch.Tensor) -> None:
    """The largest absolute and relative differences over the values both have finite."""
    if eager.numel() == 0:
        found.max_abs = found.max_rel = 0.0
        return
    a, b = compiled.detach().to(torch.complex128 if eager.is_complex() else torch.float64), eager.detach().to(a_dtype(eager))
    finite = torch.isfinite(a) & torch.isfinite(b)
    if not bool(finite.any()):
        found.max_abs = found.max_rel = 0.0
        return
    off = (a - b).abs()[finite]
    size = b.abs()[finite]
    found.max_abs = float(off.max().item())
    nonzero = size > 0
    found.max_rel = float((off[nonzero] / size[nonzero]).max().item()) if bool(nonzero.any()) else None


def a_dtype(tensor: torch.Tensor) -> torch.dtype:
    return torch.complex128 if tensor.is_complex() else torch.float64


def _rmse(reference: torch.Tensor, value: torch.Tensor) -> float:
    difference = reference.detach().to(a_dtype(reference)) - value.detach().to(a_dtype(reference)).to(reference.device)
    finite = torch.isfinite(difference)
    if not bool(finite.any()):
        return 0.0
    return float(torch.sqrt(torch.mean(difference[finite].abs() ** 2)).item())


def _equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # (a value without a plain equality: call it unknown as different)
        return False


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:80] + "…"
