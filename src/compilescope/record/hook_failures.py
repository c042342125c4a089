"""Failures inside compilescope's hooks that run within torch's compile.

A hook must never fail the user's compile, so it catches what it raises; but a failure caught and
dropped means a session that silently lacks what the hook records. Each hook keeps its failures
here (the first few, each once, with where it failed) and writes them into its trace record; the
session says them (Session.capture_problems) and a finding lists them.
"""

from __future__ import annotations

import os
import threading
import traceback
from typing import Any

from compilescope.session import error_summary

LIMIT = 5  # distinct failures kept per hook; the count says how many there were in all


class HookFailures:
    def __init__(self, what: str) -> None:
        self.what = what  # "counting calls", "reading Dynamo's code back"
        self.count = 0
        self._kept: list[str] = []
        self._lock = threading.Lock()

    def add(self, error: BaseException, label: str) -> None:
        """Keep one failure: "<what> for <label> failed: KeyError: 'x' (generated.py:81 in _on_new_code)"."""
        frames = traceback.extract_tb(error.__traceback__) if error.__traceback__ is not None else []
        place = f" ({os.path.basename(frames[-1].filename)}:{frames[-1].lineno} in {frames[-1].name})" if frames else ""
        text = f"{self.what} for {label} failed: {error_summary(error)}{place}"
        with self._lock:
            self.count += 1
            if text not in self._kept and len(self._kept) < LIMIT:
                self._kept.append(text)

    def facts(self) -> dict[str, Any]:
        """The keys the hook's record gets: nothing when nothing failed."""
        with self._lock:
            if not self.count:
                return {}
            more = [f"{self.what} failed {self.count} times in all"] if self.count > len(self._kept) else []
            return {"failed": self.count, "failures": [*self._kept, *more]}
