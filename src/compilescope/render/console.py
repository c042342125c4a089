"""The terminal explanation (rich).

Most important first: what ran, the totals, the findings with advice, then one block per
compiled function. Details (guards, graphs, AOT graphs, kernels and their code, dynamic shapes,
compile time by stage) are shown on request, so a large program stays readable.

Every string from the user's program goes into rich `Text` objects, never into markup, so a
name like "[bold]" or "<script>" shows literally. What is printed then passes `printable()`, the
one place that bounds and escapes it for the terminal, as the HTML report escapes markup:

- control characters (ESC, which starts a terminal's escape sequences, and the rest of C0 and
  C1, and the bidirectional overrides) show as visible text, `␛` or `\\x9b`, never raw: a log from
  elsewhere cannot retitle the terminal, clear it, or hide text;
- a line of more than LINE_LIMIT characters, or a text of more than TEXT_LINES lines, is cut
  with a note of how much more there is (the session's JSON keeps the whole value), so one
  100 MB string prints as a line, not as 100 MB.

Newlines stay where the renderer means them; in a one-line field (a name, a path, a reason)
`_line()` shows them too.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.segment import Segment
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from compilescope.choices import DETAILS
from compilescope.findings.rules import (
    INFO,
    PROBLEM,
    WARNING,
    Finding,
    findings,
    never_imported_torch,
    plural,
)
from compilescope.render.text import escape_control, one_line, short_message, width_for
from compilescope.session.counts import calls_recorded_said, compile_id_note, compile_ids_in, counts
from compilescope.session.counts import said as count_said
from compilescope.session.model import (
    Benchmark,
    CallTimes,
    Compile,
    Frame,
    Graph,
    Profile,
    Session,
)

_STATUS_STYLE = {
    "ok": "green",
    "graph break": "yellow",
    "failed": "bold red",
    "empty graph": "dim",
    "skipped": "dim",
    "unknown": "magenta",
}
_LEVEL = {PROBLEM: ("✖", "bold red"), WARNING: ("▲", "yellow"), INFO: ("●", "cyan")}


# ---- what reaches the terminal ----------------------------------------------------------------
LINE_LIMIT = 2000  # characters of one printed line of a value
TEXT_LINES = 20_000  # lines of one printed block (an AOT graph's ops, a kernel's code)
MAX_FINDINGS = 25  # findings printed; the HTML report and the JSON have them all
MAX_COMPILES = 50  # versions printed per function

# A space rich must not break a line at: a noncharacter (never in text meant for reading) that
# the last step before the terminal, _Escaped, turns back into a space once rich has laid the
# text out. A one-line field from the program shows its own as "\ufdd0" (render.text.LINE_BREAKS).
_KEEP = "\ufdd0"
# what reads wrong cut in two: "expected 8, actual 16", "(8 → 16)"
_PHRASES = re.compile(r"expected [^\s,]{1,40}, actual [^\s,]{1,40}|\([^\s()]{1,40} → [^\s()]{1,40}\)")


def _together(phrase: str) -> str:
    """A short phrase that stays on one line when rich wraps the text around it."""
    return phrase.replace(" ", _KEEP)


def _keep_phrases(text: str) -> str:
    """`text` with the phrases that read wrong cut in two (_PHRASES) kept on one line each."""
    return _PHRASES.sub(lambda match: _together(match.group()), text)


def _line(value: Any) -> str:
    """A one-line field from the user's program (a name, a path, a reason) as text."""
    return one_line(value if isinstance(value, str) else str(value))


def size_text(text: str) -> str:
    """How big a piece of text is, for a note: "12,345 characters", "99.9 MB"."""
    if len(text) < 100_000:
        return f"{len(text):,} characters"
    return f"{len(text.encode('utf-8', 'surrogatepass')) / 1e6:.1f} MB"


def _bounded_text(text: Text) -> Text:
    """The Text with each line cut at LINE_LIMIT characters and at most TEXT_LINES lines, each
    cut said; styles kept. Linear in the text's length, however it is cut."""
    plain = text.plain
    if len(plain) <= LINE_LIMIT:
        return text
    lines = plain.split("\n")
    if len(lines) <= TEXT_LINES and max(map(len, lines)) <= LINE_LIMIT:
        return text
    # contiguous ranges over the whole text: (start, end, None) kept, (start, end, note) cut
    ranges: list[tuple[int, int, str | None]] = []
    position = 0
    for index, line in enumerate(lines):
        if index == TEXT_LINES:
            rest = plain[position:]
            ranges.append((position, len(plain), f"… {len(lines) - index:,} more lines ({size_text(rest)}), in the session's JSON"))
            break
        end = position + len(line)
        if len(line) > LINE_LIMIT:
            ranges.append((position, position + LINE_LIMIT, None))
            ranges.append((position + LINE_LIMIT, end, f"… {size_text(plain[position + LINE_LIMIT : end])} more, in the session's JSON"))
        else:
            ranges.append((position, end, None))
        if index < len(lines) - 1:
            ranges.append((end, end + 1, None))  # the newline
        position = end + 1
    pieces = text.divide([start for start, _, _ in ranges[1:]])
    out = Text(style=text.style, end=text.end, justify=text.justify, overflow=text.overflow, no_wrap=text.no_wrap)
    for piece, (_, _, note) in zip(pieces, ranges):
        out.append_text(piece if note is None else Text(note, style="dim italic"))
    return out


