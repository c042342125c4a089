"""Inductor's graphs around its groups of passes, for one compile (`--show passes`) in the
terminal, and as the report page's data (each stage's two graphs side by side, the changed
rows marked): pre-grad, joint and post-grad, the ops each group removed and added, and the
lines that changed. A stage torch did not write is said to be missing, never filled in."""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text

from compilescope.render.terminal import one_line_of
from compilescope.session.model import Compile
from compilescope.session.passes import PassGraph, PassStage, changed_lines, side_by_side

INDENT = " " * 9
CHANGED_LINES = 8  # changed lines printed per stage; the page shows them all
LINE_WIDTH = 100 - len(INDENT) - 6
NOT_NAMED = "torch's trace names no pattern its passes matched: the op counts say what changed"
# the names FX frees at the end of a line ("...;  mm = mm_1 = None"): noise in a changed line
_FREED = re.compile(r";\s+\w+(?:\s*=\s*\w+)*\s*=\s*None$")


def missing_said(c: Compile, torch: str | None) -> str:
    """Why a graph of Inductor's is not in the trace, as far as the trace says: a cache had the
    graph (its passes did not run), or this torch did not write it."""
    hits = {lookup.cache for lookup in c.cache.lookups if lookup.outcome == "hit"}
    if "aot_autograd" in hits:
        return "the AOT Autograd cache had this graph: Inductor's passes did not run"
    if "fx_graph" in hits:
        return "the FX graph cache had this graph: Inductor's passes did not run"
    return f"not in this trace (torch {torch or 'version unknown'})"


def after_missing_said(c: Compile, stage: PassStage, torch: str | None) -> str:
    """Why the graph after a group of passes is missing: a training graph's joint passes run
    inside the partition, and torch prints no joint graph after them."""
    if stage.before is not None and stage.before.record == "aot_joint_graph":
        return "torch prints none for a training graph (its joint passes run as it is split; --show aot has both halves)"
    return missing_said(c, torch)


def stage_title(stage: PassStage, number: int | None) -> str:
    """ "post-grad" or, where Inductor compiled more than one graph (a forward and a backward),
    "post-grad (graph 2)"."""
    return stage.stage + (f" (graph {number})" if number is not None else "")


def numbered(passes: list[PassStage]) -> list[tuple[PassStage, int | None]]:
    """Each stage with its number among the stages of its name, where there are several."""
    totals = {name: sum(1 for s in passes if s.stage == name) for name in {s.stage for s in passes}}
    seen: dict[str, int] = {}
    out = []
    for stage in passes:
        seen[stage.stage] = seen.get(stage.stage, 0) + 1
        out.append((stage, seen[stage.stage] if totals[stage.stage] > 1 else None))
    return out


def change_summary(stage: PassStage) -> str:
    """ "7 ops → 6: aten.add.Tensor −1, aten.addmm.default +1" or "7 ops, unchanged"."""
    before, after = stage.before, stage.after
    if before is None or after is None or stage.changes is None:
        return ""
    if not stage.changes:
        moved = f"; {stage.lines_removed} line(s) changed" if stage.lines_removed or stage.lines_added else ""
        return f"{len(before.ops)} ops before and after, the same ops{moved}"
    said = ", ".join(f"{c.op} {c.after - c.before:+d}".replace("-", "−") for c in stage.changes)
    return f"{len(before.ops)} ops → {len(after.ops)}: {said}"


def passes_rows(c: Compile, torch: str | None) -> list[Text]:
    """The terminal's lines on one compile's passes: a line per stage, and the lines they changed."""
    out = [Text(f"{INDENT}Inductor's passes (its graph before and after each group of them):", style="bold")]
    if not c.passes:
        out.append(Text(f"{INDENT}  {missing_said(c, torch)}: no graph of Inductor's passes for this compile", style="dim"))
        return out
    for stage, number in numbered(c.passes):
        row = Text(f"{INDENT}  {stage_title(stage, number)}: ", style="bold")
        if stage.before is None or stage.after is None:
            present = stage.before or stage.after
            assert present is not None  # (a stage is made from one of its graphs)
            side = "before" if stage.before is None else "after"
            row.append(f"{len(present.ops)} ops {'after' if side == 'before' else 'before'} its passes; the graph {side} them: ", style="")
            row.append(missing_said(c, torch) if side == "before" else after_missing_said(c, stage, torch), style="dim")
            out.append(row)
            continue
        row.append(change_summary(stage), style="yellow" if stage.changes else "")
        out.append(row)
        out.extend(_changed(stage.before, stage.after))
    if any(stage.changes for stage in c.passes):
        out.append(Text(f"{INDENT}  ({NOT_NAMED})", style="dim"))
    return out


def _changed(before: PassGraph, after: PassGraph) -> list[Text]:
    removed, added = changed_lines(before.code, after.code)
    lines = [("-", line, "red") for line in removed] + [("+", line, "green") for line in added]
    out = [
        Text(f"{INDENT}    {sign} {_cut(one_line_of(_FREED.sub('', line.strip())))}", style=style)
        for sign, line, style in lines[:CHANGED_LINES]
    ]
    if len(lines) > CHANGED_LINES:
        out.append(
            Text(
                f"{INDENT}    … {len(lines) - CHANGED_LINES} more changed lines (the report page shows the graphs side by side)",
                style="dim",
            )
        )
    return out


def _cut(text: str) -> str:
    return text if len(text) <= LINE_WIDTH else text[: LINE_WIDTH - 1] + "…"


def _missing(c: Compile, stage: PassStage, torch: str | None) -> str | None:
    if stage.before is not None and stage.after is not None:
        return None
    return missing_said(c, torch) if stage.before is None else after_missing_said(c, stage, torch)


def passes_page_data(c: Compile, torch: str | None) -> dict[str, Any]:
    """The page's data for one compile's passes: each stage's title, summary, its graphs' records
    and the two graphs side by side (rows of [before, after, how]), or why a graph is missing."""
    stages = []
    for stage, number in numbered(c.passes):
        item: dict[str, Any] = {
            "title": stage_title(stage, number),
            "summary": change_summary(stage),
            "changes": [[change.op, change.before, change.after] for change in stage.changes or []],
            "records": [graph.record if graph else None for graph in (stage.before, stage.after)],
            "ops": [len(graph.ops) if graph else None for graph in (stage.before, stage.after)],
            "missing": _missing(c, stage, torch),
            "rows": [],
            "cut": False,
        }
        if stage.before is not None and stage.after is not None:
            rows, item["cut"] = side_by_side(stage.before.code, stage.after.code)
            item["rows"] = [list(row) for row in rows]
        else:
            present = stage.before or stage.after
            code = present.code.splitlines() if present else []
            item["rows"] = [[line, None, "same"] if stage.before else [None, line, "same"] for line in code]
        stages.append(item)
    return {"stages": stages, "missing": None if c.passes else missing_said(c, torch), "not_named": NOT_NAMED}
