"""A CI gate over a run: limits on graph breaks, recompiles and compile time, and nothing new
compared with a baseline run. Each violation is one sentence naming what crossed the line.

Counted as session/counts.py counts, in its words: --max-graph-breaks limits the graph breaks'
places (a break met again by a recompile is one place; the recompile is counted as such), and a
break is new where its place is new (torch's wording of its reason may change between runs).

Used by `compilescope check` (exit status 1 where any is found) and by compilescope.check() in a
test (an empty list where the run is within its limits).
"""

from __future__ import annotations

from dataclasses import dataclass

from compilescope.findings.diff import diff
from compilescope.findings.finding import plural, seconds
from compilescope.session.counts import counts, said
from compilescope.session.model import Session

SHOWN = 5  # new items named per aspect; the rest are counted


@dataclass
class Limits:
    max_graph_breaks: int | None = None
    max_recompiles: int | None = None
    max_compile_s: float | None = None

    @property
    def any(self) -> bool:
        return any(v is not None for v in (self.max_graph_breaks, self.max_recompiles, self.max_compile_s))


def violations(session: Session, limits: Limits, baseline: Session | None = None, label: str = "") -> list[str]:
    """What in `session` breaks `limits`, or is new compared with `baseline`. `label` starts
    each sentence ("rank 1: "), for a job of several ranks."""
    out = []
    counted, spent = counts(session), session.total_compile_time_s
    if limits.max_graph_breaks is not None and counted.graph_break_places > limits.max_graph_breaks:
        out.append(
            f"{label}{counted.said('graph_break_places')} ({counted.said('graph_break_occurrences')}), "
            f"more than the {limits.max_graph_breaks} allowed{_first(session, 'breaks')}"
        )
    if limits.max_recompiles is not None and counted.recompiles > limits.max_recompiles:
        out.append(f"{label}{counted.said('recompiles')}, more than the {limits.max_recompiles} allowed{_first(session, 'recompiles')}")
    if limits.max_compile_s is not None:
        if spent is None:
            out.append(f"{label}compile time unknown (the trace does not say), so it cannot be held to {seconds(limits.max_compile_s)}")
        elif spent > limits.max_compile_s:
            out.append(f"{label}compile time {seconds(spent)}, more than the {seconds(limits.max_compile_s)} allowed")
    if baseline is not None:
        changes = diff(baseline, session)
        # a graph break is new where its place is (not where torch words its reason anew)
        for name, counted_as in (
            ("graph_break_places", "graph_break_places"),
            ("recompiles", "recompiles"),
            ("compiled_functions", "functions"),
        ):
            added = changes.aspect(name).added
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