def _bounded(renderable: Any) -> Any:
    """A renderable with its texts bounded (see the module's docstring)."""
    if isinstance(renderable, Text):
        return _bounded_text(renderable)
    if isinstance(renderable, Group):
        return Group(*[_bounded(item) for item in renderable.renderables])
    if isinstance(renderable, Syntax):
        code = renderable.code
        if len(code) <= LINE_LIMIT * 100 and all(len(line) <= LINE_LIMIT for line in code.split("\n")):
            return renderable
        kept = [line[:LINE_LIMIT] for line in code.split("\n", TEXT_LINES)[:TEXT_LINES]]
        shown = "\n".join(kept)
        if len(shown) > LINE_LIMIT * 100:
            shown = shown[: LINE_LIMIT * 100]
        renderable.code = shown
        return Group(
            renderable,
            Text(
                f"… the code is {size_text(code)}; {size_text(shown)} of it shown here, the whole of it in the session's JSON",
                style="dim italic",
            ),
        )
    if isinstance(renderable, Table):
        for column in renderable.columns:
            column._cells = [_bounded(cell) if isinstance(cell, Text) else cell for cell in column._cells]
    return renderable


class _Escaped:
    """Renders what it holds, with the control characters in its text shown visibly: the last
    step before the terminal, after rich laid the text out (rich's own control sequences,
    styles and cursor moves, are not text and pass). Spaces kept together (_KEEP) become
    spaces again, and the blank padding rich leaves at the end of a line is dropped (piped
    into a file, every line would end in spaces)."""

    def __init__(self, renderable: Any) -> None:
        self.renderable = renderable

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        held: list[Segment] = []  # blanks that are trailing if a line ends before more text
        for segment in console.render(self.renderable, options):
            if segment.control is not None:
                yield from held
                held.clear()
                yield segment
                continue
            text = segment.text.replace(_KEEP, " ") if _KEEP in segment.text else segment.text
            text = escape_control(text)
            if _shows_blanks(segment.style):
                yield from held
                held.clear()
                yield segment if text is segment.text else Segment(text, segment.style)
                continue
            for index, piece in enumerate(text.split("\n")):
                if index:
                    held.clear()
                    yield Segment.line()
                content = piece.rstrip(" ")
                if content:
                    yield from held
                    held.clear()
                    yield Segment(content, segment.style)
                if len(content) < len(piece):
                    held.append(Segment(piece[len(content) :], segment.style))
        yield from held


def _shows_blanks(style: Any) -> bool:
    """Whether spaces in this style are visible (a background, an underline)."""
    return style is not None and bool(style.bgcolor or style.underline or style.strike or style.reverse)


def printable(renderables: Iterable[Any]) -> _Escaped:
    """What to print for these renderables: bounded and escaped (the module's docstring)."""
    return _Escaped(Group(*[_bounded(item) for item in renderables]))


def _unknown(value: object, suffix: str = "") -> str:
    return "unknown" if value is None else f"{value}{suffix}"


def _seconds(value: float | None) -> str:
    return "unknown" if value is None else f"{value:.2f} s"


def _short_path(path: str | None) -> str:
    if not path:
        return "unknown file"
    path = _line(path)
    try:
        relative = os.path.relpath(path)
        return relative if not relative.startswith("..") else path
    except ValueError:
        return path


def _limited(items: list[str], limit: int) -> str:
    if len(items) <= limit:
        return ", ".join(items)
    return ", ".join(items[:limit]) + f", … {len(items) - limit} more"


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
        return [*lead, _header(session), Text(""), *runtime(session)]
    out: list = [*lead, _header(session), _summary(session), Text("")]
    found = findings(session) if found is None else found
    named: list[str] = []  # the compile ids the findings show
    if found:
        out.append(Text("What to look at", style="bold underline"))
        for finding in found[:MAX_FINDINGS]:
            out.append(_finding(finding))
        if len(found) > MAX_FINDINGS:
            out.append(Text(f" … {len(found) - MAX_FINDINGS} more (the HTML report and the session's JSON have them all)", style="dim"))
        named = compile_ids_in([f"{f.title}\n{f.detail}" for f in found[:MAX_FINDINGS]])
        if named:  # (where ids are first shown, what they mean, for the ids below too; else under the functions)
            out.append(Text(compile_id_note(named + [c.compile_id for c in session.compiles]), style="dim"))
        out.append(Text(""))
    frames = [f for f in session.frames if frame_filter is None or f.name == frame_filter]
    if frame_filter is not None and not frames:
        out.append(Text(f"No compiled function is named {_line(frame_filter)!r}.", style="red"))
    if frames:
        out.append(Text("Compiled functions", style="bold underline"))
        if not named:
            out.append(Text(compile_id_note([c.compile_id for f in frames for c in f.compiles]), style="dim"))
        for frame in frames[:max_frames]:
            out.extend(_frame(frame, show))
        if len(frames) > max_frames:
            out.append(Text(f"… {len(frames) - max_frames} more functions (--all to list them all, --frame NAME for one)", style="dim"))
    out.extend(_children(session))
    out.extend(runtime(session))
    if session.skipped:
        out.append(Text(""))
        out.append(Text(f"Skipped while reading ({len(session.skipped)}):", style="yellow"))
        for item in session.skipped[:10]:
            out.append(Text(f"  {item}", style="yellow"))
        if len(session.skipped) > 10:
            out.append(Text(f"  … {len(session.skipped) - 10} more", style="yellow"))
    return out


