"""Running one lesson program in a process of its own, as the user would run it: under
`compilescope run` (its session saved as JSON), or with plain Python where nothing is compiled.

All lessons share one Inductor cache folder (the tour's, TORCHINDUCTOR_CACHE_DIR), so a second
tour compiles little; lesson 3 runs twice, first with an empty cache of its own, to show both.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compilescope.session.model import Session

LESSONS = Path(__file__).with_name("lessons")
MARK = "COMPILESCOPE_TOUR"  # lessons/common.py's
TIME_LIMIT_S = 600  # one lesson's run, however slow the machine


class LessonFailed(Exception):
    """A lesson program did not run through: its status and the end of what it printed."""


@dataclass
class LessonRun:
    """One run of a lesson program: what it said, and what compilescope saw."""

    said: list[dict[str, Any]]  # its COMPILESCOPE_TOUR lines, in order
    session: Session | None  # None: run with plain Python
    seconds: float  # the whole run, start-up included
    output: str = ""  # the rest of what it printed
    extra: dict[str, Any] = field(default_factory=dict)

    def first(self, key: str) -> Any:
        """The first value said under `key` (KeyError where none was)."""
        return next(item[key] for item in self.said if key in item)

    def all(self, key: str) -> list[Any]:
        return [item[key] for item in self.said if key in item]


def run_lesson(program: str, folder: Path, cache: Path, device: str = "cpu", under_compilescope: bool = True) -> LessonRun:
    """Run lessons/`program` with its working folder `folder` and Inductor cache `cache`."""
    folder.mkdir(parents=True, exist_ok=True)
    script = LESSONS / program
    env = {
        **os.environ,
        "TORCHINDUCTOR_CACHE_DIR": str(cache),
        "COMPILESCOPE_TOUR_DEVICE": device,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(LESSONS), os.environ.get("PYTHONPATH", "")])),
    }
    saved = folder / (script.stem + ".json")
    if under_compilescope:
        command = [
            sys.executable,
            "-m",
            "compilescope",
            "run",
            "--no-html",
            "--no-explanation",
            "--json",
            str(saved),
            "--trace",
            str(folder / (script.stem + ".log")),
            str(script),
        ]
    else:
        command = [sys.executable, str(script)]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=TIME_LIMIT_S)
    seconds = time.perf_counter() - started
    said, rest = [], []
    for line in done.stdout.splitlines():
        if line.startswith(MARK + " "):
            said.append(json.loads(line[len(MARK) + 1 :]))
        else:
            rest.append(line)
    if done.returncode != 0:
        raise LessonFailed(f"{program} ended with status {done.returncode}: {(done.stderr or done.stdout)[-2000:]}")
    session = None
    if under_compilescope:
        from compilescope.session.loading import load_all

        (session,) = load_all(saved)
        if session.incomplete is not None:  # its figures would be of part of a run: no lesson is made of them
            raise LessonFailed(f"{program}: {session.incomplete.reason}; its lesson is not shown")
    return LessonRun(said, session, seconds, "\n".join(rest))
