"""Dynamo's records: the frames it compiled and where they were called from (dynamo_start), the
graphs it captured, its guards, graph breaks and recompile reasons, and its decisions about
dynamic shapes (symbols, specializations, guards added).

Frames are functions, keyed by (file, first line, name): every version Dynamo compiled of one
function is one Frame. After the last record, `read_dynamo_facts` reads Dynamo's part of each
compile; `name_by_frame_id`, `link_resumes` and `breaks_in_compiled_frames` connect compiles and
frames to each other (a graph break to the resume function that continues after it).
"""

from __future__ import annotations

import json
import re
from typing import Any

from compilescope.session.model import DynamicShape, GraphBreak
from compilescope.session.places import is_user_code
from compilescope.session.records.state import BuildState, Handler, Pending
from compilescope.session.records.values import as_text, int_of, number_of, text_of
from compilescope.session.sources import read_source
from compilescope.trace.reader import Record, json_value

# The parsers of graphs, guards and graph breaks (session/breaks.py, graphs.py, guards.py: many
# regular expressions to compile) are imported where first used: building the session of a run
# that compiled nothing, at the end of `compilescope run`, never needs them.

SUMMARY_LIMIT = 1000  # characters of a line read out of torch's message (its whole text is kept)


def on_dynamo_start(state: BuildState, record: Record) -> None:
    assert record.compile_id is not None
    existing = state.latest.get(record.compile_id.key)
    stack = record.metadata.get("stack") if isinstance(record.metadata, dict) else None
    if stack is not None and not isinstance(stack, list):
        state.wrong_type(record, "stack", stack, "a list")
    if existing is not None and existing.frame_key[2] == "unknown" and not existing.metrics:
        # Records (a timing event, the recompile reasons) came before dynamo_start: they
        # belong to this compile, which now learns its function.
        existing.frame_key, existing.compile.called_from, existing.compile.call_code = state.where(stack)
        existing.compile.records.append(record.line)
        existing.began = True
        return
    if existing is not None and record.compile_id.attempt > 0:
        existing.compile.records.append(record.line)
        existing.began = True
        return  # a restart of the same compile
    began = state.begin(record.compile_id, stack)
    began.compile.records.append(record.line)
    began.began = True


def on_dynamo_output_graph(state: BuildState, record: Record) -> None:
    item = state.pending(record)
    if item and record.payload is not None:
        from compilescope.session.graphs import parse_dynamo_graph

        item.compile.graphs.append(parse_dynamo_graph(record.payload))


def on_dynamo_cpp_guards_str(state: BuildState, record: Record) -> None:
    item = state.pending(record)
    if item and record.payload is not None:
        item.compile.guards_text = record.payload
        from compilescope.session.guards import copied, parse_guard_tree

        parsed = state.guard_trees.get(record.payload)
        if parsed is None:
            parsed = state.guard_trees[record.payload] = parse_guard_tree(record.payload)
        item.compile.guards = copied(parsed)  # each compile its own guards, as if parsed anew


def on_dynamo_graph_break_reason(state: BuildState, record: Record) -> None:
    item = state.pending(record)
    if item and record.payload is not None:
        item.break_texts.append(record.payload)


def on_recompile_reasons(state: BuildState, record: Record) -> None:
    item = state.pending(record)
    if item and record.payload is not None:
        lines = _json_or_lines(record.payload)
        item.compile.recompile_reason = lines
        from compilescope.session.breaks import parse_recompile_reasons

        item.compile.failed_guards = parse_recompile_reasons(lines)


def _json_or_lines(payload: str) -> list[str]:
    # One reason is written as plain text (possibly several lines), several as a JSON list.
    try:
        data = json_value(payload)
    except json.JSONDecodeError:
        from compilescope.session.breaks import split_recompile_reasons

        return split_recompile_reasons([line for line in payload.split("\n") if line.strip()])
    if isinstance(data, list):
        return [str(item) for item in data]
    return [str(data)]


def _dynamic(state: BuildState, record: Record, kind: str) -> None:
    item = state.pending(record)
    meta = record.metadata if isinstance(record.metadata, dict) else {}
    if item is None:
        return
    sources = meta.get("sources")
    decision = DynamicShape(
        kind=kind,
        symbol=as_text(meta.get("symbol")) or as_text(meta.get("expr")),
        source=as_text(meta.get("source")) or (", ".join(str(s) for s in sources) if isinstance(sources, list) and sources else None),
        value=as_text(meta.get("val", meta.get("value"))),
        range=as_text(meta.get("vr")),
        reason=as_text(meta.get("reason")),
    )
    user_stack = meta.get("user_stack")
    if isinstance(user_stack, list) and user_stack:
        top = user_stack[0] if kind in ("symbol", "unbacked symbol") else user_stack[-1]
        if isinstance(top, dict):
            decision.filename = state.log.string(top.get("filename"))
            decision.lineno = int_of(top.get("line"))
            decision.code = text_of(top.get("loc"))
    item.compile.dynamic.append(decision)