def _children(session: Session, limit: int = 10) -> list:
    """The program's child processes: each that compiled, with the command that explains it;
    how many compiled nothing; each that could not be followed, and why."""
    children = session.children or []
    if not children:
        return []
    compiled = [c for c in children if c.compiles]
    missed = [c for c in children if not c.followed]
    idle = [c for c in children if c.followed and not c.compiles]
    out: list = [Text(""), Text("Child processes", style="bold underline")]
    for child in compiled[:limit]:
        row = Text(f"  pid {child.pid}", style="bold")
        if child.rank is not None:
            row.append(f" (rank {child.rank})")
        row.append(f"  {_line(child.command)}\n    ")
        row.append(
            f"{count_said('functions', child.functions)} · {count_said('compiles', child.compiles)} ({count_said('recompiles', child.recompiles)}) · "
            f"{count_said('graph_break_occurrences', child.graph_breaks)} · {count_said('kernels', child.kernels)} · compile time {_seconds(child.compile_time_s)}"
        )
        if child.trace:
            row.append(f"\n    compilescope report {_short_path(child.trace)}", style="dim")
        if child.why_not:
            row.append(f"\n    {child.why_not}", style="yellow")
        out.append(row)
    if len(compiled) > limit:
        out.append(Text(f"  … {len(compiled) - limit} more that compiled (the session's JSON lists them all)", style="dim"))
    if idle:
        commands = _limited(list(dict.fromkeys(_line(c.command) for c in idle)), 3)
        out.append(Text(f"  {plural(len(idle), 'more child process', 'more child processes')} compiled nothing: {commands}", style="dim"))
    for child in missed[:limit]:
        row = Text("  not followed: ", style="yellow")
        row.append(_line(child.command))
        row.append(f"\n    {child.why_not or 'unknown why'}", style="dim")
        out.append(row)
    if len(missed) > limit:
        out.append(Text(f"  … {len(missed) - limit} more not followed", style="yellow"))
    return out


def runtime(session: Session) -> list:
    """bench's table, and where the compiled time went (bench --profile, run --profile)."""
    out: list = []
    if session.benchmarks:
        out += [Text(""), bench_table(session)]
        out += [
            kernel_time_table(b.profile)
            for b in session.benchmarks
            if b.profile is not None and (b.profile.kernels or b.profile.profile_error)
        ]
    if session.profile is not None:
        out += [Text(""), kernel_time_table(session.profile)]
    return out


def incomplete_line(session: Session) -> Text | None:
    """The line every view of a partial session leads with (session.model.Incomplete)."""
    if session.incomplete is None:
        return None
    return Text(f"⚠ {_line(session.incomplete.reason)}", style="bold yellow")


def _header(session: Session) -> Text:
    text = Text("compilescope", style="bold")
    program = session.program
    if program is not None:
        text.append(" · " if program.kind == "capture" else f" · {_line(program.kind)} ")
        text.append(_line(program.target), style="bold")
        if program.exit_status is not None:
            text.append(" · " + _together(f"exit status {program.exit_status}"))
        if program.wall_time_s is not None:
            text.append(" · " + _together(f"ran {program.wall_time_s:.1f} s"))
    if session.rank is not None:
        text.append(f" · rank {session.rank}")
    if program is not None and program.exception:
        # (a line of its own, shortened and without the program's colours: it printed it whole)
        text.append("\nraised ")
        text.append(short_message(program.exception), style="red")
    env = session.environment
    text.append("\n")
    if never_imported_torch(session):  # so there was nothing to ask about the device or compiler
        parts = [f"Python {_unknown(env.python)}", "the program did not import torch"]
    else:
        parts = [
            f"Python {_unknown(env.python)}",
            f"torch {_unknown(env.torch)}",
            f"device {_unknown(env.device)}",
        ]
        if env.threads is not None:
            parts.append(f"{env.threads} threads")
        parts.append(f"C++ compiler {_unknown(env.compiler)}")
    text.append(" · ".join(_together(_line(part)) for part in parts), style="dim")
    return text


def _summary(session: Session) -> Text:
    """The session's counts, in session/counts.py's words (the same in --try, diff, check, the
    HTML report and the JSON)."""
    counted = counts(session)
    compiles = session.compiles
    text = Text("\n")
    # (each figure kept on one line: "5 compiles" / "(3 recompiles)", never "5" / "compiles")
    text.append(_together(counted.said("functions")))
    if counted.resume_functions:
        text.append(" " + _together(f"({counted.resume_functions} of them the code after a graph break)"), style="dim")
    text.append(" · " + _together(counted.said("compiles")))
    if counted.recompiles:
        text.append(" " + _together(f"({counted.said('recompiles')})"), style="yellow")
    if counted.failed:
        text.append(" · " + _together(counted.said("failed")), style="red")
    text.append(" · " + _together(counted.said("graphs")) + " · ")
    breaks = counted.graph_break_occurrences
    text.append(_together(counted.said("graph_break_places")), style="yellow" if breaks else "")
    if breaks:
        text.append(", " + _together(counted.said("graph_break_occurrences")), style="yellow")
    text.append(" · " + _together(counted.said("kernels")) + " · " + _together(f"compile time {_seconds(session.total_compile_time_s)}"))
    backward = sum(c.time.backward_s or 0.0 for c in session.compiles)
    if backward >= 0.005:
        text.append(f" (with {backward:.2f} s compiling backward graphs at the first backward)")
    recorded = calls_recorded_said(session)
    if recorded and compiles:  # (nothing compiled: no calls to count either way)
        text.append(f"\nCalls per compiled version: {recorded}", style="dim")
    return text


def _finding(finding: Finding) -> Group:
    """A finding, its lines indented under its title; a line too long for the terminal goes on
    at its own indent (a grid's second column), and "expected 8, actual 16" stays on one line."""
    mark, style = _LEVEL[finding.level]
    title = _hanging(3)
    title.add_row(Text(f" {mark} ", style=style), Text(_line(finding.title), style="bold"))
    body = _hanging(5)
    for line in finding.detail.splitlines() if finding.detail else ():
        body.add_row("", Text(_keep_phrases(line)))
    for said in (finding.act_line(), finding.cost_line()):
        if said:
            body.add_row("", Text(_keep_phrases(_line(said)), style="dim"))
    for index, line in enumerate(finding.fix.splitlines() if finding.fix else ()):
        body.add_row(Text("   → " if index == 0 else "", style="green"), Text(_keep_phrases(line), style="green"))
    if finding.try_line():
        body.add_row("", Text(_keep_phrases(_line(finding.try_line() or "")), style="cyan"))
    return Group(title, body) if body.row_count else Group(title)


finding_renderable = _finding  # for the cluster view (render/cluster.py)


