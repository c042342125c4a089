"""A run compared with the earlier run of the same program: the session a `run` finds at the
path it is about to save its own to (the same program, run before from the same place), read
before it is replaced, and each graph the new run compiled again from scratch explained by what
changed in the graph's cache key since (session/cache_keys.py). The facts go into the new
session (Session.earlier_run), so that its report and the findings say them later too."""

from __future__ import annotations

import os

from compilescope.session.model import Session

MOST_BYTES = 512 * 2**20  # an earlier session larger than this is not read (a session this large is not ours)


def compare_with_earlier(session: Session, json_path: str | None) -> None:
    """Set session.earlier_run where `json_path` holds an earlier session of the same program.
    Anything else there (no file, another program's session, a file that is not a session, one
    that cannot be read) leaves the session as it is: the comparison is an extra, never a
    reason for the run to fail."""
    if json_path is None or session.program is None:
        return
    try:
        if not os.path.isfile(json_path) or os.path.getsize(json_path) > MOST_BYTES:
            return
        from compilescope.session.cache_keys import compared
        from compilescope.session.jsonio import loads

        with open(json_path, encoding="utf-8") as handle:
            text = handle.read()
        if not text.lstrip().startswith("{"):
            return
        earlier = loads(text)
    except (OSError, ValueError, RecursionError):
        return
    if not _same_program(earlier, session):
        return
    session.earlier_run = compared(earlier, session, json_path)


def _same_program(earlier: Session, now: Session) -> bool:
    a, b = earlier.program, now.program
    return a is not None and b is not None and a.kind == b.kind and os.path.basename(a.target) == os.path.basename(b.target)