def on_create_symbol(state: BuildState, record: Record) -> None:
    _dynamic(state, record, "symbol")


def on_create_unbacked_symbol(state: BuildState, record: Record) -> None:
    _dynamic(state, record, "unbacked symbol")


def on_symbolic_shape_specialization(state: BuildState, record: Record) -> None:
    _dynamic(state, record, "specialization")


def on_guard_added_fast(state: BuildState, record: Record) -> None:
    _dynamic(state, record, "guard")


def automatic_dynamic(state: BuildState, record: Record, args: Any) -> None:
    """A dimension Dynamo made dynamic after it changed between calls (a timing event's
    arguments: chromium_event "automatic_dynamic")."""
    item = state.pending(record)
    args = args if isinstance(args, dict) else {}
    if item is not None:
        dim = args.get("dim_changed")
        item.compile.dynamic.append(
            DynamicShape(
                kind="automatic dynamic",
                source=f"{args.get('name')}" + (f" dim {dim}" if dim not in (None, "all", "scalar") else ""),
                value=f"{args.get('cached')} -> {args.get('new')}",
                reason=as_text(args.get("reason")),
            )
        )


HANDLERS: dict[str, Handler] = {
    "dynamo_start": on_dynamo_start,
    "dynamo_output_graph": on_dynamo_output_graph,
    "dynamo_cpp_guards_str": on_dynamo_cpp_guards_str,
    "dynamo_graph_break_reason": on_dynamo_graph_break_reason,
    "recompile_reasons": on_recompile_reasons,
    "create_symbol": on_create_symbol,
    "create_unbacked_symbol": on_create_unbacked_symbol,
    "symbolic_shape_specialization": on_symbolic_shape_specialization,
    "guard_added_fast": on_guard_added_fast,
}


# ---- when the trace has been read -----------------------------------------------------------


def read_dynamo_facts(state: BuildState, item: Pending) -> None:
    """Dynamo's part of a compile: its function where only its metrics name it, its graph
    breaks, its counts from torch's metrics, why it was compiled again, and why it failed."""
    c, m = item.compile, item.metrics
    if item.frame_key[2] == "unknown" and isinstance(m.get("co_name"), str) and m["co_name"]:
        item.frame_key = (text_of(m.get("co_filename")), int_of(m.get("co_firstlineno")), m["co_name"])
    from compilescope.session.breaks import parse_graph_break

    c.graph_breaks = [parse_graph_break(text) for text in item.break_texts]
    for brk in c.graph_breaks:
        _bound_summaries(brk)
        _attach_source(state, brk)
    c.op_count = int_of(m.get("graph_op_count"))
    c.guard_count = int_of(m.get("guard_count"))
    c.guard_latency_us = number_of(m.get("guard_latency_us"))
    restarts = m.get("restart_reasons")
    c.restarts = [str(r) for r in restarts] if isinstance(restarts, list) else []
    if c.recompile_reason is None and isinstance(m.get("recompile_reason"), str) and m["recompile_reason"]:
        c.recompile_reason = [m["recompile_reason"]]
        from compilescope.session.breaks import parse_recompile_reasons

        c.failed_guards = parse_recompile_reasons(c.recompile_reason)
    for guard in c.failed_guards:
        guard.filename = _full_path(guard.filename, item.frame_key[0])
    if m.get("fail_type"):
        reason = text_of(m.get("fail_reason")) or ""
        reason = reason.strip()
        c.failure = f"{text_of(m['fail_type']) or 'unknown'}: {_failure_summary(reason)}".strip()
        c.failure_filename = text_of(m.get("fail_user_frame_filename"))
        c.failure_lineno = int_of(m.get("fail_user_frame_lineno"))
        c.failure_hints = [h.strip()[:SUMMARY_LIMIT] for h in re.findall(r"^\s*Hint: (.+)$", reason, re.M)][:5]
        if caused := re.search(r"^Caused by: (.*?)\s+# ", reason, re.M):
            c.failure_code = caused.group(1).strip()


def _bound_summaries(brk: GraphBreak) -> None:
    """A graph break's one-line reason, explanation, hint and code are lines read out of torch's
    message, which `text` keeps whole: from a message far longer than torch writes (a huge repr
    in it), they keep their first SUMMARY_LIMIT characters, and say so, so that nothing that
    reads them (findings, the terminal, the report) works through megabytes per line."""
    for name in ("reason", "explanation", "hint", "code"):
        value = getattr(brk, name)
        if isinstance(value, str) and len(value) > SUMMARY_LIMIT:
            setattr(brk, name, value[:SUMMARY_LIMIT] + f"… ({_size(value[SUMMARY_LIMIT:])} more in the graph break's text)")


def _size(text: str) -> str:
    if len(text) < 100_000:
        return f"{len(text):,} characters"
    return f"{len(text.encode('utf-8', 'surrogatepass')) / 1e6:.1f} MB"