def graph_rows(graph: Graph, indent: int) -> list[Text]:
    """A graph's nodes, a line each: what kind of node, its name, what it calls, its shape."""
    rows = []
    for node in graph.nodes:
        row = Text(f"{'':{indent}}{_line(node.op):14} ")
        row.append(_line(node.name))
        if node.target and node.op != "output" and node.target != node.name:
            row.append(f"  {_line(node.target)}", style="dim")
        if node.shape:
            row.append(f"  {_line(node.shape)}", style="cyan")
        rows.append(row)
    return rows


def hanging(indent: int) -> Table:
    """A grid whose second column wraps at its own indent (see _hanging)."""
    return _hanging(indent)


def _hanging(indent: int) -> Table:
    """Two columns: `indent` cells for a mark, then text that wraps within its own column."""
    grid = Table.grid(padding=0)
    grid.add_column(width=indent, no_wrap=True)
    grid.add_column(overflow="fold")
    return grid


def _frame(frame: Frame, show: set[str], max_compiles: int = MAX_COMPILES) -> list:
    out: list = []
    title = Text("\n")
    title.append(_line(frame.label), style="bold")
    if frame.compiled_at:
        called = next((c.called_from[-1].split(" in ")[0] for c in frame.compiles if c.called_from), None)
        title.append(
            f"  compiled at {_short_path(frame.compiled_at)}" + (f", called at {_short_path(called)}" if called else ""), style="dim"
        )
    else:
        title.append(f"  {_short_path(frame.filename)}:{_unknown(frame.lineno)}", style="dim")
    if frame.resumes:
        title.append(f"  (continues {_line(frame.resumes)} after a graph break)", style="dim")
    out.append(title)
    for c in frame.compiles[:max_compiles]:
        out.extend(_compile(c, show))
    if len(frame.compiles) > max_compiles:
        out.append(
            Text(
                f"  … {len(frame.compiles) - max_compiles} more versions of this function (the HTML report and the session's JSON list them all)",
                style="dim",
            )
        )
    eager = frame.calls_without_compiled_code
    if eager is not None and eager.calls:
        out.append(Text(f"  {'':6} {'no compiled code':11} {_calls(eager, 'ran')}", style="yellow"))
    if frame.call_order and len(frame.call_order) > 1:
        order = " → ".join(f"{_line(run[0])} ×{run[1]}" for run in frame.call_order[:12] if len(run) == 2)
        if len(frame.call_order) > 12 or frame.call_order_cut:
            order += " → …"
        out.append(Text(f"  calls in order: {order}", style="dim"))
    return out


def duration_us(value: float | None) -> str:
    if value is None:
        return "unknown"
    if value < 1000:
        return f"{value:.0f} µs" if value >= 10 else f"{value:.1f} µs"
    if value < 1_000_000:
        return f"{value / 1000:.2f} ms"
    return f"{value / 1e6:.2f} s"


def _calls(times: CallTimes, verb: str = "served") -> str:
    text = f"{verb} {plural(times.calls, 'call')}" if times.calls else f"{verb} no calls"
    if times.calls and times.median_us is not None:
        text += f", median {duration_us(times.median_us)}"
    if times.raised:
        text += f" ({times.raised} raised)"
    return text


