"""Which compiled version served each call of each compiled frame, and how long the call took.

Dynamo tells a bytecode hook about every code object it generates, before that code first runs
(the transformed code of each compiled version, and of each resume function). On Python 3.12 and
newer, `sys.monitoring` can then watch exactly those code objects, and the original code of the
same functions, for the start and end of each call: nothing else in the program is instrumented,
no torch setting changes and Dynamo runs its own code. A call of the original code is a call that
ran without compiled code: the function called outside torch.compile, or Dynamo falling back.

Python 3.10 and 3.11 have no `sys.monitoring`; a global trace or profile function would slow every
Python call in the program, so there the recorder says it is not available instead.

Times are host times (`time.perf_counter_ns`) from the first to the last instruction of the
frame, including what it calls (a resume function after a graph break, say). On a GPU, kernels run
asynchronously, so they measure launching the work, not finishing it.
"""

from __future__ import annotations

import sys
import threading
import time
from array import array
from collections.abc import Callable
from types import CodeType
from typing import Any

from compilescope.record.hook_failures import HookFailures
from compilescope.trace.reader import CompileId

# Per-call times are kept for at most this many calls of each version (every call, then every
# 2nd, 4th, ... call: spread over the whole run): enough for a stable median and IQR, and bounded
# for a run of millions of calls.
SAMPLE_SIZE = 4096
CHUNK = 65536  # raw call times held before they are folded into count, total and sample
# The order in which versions served a frame's calls, as runs ("0/0" x 2, "0/1" x 40, ...), is kept
# up to this many runs per frame; a frame that keeps switching is cut off there, and says so.
ORDER_RUNS = 1000
EAGER = "no compiled code"
# sys.monitoring's tool ids 3 and 4 are not reserved by CPython for debuggers, coverage,
# profilers or optimizers; take whichever is free so that we never displace a user's tool.
_TOOL_IDS = (4, 3)


class _Watched:
    """One code object we count calls of: a compiled version, or a function's original code.

    The callbacks only append each call's time to `times` (an array of int64, 8 bytes a call);
    every CHUNK calls `fold()` turns them into the count, the total and a bounded sample."""

    __slots__ = ("label", "compile_id", "frame", "order", "times", "calls", "raised", "total_ns", "samples", "stride")

    def __init__(self, label: str, compile_id: dict[str, Any] | None, frame: tuple[str, int, str], order: list[list[Any]]) -> None:
        self.label = label  # "0/1", or EAGER for the original code
        self.compile_id = compile_id
        self.frame = frame  # the function, as the session keys frames: (file, first line, name)
        self.order = order  # the function's runs, shared by all its watched codes: [[watched, n], ...]
        self.times = array("q")
        self.calls = 0
        self.raised = 0
        self.total_ns = 0
        self.samples: list[int] = []
        self.stride = 1  # the sample holds every stride-th call

    def fold(self) -> None:
        times, self.times = self.times, array("q")
        samples = self.samples
        for number, elapsed in enumerate(times, start=self.calls + 1):  # the call's number in the run
            if number % self.stride == 0:
                samples.append(elapsed)
                if len(samples) >= SAMPLE_SIZE:
                    # Full: keep every other sample and from now on every other call, so the
                    # sample stays spread evenly over the whole run.
                    del samples[1::2]
                    self.stride *= 2
        self.calls += len(times)
        self.total_ns += sum(times)

    def facts(self) -> dict[str, Any]:
        from compilescope.stats import (
            summary,  # (statistics imports random, hashlib: only when needed)
        )

        self.fold()
        stats = summary([s / 1000 for s in self.samples]) if self.samples else None
        return {
            "compile_id": self.compile_id,
            "label": self.label,
            "frame": list(self.frame),
            "calls": self.calls,
            "raised": self.raised,
            "total_ms": self.total_ns / 1e6,
            "median_us": stats["median"] if stats else None,
            "iqr_us": [stats["q1"], stats["q3"]] if stats else None,
            "sampled": len(self.samples),
        }


