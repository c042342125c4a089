"""`--timeline PATH` (run and report): the compile timeline as a Chrome Trace Event file
(`{"traceEvents": [...]}`) that Perfetto and chrome://tracing open.

The file is written from the trace's records as they are read, one at a time: every stage torch
timed, matched begin to end (session/timeline.py's Spans) into complete ("X") events, nested as
torch nested them, on one track per process (or rank) and thread, each with its compile id and
the compiled function's name. A stage that overlaps another on its track without either holding
the other (torch writes every thread as thread 0) goes on a lane of its own, a thread named
"..., overlapping stages" in the file. A session saved without its trace (its trace file gone) has only
its bounded list of spans: those are written, and the caller is told how many were left out.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from compilescope.outputs import writing
from compilescope.session.model import Session
from compilescope.session.timeline import Lanes, Spans, Track, event_of, function_named, track_name, track_of
from compilescope.trace.reader import TraceLog, iter_file_records, json_value, open_trace_bytes

# a lane's thread id in the file: the track's own plus this many per lane (torch's tids are small)
LANE_STEP = 100_000


def write_timeline(session: Session, path: str | Path, shown: str | None = None) -> str:
    """Write the timeline file; the line that tells the user what was written (the file named
    as `shown`, where given)."""
    frames = _frame_names(session)
    traces = [t for t in session.trace_files if Path(t).is_file()]
    with writing(path, "the timeline") as out:
        if traces:
            written, unmatched = _write_events(out, _from_traces(traces, session, frames))
            said = f"{written} stages from {len(traces)} trace file{'s' if len(traces) != 1 else ''}"
        else:
            written, unmatched = _write_events(out, _from_session(session))
            left = session.timeline.not_drawn if session.timeline else 0
            said = f"{written} stages kept in the session (its trace is not here)" + (
                f"; {left} shorter ones were not kept" if left else ""
            )
    if unmatched:
        said += f"; {unmatched} begin or end events without their pair left out"
    return f"The timeline: {shown or path} ({said}; open it in Perfetto or chrome://tracing)"


def _write_events(out: IO[str], events: Iterator[dict[str, Any] | int]) -> tuple[int, int]:
    """Stream `events` into the file; the last item the generator yields is the unmatched count."""
    # (outputs.is_ours knows the file by its first bytes: a later run may write over it)
    out.write('{"otherData": {"generator": "compilescope --timeline"}, "traceEvents": [\n')
    written, unmatched, first = 0, 0, True
    for event in events:
        if isinstance(event, int):
            unmatched = event
            continue
        out.write(("" if first else ",\n") + json.dumps(event, ensure_ascii=True))
        first = False
        written += event.get("ph") == "X"
    out.write('\n], "displayTimeUnit": "ms"}\n')
    return written, unmatched


def _from_traces(traces: list[str], session: Session, frames: dict[str, str]) -> Iterator[dict[str, Any] | int]:
    spans, lanes = Spans(), Lanes()
    named: dict[Track, tuple[int, int]] = {}
    laned: set[tuple[Track, int]] = set()
    unmatched = 0
    for trace in traces:
        log = TraceLog(path=trace, records=[], strings={}, skipped=[])
        with open_trace_bytes(trace) as stream:
            for record in iter_file_records(stream, log):
                if record.kind != "chromium_event" or record.payload is None:
                    continue
                timed = event_of(json_value(record.payload))
                if timed is None:
                    continue  # (the session said it in its skipped lines)
                name, phase, stamp, args, tid = timed
                track = track_of(record.rank, record.pid, tid)
                if track not in named:
                    named[track] = (record.rank if record.rank is not None else (record.pid or 0), track[1])
                    yield from _track_names(track, *named[track])
                pid, tid_ = named[track]
                if phase in ("i", "I"):
                    yield {"name": name, "ph": "i", "s": "t", "ts": stamp, "pid": pid, "tid": tid_, "args": _args(args, frames)}
                    continue
                for span in spans.add(track, name, phase, stamp, args):
                    lane = lanes.place(track, span.begin_us, span.end_us, lanes.settled(spans, track, stamp))
                    if lane and (track, lane) not in laned:
                        laned.add((track, lane))
                        yield _lane_name(track, lane, pid, tid_)
                    tid_lane = tid_ + LANE_STEP * lane
                    yield _stage(span.name, span.begin_us, span.end_us - span.begin_us, pid, tid_lane, _args(span.args, frames))
        unmatched += spans.finish()
    yield unmatched


def _from_session(session: Session) -> Iterator[dict[str, Any] | int]:
    timeline = session.timeline
    if timeline is None:
        yield 0
        return
    ids = {name: n for n, name in enumerate(timeline.tracks)}
    for name, n in ids.items():
        yield {"name": "process_name", "ph": "M", "pid": n, "tid": 0, "args": {"name": name}}
    lanes, laned = Lanes(), set()
    for span in timeline.spans:
        args = {k: v for k, v in (("compile_id", span.compile_id), ("frame", span.frame)) if v is not None}
        track: Track = (span.track, 0)
        pid, begin = ids.get(span.track, len(ids)), span.start_s * 1e6
        lane = lanes.place(track, begin, begin + span.duration_s * 1e6)
        if lane and (track, lane) not in laned:
            laned.add((track, lane))
            yield {
                "name": "thread_name",
                "ph": "M",
                "pid": pid,
                "tid": LANE_STEP * lane,
                "args": {"name": f"{span.track}, overlapping stages{_nth(lane)}"},
            }
        yield _stage(span.name, begin, span.duration_s * 1e6, pid, LANE_STEP * lane, args)
    yield timeline.unmatched


def _stage(name: str, begin_us: float, duration_us: float, pid: int, tid: int, args: dict[str, Any]) -> dict[str, Any]:
    """One timed stage as a complete ("X") event, in µs as the format has them."""
    return {"name": name, "cat": "compile", "ph": "X", "ts": begin_us, "dur": duration_us, "pid": pid, "tid": tid, "args": args}


def _lane_name(track: Track, lane: int, pid: int, tid: int) -> dict[str, Any]:
    return {
        "name": "thread_name",
        "ph": "M",
        "pid": pid,
        "tid": tid + LANE_STEP * lane,
        "args": {"name": f"{track_name(track)}, overlapping stages{_nth(lane)}"},
    }


def _nth(lane: int) -> str:
    return f" {lane}" if lane > 1 else ""


def _track_names(track: Track, pid: int, tid: int) -> Iterator[dict[str, Any]]:
    yield {"name": "process_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": track[0]}}
    yield {"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": track_name(track)}}


def _args(args: dict[str, Any], frames: dict[str, str]) -> dict[str, Any]:
    """The event's arguments as torch wrote them, with the compiled function's name."""
    compile_id = args.get("compile_id")
    if isinstance(compile_id, str) and compile_id in frames:
        return {**args, "frame": frames[compile_id]}
    return args


def _frame_names(session: Session) -> dict[str, str]:
    """compile id -> "forward (model.py:12)", as the session's timeline names them (records/finish.py)."""
    names: dict[str, str] = {}
    for frame in session.frames:
        where = function_named(frame.wraps or frame.name, frame.place)
        for compile_ in frame.compiles:
            names[compile_.compile_id] = where
            names.setdefault(compile_.compile_id.split("_")[0], where)
    return names
