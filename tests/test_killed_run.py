"""A run killed with SIGKILL leaves a trace that says it is partial: `report` leads with it and
`check` fails on it (exit 1) unless --allow-incomplete. Real `python -m compilescope run`
processes, killed from inside the program: mid-compile by a backend that sends the signal (a
backend runs while Dynamo compiles), and between compiles by the program itself."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from conftest import run_cli

PROGRAM = """\
import os
import signal

import torch


def dies_while_compiling(gm, example_inputs):
    os.kill(os.getpid(), signal.SIGKILL)  # mid-compile: Dynamo has begun this compile, not ended it
    return gm.forward


@torch.compile(backend=dies_while_compiling if os.environ["KILL"] == "mid-compile" else "eager")
def step(x):
    return torch.relu(x) * 2 + 1


step(torch.randn(8))
print("compiled", flush=True)
os.kill(os.getpid(), signal.SIGKILL)  # after the compile, before the program's end
"""


def _trace_left(folder: Path) -> Path:
    """The trace the killed run left: at its final name, or as the hidden file it is written to
    while the run goes on (`.compilescope-killed.log.<hex>.partial`)."""
    found = [*folder.glob("compilescope-killed.log"), *folder.glob(".compilescope-killed.log.*.partial")]
    assert len(found) == 1, sorted(p.name for p in folder.iterdir())
    return found[0]


@pytest.mark.parametrize(
    ("kill", "said"),
    [
        (
            "mid-compile",
            "the run stopped during compile 0/0 and the program did not finish (no end was recorded: killed?); what follows is partial",
        ),
        ("after-compile", "the program did not finish (no end was recorded: killed?); what follows is partial"),
    ],
)
def test_a_killed_run_is_partial_in_report_and_check(tmp_path: Path, kill: str, said: str) -> None:
    # GIVEN a program killed (SIGKILL) under compilescope run, mid-compile or after it
    (tmp_path / "killed.py").write_text(PROGRAM, encoding="utf-8")
    killed = run_cli("run", "killed.py", cwd=tmp_path, env={"KILL": kill}, timeout=600)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    assert ("compiled" in killed.stdout) == (kill == "after-compile")
    trace = str(_trace_left(tmp_path))
    # WHEN what it left is reported, THEN the report leads with what is partial
    report = run_cli("report", trace, cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert " ".join(report.stdout.split()).startswith(f"⚠ {said} compilescope · trace ")
    # and check fails on it, in one line saying why, where it held no graph break
    check = run_cli("check", trace, "--max-graph-breaks", "0", cwd=tmp_path)
    assert check.returncode == 1, check.stdout
    assert check.stdout.splitlines()[1:] == [f"  ✖ {trace} is partial: {said} (--allow-incomplete checks what it holds)"]
    # unless partial runs are allowed: then what it holds passes
    allowed = run_cli("check", trace, "--max-graph-breaks", "0", "--allow-incomplete", cwd=tmp_path)
    assert allowed.returncode == 0, allowed.stdout
    assert allowed.stdout.startswith("compilescope check: passed (at most 0 graph breaks (places))")


DAEMON = """\
import threading
import time

import torch


compiling = threading.Event()


def slow(gm, example_inputs):
    compiling.set()
    time.sleep(120)  # still compiling when the program ends (a daemon thread is not waited for)
    return gm.forward


@torch.compile(backend=slow)
def step(x):
    return x * 2


threading.Thread(target=step, args=(torch.randn(4),), daemon=True).start()
compiling.wait(300)
print("main done", flush=True)
"""


def test_a_program_that_ends_while_a_thread_compiles_says_so_in_runs_explanation(tmp_path: Path) -> None:
    # GIVEN a program whose main thread ends while a daemon thread is still compiling
    (tmp_path / "daemon.py").write_text(DAEMON, encoding="utf-8")
    # WHEN it runs under compilescope
    done = run_cli("run", "--no-html", "daemon.py", cwd=tmp_path, timeout=600)
    # THEN it ends as under python, and the explanation leads with the compile it never saw end
    assert done.returncode == 0, done.stderr[-2000:]
    said = "⚠ the program ended during compile 0/0 (in a thread still compiling?); what follows is partial"
    assert " ".join(done.stderr.split()).startswith(f"{said} compilescope · script daemon.py · exit status 0")
    check = run_cli("check", "compilescope-daemon.json", "--max-recompiles", "0", cwd=tmp_path)
    assert check.returncode == 1 and "compilescope-daemon.json is partial: the program ended during compile 0/0" in check.stdout
