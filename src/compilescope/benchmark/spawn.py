"""Starting a measuring worker (benchmark/worker.py) and ending it at its time limit.

The worker gets a process group of its own, so that at the limit the compile workers Inductor
started under it (its subprocess pool) end with it instead of compiling on, orphaned, into the
next measurement. A worker is a fresh `python -m compilescope.benchmark.worker`, or, where a
Starter is given (the zoo), forked from a process that has imported torch already
(benchmark/starter.py: the same worker, without seconds of imports each time)."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any


class TimedOut(Exception):
    """The worker ran past its time limit and was stopped."""


_LIVE: set[int] = set()  # the process groups of the workers running now (the zoo runs several at once)
_LIVE_LOCK = threading.Lock()
STARTER_IMPORT_LIMIT_S = 300  # (torch, transformers and timm import in seconds; past this, something hangs)


def stop_all() -> None:
    """End every worker running now, and their compile workers (Ctrl-C in a sweep: the workers
    have process groups of their own, so the terminal's interrupt does not reach them)."""
    with _LIVE_LOCK:
        live = list(_LIVE)
    for group in live:
        _kill_group(group)


class Starter:
    """benchmark/starter.py, running: `preload` imported once, a worker forked per `run`.
    Where it cannot start (a module that does not import, CUDA initialised by an import),
    `ready` is False and `why` says why; run_worker then starts fresh processes."""

    def __init__(self, preload: list[str], env: dict[str, str] | None = None) -> None:
        self._process = subprocess.Popen(
            [sys.executable, "-m", "compilescope.benchmark.starter", *preload],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            errors="replace",
            start_new_session=True,  # (the terminal's Ctrl-C is the parent's to handle)
        )
        self._lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        try:
            first = self._next(timeout=STARTER_IMPORT_LIMIT_S)
        except queue.Empty:
            first = {"why": f"its imports took over {STARTER_IMPORT_LIMIT_S} s"}
        self.ready = bool(first and first.get("ready"))
        self.why = "" if self.ready else str((first or {}).get("why") or "it ended while importing")
        if not self.ready:
            self.close()

    def _read(self) -> None:
        assert self._process.stdout is not None
        for line in self._process.stdout:
            with contextlib.suppress(ValueError):
                self._lines.put(json.loads(line))
        self._lines.put(None)  # (it ended)

    def _next(self, timeout: float) -> dict[str, Any] | None:
        """The starter's next message; None where it ended; queue.Empty past `timeout`."""
        return self._lines.get(timeout=max(timeout, 0.01))

    def run(self, spec_json: str, env: dict[str, str], log: str, timeout: float) -> int | None:
        """Fork a worker; its exit status, or None where the starter itself ended (the caller
        then has no worker result). Past `timeout`: its group is killed, and TimedOut."""
        assert self._process.stdin is not None
        deadline = time.monotonic() + timeout
        try:
            self._process.stdin.write(json.dumps({"spec": spec_json, "env": env, "log": log}) + "\n")
            self._process.stdin.flush()
        except (BrokenPipeError, OSError):
            return None
        started = self._next(timeout=60)
        if started is None:
            return None
        group = int(started["pid"])
        with _running(group):
            try:
                ended = self._next(timeout=deadline - time.monotonic())
            except queue.Empty:
                _kill_group(group)
                with contextlib.suppress(queue.Empty):
                    self._next(timeout=30)  # (its exit, once killed)
                raise TimedOut from None
        return None if ended is None else int(ended["exit"])

    def close(self) -> None:
        with contextlib.suppress(Exception):
            assert self._process.stdin is not None
            self._process.stdin.close()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


def run_worker(spec: dict[str, Any], env: dict[str, str], timeout: float, starter: Starter | None = None) -> dict[str, Any]:
    """Run the worker on `spec` and return what it wrote. A worker that died without writing
    (killed, out of memory, a crash in native code) comes back as
    {"error": "worker failed: <its last line on stderr>"}; past `timeout` seconds: TimedOut."""
    with tempfile.NamedTemporaryFile("r", suffix=".json", delete=False) as handle:
        out_path = handle.name
    log_path = out_path[: -len(".json")] + ".log"
    spec_json = json.dumps({**spec, "out": out_path})
    try:
        status = starter.run(spec_json, env, log_path, timeout) if starter is not None and starter.ready else None
        if status is None:
            status = _run_fresh(spec_json, env, log_path, timeout)
        text = Path(out_path).read_text(encoding="utf-8") if Path(out_path).exists() else ""
        if status != 0 or not text:
            log = Path(log_path).read_text(encoding="utf-8", errors="replace") if Path(log_path).exists() else ""
            last = [line for line in log.splitlines() if line.strip()][-1:] or [f"exit status {status}, no output"]
            return {"error": f"worker failed: {last[0][:500]}", "failed_at": "the worker process"}
        result: dict[str, Any] = json.loads(text)
        return result
    finally:
        Path(out_path).unlink(missing_ok=True)
        Path(log_path).unlink(missing_ok=True)


def _run_fresh(spec_json: str, env: dict[str, str], log_path: str, timeout: float) -> int:
    """The worker as a new process; its exit status."""
    with open(log_path, "w", encoding="utf-8") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "compilescope.benchmark.worker", spec_json],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    with _running(process.pid):
        try:
            process.wait(timeout=max(timeout, 0.1))
        except BaseException as error:  # past the limit, or Ctrl-C in the parent: it ends now, and is reaped
            _kill_group(process.pid)
            with contextlib.suppress(Exception):
                process.wait(timeout=10)
            if isinstance(error, subprocess.TimeoutExpired):
                raise TimedOut from None
            raise
    return process.returncode


@contextlib.contextmanager
def _running(group: int) -> Iterator[None]:
    """While a worker runs: its process group listed for stop_all; when it ends, however it
    ends (exit, time limit, Ctrl-C in the parent), the group killed: the worker's own children,
    Inductor's compile pool, may outlive it."""
    with _LIVE_LOCK:
        _LIVE.add(group)
    try:
        yield
    finally:
        _kill_group(group)
        with _LIVE_LOCK:
            _LIVE.discard(group)


def _kill_group(group: int) -> None:
    """SIGKILL to a worker's process group: the worker and every process started under it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGKILL)
