"""Inductor's graphs before and after its passes, per compile, and what the passes changed.

torch writes each graph as FX code in its trace (torch 2.13):

    pre-grad   before_pre_grad_graph  -> after_pre_grad_graph       (torch IR, Dynamo's graph)
    joint      before_joint_graph     -> after_joint_graph          (ATen; an inference graph)
               aot_joint_graph                                      (ATen; forward and backward
                                                                     together, before the partition)
    post-grad  before_post_grad_graph -> inductor_post_grad_graph   (ATen; once per graph Inductor
                                                                     compiles: forward, then backward)

Older torch wrote `inductor_pre_grad_graph` (the graph before its pre-grad passes) and
`inductor_post_grad_graph` as records of their own; torch 2.13 still writes the latter alone when
the FX graph cache had the graph (its passes did not run then). A PassStage holds the graphs one
group of passes took and gave; either may be missing, and then it is None: nothing is guessed.

What changed is said by the operations counted on each side (OpChange): torch does not name, in
its trace, the patterns its pattern matcher replaced (it counts them in process only), so the
ops a pass removed and added are the fact we have; the page shows the two graphs side by side.
"""

from __future__ import annotations

import difflib
from collections import Counter
from dataclasses import dataclass
from typing import Literal

PassStageName = Literal["pre-grad", "joint", "post-grad"]
STAGES: tuple[PassStageName, ...] = ("pre-grad", "joint", "post-grad")

# Lines of a graph compared side by side on the page, each side: SequenceMatcher's time grows
# faster than the lines, and a graph of more is read in the session's JSON
SIDE_BY_SIDE_LINES = 4000


@dataclass
class PassGraph:
    """One graph as torch printed it around a group of passes."""

    code: str
    ops: list[str]  # its operations in order, as torch names them: "linear" (pre-grad), "aten.mm.default"
    record: str  # the record it came from: "before_post_grad_graph"


@dataclass
class OpChange:
    """How many of one operation a group of passes took and gave."""

    op: str
    before: int
    after: int


@dataclass
class PassStage:
    """One group of Inductor's passes: the graph before them, the graph after, what changed."""

    stage: PassStageName
    before: PassGraph | None = None  # None: not in the trace (an older torch; a graph from a cache)
    after: PassGraph | None = None
    # the operations whose count changed, removed ones first; None until both graphs are known
    changes: list[OpChange] | None = None
    lines_removed: int | None = None  # lines of the graph's code the passes removed / added
    lines_added: int | None = None


def settle(stage: PassStage) -> None:
    """Say what changed, once both graphs are known."""
    if stage.before is None or stage.after is None:
        return
    stage.changes = op_changes(stage.before.ops, stage.after.ops)
    removed, added = changed_lines(stage.before.code, stage.after.code)
    stage.lines_removed, stage.lines_added = len(removed), len(added)


def op_changes(before: list[str], after: list[str]) -> list[OpChange]:
    """The operations counted differently after the passes: those fewer first, then those more,
    each by name."""
    took, gave = Counter(before), Counter(after)
    changes = [OpChange(op, took[op], gave[op]) for op in sorted(set(took) | set(gave)) if took[op] != gave[op]]
    return sorted(changes, key=lambda c: c.after > c.before)


def changed_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    """The lines of `before` that are not in `after`, and those of `after` not in `before`
    (difflib's, in order), blank lines left out."""
    removed: list[str] = []
    added: list[str] = []
    for line in difflib.unified_diff(before.splitlines(), after.splitlines(), n=0, lineterm=""):
        if line.startswith(("---", "+++", "@@")) or not line[1:].strip():
            continue
        (removed if line.startswith("-") else added).append(line[1:])
    return removed, added


# a row of the side-by-side view: the line before, the line after (None: no line on that side),
# and how they differ: "same", "changed", "removed", "added"
SideBySideRow = tuple[str | None, str | None, str]


def side_by_side(before: str, after: str, limit: int = SIDE_BY_SIDE_LINES) -> tuple[list[SideBySideRow], bool]:
    """The two graphs line by line, aligned where they agree (difflib's SequenceMatcher), and
    whether they were cut at `limit` lines each."""
    left, right = before.splitlines(), after.splitlines()
    cut = len(left) > limit or len(right) > limit
    left, right = left[:limit], right[:limit]
    rows: list[SideBySideRow] = []
    matcher = difflib.SequenceMatcher(None, left, right, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            rows.extend((line, line, "same") for line in left[i1:i2])
            continue
        olds, news = left[i1:i2], right[j1:j2]
        for k in range(max(len(olds), len(news))):
            old = olds[k] if k < len(olds) else None
            new = news[k] if k < len(news) else None
            rows.append((old, new, "changed" if old is not None and new is not None else "removed" if new is None else "added"))
    return rows, cut
