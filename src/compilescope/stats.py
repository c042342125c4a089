"""Median and quartiles of timings: one definition for bench and for run's call times."""

from __future__ import annotations

import statistics


def summary(samples: list[float]) -> dict[str, float]:
    """Median, first and third quartile (the IQR is q1..q3) of a non-empty list."""
    ordered = sorted(samples)
    # "inclusive": quartiles stay within the samples (the default extrapolates past them).
    quartiles = statistics.quantiles(ordered, n=4, method="inclusive") if len(ordered) >= 2 else [ordered[0]] * 3
    return {"median": statistics.median(ordered), "q1": quartiles[0], "q3": quartiles[2]}