def _attach_source(state: BuildState, brk: GraphBreak, around: int = 3) -> None:
    """The lines around a break, read from the user's file, but only if the file still has,
    at that line, the code torch reported: a file edited since the run must not mislead."""
    if not brk.filename or not brk.lineno or not brk.code or brk.lineno < 1:
        return
    if brk.filename not in state.sources:
        if len(state.sources) >= 256:
            state.sources.clear()
        state.sources[brk.filename] = read_source(brk.filename)
    lines = state.sources[brk.filename]
    if lines is None or brk.lineno > len(lines) or lines[brk.lineno - 1].strip() != brk.code.strip():
        return
    start = max(1, brk.lineno - around)
    brk.context = lines[start - 1 : brk.lineno + around]
    brk.context_start = start


def _full_path(shortened: str | None, known: str | None) -> str | None:
    """torch writes a guard's place with torch.utils._traceback.shorten_filename, which cuts the
    path at its common prefix with torch's folder (and, when that prefix is only "/", one
    character too many: "/tmp/t.py" becomes "mp/t.py"). Where the compiled function's own file
    ends with that text, it is the full path; otherwise torch's text stays as it is."""
    if shortened and known and not shortened.startswith("/") and known.endswith(shortened):
        return known
    return shortened


_RAISED = re.compile(r"got (?P<error>\w+(?:Error|Exception))\((?P<quote>['\"])(?P<message>.*?)(?P=quote)\)", re.S)


def _failure_summary(reason: str) -> str:
    """torch's first line of a failed compile's reason, with the error it met where the first
    line only names its kind: "RuntimeError when making fake tensor call" holds, further down,
    "got RuntimeError('a and b must have same reduction dim, but got [4, 8] X [5, 3].')"."""
    if not reason:
        return ""
    first = reason.split("\n")[0].strip()
    if (found := _RAISED.search(reason)) and found.group("message") not in first:
        message = found.group("message").strip()
        return f"{first}: {found.group('error')}: {message[:SUMMARY_LIMIT]}"
    return first


def name_by_frame_id(state: BuildState) -> None:
    """A compile that never learned its function (the recompile limit's refusal writes no
    dynamo_start, and its metrics name no code) belongs to the function of the other
    compiles with its frame id: torch numbers frames, not compiles, by that id."""
    known = {item.key[:2]: item.frame_key for item in state.order if item.frame_key[2] != "unknown"}
    for item in state.order:
        if item.frame_key[2] == "unknown" and item.key[:2] in known:
            item.frame_key = known[item.key[:2]]


def link_resumes(state: BuildState) -> None:
    # Dynamo names the function that continues after a break at line N of `fn`
    # "torch_dynamo_resume_in_<fn>_at_<N>".
    breaks: dict[tuple[str | None, str], list[GraphBreak]] = {}
    for other in state.session.frames:
        for compile_ in other.compiles:
            for brk in compile_.graph_breaks:
                breaks.setdefault((brk.filename, str(brk.lineno)), []).append(brk)
    for frame in state.session.frames:
        if not frame.is_resume:
            continue
        rest = frame.name.removeprefix("torch_dynamo_resume_in_")
        function, _, line = rest.rpartition("_at_")
        frame.resumes = f"{function} line {line}"
        for brk in breaks.get((frame.filename, line), ()):
            brk.resume_function = frame.name


def breaks_in_compiled_frames(state: BuildState) -> None:
    """A break in a library's code (torch's, transformers') that the user's compiled function
    called into: the user's line is the compiled function's own call, which torch's traceback
    can leave out (it folds consecutive frames of one name, as resume functions are: a module's
    `forward` calling a torch module's `forward`). Dynamo continues after the break in a resume
    function named for that line (`torch_dynamo_resume_in_forward_at_31`): this version's (from
    its transformed code, where recorded), or the frame's only one."""
    for frame in state.session.frames:
        if frame.is_resume or not is_user_code(frame.filename):
            continue
        resumes = {
            other.name: other.name.rpartition("_at_")[2]
            for other in state.session.frames
            if other.is_resume and other.filename == frame.filename and other.name.startswith(f"torch_dynamo_resume_in_{frame.name}_at_")
        }
        for compile_ in frame.compiles:
            for brk in compile_.graph_breaks:
                if is_user_code(brk.filename) or (brk.user_filename == frame.filename and brk.user_function == frame.name):
                    continue
                own = {resumes[name] for name in compile_.resume_functions.values() if name in resumes}
                lines = own or set(resumes.values())
                if len(lines) != 1:
                    continue
                line = int(lines.pop())
                assert frame.filename is not None
                source = state.sources.setdefault(frame.filename, read_source(frame.filename))
                brk.user_filename, brk.user_lineno, brk.user_function = frame.filename, line, frame.name
                brk.user_code = source[line - 1].strip() if source and line <= len(source) else None
