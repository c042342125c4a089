"""The compile timeline (session/timeline.py, app/timeline.py): torch's timed stages from the
trace's chromium_event records, as the session keeps them and as the --timeline file has them."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from compilescope.app.timeline import write_timeline
from compilescope.session.build import build_from_lines, load_trace
from compilescope.session.jsonio import loads
from compilescope.session.timeline import MAX_SPANS

TRACES = Path(__file__).parent.parent / "traces"


def _event_line(name: str, phase: str, ts: float, compile_id: str = "0/0", payload: object = None) -> list[str]:
    """A chromium_event record as torch writes it (header, then the payload with its md5)."""
    body = json.dumps(
        payload if payload is not None else {"name": name, "ts": ts, "ph": phase, "args": {"compile_id": compile_id}, "pid": 0, "tid": 0}
    )
    digest = hashlib.md5(body.encode()).hexdigest()
    head = f'V1202 02:49:27.466059 4242 torch/_dynamo/utils.py:2350] {{"chromium_event": {{}}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0, "has_payload": "{digest}"}}'
    return [head + "\n", "\t" + body + "\n"]


def test_stages_nest_as_torch_nested_them_with_the_function_and_the_stated_compile_time() -> None:
    # GIVEN a real trace of five compiles (torch 2.13, Inductor)
    session = load_trace(TRACES / "quickstart.log.gz")[0]
    timeline = session.timeline
    assert timeline is not None and timeline.tracks == ["process 20135, thread 0"]
    # THEN every span inside another lies within a span one level up, on its track
    for span in timeline.spans:
        if span.depth:
            assert any(
                p.depth == span.depth - 1
                and p.start_s <= span.start_s
                and span.start_s + span.duration_s <= p.start_s + p.duration_s + 1e-9
                for p in timeline.spans
            ), span
    # and each is named by its compile and the compiled function
    first = timeline.spans[0]
    assert (first.name, first.compile_id, first.frame) == ("entire_frame_compile", "0/0", "forward (quickstart.py:15)")
    # and torch's whole-compile spans add up to the compile time compilescope states
    assert session.total_compile_time_s is not None and timeline.whole_compiles_s is not None
    assert timeline.whole_compiles_s == pytest.approx(session.total_compile_time_s, rel=0.05)
    assert timeline.stages[0].name == "entire_frame_compile" and timeline.stages[0].count == 5
    # the old trace lacks its first "dynamo" begin (recorded before record/recorder.py's handler
    # went first): its end is counted, never paired with an invented begin
    assert timeline.unmatched == 1
    assert [s.name for s in timeline.spans].count("dynamo") == 4


def test_a_long_trace_keeps_the_longest_spans_and_counts_the_rest() -> None:
    # GIVEN a trace of one long stage with MAX_SPANS + 500 short ones inside it
    lines = _event_line("entire_frame_compile", "B", 0.0)
    for n in range(MAX_SPANS + 500):
        lines += _event_line("short", "B", 10.0 + n * 3) + _event_line("short", "E", 11.0 + n * 3 + (n % 7))
    lines += _event_line("entire_frame_compile", "E", 10.0 + (MAX_SPANS + 500) * 3 + 10)
    timeline = build_from_lines(lines, "long.log").session.timeline
    # THEN the page's list is bounded, the longest kept, the rest counted with their time
    assert timeline is not None
    assert timeline.span_count == MAX_SPANS + 501
    assert len(timeline.spans) == MAX_SPANS and timeline.not_drawn == 501
    assert timeline.spans[0].name == "entire_frame_compile"
    # (the short ones last 1 to 7 µs, about 357 of each: the 501 left out are the 1 and 2 µs ones)
    assert min(s.duration_s for s in timeline.spans if s.name == "short") == pytest.approx(2e-6)
    assert 501e-6 < timeline.not_drawn_s < 2 * 501e-6


def test_malformed_events_are_skipped_and_counted() -> None:
    lines = _event_line("entire_frame_compile", "B", 0.0)
    lines += _event_line("x", "B", 1.0, payload=["not", "an", "event"])
    lines += _event_line("x", "B", 1.0, payload={"name": "no time", "ph": "B"})
    lines += _event_line("entire_frame_compile", "E", 2_000_000.0)
    session = build_from_lines(lines, "bad.log").session
    assert session.timeline is not None and [s.name for s in session.timeline.spans] == ["entire_frame_compile"]
    assert session.timeline.whole_compiles_s == pytest.approx(2.0)
    assert any("a chromium_event that is not a JSON object" in s for s in session.skipped)
    assert any("a chromium_event without a name, phase and time" in s for s in session.skipped)


def test_a_trace_without_timing_events_has_no_timeline() -> None:
    assert load_trace(TRACES / "generate.log.gz")[0].timeline is None


def test_the_timeline_file_is_chrome_trace_json_streamed_from_the_trace(tmp_path: Path) -> None:
    # GIVEN a trace's session, its trace at hand
    session = load_trace(TRACES / "quickstart.log.gz")[0]
    target = tmp_path / "t.json"
    said = write_timeline(session, target)
    # THEN the file is Chrome Trace JSON: complete events on the process's track, named
    events = json.loads(target.read_text())["traceEvents"]
    stages = [e for e in events if e["ph"] == "X"]
    assert session.timeline is not None
    assert f"{len(stages)} stages from 1 trace file" in said and len(stages) == session.timeline.span_count
    assert {"name": "process_name", "ph": "M", "pid": 20135, "tid": 0, "args": {"name": "process 20135"}} in events
    assert all(e["pid"] == 20135 and e["tid"] == 0 and e["dur"] >= 0 for e in stages)
    whole = sum(e["dur"] for e in stages if e["name"] == "entire_frame_compile") / 1e6
    assert whole == pytest.approx(session.total_compile_time_s, rel=0.05)
    assert {e["args"]["frame"] for e in stages if e["name"] == "entire_frame_compile"} >= {"forward (quickstart.py:15)"}
    # and a later run may write over it (it is known as ours), never over another file
    write_timeline(session, target)
    other = tmp_path / "notes.json"
    other.write_text("{}")
    with pytest.raises(Exception, match="compilescope did not write"):
        write_timeline(session, other)


def test_a_saved_session_without_its_trace_writes_the_spans_it_kept(tmp_path: Path) -> None:
    session = load_trace(TRACES / "tiny.log.gz")[0]
    again = loads(session.to_json([]))
    again.trace_files = [str(tmp_path / "gone.log")]
    said = write_timeline(again, tmp_path / "t.json")
    events = json.loads((tmp_path / "t.json").read_text())["traceEvents"]
    assert "16 stages kept in the session (its trace is not here)" in said
    assert [e["name"] for e in events if e["ph"] == "X"][0] == "entire_frame_compile"


def _misnested(stages: list[dict]) -> int:
    """Stages on one (pid, tid) that overlap without one holding the other: what Perfetto and
    speedscope refuse on one thread."""
    count = 0
    by_thread: dict[tuple[int, int], list[tuple[float, float]]] = {}
    for e in stages:
        by_thread.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    for spans in by_thread.values():
        stack: list[tuple[float, float]] = []
        for begin, end in sorted(spans, key=lambda s: (s[0], -s[1])):
            while stack and stack[-1][1] <= begin:
                stack.pop()
            count += bool(stack) and end > stack[-1][1]
            stack.append((begin, end))
    return count


def test_stages_that_overlap_on_torchs_one_thread_go_on_a_lane_of_their_own(tmp_path: Path) -> None:
    # GIVEN torch's events as it writes them for a C++ compile on a worker thread (compile_file)
    # while the main thread waits for it (async_compile.wait): both as thread 0, overlapping
    # without either holding the other
    lines = _event_line("entire_frame_compile", "B", 0.0)
    lines += _event_line("compile_file", "B", 10.0, "None") + _event_line("async_compile.wait", "B", 20.0)
    lines += _event_line("compile_file", "E", 30.0, "None") + _event_line("async_compile.wait", "E", 40.0)
    lines += _event_line("entire_frame_compile", "E", 50.0)
    trace = tmp_path / "threads.log"
    trace.write_text("".join(lines))
    session = load_trace(trace)[0]
    # WHEN the timeline file is written (from the trace, and from the session's kept spans)
    for source in ("trace", "session"):
        if source == "session":
            trace.unlink()
        write_timeline(session, tmp_path / f"{source}.json")
        events = json.loads((tmp_path / f"{source}.json").read_text())["traceEvents"]
        stages = [e for e in events if e["ph"] == "X"]
        # THEN every stage is there at its own time, and on each thread the stages nest
        assert sorted((e["name"], e["ts"], e["dur"]) for e in stages) == [
            ("async_compile.wait", 20.0, 20.0),
            ("compile_file", 10.0, 20.0),
            ("entire_frame_compile", 0.0, 50.0),
        ], source
        assert _misnested(stages) == 0, source
        # the one that overlapped is on a lane of its own, named as such
        moved = next(e for e in stages if e["name"] == "async_compile.wait")
        names = {e["tid"]: e["args"]["name"] for e in events if e["name"] == "thread_name"}
        assert moved["tid"] != 0 and names[moved["tid"]].endswith("thread 0, overlapping stages"), (source, names)