def _compile(c: Compile, show: set[str]) -> list:
    out: list = []
    line = Text("  ")
    line.append(f"{_line(c.compile_id):6}", style="bold")
    line.append(f" {c.status:11}", style=_STATUS_STYLE.get(c.status, ""))
    ops = [op for g in c.graphs for op in g.ops]
    if c.graphs:
        line.append(f" {plural(len(ops), 'op')}: {_limited(ops, 8)}")
    line.append(f" · {plural(len(c.kernels), 'kernel')}" if c.kernels else "")
    line.append(f" · {_seconds(c.compile_time_s)}", style="dim")
    if c.calls is not None:
        line.append(f" · {_calls(c.calls)}")
    out.append(line)
    if c.recompile_reason:
        for index, guard in enumerate(c.failed_guards):
            # (a long reason goes on under itself, not under the version's id)
            grid = _hanging(29)
            reason = Text()
            if guard.previous_compile:
                reason.append(f"{_line(guard.previous_compile)}: ", style="dim")
            reason.append(_keep_phrases(_line(guard.text)))
            if guard.user_code:
                reason.append(f"  (from {_line(guard.user_code)}", style="dim")
                if guard.filename:
                    reason.append(f" at {_short_path(guard.filename)}:{guard.lineno}", style="dim")
                reason.append(")", style="dim")
            grid.add_row(Text("         why compiled again: " if index == 0 else "                        and: ", style="yellow"), reason)
            out.append(grid)
    if c.failure:
        failure = Text("         ", style="red")
        failure.append(_line(c.failure), style="red")
        if c.failure_filename:
            failure.append(f"\n           at {_short_path(c.failure_filename)}:{_unknown(c.failure_lineno)}", style="dim")
            if c.failure_code:
                failure.append(f": {_line(c.failure_code)}")
        out.append(failure)
    for tuned in c.autotuning[:6]:
        line = Text(f"         autotuned {_line(tuned.op)}: chose {_line(tuned.best or 'unknown')}", style="dim")
        line.append(f" ({tuned.best_ms:.4f} ms)" if tuned.best_ms is not None else "")
        line.append(f" of {tuned.choices} choices" if tuned.choices is not None else "")
        if tuned.best_triton and tuned.best_triton_ms is not None:
            line.append(f"; Triton's best {_line(tuned.best_triton)} {tuned.best_triton_ms:.4f} ms")
        out.append(line)
    if c.cudagraphs:
        if c.cudagraph_skip_reason:
            skipped = Text("         CUDA graphs: not used: ", style="yellow")
            skipped.append(_line(c.cudagraph_skip_reason))
            out.append(skipped)
        elif c.cudagraph_recordings:
            out.append(
                Text(
                    f"         CUDA graphs: recorded {plural(c.cudagraph_recordings, 'time')}"
                    + (" (re-recorded)" if c.cudagraph_recordings > 1 else ""),
                    style="dim",
                )
            )
        else:
            out.append(Text("         CUDA graphs: asked for (reduce-overhead); no recording seen", style="dim"))
    for brk in c.graph_breaks:
        text = Text("         graph break: ", style="yellow")
        text.append(_line(brk.reason))
        if brk.filename:
            text.append(f"\n           at {_short_path(brk.filename)}:{_unknown(brk.lineno)}", style="dim")
            if brk.code:
                text.append(f": {_line(brk.code)}")
        out.append(text)
    if c.kernels and "kernels" not in show:
        out.append(Text("         kernels: " + _limited([_line(k.name) for k in c.kernels], 6), style="dim"))

    if "graph" in show:
        for graph in c.graphs:
            out.append(Text("         graph:", style="bold"))
            out.extend(graph_rows(graph, 11))
    if "guards" in show:
        out.append(
            Text(
                f"         guards: {len(c.guards)} (torch counts {_unknown(c.guard_count)} before it builds them; checking them took {_unknown(c.guard_latency_us, ' µs')})",
                style="bold",
            )
        )
        marks = 0
        for kept in c.guards:
            if kept.kind == "DIMENSION_DYNAMIC_MARKING_GUARD":
                marks += 1
                continue
            row = Text(f"           {_line(kept.kind):16} ", style="dim")
            row.append(_line(kept.plain))
            out.append(row)
        if marks:
            out.append(
                Text(
                    f"           and {marks} DIMENSION_DYNAMIC_MARKING_GUARD, not listed: that a tensor carries no "
                    "mark_dynamic / maybe_mark_dynamic / mark_unbacked / mark_static marks",
                    style="dim",
                )
            )
    if "dynamic" in show and c.dynamic:
        out.append(Text("         dynamic shapes:", style="bold"))
        for d in c.dynamic:
            row = Text(f"           {_line(d.kind)}: ")
            row.append(" ".join(_line(x) for x in (d.symbol, d.source) if x))
            if d.value:
                row.append(f" = {_line(d.value)}")
            if d.range:
                row.append(f" range {_line(d.range)}", style="dim")
            if d.reason:
                row.append(f" ({_line(d.reason)})", style="dim")
            if d.filename:
                row.append(f"  at {_short_path(d.filename)}:{d.lineno}", style="dim")
            out.append(row)
    if "aot" in show:
        for which in ("forward", "backward", "inference"):
            graph = getattr(c.aot, which)
            if graph is not None:
                out.append(Text(f"         AOT {which} graph ({len(graph.ops)} ATen ops):", style="bold"))
                out.append(Text("           " + "\n           ".join(_line(op) for op in graph.ops)))
    if "kernels" in show or "code" in show:
        for kernel in c.kernels:
            row = Text(f"         {_line(kernel.kind):12} ", style="dim")
            row.append(_line(kernel.name), style="bold")
            if kernel.aten_ops:
                row.append("  made from " + ", ".join(_line(op) for op in kernel.aten_ops))
                if kernel.aten_ops_from == "kernel name":
                    row.append(" (read from its name)", style="dim")
            elif kernel.aten_ops is None:
                row.append("  made from: unknown", style="dim")
            out.append(row)
            if "code" in show and kernel.code:
                from rich.syntax import Syntax  # pygments: only when code is asked for

                lexer = "cpp" if kernel.kind == "cpp" else "python"
                out.append(Syntax(kernel.code, lexer, line_numbers=False, word_wrap=True, theme="ansi_dark"))
    if "time" in show:
        t = c.time
        out.append(
            Text(
                f"         time: Dynamo {_seconds(t.dynamo_s)} · AOT Autograd {_seconds(t.aot_autograd_s)} · "
                f"Inductor {_seconds(t.inductor_s)} · code gen {_seconds(t.codegen_s)} · C++/Triton compiler {_seconds(t.kernel_compile_s)}"
                + (f" · loaded from cache {_seconds(t.from_cache_s)}" if t.from_cache_s is not None else "")
                + (f" · backward {_seconds(t.backward_s)}" if t.backward_s is not None else "")
                + f" · FX graph cache {_unknown(c.cache.fx_graph_hits)} hit / {_unknown(c.cache.fx_graph_misses)} miss",
                style="dim",
            )
        )
    return out


@dataclass
class Column:
    """A column of a FitTable."""

    header: str
    justify: str = "left"  # "left" or "right"
    long: bool = False  # free text (ATen ops, source lines): a line of its own when rows are lines
    label: str | None = None  # its name before each value when rows are lines (default: the header)


