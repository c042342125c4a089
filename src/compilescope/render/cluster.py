"""The ranks of one job side by side, in the terminal and as JSON: what diverged between them
(findings/cluster.py), each rank in a line, and every rank's findings, one per cause.

The JSON is written in parts as the ranks are read (`ClusterJson`): each rank's whole session,
then what the comparison found, so no more than one rank's session is held at once. Its shape,
documented in docs/schema.md:

    {"schema": "compilescope/cluster/1", "ranks": [session, ...], "divergences": [{"aspect",
     "title", "summary", "meaning", "groups": [{"ranks", "labels", "summary", "count", "items",
     "only_here"}]}], "problems": [...], "compile_time": "...", "headline": "...", "findings": [...]}
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from typing import IO, Any

from rich.text import Text

from compilescope.findings.cluster import Cluster, RankSummary, who
from compilescope.findings.finding import seconds
from compilescope.render.sections.overview import finding_renderable
from compilescope.render.terminal import hanging
from compilescope.render.text import one_line as one_line_text
from compilescope.session import SCHEMA as SESSION_SCHEMA
from compilescope.session import surrogates_escaped
from compilescope.session.counts import said as count_said

CLUSTER_SCHEMA = "compilescope/cluster/1"
MAX_FINDINGS = 30  # findings across ranks in the terminal
GROUP_ITEMS = 3  # what only a group has, named per group in the terminal


def renderables(cluster: Cluster, source: str) -> list:
    """The terminal's view of the job: its ranks, what diverged and what it means, the findings."""
    what = "logs" if any(r.twin for r in cluster.ranks) else "ranks"
    out: list = [Text(f"compilescope · {len(cluster.ranks)} {what} · {one_line_text(source)}", style="bold")]
    if cluster.ranks and cluster.ranks[0].torch:
        out.append(Text(f"torch {one_line_text(cluster.ranks[0].torch)}", style="dim"))
    out.append(Text(""))
    for problem in cluster.problems:
        said = hanging(3)
        said.add_row(Text(" ▲ ", style="yellow"), Text(one_line_text(problem), style="yellow"))
        out.append(said)
    if cluster.problems:
        out.append(Text(""))
    out.append(Text("Ranks", style="bold underline"))
    for r in cluster.ranks:
        line = Text(f"  {r.label:>8}: ")
        line.append(
            f"{count_said('compiles', r.compiles)}, {count_said('recompiles', r.recompiles)}, {count_said('graph_break_occurrences', r.graph_breaks)}, "
            f"compile time {'unknown' if r.compile_time_s is None else seconds(r.compile_time_s)}"
        )
        if r.compiles and not r.graphs:
            line.append("  ✖ no graph: it ran eagerly", style="red")
        if r.incomplete:
            line.append("  (log incomplete)", style="yellow")
        out.append(line)
    out.append(Text(""))
    if len(cluster.ranks) > 1:
        if not cluster.divergences:
            out.append(Text(f"The {len(cluster.ranks)} ranks compiled the same way.", style="green"))
            if cluster.compile_time:
                out.append(Text(f"  {cluster.compile_time}", style="dim"))
        else:
            out.append(Text("Where the ranks diverged", style="bold underline"))
            for divergence in cluster.divergences:
                out.append(Text(f" ▲ {divergence.title}", style="bold yellow"))
                grid = hanging(5)
                if divergence.aspect == "compile_time":
                    grid.add_row("", Text(one_line_text(divergence.summary)))
                for group in divergence.groups:
                    row = Text(f"{who(group.labels)}: ", style="bold")
                    row.append(one_line_text(group.summary), style="")
                    grid.add_row("", row)
                    if divergence.aspect != "compile_time":
                        for item in group.only_here[:GROUP_ITEMS]:
                            grid.add_row(
                                "", Text(f"    only {'it' if len(group.labels) == 1 else 'they'}: {one_line_text(item)}", style="dim")
                            )
                        if len(group.only_here) > GROUP_ITEMS:
                            grid.add_row("", Text(f"    … {len(group.only_here) - GROUP_ITEMS} more", style="dim"))
                grid.add_row(Text("   → ", style="green"), Text(divergence.meaning, style="green"))
                out.append(grid)
            if cluster.compile_time and not any(d.aspect == "compile_time" for d in cluster.divergences):
                out.append(Text(f" ● {cluster.compile_time}", style="dim"))
        out.append(Text(""))
    if cluster.findings:
        out.append(Text("What to look at, across the ranks", style="bold underline"))
        for finding in cluster.findings[:MAX_FINDINGS]:
            out.append(finding_renderable(finding))
        if len(cluster.findings) > MAX_FINDINGS:
            out.append(Text(f" … {len(cluster.findings) - MAX_FINDINGS} more (the HTML report and the JSON have them all)", style="dim"))
        out.append(Text(""))
    example = next((r.rank for r in cluster.ranks if r.rank is not None), None)
    if example is not None:
        out.append(Text(f"One rank's whole explanation: compilescope report {one_line_text(source)} --rank {example}", style="dim"))
    return out


def rank_line(r: RankSummary) -> dict[str, Any]:
    """What the page and the JSON say of a rank beside its session."""
    return {
        "index": r.index,  # its place in the page and the JSON's "ranks"
        "rank": r.rank,
        "label": r.label,
        "trace": r.trace,
        "started": r.started,
        "functions": r.functions,
        "compiles": r.compiles,
        "recompiles": r.recompiles,
        "graph_breaks": r.graph_breaks,
        "graphs": r.graphs,
        "kernels": r.kernels,
        "compile_time_s": r.compile_time_s,
        "incomplete": r.incomplete,
    }


def cluster_facts(cluster: Cluster) -> dict[str, Any]:
    """What the comparison found, as plain data (the JSON's and the page's)."""
    return {
        "headline": cluster.headline,
        "divergences": [dataclasses.asdict(d) for d in cluster.divergences],
        "problems": cluster.problems,
        "compile_time": cluster.compile_time,
        "findings": [dataclasses.asdict(f) for f in cluster.findings],
        "rank_lines": [rank_line(r) for r in cluster.ranks],
    }


class ClusterJson:
    """The cluster's JSON, written as the ranks are read: `add_text(part)` for each rank's
    session, then `finish(cluster)`."""

    def __init__(self, handle: IO[str]) -> None:
        self.handle = handle
        self.count = 0
        handle.write(f'{{"schema": "{CLUSTER_SCHEMA}", "session_schema": "{SESSION_SCHEMA}", "ranks": [\n')

    def add_text(self, part: IO[str]) -> None:
        """A rank's session, as session.jsonio.dumps wrote it, from a file."""
        if self.count:
            self.handle.write(",\n")
        shutil.copyfileobj(part, self.handle)
        self.count += 1

    def finish(self, cluster: Cluster) -> None:
        facts = cluster_facts(cluster)
        self.handle.write("\n]")
        for key, value in facts.items():
            self.handle.write(f", {json.dumps(key)}: {surrogates_escaped(json.dumps(value, ensure_ascii=False))}")
        self.handle.write("}\n")
