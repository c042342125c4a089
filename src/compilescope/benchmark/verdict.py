"""Does compiling pay off per call, and are the figures sure enough to say so? No torch here.

The speedup is eager's median call over compiled's. How sure it is comes from a bootstrap:
resample each side's timed calls (with replacement, a fixed seed so the same figures give the
same verdict) and take the ratio of medians each time; the middle 90% of those ratios is the
range the speedup could plausibly have. A verdict is given only when that range settles it:

- "faster": the speedup is at least 1.05x and even the low end of the range is above 1x;
- "slower": at most 0.95x and even the high end is below 1x;
- "about even": within 5% either way, and the range within 10%;
- "too noisy to say": anything else: the range's high end is more than 1.5 times its low end
  (a speedup of 1.1x to 11x is no figure to act on), it straddles a boundary, or the machine was
  busy while it measured.
"""

from __future__ import annotations

import random
import statistics
from dataclasses import dataclass

EVEN = 0.05  # within 5%: about even (the table colours speedups the same way)
EVEN_RANGE = 0.10  # "about even" also needs the plausible range within 10%
RESAMPLES = 400
WIDEST = 1.5  # a range wider than this (high over low) says too little, whichever side it is on


@dataclass
class Verdict:
    word: str  # "faster", "slower", "about even", "too noisy to say"
    why: str
    low: float | None = None  # the plausible range of the speedup (90% of resamples)
    high: float | None = None

    @property
    def settled(self) -> bool:
        return self.word != "too noisy to say"


def speedup_range(eager_ms: list[float], compiled_ms: list[float], seed: int = 0) -> tuple[float, float]:
    """The middle 90% of the ratio of medians over bootstrap resamples of both sides."""
    rng = random.Random(seed)
    ratios = []
    for _ in range(RESAMPLES):
        eager = statistics.median(rng.choices(eager_ms, k=len(eager_ms)))
        compiled = statistics.median(rng.choices(compiled_ms, k=len(compiled_ms)))
        if compiled > 0:
            ratios.append(eager / compiled)
    if not ratios:
        return (float("nan"), float("nan"))
    ratios.sort()
    return ratios[int(0.05 * (len(ratios) - 1))], ratios[int(0.95 * (len(ratios) - 1))]


def judge(eager_ms: list[float], compiled_ms: list[float], busy_why: str | None = None) -> Verdict:
    """The verdict on one set of timed calls. `busy_why`: what made the machine busy while they
    were timed (then no verdict is given, whatever the figures say)."""
    eager, compiled = statistics.median(eager_ms), statistics.median(compiled_ms)
    if compiled <= 0:
        return Verdict("too noisy to say", "the compiled calls took no measurable time")
    speedup = eager / compiled
    low, high = speedup_range(eager_ms, compiled_ms)
    plausible = f"the speedup could plausibly be {low:.2f}x to {high:.2f}x"
    if busy_why:
        return Verdict(
            "too noisy to say",
            f"{busy_why}, in every round; times taken then measure the other work too: run it again on a quiet machine",
            low,
            high,
        )
    if not low > 0 or high / low > WIDEST:
        return Verdict("too noisy to say", f"the calls' times vary too much: {plausible}", low, high)
    if speedup >= 1 + EVEN and low > 1.0:
        return Verdict("faster", f"compiled is {speedup:.2f}x as fast; {plausible}", low, high)
    if speedup <= 1 - EVEN and high < 1.0:
        return Verdict("slower", f"compiled takes {1 / speedup:.2f}x as long; {plausible}", low, high)
    if 1 - EVEN <= speedup <= 1 + EVEN and low >= 1 - EVEN_RANGE and high <= 1 + EVEN_RANGE:
        return Verdict("about even", f"within 5% either way; {plausible}", low, high)
    return Verdict("too noisy to say", f"the calls' times vary too much: {plausible}", low, high)


def relative_spread(samples: list[float]) -> float:
    """The interquartile range over the median: 0.05 is a steady 5%, 1.0 is all over the place."""
    if len(samples) < 2:
        return 0.0
    q1, _, q3 = statistics.quantiles(samples, n=4, method="inclusive")
    median = statistics.median(samples)
    return (q3 - q1) / median if median > 0 else float("inf")
