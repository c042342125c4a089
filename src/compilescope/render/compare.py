"""Two runs of one program side by side (compilescope run --try): what the fix changed in the
compiles, graph breaks, recompiles, compile time and call time, and in the findings. A finding
new with the fix is shown whole (its detail, cost, where to act and fix), as a plain run shows it;
a graph break is told apart by its place and torch's reason, so a break the fix turned into
another at the same line shows as gone and new.

Figures are the sessions' own; a figure a run did not record is "not recorded", never 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TextIO

from rich import box
from rich.table import Table
from rich.text import Text

from compilescope.findings.rules import Finding, findings
from compilescope.render.sections.overview import finding_renderable
from compilescope.render.terminal import console_for, printable
from compilescope.render.text import one_line
from compilescope.session.counts import counts, label
from compilescope.session.model import Session


@dataclass
class _Row:
    label: str
    before: float | int | None
    after: float | int | None
    unit: str = ""  # "s", "ms"
    lower_is_better: bool = True


# The counts each run is compared by, in this order (session/counts.py defines them and their words)
COUNTED = ("functions", "compiles", "recompiles", "graph_break_places", "graph_break_occurrences", "failed")


def rows(before: Session, after: Session) -> list[_Row]:
    old, new = counts(before), counts(after)
    return [
        *(_Row(label(name), getattr(old, name), getattr(new, name)) for name in COUNTED),
        _Row("compile time", before.total_compile_time_s, after.total_compile_time_s, "s"),
        _Row("time in compiled calls", _compiled_ms(before), _compiled_ms(after), "ms"),
        _Row("calls without compiled code", _eager_calls(before), _eager_calls(after)),
        _Row("program's run time", _wall(before), _wall(after), "s"),
    ]


def _compiled_ms(session: Session) -> float | None:
    """Host time in calls that ran compiled code (recorded on Python 3.12+); None: not recorded."""
    calls = [c.calls for c in session.compiles if c.calls is not None]
    return sum(c.total_ms for c in calls) if calls else None


def _eager_calls(session: Session) -> int | None:
    recorded = [f.calls_without_compiled_code for f in session.frames if f.calls_without_compiled_code is not None]
    if not recorded and session.calls_recorded is None or (session.calls_recorded or "").startswith("not"):
        return None
    return sum(c.calls for c in recorded)


def _wall(session: Session) -> float | None:
    return session.program.wall_time_s if session.program is not None else None


def figure(value: float | int | None, unit: str) -> str:
    """A figure of one run: "1.25 s", "3.4 ms", "2.10×", "not recorded"."""
    if value is None:
        return "not recorded"
    if unit == "s":
        return f"{value:.2f} s"
    if unit == "ms":
        return f"{value:.1f} ms"
    if unit == "µs":
        return f"{value:.1f} µs"
    if unit == "×":
        return f"{value:.2f}×"
    return str(value)


_figure = figure


def _change(row: _Row) -> Text:
    if row.before is None or row.after is None:
        return Text("")
    difference = row.after - row.before
    if abs(difference) < (0.005 if row.unit == "s" else 0.05 if row.unit == "ms" else 1):
        return Text("same", style="dim")
    better = (difference < 0) == row.lower_is_better
    sign = "+" if difference > 0 else "−"
    text = f"{sign}{_figure(abs(difference), row.unit)}"
    if row.before:
        text += f" ({difference / row.before:+.0%})"
    return Text(text, style="green" if better else "red")


def summary_table(before: Session, after: Session, before_label: str, after_label: str) -> Table:
    """The runs' counts and times side by side, with the change of each."""
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("")
    table.add_column(one_line(before_label), justify="right")
    table.add_column(one_line(after_label), justify="right")
    table.add_column("change", justify="right")
    for row in rows(before, after):
        table.add_row(row.label, _figure(row.before, row.unit), _figure(row.after, row.unit), _change(row))
    return table


def comparison(before: Session, after: Session, fixes: list[str]) -> list[Any]:
    out: list[Any] = [Text("compilescope · the program as it is, and with " + "; ".join(one_line(f) for f in fixes), style="bold")]
    out.append(summary_table(before, after, "as it is", "with the fix"))
    if after.fixes is None:
        out.append(
            Text(
                "The run with the fix did not record setting it (it never imported Dynamo): the fix had nothing to act on.", style="yellow"
            )
        )
    old = {_key(f): f for f in findings(before)}
    new = {_key(f): f for f in findings(after)}
    gone = [f for key, f in old.items() if key not in new and f.kind not in ("compile time",)]
    came = [f for key, f in new.items() if key not in old and f.kind not in ("compile time",)]
    titles = [f.title for f in came]
    if gone:
        out.append(Text("Gone with the fix:", style="bold green"))
        out.extend(Text(f"  ✓ {one_line(_named(f, titles))}", style="green") for f in gone[:10])
    if came:
        out.append(Text("New with the fix:", style="bold yellow"))
        out.extend(finding_renderable(f) for f in came[:10])
    if not gone and not came:
        out.append(Text("The findings are the same in both runs.", style="dim"))
    out.append(Text("Each run started with an empty Inductor cache of its own, so compile times compare.", style="dim"))
    return out


def _key(finding: Finding) -> tuple[str, str]:
    """What tells two runs' findings apart: the title, and for a graph break torch's reason (its
    detail's first line), which a fix can change at the same place."""
    reason = finding.detail.splitlines()[0] if finding.kind == "graph break" and finding.detail else ""
    return finding.title, reason


def _named(finding: Finding, titles: list[str]) -> str:
    """A gone finding's title, with torch's reason where a new finding has the same title."""
    reason = _key(finding)[1]
    return f"{finding.title}: {reason}" if reason and finding.title in titles else finding.title


def print_comparison(before: Session, after: Session, fixes: list[str], stream: TextIO) -> None:
    console_for(stream).print(printable(comparison(before, after, fixes)))
