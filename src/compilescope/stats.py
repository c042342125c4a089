"""Median and quartiles of timings: one definition for bench and for run's call times; and
when a compile pays for itself (bench's and the tour's break-even)."""

from __future__ import annotations

import math
import statistics


def summary(samples: list[float]) -> dict[str, float]:
    """Median, first and third quartile (the IQR is q1..q3) of a non-empty list."""
    ordered = sorted(samples)
    # "inclusive": quartiles stay within the samples (the default extrapolates past them).
    quartiles = statistics.quantiles(ordered, n=4, method="inclusive") if len(ordered) >= 2 else [ordered[0]] * 3
    return {"median": statistics.median(ordered), "q1": quartiles[0], "q3": quartiles[2]}


def break_even(first_call_s: float | None, eager_ms: float | None, compiled_ms: float | None) -> float | None:
    """Calls after which the compiled version has paid for its compile: the first call's extra
    cost over an eager call, divided by what each later call saves. None: it never pays off."""
    if first_call_s is None or eager_ms is None or compiled_ms is None:
        return None
    saved_ms = eager_ms - compiled_ms
    if saved_ms <= 0:
        return None
    extra_ms = first_call_s * 1000.0 - eager_ms
    return float(max(1, math.ceil(extra_ms / saved_ms)))
