"""A CI gate over a run: limits on graph breaks, recompiles and compile time, and nothing new
compared with a baseline run. Each violation is one sentence naming what crossed the line.

Counted as session/counts.py counts, in its words: --max-graph-breaks limits the graph breaks'
places (a break met again by a recompile is one place; the recompile is counted as such), and a
break is new where its place is new (torch's wording of its reason may change between runs).

A gate compares only what it can: a value it reads that is not a number (NaN, an infinity, a
negative time, the wrong type) or is missing (a compile whose time the session does not hold, a
graph break whose break is not there) fails the gate, saying which value and where, instead of
passing because a comparison with NaN is false. A partial run (session.model.Incomplete) fails
too, unless the limits allow it: a run that stopped early has had less time to break any limit.

Used by `compilescope check` (exit status 1 where any is found) and by compilescope.check() in a
test (an empty list where the run is within its limits).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from compilescope.findings.diff import diff
from compilescope.findings.finding import plural, seconds
from compilescope.session.counts import counts, said
from compilescope.session.model import Compile, Session

SHOWN = 5  # new items named per aspect; the rest are counted


@dataclass
class Limits:
    max_graph_breaks: int | None = None
    max_recompiles: int | None = None
    max_compile_s: float | None = None
    allow_incomplete: bool = False  # a partial run is checked for what it holds, not failed for being partial

    @property
    def any(self) -> bool:
        return any(v is not None for v in (self.max_graph_breaks, self.max_recompiles, self.max_compile_s))


def violations(
    session: Session,
    limits: Limits,
    baseline: Session | None = None,
    label: str = "",
    name: str = "the run",
    baseline_name: str = "the baseline",
) -> list[str]:
    """What in `session` breaks `limits`, or is new compared with `baseline`; what of either the
    gates cannot compare; either's being partial. `label` starts each sentence ("rank 1: "), for
    a job of several ranks; `name` and `baseline_name` say where each came from (their paths)."""
    out = []
    if not limits.allow_incomplete:
        for run, called in ((session, name), (baseline, baseline_name)):
            if run is not None and run.incomplete is not None:
                out.append(f"{label}{called} is partial: {run.incomplete.reason} (--allow-incomplete checks what it holds)")
    # What a gate would compare that is not there, or not a number: said, and that gate compares
    # nothing (a NaN is more than no limit, and less than none)
    unreadable_limits = _limits_unreadable(limits)
    unreadable_times = _times_unreadable(session, limits, name)
    unreadable_counts = _counts_unreadable(session, limits, name, baseline is not None)
    if baseline is not None:
        unreadable_counts += _counts_unreadable(baseline, Limits(allow_incomplete=limits.allow_incomplete), baseline_name, True)
    out += [f"{label}{reason}" for reason in unreadable_limits + unreadable_times + unreadable_counts]
    if unreadable_limits:
        return out
    counted = counts(session)
    if unreadable_counts:
        limits = Limits(max_compile_s=limits.max_compile_s)
        baseline = None
    if unreadable_times:
        limits = Limits(limits.max_graph_breaks, limits.max_recompiles)
    if limits.max_graph_breaks is not None and counted.graph_break_places > limits.max_graph_breaks:
        out.append(
            f"{label}{counted.said('graph_break_places')} ({counted.said('graph_break_occurrences')}), "
            f"more than the {limits.max_graph_breaks} allowed{_first(session, 'breaks')}"
        )
    if limits.max_recompiles is not None and counted.recompiles > limits.max_recompiles:
        out.append(f"{label}{counted.said('recompiles')}, more than the {limits.max_recompiles} allowed{_first(session, 'recompiles')}")
    if limits.max_compile_s is not None:
        spent = session.total_compile_time_s
        if spent is None:
            out.append(f"{label}compile time unknown (the trace does not say), so it cannot be held to {seconds(limits.max_compile_s)}")
        elif spent > limits.max_compile_s:
            out.append(f"{label}compile time {seconds(spent)}, more than the {seconds(limits.max_compile_s)} allowed")
    if baseline is not None:
        changes = diff(baseline, session)
        # a graph break is new where its place is (not where torch words its reason anew)
        for aspect, counted_as in (
            ("graph_break_places", "graph_break_places"),
            ("recompiles", "recompiles"),
            ("compiled_functions", "functions"),
        ):
            added = changes.aspect(aspect).added
            if added:
                named = "; ".join(added[:SHOWN]) + (f"; and {len(added) - SHOWN} more" if len(added) > SHOWN else "")
                out.append(f"{label}{said(counted_as, len(added), 'new')} compared with the baseline: {named}")
        failed_before = sum(1 for c in baseline.compiles if c.status == "failed")
        failed_now = [c for c in session.compiles if c.status == "failed"]
        if len(failed_now) > failed_before:
            out.append(
                f"{label}{plural(len(failed_now), 'failed compile')} (the baseline had {failed_before}): {failed_now[0].failure or 'unknown why'}"
            )
    return out


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _limits_unreadable(limits: Limits) -> list[str]:
    """Limits given through the API that no value can be compared with (the command line
    refuses them as it reads them)."""
    out = []
    for what, value in (("--max-graph-breaks", limits.max_graph_breaks), ("--max-recompiles", limits.max_recompiles)):
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            out.append(f"the limit {what} is not a count, 0 or more ({value!r}): nothing can be compared with it")
    limit = limits.max_compile_s
    if limit is not None and (not _is_number(limit) or not math.isfinite(limit) or limit < 0):
        out.append(f"the limit --max-compile-s is not a number of seconds, 0 or more ({limit!r}): nothing can be compared with it")
    return out


def _compiles(session: Session, limits: Limits) -> list[Compile]:
    """The compiles the gates read: all but the one a partial run stopped in, where partial
    runs are allowed (it has no time, nor its breaks, yet)."""
    stopped_in = session.incomplete.compile_id if session.incomplete is not None and limits.allow_incomplete else None
    return [c for c in session.compiles if c.compile_id != stopped_in]


def _times_unreadable(session: Session, limits: Limits, name: str) -> list[str]:
    """Each compile's time that --max-compile-s would add up and cannot: not a number of
    seconds (NaN, an infinity, negative, not a number at all) or not in the session."""
    out: list[str] = []
    limit = limits.max_compile_s
    if limit is not None:
        for c in _compiles(session, limits):
            value = c.compile_time_s
            if value is None:
                out.append(
                    f"compile time of {c.compile_id} is unknown in {name} (the session does not say): cannot compare with {seconds(limit)}"
                )
            elif not _is_number(value) or not math.isfinite(value) or value < 0:
                out.append(
                    f"compile time of {c.compile_id} is not a number of seconds in {name} ({value!r}): cannot compare with {seconds(limit)}"
                )
    return _bounded(out, name)


def _counts_unreadable(session: Session, limits: Limits, name: str, compared: bool) -> list[str]:
    """What --max-graph-breaks, --max-recompiles and a baseline (`compared`: one is compared
    with `session`, or `session` is it) would count that is not there: a compile said to be a
    graph break whose break is missing, a failed guard without the recompile it made."""
    out: list[str] = []
    compiles = _compiles(session, limits)
    if limits.max_graph_breaks is not None or compared:
        for c in compiles:
            if c.status == "graph break" and not c.graph_breaks:
                out.append(f"{c.compile_id} is a graph break in {name}, but its graph break is missing: its graph breaks cannot be counted")
    if limits.max_recompiles is not None or compared:
        for c in compiles:
            if c.failed_guards and not c.recompile_reason:
                out.append(
                    f"{c.compile_id} has a failed guard in {name}, but its recompile reason is missing: its recompiles cannot be counted"
                )
    return _bounded(out, name)


def _bounded(out: list[str], name: str) -> list[str]:
    return out[:SHOWN] + ([f"and {len(out) - SHOWN} more such values in {name}"] if len(out) > SHOWN else [])


def _first(session: Session, what: str) -> str:
    if what == "breaks" and session.graph_breaks:
        brk = session.graph_breaks[0]
        place = f" at {brk.filename}:{brk.lineno}" if brk.filename else ""
        return f" (the first: {brk.reason}{place})"
    if what == "recompiles" and session.recompiles:
        c = session.recompiles[0]
        why = c.failed_guards[0].text if c.failed_guards else (c.recompile_reason or ["unknown why"])[0]
        return f" (the first: {c.compile_id}: {why})"
    return ""
