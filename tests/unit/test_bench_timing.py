"""bench's warm-up and timed rounds on given clocks: the rules, with no real waiting (the
measurement itself is checked against a plain loop in tests/test_bench_trust.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from compilescope.benchmark import timing


class Timeline:
    """A clock for one test: each timed call takes the next time given, and the wall clock
    moves by 10 ms a call (the time measured, and what is around it)."""

    def __init__(self, times: Iterator[float]) -> None:
        self.times, self.now_s = times, 0.0

    def ms(self, call: Callable[[], Any]) -> float:
        call()
        self.now_s += 0.010
        return next(self.times)

    def now(self) -> float:
        return self.now_s


def _falling_then_flat(fall_calls: int) -> Iterator[float]:
    """From 10 ms down to 5 ms, evenly over `fall_calls` calls, then 5 ms."""
    n = 0
    while True:
        yield 10.0 - 5.0 * min(n, fall_calls) / fall_calls
        n += 1


def test_warm_up_runs_until_times_stop_falling_and_the_floor_has_passed() -> None:
    timeline = Timeline(_falling_then_flat(fall_calls=200))
    warm = timing.warm_up((lambda: None, lambda: None), timeline, min_calls=3, floor_s=1.0, now=timeline.now)
    assert warm.steady is True and warm.seconds >= 1.0
    # two steps share the timeline: 100 calls of each while times fell, then two windows flat
    assert 100 < warm.calls <= 200, warm


def test_warm_up_that_never_settles_stops_at_its_limit_and_says_so() -> None:
    timeline = Timeline(10.0 * 0.99**n for n in range(10**9))  # every call faster than the last
    warm = timing.warm_up((lambda: None,), timeline, min_calls=3, floor_s=1.0, limit_s=5.0, now=timeline.now)
    assert warm.steady is False and 5.0 <= warm.seconds < 5.1


class _Busy:
    def __init__(self, others: float) -> None:
        self.value = others

    def others(self) -> float:
        return self.value


def test_a_busy_machine_is_measured_again_and_the_quietest_round_kept() -> None:
    timeline = Timeline(iter([1.0, 1.1, 0.9, 1.05] * 1000))
    busy = iter([1.9, 1.2, 1.6])  # cores' worth of CPU others took, round by round
    slept: list[float] = []
    chosen = timing.timed_rounds(
        lambda: None, lambda: None, timeline, runs=20, threads=2, available=2,
        watch=lambda: _Busy(next(busy)), sleep=slept.append,  # type: ignore[arg-type,return-value]
    )  # fmt: skip
    assert chosen.rounds == 3 and chosen.busy and chosen.others_cpu == 1.2
    assert chosen.verdict.word == "too noisy to say" and chosen.verdict.why.startswith("the machine was busy")
    assert slept == [1.0, 1.0]  # between rounds, not after the last