class FitTable:
    """A table where the output is wide enough for it, and each row as lines where it is not.

    rich fits any table into any width by narrowing its columns, down to one word a line: piped
    into 80 columns, a kernel table of seven columns comes out as a column of words. Here each
    column gets room for its longest word and, where its cells are longer, for SHORT_ROOM cells
    of them (LONG_ROOM for free text), and what is left is shared out up to each column's
    widest line. Where even that is wider than the output, each row is printed as lines
    instead: its first cell, its short cells packed into lines ("calls: 2 · share: 100%"),
    then each long cell after its label.

    Cells are bounded (_bounded_text) as they are added, and what is printed passes _Escaped:
    `compilescope bench` prints this without printable().
    """

    SHORT_ROOM = 10
    LONG_ROOM = 20
    INDENT = 4  # the lines of a row, under its first cell

    def __init__(self, columns: list[Column], title: str | None = None, box: Any = None) -> None:
        from rich import box as boxes

        self.columns = columns
        self.title = title
        self.box = boxes.HEAVY_HEAD if box is None else box
        self.rows: list[tuple[list[Text], bool]] = []

    def add_row(self, *cells: str | Text) -> None:
        row = [_bounded_text(cell if isinstance(cell, Text) else Text(cell)) for cell in cells]
        self.rows.append((row + [Text("")] * (len(self.columns) - len(row)), False))

    def add_note(self, first: str | Text, note: Text) -> None:
        """A row that has a note instead of figures ("no figures (below)")."""
        self.add_row(first, note)
        self.rows[-1] = (self.rows[-1][0], True)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        widths = self._widths(console, options)
        inner = self._table(widths) if widths is not None else self._lines(console, options)
        yield from _Escaped(inner).__rich_console__(console, options)

    def _table(self, widths: list[int]) -> Table:
        # (the title as Text: a str would be read as rich markup and emoji codes, and a model
        # named hf:llama came out as "hf🦙")
        table = Table(title=Text(self.title) if self.title else None, title_justify="left", box=self.box)
        for column, width in zip(self.columns, widths):
            table.add_column(column.header, justify=column.justify, width=width, overflow="fold")  # type: ignore[arg-type]
        for cells, _ in self.rows:
            table.add_row(*cells)
        return table

    def _widths(self, console: Console, options: ConsoleOptions) -> list[int] | None:
        """Each column's width, or None where the table does not fit (rows as lines)."""
        from rich.measure import Measurement

        wide = options.update_width(10**6)
        need, cells_width, full = [], [], []
        for index, column in enumerate(self.columns):
            header = Measurement.get(console, wide, Text(column.header))
            measured = [(Measurement.get(console, wide, cells[index]), is_note) for cells, is_note in self.rows]
            longest_word = max([header.minimum, *(m.minimum for m, _ in measured)])
            widest = max([0, *(m.maximum for m, is_note in measured if not is_note)])  # (a note may wrap)
            room = self.LONG_ROOM if column.long else self.SHORT_ROOM
            need.append(max(longest_word, min(widest, room), 1))
            cells_width.append(max(need[-1], widest))
            full.append(max(cells_width[-1], header.maximum))
        # what the borders and padding take: the table with every column one cell wide
        bare = self._table([1] * len(self.columns))
        bare.title = None
        overhead = Measurement.get(console, wide, bare).maximum - len(self.columns)
        spare = options.max_width - overhead - sum(need)
        if spare < 0:
            return None
        widths = need[:]
        # what is left goes first to cells (a figure whole on its line), then to the headers
        for goal in (cells_width, full):
            spare = _share_out(widths, goal, spare)
        return widths

    def _lines(self, console: Console, options: ConsoleOptions) -> Group:
        from rich.cells import cell_len
        from rich.padding import Padding

        room = max(options.max_width - self.INDENT, 20)
        out: list = [Text(self.title, style="table.title")] if self.title else []
        long_columns = [c for c in self.columns[1:] if c.long]
        label_width = max((cell_len(c.label or c.header) for c in long_columns), default=0) + 2
        for cells, is_note in self.rows:
            out.append(Text.assemble(cells[0], style="bold"))
            parts: list = []
            if is_note:
                parts.append(cells[1])
                out.append(Padding(Group(*parts), (0, 0, 0, self.INDENT), expand=False))
                continue
            lines: list[Text] = []
            for column, cell in zip(self.columns[1:], cells[1:]):
                if column.long or not cell.plain.strip():
                    continue
                item = Text(f"{column.label or column.header}: ", style="dim")
                item.append_text(_joined_lines(cell))
                if lines and cell_len(lines[-1].plain) + 3 + cell_len(item.plain) <= room:
                    lines[-1].append(" · ", style="dim")
                    lines[-1].append_text(item)
                else:
                    lines.append(item)
            parts.extend(lines)
            grid = _hanging(label_width)
            for column, cell in zip(self.columns[1:], cells[1:]):
                if column.long and cell.plain.strip():
                    grid.add_row(Text(f"{column.label or column.header}:", style="dim"), cell)
            if grid.row_count:
                parts.append(grid)
            if parts:
                out.append(Padding(Group(*parts), (0, 0, 0, self.INDENT), expand=False))
        return Group(*out)


