"""A user's source file named by a trace, read safely: the trace may come from elsewhere."""

from __future__ import annotations

import functools
import os

from compilescope.trace.reader import open_trace

_MAX_SOURCE = 4 * 2**20  # bytes: a user's source file longer than this is not read


def read_source(filename: str) -> list[str] | None:
    """The lines of a user's source file named by the trace, or None: only a Python file (.py)
    that is a regular file of at most _MAX_SOURCE bytes is read (the trace may come from
    elsewhere and name a pipe, which would hang us, a device that never ends, or a private file
    whose lines it guesses, to have them quoted in the report)."""
    if not filename.endswith(".py"):
        return None
    try:
        with open_trace(filename, errors="replace") as handle:
            if os.fstat(handle.fileno()).st_size > _MAX_SOURCE:
                return None
            return handle.read(_MAX_SOURCE).splitlines()
    except (OSError, ValueError):  # UnreadableInput (not a regular file), or a NUL in the name
        return None


@functools.lru_cache(maxsize=64)
def cached_source(filename: str) -> tuple[str, ...] | None:
    lines = read_source(filename)
    return tuple(lines) if lines is not None else None
