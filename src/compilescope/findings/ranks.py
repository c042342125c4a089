"""The findings of a program's child processes (the ranks torchrun started, multiprocessing
workers), in the program's own list: one finding per cause across them all, saying which ranks
(or processes) it was seen on.

Each child's session is built from its own trace by the caller (app/pipeline.py); here only their
findings are merged. Ranks compile at the same time, so a cause's cost is the most any one of
them spent on it, not their sum.
"""

from __future__ import annotations

import dataclasses

from compilescope.findings.finding import Finding, seconds
from compilescope.findings.kinds import FindingKind
from compilescope.session.model import ChildProcess

# Findings about the child's own run that say nothing about its compiles
_LEFT_OUT = (FindingKind.COMPILE_TIME, FindingKind.NOTHING_COMPILED, FindingKind.CHILD_PROCESSES, FindingKind.UNREADABLE_TRACE)


def from_children(children: list[tuple[ChildProcess, list[Finding]]]) -> list[Finding]:
    merged: dict[tuple, tuple[Finding, list[tuple[ChildProcess, Finding]]]] = {}
    for child, found in children:
        for finding in found:
            if finding.kind in _LEFT_OUT:
                continue
            key = (finding.kind, finding.title, finding.where)
            if key not in merged:
                merged[key] = (finding, [])
            merged[key][1].append((child, finding))
    out = []
    for first, seen in merged.values():
        ranks = tuple(sorted({c.rank for c, _ in seen if c.rank is not None}))
        who = _who(ranks, [c for c, _ in seen])
        costs = [(f.cost_s, c) for c, f in seen if f.cost_s is not None]
        finding = dataclasses.replace(first, title=f"{first.title} ({who})", ranks=ranks)
        if costs:
            most, child = max(costs, key=lambda item: item[0] or 0.0)
            finding.cost_s = most
            if len(seen) > 1:
                finding.cost = f"{seconds(most or 0.0)} on {_one(child)}, the most of {len(seen)} (they compile at the same time)"
        out.append(finding)
    return out


def _who(ranks: tuple[int, ...], children: list[ChildProcess]) -> str:
    if ranks and len(ranks) == len(children):
        return who([f"rank {r}" for r in ranks])
    if len(children) == 1:
        return _one(children[0])
    return f"{len(children)} child processes"


def _one(child: ChildProcess) -> str:
    return f"rank {child.rank}" if child.rank is not None else f"child process {child.pid}"


def who(labels: list[str]) -> str:
    """ "rank 1", "ranks 0, 2, 3", "ranks 0–7"."""
    numbers = [int(label[5:]) for label in labels if label.startswith("rank ") and label[5:].isdigit()]
    if len(numbers) != len(labels):
        return ", ".join(labels)
    if len(numbers) == 1:
        return f"rank {numbers[0]}"
    runs: list[list[int]] = []
    for n in sorted(numbers):
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return "ranks " + ", ".join(f"{r[0]}–{r[-1]}" if len(r) > 2 else ", ".join(map(str, r)) for r in runs)
