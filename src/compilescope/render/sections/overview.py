"""The terminal's sections about the whole session: the line a partial session leads with,
the header (what ran, where, its memory), the summary (its counts), the findings with their
advice, the child processes, and what was skipped while reading.
"""

from __future__ import annotations

import dataclasses
import re

from rich.console import Group
from rich.text import Text

from compilescope.findings.accuracy import checks_said
from compilescope.findings.rules import INFO, PROBLEM, WARNING, Finding, never_imported_torch, plural
from compilescope.render.memory import memory_line
from compilescope.render.terminal import hanging, keep_phrases, limited, one_line_of, seconds, short_path, together, unknown
from compilescope.render.text import short_message
from compilescope.session.counts import calls_recorded_said, compile_id_note, compile_ids_in, counts
from compilescope.session.counts import said as count_said
from compilescope.session.model import Session

_LEVEL = {PROBLEM: ("✖", "bold red"), WARNING: ("▲", "yellow"), INFO: ("●", "cyan")}
MAX_FINDINGS = 25  # findings printed; the HTML report and the JSON have them all
_SIZE = re.compile(r"\b\d+(?:\.\d)? (?:B|KiB|MiB|GiB|TiB|PiB)\b")  # a figure of render/memory.py's line


def incomplete_line(session: Session) -> Text | None:
    """The line every view of a partial session leads with (session.model.Incomplete)."""
    if session.incomplete is None:
        return None
    return Text(f"⚠ {one_line_of(session.incomplete.reason)}", style="bold yellow")


def header(session: Session) -> Text:
    """What ran (the program, its exit status, its time, the rank), where (Python, torch, the
    device, the C++ compiler), and the memory it held (where `run` measured it)."""
    text = Text("compilescope", style="bold")
    program = session.program
    if program is not None:
        text.append(" · " if program.kind == "capture" else f" · {one_line_of(program.kind)} ")
        text.append(one_line_of(program.target), style="bold")
        if program.exit_status is not None:
            text.append(" · " + together(f"exit status {program.exit_status}"))
        if program.wall_time_s is not None:
            text.append(" · " + together(f"ran {program.wall_time_s:.1f} s"))
    if session.rank is not None:
        text.append(f" · rank {session.rank}")
    if program is not None and program.exception:
        # (a line of its own, shortened and without the program's colours: it printed it whole)
        text.append("\nraised ")
        text.append(short_message(program.exception), style="red")
    env = session.environment
    text.append("\n")
    if never_imported_torch(session):  # so there was nothing to ask about the device or compiler
        parts = [f"Python {unknown(env.python)}", "the program did not import torch"]
    else:
        parts = [
            f"Python {unknown(env.python)}",
            f"torch {unknown(env.torch)}",
            f"device {unknown(env.device)}",
        ]
        if env.threads is not None:
            parts.append(f"{env.threads} threads")
        parts.append(f"C++ compiler {unknown(env.compiler)}")
    text.append(" · ".join(together(one_line_of(part)) for part in parts), style="dim")
    said = memory_line(dataclasses.asdict(session.memory)) if session.memory is not None else None
    if said is not None:
        # (each figure kept on one line: "3.2 GiB", never "3.2" / "GiB")
        text.append("\n" + _SIZE.sub(lambda match: together(match.group()), one_line_of(said)), style="dim")
    return text


def summary(session: Session) -> Text:
    """The session's counts, in session/counts.py's words (the same in --try, diff, check, the
    HTML report and the JSON)."""
    counted = counts(session)
    compiles = session.compiles
    text = Text("\n")
    # (each figure kept on one line: "5 compiles" / "(3 recompiles)", never "5" / "compiles")
    text.append(together(counted.said("functions")))
    if counted.resume_functions:
        text.append(" " + together(f"({counted.resume_functions} of them the code after a graph break)"), style="dim")
    text.append(" · " + together(counted.said("compiles")))
    if counted.recompiles:
        text.append(" " + together(f"({counted.said('recompiles')})"), style="yellow")
    if counted.failed:
        text.append(" · " + together(counted.said("failed")), style="red")
    text.append(" · " + together(counted.said("graphs")) + " · ")
    breaks = counted.graph_break_occurrences
    text.append(together(counted.said("graph_break_places")), style="yellow" if breaks else "")
    if breaks:
        text.append(", " + together(counted.said("graph_break_occurrences")), style="yellow")
    text.append(" · " + together(counted.said("kernels")) + " · " + together(f"compile time {seconds(session.total_compile_time_s)}"))
    backward = sum(c.time.backward_s or 0.0 for c in session.compiles)
    if backward >= 0.005:
        text.append(f" (with {backward:.2f} s compiling backward graphs at the first backward)")
    recorded = calls_recorded_said(session)
    if recorded and compiles:  # (nothing compiled: no calls to count either way)
        text.append(f"\nCalls per compiled version: {recorded}", style="dim")
    checked = checks_said(session)
    if checked:
        text.append("\n" + checked, style="red" if "differs" in checked else "dim")
    return text


