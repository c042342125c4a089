"""When a trace's last record has been read: each compile finished, put on its function's Frame,
the frames linked, and compilescope's own records applied, in that order (each step reads what
the one before put in place)."""

from __future__ import annotations

from typing import Any

from compilescope.session.model import Compile, CompileStatus, Frame, Session
from compilescope.session.records.accuracy import apply_accuracy
from compilescope.session.records.caches import share_key_parts
from compilescope.session.records.calls import apply_calls
from compilescope.session.records.dynamo import breaks_in_compiled_frames, link_resumes, name_by_frame_id, read_dynamo_facts
from compilescope.session.records.inductor import read_kernels
from compilescope.session.records.program import apply_generated_code, incomplete, place_compiled_modules
from compilescope.session.records.state import BuildState, Pending
from compilescope.session.records.times import read_times
from compilescope.session.records.values import short
from compilescope.session.timeline import function_named
from compilescope.trace.reader import MAX_SKIPPED


def finish(state: BuildState) -> Session:
    state.kernel_compiles.index()
    for item in state.order:
        try:
            _finish_compile(state, item)
        except Exception as error:  # metrics in a shape we do not know: the compile stays, unknown
            item.compile.status = "unknown"
            state.skip(f"compile {item.compile.compile_id}: could not read its metrics ({type(error).__name__}: {short(str(error))})")
    name_by_frame_id(state)
    for item in state.order:
        frame = state.frames.get(item.frame_key)
        if frame is None:
            filename, lineno, name = item.frame_key
            frame = Frame(name=name, filename=filename, lineno=lineno)
            state.frames[item.frame_key] = frame
            state.session.frames.append(frame)
        frame.compiles.append(item.compile)
    link_resumes(state)
    for apply, what in (
        (apply_calls, "the calls each version served"),
        (apply_accuracy, "the accuracy checks"),
        (apply_generated_code, "Dynamo's code, decompiled"),
        (breaks_in_compiled_frames, "the lines of the compiled functions that led into library code"),
        (place_compiled_modules, "where the modules compiled whole were compiled"),
    ):
        try:
            apply(state)
        except Exception as error:  # compilescope's own record, in a shape it does not know
            state.skip(f"{what}: could not be read ({type(error).__name__}: {short(str(error))})")
    session = state.session
    session.timeline = state.timeline.finish(_frame_names(state))  # (the frames named and placed above)
    share_key_parts(session)
    session.program = state.program
    session.incomplete = incomplete(state)
    env = session.environment
    if env.python is None:
        env.python = next((v.split()[0] for i in state.order if isinstance(v := i.metrics.get("python_version"), str) and v.split()), None)
    if env.torch is None:
        env.torch = next((v for i in state.order if isinstance(v := i.metrics.get("pytorch_version"), str) and v), None)
    skipped = [f"line {s.line}: {s.reason}" for s in state.log.skipped] + session.skipped
    if state.unknown_kinds:
        skipped.append(unknown_kinds_said(state.unknown_kinds))
    more = state.log.skipped_more + state.skipped_more
    if more:
        skipped.append(f"… and {more} more that could not be read (only the first {MAX_SKIPPED} of each kind are listed)")
    session.skipped = skipped
    return session


def unknown_kinds_said(counts: dict[str, int]) -> str:
    """One line for the records of kinds this compilescope does not know: how many, of which."""
    records = sum(counts.values())
    shown = ", ".join(f"{short(kind)!r} ({n})" for kind, n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:10])
    more = f", and {len(counts) - 10} more kinds" if len(counts) > 10 else ""
    kinds = "a kind" if len(counts) == 1 else f"{len(counts)} kinds"
    return f"{records} record{'s' if records != 1 else ''} of {kinds} this compilescope does not know, passed over unread (a newer torch's?): {shown}{more}"


def _finish_compile(state: BuildState, item: Pending) -> None:
    # Dynamo's part first: the status reads its graph breaks and failure.
    read_dynamo_facts(state, item)
    read_times(state, item)
    read_kernels(item)
    item.compile.status = _status(item.compile, item.metrics)


def _status(c: Compile, metrics: dict[str, Any]) -> CompileStatus:
    if c.failure:
        return "failed"
    if c.graph_breaks:
        return "graph break"
    if not metrics:
        return "unknown"  # the trace ended before torch reported on this compile
    if metrics.get("has_guarded_code") is False:
        return "skipped"
    if not c.graphs and not metrics.get("graph_op_count"):
        return "empty graph"
    return "ok"


def _frame_names(state: BuildState) -> dict[str, str]:
    """compile id (as torch's timing events write it: "0/1", "0/1_1" after a restart) -> the
    compiled function, "forward (model.py:12)"."""
    names: dict[str, str] = {}
    for item in state.order:
        frame = state.frames.get(item.frame_key)
        if frame is None:
            continue
        base = item.compile.compile_id.split("_")[0]
        for attempt in range(item.attempt + 1):
            names[base + (f"_{attempt}" if attempt else "")] = function_named(frame.wraps or frame.name, frame.place)
    return names
