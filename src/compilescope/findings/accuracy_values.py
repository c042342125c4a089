"""A compared value in words, for the accuracy findings (accuracy.py, accuracy_calls.py)."""

from __future__ import annotations

from compilescope.session.accuracy import ComparedValue


def number(value: float | None) -> str:
    return "unknown" if value is None else f"{value:.3g}"


def value_said(value: ComparedValue) -> str:
    """ "output 0 (float32 [8, 16]): largest difference 2 (relative 43.5)"."""
    kind = f"{value.dtype} {value.shape}" if value.dtype and value.shape is not None else value.dtype or ""
    text = f"{value.what}" + (f" ({kind})" if kind else "")
    if value.max_abs is not None:
        text += f": largest difference {number(value.max_abs)}"
        if value.max_rel is not None:
            text += f" (relative {number(value.max_rel)})"
    return text