def finding_renderable(finding: Finding) -> Group:
    """A finding, its lines indented under its title; a line too long for the terminal goes on
    at its own indent (a grid's second column), and "expected 8, actual 16" stays on one line."""
    mark, style = _LEVEL[finding.level]
    title = hanging(3)
    title.add_row(Text(f" {mark} ", style=style), Text(one_line_of(finding.title), style="bold"))
    body = hanging(5)
    for line in finding.detail.splitlines() if finding.detail else ():
        body.add_row("", Text(keep_phrases(line)))
    for said in (finding.act_line(), finding.cost_line()):
        if said:
            body.add_row("", Text(keep_phrases(one_line_of(said)), style="dim"))
    for index, line in enumerate(finding.fix.splitlines() if finding.fix else ()):
        body.add_row(Text("   → " if index == 0 else "", style="green"), Text(keep_phrases(line), style="green"))
    if finding.try_line():
        body.add_row("", Text(keep_phrases(one_line_of(finding.try_line() or "")), style="cyan"))
    return Group(title, body) if body.row_count else Group(title)


def children(session: Session, limit: int = 10) -> list:
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
        row.append(f"  {one_line_of(child.command)}\n    ")
        row.append(
            f"{count_said('functions', child.functions)} · {count_said('compiles', child.compiles)} ({count_said('recompiles', child.recompiles)}) · "
            f"{count_said('graph_break_occurrences', child.graph_breaks)} · {count_said('kernels', child.kernels)} · compile time {seconds(child.compile_time_s)}"
        )
        if child.trace:
            row.append(f"\n    compilescope report {short_path(child.trace)}", style="dim")
        if child.why_not:
            row.append(f"\n    {child.why_not}", style="yellow")
        out.append(row)
    if len(compiled) > limit:
        out.append(Text(f"  … {len(compiled) - limit} more that compiled (the session's JSON lists them all)", style="dim"))
    if idle:
        commands = limited(list(dict.fromkeys(one_line_of(c.command) for c in idle)), 3)
        out.append(Text(f"  {plural(len(idle), 'more child process', 'more child processes')} compiled nothing: {commands}", style="dim"))
    for child in missed[:limit]:
        row = Text("  not followed: ", style="yellow")
        row.append(one_line_of(child.command))
        row.append(f"\n    {child.why_not or 'unknown why'}", style="dim")
        out.append(row)
    if len(missed) > limit:
        out.append(Text(f"  … {len(missed) - limit} more not followed", style="yellow"))
    return out


def findings_section(session: Session, found: list[Finding]) -> tuple[list, list[str]]:
    """The findings, most important first (MAX_FINDINGS of them), and the compile ids they name
    (where ids are first shown, what they mean is said under them)."""
    if not found:
        return [], []
    out: list = [Text("What to look at", style="bold underline")]
    for finding in found[:MAX_FINDINGS]:
        out.append(finding_renderable(finding))
    if len(found) > MAX_FINDINGS:
        out.append(Text(f" … {len(found) - MAX_FINDINGS} more (the HTML report and the session's JSON have them all)", style="dim"))
    named = compile_ids_in([f"{f.title}\n{f.detail}" for f in found[:MAX_FINDINGS]])
    if named:  # (where ids are first shown, what they mean, for the ids below too; else under the functions)
        out.append(Text(compile_id_note(named + [c.compile_id for c in session.compiles]), style="dim"))
    out.append(Text(""))
    return out, named


def skipped(session: Session) -> list:
    """What the reader skipped (records it could not read), the first ten of them."""
    if not session.skipped:
        return []
    out: list = [Text(""), Text(f"Skipped while reading ({len(session.skipped)}):", style="yellow")]
    for item in session.skipped[:10]:
        out.append(Text(f"  {item}", style="yellow"))
    if len(session.skipped) > 10:
        out.append(Text(f"  … {len(session.skipped) - 10} more", style="yellow"))
    return out
