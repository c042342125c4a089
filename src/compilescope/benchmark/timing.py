"""How bench times calls: one call on a clock (CUDA events and a synchronize on a GPU), the
warm-up until the times stop falling, and the timed rounds: eager and compiled in turns, taken
again while the machine is busy or the figures do not settle the verdict.

measure.py runs these for one configuration; tests give them their own clocks (no real waiting).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from compilescope.benchmark.conditions import CpuWatch, is_busy
from compilescope.benchmark.verdict import Verdict, judge, relative_spread

GPU_WARMUP_SECONDS = 2.0
CPU_WARMUP_SECONDS = 1.0
WARMUP_LIMIT_SECONDS = 30.0  # a warm-up whose times still fall after this is reported as such
MAX_ROUNDS = 3  # a busy or unsettled measurement is taken again, at most this many times in all


class CallTimer(Protocol):
    def ms(self, call: Callable[[], Any]) -> float: ...


class Clock:
    """Times one call; on CUDA with events around it and a synchronize after."""

    def __init__(self, device: str) -> None:
        import torch

        self.cuda = device.startswith("cuda") and torch.cuda.is_available()
        if self.cuda:
            self.start = torch.cuda.Event(enable_timing=True)
            self.end = torch.cuda.Event(enable_timing=True)

    def ms(self, call: Callable[[], Any]) -> float:
        import torch

        if self.cuda:
            torch.cuda.synchronize()
            self.start.record()
            call()
            self.end.record()
            torch.cuda.synchronize()
            return float(self.start.elapsed_time(self.end))
        started = time.perf_counter()
        call()
        return (time.perf_counter() - started) * 1000.0


@dataclass
class WarmUp:
    calls: int  # of each step
    seconds: float
    steady: bool | None  # None: too few calls to tell (a slow model)


def _still_falling(times: list[float]) -> bool | None:
    """Are the latest calls still faster than the ones before them (by more than 3%)? None
    while there are too few calls to compare two windows of them."""
    window = max(3, min(50, len(times) // 4))
    if len(times) < 2 * window:
        return None
    latest = statistics.median(times[-window:])
    before = statistics.median(times[-2 * window : -window])
    return latest < 0.97 * before


def warm_up(
    steps: tuple[Callable[[], Any], ...],
    clock: CallTimer,
    min_calls: int,
    floor_s: float,
    limit_s: float = WARMUP_LIMIT_SECONDS,
    now: Callable[[], float] = time.perf_counter,
) -> WarmUp:
    """Call the steps in turn, at least `min_calls` times and `floor_s` seconds, until none of
    their per-call times is falling any more (or `limit_s` has passed). `clock` times each call;
    `now` is the wall clock the floor and the limit are counted on (a test gives its own)."""
    times: list[list[float]] = [[] for _ in steps]
    started = now()
    calls = 0
    while True:
        for step, record in zip(steps, times):
            record.append(clock.ms(step))
        calls += 1
        elapsed = now() - started
        if calls < min_calls or elapsed < floor_s:
            continue
        falling = [_still_falling(record) for record in times]
        if not any(falling) and all(f is not None for f in falling):
            return WarmUp(calls, elapsed, True)
        if elapsed >= limit_s:
            return WarmUp(calls, elapsed, None if None in falling else False)


@dataclass
class Round:
    eager_ms: list[float]
    compiled_ms: list[float]
    others_cpu: float | None
    busy: bool
    verdict: Verdict
    rounds: int = 1


def _busy_why(others_cpu: float | None, available: int, threads: int) -> str | None:
    if not is_busy(others_cpu, threads, available):
        return None
    needed = f"torch's {threads} threads" if threads != 1 else "the measuring thread"
    return f"the machine was busy: other processes used {others_cpu:.1f} of its {available} cores, which {needed} needed"


def timed_rounds(
    eager_step: Callable[[], Any],
    compiled_step: Callable[[], Any],
    clock: CallTimer,
    runs: int,
    threads: int,
    available: int,
    watch: Callable[[], CpuWatch] = CpuWatch.start,
    sleep: Callable[[float], None] = time.sleep,
) -> Round:
    """`runs` timed calls of each, in turns; taken again (at most MAX_ROUNDS in all) while
    the machine is busy or the figures do not settle the verdict. The round kept is the first
    settled one, else the quietest (the least CPU taken by others, then the narrowest spread).
    `watch` starts the count of other processes' CPU, `sleep` waits between busy rounds (a test
    gives its own of each: no real waiting)."""
    taken: list[Round] = []
    for attempt in range(MAX_ROUNDS):
        watching = watch()
        eager_ms: list[float] = []
        compiled_ms: list[float] = []
        block = max(1, min(10, runs // 10))
        index = 0
        while len(eager_ms) < runs:
            # Take turns in short blocks, and swap who goes first, so neither gets a quieter
            # moment. Not call by call: each call then found the other's weights in the CPU's
            # caches, which made an MLP's eager calls 12% slower than in a plain loop. The
            # first call of a block only brings its own back, untimed.
            count = min(block, runs - len(eager_ms))
            order = ((eager_step, eager_ms), (compiled_step, compiled_ms))
            for step, record in order if index % 2 == 0 else reversed(order):
                step()
                record.extend(clock.ms(step) for _ in range(count))
            index += 1
        others = watching.others()
        busy_why = _busy_why(others, available, threads)
        verdict = judge(eager_ms, compiled_ms, busy_why)
        taken.append(Round(eager_ms, compiled_ms, others, busy_why is not None, verdict))
        if verdict.settled:
            break
        if busy_why and attempt < MAX_ROUNDS - 1:
            sleep(1.0)  # give the other work a moment to pass before the next round
    settled = [r for r in taken if r.verdict.settled]
    chosen = (
        settled[0]
        if settled
        else min(taken, key=lambda r: (r.others_cpu or 0.0, relative_spread(r.eager_ms) + relative_spread(r.compiled_ms)))
    )
    chosen.rounds = len(taken)
    return chosen
