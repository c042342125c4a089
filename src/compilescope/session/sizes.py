"""Bytes in the words every view uses ("312 MiB", "1.9 GiB"). Apart and light (no imports) on
purpose: the plain lines of a run that compiled nothing say memory without loading the model."""

from __future__ import annotations

_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")


def size(count: int | None) -> str:
    """Bytes as the line says them ("312 MiB", "1.9 GiB"), or "unknown"."""
    if count is None:
        return "unknown"
    value = float(count)
    for unit in _UNITS:
        if value < 1024 or unit == _UNITS[-1]:
            break
        value /= 1024
    if unit == "B":
        return f"{count} B"
    return f"{value:.1f} {unit}" if value < 10 else f"{value:.0f} {unit}"