class CallRecorder:
    """Counts and times the calls each compiled version serves, while attached."""

    def __init__(self) -> None:
        self.unavailable: str | None = None
        self.failures = HookFailures("counting calls")
        self._tool: int | None = None
        self._hook_handle: Any = None
        # Keyed by id(code): a code object's own hash and == walk its bytecode and constants,
        # which costs microseconds per call for a large transformed function. The codes are kept
        # alive in _codes, so no id is reused while we watch.
        self._watched: dict[int, _Watched] = {}
        self._codes: list[CodeType] = []
        # function (file, first line, name) -> [[label, calls in a row], ...]; keyed by function,
        # not by code object, since the resume functions Dynamo makes for both sides of a branch
        # are one function to the user.
        self._order: dict[tuple[str, int, str], list[list[Any]]] = {}
        self._order_cut: set[tuple[str, int, str]] = set()
        self._local = threading.local()  # .stack: start times of this thread's watched calls
        self._lock = threading.Lock()

    # ---- attaching -----------------------------------------------------------------------------
    def start(self, now: bool = True) -> None:
        """Start recording (`now`), or, with now=False, only say whether calls can be recorded
        here: Capture starts the watching with `hook_dynamo()` once the program imports Dynamo.
        Until then there is no compiled code to watch, and a program that never compiles is not
        instrumented at all (nor made to import Dynamo)."""
        if getattr(sys, "monitoring", None) is None:
            self.unavailable = (
                f"not recorded on Python {sys.version_info.major}.{sys.version_info.minor}: counting the calls each "
                "compiled version serves needs sys.monitoring (Python 3.12 or newer); "
                "`compilescope run --profile` counts them from torch.profiler instead"
            )
            return
        if now:
            self.hook_dynamo()

    def hook_dynamo(self) -> None:
        """Start watching: have Dynamo tell us each code object it generates. Called once Dynamo
        is imported (record/import_hook.py), before it can generate any."""
        if self.unavailable is not None or self._tool is not None:
            return
        monitoring = sys.monitoring
        tool = next((t for t in _TOOL_IDS if monitoring.get_tool(t) is None), None)
        if tool is None:
            self.unavailable = "not recorded: sys.monitoring tool ids 3 and 4 are both taken by other tools"
            return
        import compilescope.record.torch_adapter as torch_adapter

        monitoring.use_tool_id(tool, "compilescope")
        self._tool = tool
        events = monitoring.events
        on_start, on_return, on_unwind = self._callbacks()
        monitoring.register_callback(tool, events.PY_START, on_start)
        monitoring.register_callback(tool, events.PY_RETURN, on_return)
        # An exception leaving a watched frame: PY_UNWIND is not a local event, so it is on for
        # the whole program (from Dynamo's import on), and costs a dict lookup per frame an
        # exception unwinds.
        monitoring.register_callback(tool, events.PY_UNWIND, on_unwind)
        monitoring.set_events(tool, events.PY_UNWIND)
        handle = torch_adapter.register_bytecode_hook(self._on_new_code)
        if isinstance(handle, str):
            self.stop()
            self.unavailable = f"not recorded: {handle}"
            return
        self._hook_handle = handle

    def stop(self) -> None:
        if self._hook_handle is not None:
            self._hook_handle.remove()
            self._hook_handle = None
        if self._tool is None:
            return
        monitoring = sys.monitoring
        tool, self._tool = self._tool, None
        monitoring.set_events(tool, 0)
        for code in self._codes:
            monitoring.set_local_events(tool, code, 0)
        for event in (monitoring.events.PY_START, monitoring.events.PY_RETURN, monitoring.events.PY_UNWIND):
            monitoring.register_callback(tool, event, None)
        monitoring.free_tool_id(tool)

    def watching(self, on: bool) -> None:
        """Turn the callbacks on or off for every code watched so far (an A/B switch for
        benchmarks/call_recording_overhead.py; Dynamo's hook keeps adding new codes, switched on)."""
        if self._tool is None:
            return
        events = sys.monitoring.events
        for code in self._codes:
            sys.monitoring.set_local_events(self._tool, code, (events.PY_START | events.PY_RETURN) if on else 0)

    # ---- Dynamo's hook: runs inside the compile, before the new code's first call ---------------
    def _on_new_code(self, original: CodeType, transformed: CodeType) -> None:
        label = f"a compiled version of {getattr(original, 'co_name', '?')}"
        try:
            import compilescope.record.torch_adapter as torch_adapter

            compile_id = torch_adapter.current_compile_id()
            # torch's own spelling: "0/1", "0/0_1" after a restart
            label = str(CompileId(**compile_id)) if compile_id else f"unknown ({transformed.co_name})"
            frame = (original.co_filename, original.co_firstlineno, original.co_name)
            with self._lock:
                order = self._order.setdefault(frame, [[None, 0]])  # a first run that matches nothing
                self._watch(transformed, _Watched(label, compile_id, frame, order))
                self._watch(original, _Watched(EAGER, None, frame, order))
        except Exception as error:  # counting calls is a bonus: never let it fail a compile, but say so
            self.failures.add(error, f"{label} ({getattr(original, 'co_name', '?')})")
        return None  # keep Dynamo's code

    def _watch(self, code: CodeType, watched: _Watched) -> None:
        if self._tool is None or id(code) in self._watched:
            return
        self._codes.append(code)
        self._watched[id(code)] = watched
        events = sys.monitoring.events
        sys.monitoring.set_local_events(self._tool, code, events.PY_START | events.PY_RETURN)

    # ---- sys.monitoring callbacks: they run on every watched call, so they are closures over
    # local names (no attribute lookups) and do as little as they can ---------------------------
    def _callbacks(self) -> tuple[Callable[..., Any], Callable[..., Any], Callable[..., Any]]:
        watched_codes = self._watched
        local = self._local
        now = time.perf_counter_ns
        disable = sys.monitoring.DISABLE
        new_run = self._new_run

        # Calls nest within a thread, so one stack of start times per thread pairs each return
        # with its start, whichever watched code it belongs to.
        def on_start(code: CodeType, offset: int) -> Any:
            watched = watched_codes.get(id(code))
            if watched is None:
                return disable
            last = watched.order[-1]
            if last[0] is watched:
                last[1] += 1
            else:
                new_run(watched)
            try:
                local.stack.append(now())
            except AttributeError:  # this thread's first watched call
                local.stack = [now()]
            return None

        def on_return(code: CodeType, offset: int, value: Any) -> Any:
            end = now()
            watched = watched_codes.get(id(code))
            if watched is None:
                return disable
            stack = getattr(local, "stack", None)
            if stack:
                times = watched.times
                times.append(end - stack.pop())
                if len(times) >= CHUNK:
                    watched.fold()
            return None

        def on_unwind(code: CodeType, offset: int, exception: BaseException) -> None:
            end = now()
            watched = watched_codes.get(id(code))
            if watched is not None:
                stack = getattr(local, "stack", None)
                if stack:
                    watched.times.append(end - stack.pop())
                    watched.raised += 1

        return on_start, on_return, on_unwind

    def _new_run(self, watched: _Watched) -> None:
        order = watched.order
        if len(order) <= ORDER_RUNS:  # (its first entry is the empty run it starts with)
            order.append([watched, 1])
        else:  # a function that keeps switching versions: its order is kept up to here
            self._order_cut.add(watched.frame)

    # ---- the record ----------------------------------------------------------------------------
    def facts(self) -> dict[str, Any]:
        """What goes into the trace as the `compilescope_calls` record."""
        if self.unavailable is not None:
            return {"unavailable": self.unavailable}
        with self._lock:
            watched = list(self._watched.values())
            versions = [w.facts() for w in watched if w.label != EAGER]
            eager = [w.facts() for w in watched if w.label == EAGER]
        return {
            "method": (
                f"sys.monitoring (Python {sys.version_info.major}.{sys.version_info.minor}): host time from a call's "
                "first to its last instruction, including what it calls; GPU work is not waited for"
            ),
            "sample_size": SAMPLE_SIZE,
            "versions": versions,
            "eager": eager,
            "order": [
                {"frame": list(frame), "runs": [[w.label, n] for w, n in runs[1:]], "cut": frame in self._order_cut}
                for frame, runs in list(self._order.items())
            ],
            **self.failures.facts(),
        }