def _share_out(widths: list[int], goal: list[int], spare: int) -> int:
    """Widen `widths` towards `goal`, evenly, with at most `spare` cells; what is left over."""
    wanting = [i for i in range(len(widths)) if goal[i] > widths[i]]
    while spare > 0 and wanting:
        share = max(1, spare // len(wanting))
        for i in list(wanting):
            give = min(share, goal[i] - widths[i], spare)
            widths[i] += give
            spare -= give
            if widths[i] >= goal[i]:
                wanting.remove(i)
            if not spare:
                break
    return spare


def _joined_lines(text: Text) -> Text:
    """A cell's lines as one line ("1.234 (1.1–1.3)"), styles kept."""
    if "\n" not in text.plain:
        return text
    return Text(" ").join(line for line in text.split("\n") if line.plain)


_VERDICT_STYLE = {"faster": "green", "slower": "red", "about even": "", "too noisy to say": "yellow"}


def verdict_words(verdict: str | None, speedup: float | None) -> str:
    """A speedup with its verdict in words, for a terminal, a log or a page alike (a colour
    alone is lost in a CI log): "faster 1.30x", "slower 0.76x", "about even 1.02x", "too noisy
    to say (0.98x)"; the speedup alone where no verdict was given (a session saved before
    verdicts), "unknown" where neither is known."""
    if speedup is None:
        return verdict or "unknown"
    figure = f"{speedup:.2f}x"
    if verdict is None:
        return figure
    return f"{verdict} ({figure})" if verdict == "too noisy to say" else f"{verdict} {figure}"


def verdict_text(verdict: str | None, speedup: float | None) -> Text:
    """verdict_words in the verdict's colour."""
    style = _VERDICT_STYLE.get(verdict or "", "dim" if speedup is None else "")
    if verdict is None and speedup is not None:  # (no verdict: the speedup's own colour)
        style = "green" if speedup >= 1.05 else ("red" if speedup < 0.95 else "")
    return Text(_together(verdict_words(verdict, speedup)), style=style)  # (one phrase: never cut in a cell)


def bench_lead(session: Session) -> list[tuple[str, str, list[str]]]:
    """What a bench report leads with, per configuration: its verdict in words and what a reader
    needs to judge it (why; a busy machine; a warm-up that had not settled), as the terminal
    says them under its table."""
    return [
        (
            b.config,
            f"no figures: {b.skipped}" if b.skipped else verdict_words(b.verdict, b.speedup),
            [] if b.skipped else [*_judged(b), *_machine(b)],
        )
        for b in session.benchmarks
    ]


def _machine(bench: Benchmark) -> list[str]:
    """The machine's state while it measured, where bench recorded it and _judged did not say it
    was busy (it says that)."""
    conditions = bench.conditions
    if conditions is None or conditions.busy:
        return []
    facts = []
    if conditions.others_cpu is not None:
        facts.append(f"other processes used {conditions.others_cpu:.1f} cores' worth of CPU while it measured")
    if conditions.load_before is not None or conditions.load_after is not None:
        facts.append(f"load {_unknown(conditions.load_before)} before, {_unknown(conditions.load_after)} after")
    if conditions.cpus is not None:
        facts.append(f"on {plural(conditions.cpus, 'core')}")
    return ["measured on a quiet machine" + (f" ({'; '.join(facts)})" if facts else "") + "."]


def bench_table(session: Session) -> _Escaped:
    """The benchmark results as a table, with how they were measured underneath."""
    from rich import box

    columns = [
        # The configuration is never cut ("inductor/reduce-o…" names no mode): it wraps.
        Column("configuration"),
        Column("eager ms", "right", label="eager (ms)"),
        Column("compiled ms", "right", label="compiled (ms)"),
        # the verdict in words with the speedup ("slower 0.76x"): a colour alone is lost in a log
        Column("speedup", "right"),
        Column("first call: cold / warm", "right", label="first call (cold / warm)"),
        Column("break-even calls", "right"),
        Column("peak memory", "right"),
        Column("accuracy"),
    ]
    table = FitTable(columns, title=f"Eager vs torch.compile · {session.environment.device or 'unknown device'}", box=box.SIMPLE_HEAD)

    def ms(median: float | None, iqr: list[float] | None) -> Text:
        if median is None:
            return Text("unknown", style="dim")
        text = Text(f"{median:.3f}")
        if iqr and len(iqr) == 2:  # (a session from elsewhere may hold any list)
            text.append(f"\n({iqr[0]:.3f}–{iqr[1]:.3f})", style="dim")
        return text

    for b in session.benchmarks:
        if b.skipped:
            table.add_note(Text(b.config), Text("no figures (below)", style="yellow"))
            continue
        speed = verdict_text(b.verdict, b.speedup)
        even = (
            "never"
            if b.break_even_calls is None and b.speedup is not None
            else _unknown(None if b.break_even_calls is None else f"{b.break_even_calls:.0f}")
        )
        table.add_row(
            Text(b.config),
            ms(b.eager_ms, b.eager_iqr_ms),
            ms(b.compiled_ms, b.compiled_iqr_ms),
            speed,
            f"{_together(_seconds(b.first_call_cold_s))} / {_together(_seconds(b.first_call_warm_s))}",
            even,
            _together(_unknown(None if b.peak_memory_mb is None else f"{b.peak_memory_mb:.0f} MB")),
            Text(_unknown(b.accuracy), style="red" if (b.accuracy or "").startswith("fail") else ""),
        )
    measured = next((b for b in session.benchmarks if not b.skipped), None)
    notes = Text("", style="dim")
    built = next((b.model for b in session.benchmarks if b.model), None)
    if built:  # a model by name: what was built (--config's values show in its size)
        target = session.program.target if session.program and session.program.target else "the model"
        notes.append(f"{target}: {built}\n")
    for b in session.benchmarks:
        if b.skipped:
            notes.append(f"{b.config}: no figures: ", style="yellow")
            notes.append(b.skipped + "\n", style="yellow")
    for b in session.benchmarks:
        for line in _judged(b):
            notes.append(f"{b.config}: ", style="bold")
            notes.append(line + "\n", style="yellow" if b.conditions is not None and b.conditions.busy else "")
    if measured is not None:
        warmed = f"{measured.warmup} warm-up calls"
        if measured.conditions is not None and measured.conditions.warmup_s is not None:
            warmed += f" ({measured.conditions.warmup_s:.1f} s, until the times stopped falling)"
        notes.append(
            f"medians of {measured.runs} timed calls each (IQR in brackets) after {warmed}, eager and compiled "
            f"taking turns{' in short blocks' if measured.conditions is not None else ''}; {measured.threads} threads; timer: {measured.timer}; memory: {measured.memory_kind or 'not measured'}.\n"
            "break-even: calls after which the compile has paid for itself (first call's extra time / time saved per call)."
        )
        if measured.warm_in_process:
            notes.append("\nwarm first call measured in the same process as the cold one (in-memory caches help it).")
    # (escaped here too: `compilescope bench` prints this without printable())
    return _Escaped(Group(table, _bounded_text(notes)))


def _judged(bench: Benchmark) -> list[str]:
    """What a reader needs to judge one benchmark's figures, where bench said it: why its
    verdict, a machine busy with other work, a warm-up that ended before the times settled."""
    out = []
    if bench.verdict_why:
        out.append(_line(bench.verdict_why))
    conditions = bench.conditions
    if conditions is not None and conditions.busy and bench.verdict_why and "busy" in bench.verdict_why:
        # The verdict said so already: add only the load it does not give.
        if conditions.load_before is not None or conditions.load_after is not None:
            out.append(f"load average {_unknown(conditions.load_before)} before, {_unknown(conditions.load_after)} after.")
    elif conditions is not None and conditions.busy:
        facts = []
        if conditions.others_cpu is not None:
            facts.append(f"other processes used {conditions.others_cpu:.1f} cores' worth of CPU while it measured")
        if conditions.load_before is not None or conditions.load_after is not None:
            facts.append(f"load {_unknown(conditions.load_before)} before, {_unknown(conditions.load_after)} after")
        if conditions.cpus is not None:
            facts.append(f"on {plural(conditions.cpus, 'core')}")
        out.append(
            "measured on a busy machine" + (f" ({'; '.join(facts)})" if facts else "") + ": its figures may not hold on a quiet one."
        )
    if conditions is not None and conditions.warmup_steady is False:
        took = " after " + _together(f"{conditions.warmup_s:.1f} s") if conditions.warmup_s is not None else ""
        out.append(f"the per-call times were still falling when the warm-up ended{took}.")
    if conditions is not None and conditions.rounds is not None and conditions.rounds > 1:
        out.append(
            f"timed in {conditions.rounds} rounds: the first did not settle the verdict (a busy machine or a wide spread); the figures are the quietest round's."
        )
    return out


def _kernel_name(kernel) -> Text:
    text = Text(kernel.name)
    if kernel.device_kernels:  # a library call: the cuBLAS/cuDNN kernels it ran
        text.append("\n" + _limited([name[:60] for name in kernel.device_kernels], 2), style="dim")
    return text


def kernel_time_table(bench: Profile, limit: int = 15) -> _Escaped | Text:
    """Where the compiled time went, kernel by kernel (bench --profile, run --profile)."""
    if bench.profile_error:
        return Text(f"{bench.config}: no profile: {bench.profile_error}", style="yellow")
    if not bench.kernels:
        return Text(f"{bench.config}: the profile recorded no kernel time", style="yellow")
    gpu = bench.kernels[0].where == "device"
    where = "GPU time" if gpu else "CPU time"
    title = f"{bench.config}: {where} by kernel over {bench.profiled_calls} calls of compiled code"
    columns = [
        Column("kernel"),
        Column("kind"),
        Column("calls", "right"),
        Column("µs per call", "right"),
        Column("share", "right"),
        Column("made from (ATen)", long=True),
        Column("your code", long=True),
    ]
    if gpu:
        columns += [Column("GB/s", "right"), Column("of copy peak", "right"), Column("TFLOP/s", "right")]
    table = FitTable(columns, title=title)
    for k in bench.kernels[:limit]:
        row: list[str | Text] = [
            _kernel_name(k),
            Text(k.kind),
            str(k.calls),
            f"{k.total_us / max(k.calls, 1):.1f}",
            f"{100 * k.share:.0f}%",
            Text(", ".join(k.aten_ops) if k.aten_ops else "unknown", style="" if k.aten_ops else "dim"),
            Text(
                "\n".join(_short_source(s) for s in k.source_lines[:3]) if k.source_lines else "unknown",
                style="" if k.source_lines else "dim",
            ),
        ]
        if gpu:
            row += [
                _unknown(None if k.achieved_gbps is None else f"{k.achieved_gbps:.0f}"),
                _unknown(None if k.bandwidth_of_peak is None else f"{100 * k.bandwidth_of_peak:.0f}%"),
                _unknown(None if k.achieved_tflops is None else f"{k.achieved_tflops:.1f}"),
            ]
        table.add_row(*row)
    notes = Text("", style="dim")
    if len(bench.kernels) > limit:
        notes.append(f"… {len(bench.kernels) - limit} more kernels in the JSON\n")
    if bench.compiled_regions:
        notes.append(
            "calls served by each compiled version: " + ", ".join(f"{cid}: {n}" for cid, n in bench.compiled_regions.items()) + "\n"
        )
    if bench.peak_copy_gbps:
        notes.append(
            f"device limits measured here: copy {bench.peak_copy_gbps:.0f} GB/s (read + write), matrix product {bench.peak_matmul_tflops:.0f} TFLOP/s\n"
        )
    for note in bench.profile_notes:
        notes.append(note + "\n")
    return _Escaped(Group(table, _bounded_text(notes)))


def _short_source(line: str) -> str:
    where, _, code = line.partition("  ")
    return f"{_short_path(where.rsplit(':', 1)[0])}:{where.rsplit(':', 1)[-1]}  {code}" if ":" in where else line


def brief(session: Session) -> str:
    """One line: what a rank other than 0 prints under a launcher (every rank printing the
    whole explanation would interleave them)."""
    rank = "" if session.rank is None else f" (rank {session.rank})"
    counted = counts(session)
    said = ", ".join(counted.said(name) for name in ("compiles", "recompiles", "graph_break_places", "graph_break_occurrences"))
    partial = f" ({_line(session.incomplete.reason)})" if session.incomplete is not None else ""
    return f"compilescope{rank}: {said}, compile time {_seconds(session.total_compile_time_s)}{partial}"


def console_for(stream: Any) -> Console:
    """The Console that prints to `stream` (sys.stdout, sys.stderr, or a copy of one) at the
    width `width_for` gives; colour only where the stream is a terminal (rich decides)."""
    return Console(file=stream, width=width_for(stream), highlight=False)


def show(session: Session, console: Console | None = None, **options) -> None:
    if console is None:
        import sys

        console = console_for(sys.stdout)
    console.print(printable(renderables(session, **options)))


def render_text(session: Session, width: int = 100, **options) -> str:
    buffer = io.StringIO()
    # force_jupyter=False: inside a notebook rich would display the text itself instead of
    # returning it (the notebook shows the HTML report; this is its plain-text twin).
    console = Console(file=buffer, width=width, no_color=True, highlight=False, emoji=False, color_system=None, force_jupyter=False)
    show(session, console=console, **options)
    return buffer.getvalue()
