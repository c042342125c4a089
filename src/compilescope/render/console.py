"""The terminal explanation (rich): the entry points `show`, `render_text`, `renderables` and
`brief`.

Most important first: what ran, the totals, the findings with advice, then one block per
compiled function, the child processes, the runtime figures. Details (guards, graphs, AOT
graphs, kernels and their code, dynamic shapes, compile time by stage) are shown on request, so
a large program stays readable.

Each section is written in render/sections/ (overview.py: the header, the counts, the findings,
the child processes; functions.py: the compiled functions; runtime.py: bench's table and the
kernel time table, as views that the report page draws too); what every section prints passes
render/terminal.py's `printable` here, which bounds it and escapes control characters.
"""

from __future__ import annotations

import io
from collections.abc import Iterable

from rich.console import Console
from rich.text import Text

from compilescope.choices import DETAILS
from compilescope.findings.rules import Finding, findings
from compilescope.render.sections.functions import functions_section
from compilescope.render.sections.overview import children, findings_section, header, incomplete_line, skipped, summary
from compilescope.render.sections.runtime import runtime
from compilescope.render.terminal import console_for, one_line_of, printable, seconds
from compilescope.session.counts import counts
from compilescope.session.model import Session


def renderables(
    session: Session,
    show: Iterable[str] = (),
    frame_filter: str | None = None,
    max_frames: int = 25,
    found: list[Finding] | None = None,
) -> list:
    """What to print, most important first. `found`: the session's findings, where the caller
    has them already (report computes them once for the terminal and the HTML report)."""
    show = set(DETAILS) if "all" in show else set(show)
    lead = [partial] if (partial := incomplete_line(session)) is not None else []
    if session.benchmarks and not session.frames:  # a saved `compilescope bench`: its results
        return [*lead, header(session), Text(""), *runtime(session)]
    out: list = [*lead, header(session), summary(session), Text("")]
    shown, named = findings_section(session, findings(session) if found is None else found)
    out.extend(shown)
    frames = [f for f in session.frames if frame_filter is None or f.name == frame_filter]
    if frame_filter is not None and not frames:
        out.append(Text(f"No compiled function is named {one_line_of(frame_filter)!r}.", style="red"))
    out.extend(functions_section(frames, named, show, max_frames, torch=session.environment.torch))
    out.extend(children(session))
    out.extend(runtime(session))
    out.extend(skipped(session))
    return out


def brief(session: Session) -> str:
    """One line: what a rank other than 0 prints under a launcher (every rank printing the
    whole explanation would interleave them)."""
    rank = "" if session.rank is None else f" (rank {session.rank})"
    counted = counts(session)
    said = ", ".join(counted.said(name) for name in ("compiles", "recompiles", "graph_break_places", "graph_break_occurrences"))
    partial = f" ({one_line_of(session.incomplete.reason)})" if session.incomplete is not None else ""
    return f"compilescope{rank}: {said}, compile time {seconds(session.total_compile_time_s)}{partial}"


def show(session: Session, console: Console | None = None, **options) -> None:
    """Print the explanation of `session` (to stdout, unless `console` is given)."""
    if console is None:
        import sys

        console = console_for(sys.stdout)
    console.print(printable(renderables(session, **options)))


def render_text(session: Session, width: int = 100, **options) -> str:
    """The explanation as plain text, `width` columns wide, without colour."""
    buffer = io.StringIO()
    # force_jupyter=False: inside a notebook rich would display the text itself instead of
    # returning it (the notebook shows the HTML report; this is its plain-text twin).
    console = Console(file=buffer, width=width, no_color=True, highlight=False, emoji=False, color_system=None, force_jupyter=False)
    show(session, console=console, **options)
    return buffer.getvalue()
