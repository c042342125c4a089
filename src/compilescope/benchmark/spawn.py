"""Starting a measuring worker (benchmark/worker.py) and ending it at its time limit.

The worker gets a process group of its own, so that at the limit the compile workers Inductor
started under it (its subprocess pool) end with it instead of compiling on, orphaned, into the
next measurement."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any


class TimedOut(Exception):
    """The worker ran past its time limit and was stopped."""


_LIVE: set[subprocess.Popen[str]] = set()  # the workers running now (the zoo runs several at once)
_LIVE_LOCK = threading.Lock()


def stop_all() -> None:
    """End every worker running now, and their compile workers (Ctrl-C in a sweep: the workers
    have process groups of their own, so the terminal's interrupt does not reach them)."""
    with _LIVE_LOCK:
        live = list(_LIVE)
    for process in live:
        _kill_group(process)


def run_worker(spec: dict[str, Any], env: dict[str, str], timeout: float) -> dict[str, Any]:
    """Run `python -m compilescope.benchmark.worker SPEC` and return what it wrote. A worker
    that died without writing (killed, out of memory, a crash in native code) comes back as
    {"error": "worker failed: <its last line on stderr>"}; past `timeout` seconds: TimedOut."""
    with tempfile.NamedTemporaryFile("r", suffix=".json", delete=False) as handle:
        out_path = handle.name
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "compilescope.benchmark.worker", json.dumps({**spec, "out": out_path})],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
            start_new_session=True,
        )
        with _LIVE_LOCK:
            _LIVE.add(process)
        try:
            _, stderr = process.communicate(timeout=max(timeout, 0.1))
        except subprocess.TimeoutExpired:
            _stop(process)
            raise TimedOut from None
        except BaseException:  # Ctrl-C in the parent: the worker and its compile workers end too
            _stop(process)
            raise
        finally:
            # The worker's own children (Inductor's compile pool) may outlive it: end them.
            _kill_group(process)
            with _LIVE_LOCK:
                _LIVE.discard(process)
        text = Path(out_path).read_text(encoding="utf-8") if Path(out_path).exists() else ""
        if process.returncode != 0 or not text:
            last = [line for line in stderr.splitlines() if line.strip()][-1:] or [f"exit status {process.returncode}, no output"]
            return {"error": f"worker failed: {last[0][:500]}", "failed_at": "the worker process"}
        result: dict[str, Any] = json.loads(text)
        return result
    finally:
        Path(out_path).unlink(missing_ok=True)


def _kill_group(process: subprocess.Popen[str]) -> None:
    """SIGKILL to the worker's process group: the worker and every process started under it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def _stop(process: subprocess.Popen[str]) -> None:
    """End the worker's group now, and wait for the worker (no zombie left behind)."""
    _kill_group(process)
    with contextlib.suppress(Exception):
        process.communicate(timeout=10)
