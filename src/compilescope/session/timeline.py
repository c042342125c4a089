"""A compile timeline: torch's timing events (`chromium_event` records: "B"egin and "E"nd of a
stage, with its name, time in µs and compile id) matched into spans, nested as torch nested them,
one track per process (or rank) and thread.

torch writes every event with pid 0 and tid 0, so the process is the one the record's header
names (or its rank, in a job) and the thread is the event's own tid. An end whose begin the trace
lacks (traces that `compilescope run` wrote before its handler went first on torch's logger lack
the first compile's outermost "dynamo" begin) is counted as unmatched, never invented.

Memory stays bounded for a trace of any length: `Spans` keeps only the open begins of each track
(at most MAX_DEPTH deep), and `TimelineBuilder` keeps the MAX_SPANS longest spans for the page;
the shorter ones are counted, with their time, and the page says so. The --timeline file is
written from the trace's records as they are read (app/timeline.py), not from this bounded list.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Any

MAX_SPANS = 2000  # spans kept for the page: the longest; the rest are counted
MAX_DEPTH = 64  # open begins kept per track; a deeper one is counted as unmatched
MAX_TRACKS = 64  # processes x threads; events of further tracks are counted as unmatched
MAX_STAGES = 200  # stage names totalled; the rest go under "other"
# torch's spans of one frame's whole compile and of a backward graph compiled later, at the first
# backward call: their seconds are compilation_metrics' entire_frame_compile_time_s and
# bwd_compilation_metrics' inductor_compile_time_s, which make the compile time compilescope states
WHOLE_COMPILE = ("entire_frame_compile", "entire_backward_compile")

# a track: (process or rank, thread)
Track = tuple[str, int]


@dataclass
class TimelineSpan:
    """One stage of a compile, as torch timed it."""

    name: str
    track: str  # "process 1234, thread 0" or "rank 1, thread 0"
    start_s: float  # from the trace's first timing event
    duration_s: float
    depth: int  # 0: outermost on its track
    compile_id: str | None = None
    frame: str | None = None  # the compiled function: "forward (model.py:12)"


@dataclass
class StageTotal:
    """The seconds torch spent in one stage (by its name), over the whole trace; a stage inside
    another of the same name is counted once."""

    name: str
    seconds: float
    count: int


@dataclass
class Timeline:
    spans: list[TimelineSpan] = field(default_factory=list)  # the longest MAX_SPANS, in time order
    tracks: list[str] = field(default_factory=list)
    span_count: int = 0  # every span matched, drawn or not
    not_drawn: int = 0  # shorter spans left out of `spans` (past MAX_SPANS), counted here
    not_drawn_s: float = 0.0
    unmatched: int = 0  # an end without its begin, or a begin that never ended
    stages: list[StageTotal] = field(default_factory=list)  # largest first
    # the sum of the outermost entire_frame_compile and entire_backward_compile spans: torch's
    # compile time, by its events
    whole_compiles_s: float | None = None


@dataclass
class Matched:
    """A span as `Spans` matched it, with both events' arguments."""

    name: str
    track: Track
    begin_us: float
    end_us: float
    depth: int
    args: dict[str, Any]
    outermost_of_name: bool  # no span of the same name encloses it


class Spans:
    """Begin and end events matched per track: an end closes the latest open begin of its name.
    torch writes every thread's events as thread 0, so a stage of a compile worker's thread (a
    C++ compile_file) may end while a stage begun after it on the main thread (async_compile.wait)
    is still open: each keeps its own begin and end, and the depth it was begun at."""

    def __init__(self) -> None:
        self.open: dict[Track, list[tuple[str, float, dict[str, Any], int]]] = {}
        self.unmatched = 0

    def add(self, track: Track, name: str, phase: str, stamp: float, args: dict[str, Any]) -> list[Matched]:
        stack = self.open.get(track)
        if stack is None:
            if len(self.open) >= MAX_TRACKS:
                self.unmatched += 1
                return []
            stack = self.open[track] = []
        if phase == "B":
            if len(stack) >= MAX_DEPTH:
                self.unmatched += 1
            else:
                stack.append((name, stamp, args, len(stack)))
            return []
        if phase != "E":
            return []
        for index in range(len(stack) - 1, -1, -1):
            if stack[index][0] == name:
                _, begun, begin_args, depth = stack.pop(index)
                enclosing = any(n == name for n, _, _, _ in stack[:index])
                return [Matched(name, track, begun, max(stamp, begun), depth, {**begin_args, **args}, not enclosing)]
        self.unmatched += 1
        return []

    def finish(self) -> int:
        """Begins never ended are counted as unmatched; the count of all unmatched events."""
        self.unmatched += sum(len(stack) for stack in self.open.values())
        self.open.clear()
        return self.unmatched


class Lanes:
    """Each track's complete events spread over lanes, so that on each lane every two stages are
    apart or one lies within the other. torch writes every thread's events as thread 0, so a
    compile worker's stage (compile_file) can overlap a main-thread stage begun after it
    (async_compile.wait) without either holding the other: on one thread, Perfetto and other
    viewers refuse or misdraw that. Such a stage goes on the track's next lane (a thread of its
    own in the file), never moved in time.

    Memory stays bounded: a lane keeps only stages no later one holds, and `place` forgets those
    that end before `settled_us` (no stage still to come can begin before it)."""

    MAX_KEPT = 4096  # stages kept per lane for the check (past it, the oldest are forgotten)

    def __init__(self) -> None:
        self.lanes: dict[Track, list[list[tuple[float, float]]]] = {}

    def place(self, track: Track, begin: float, end: float, settled_us: float | None = None) -> int:
        """The lane (0: the track's own) for a stage from `begin` to `end`."""
        lanes = self.lanes.setdefault(track, [])
        for number, lane in enumerate([*lanes, []]):
            if settled_us is not None:
                lane[:] = [kept for kept in lane if kept[1] > settled_us]
            if any(_overlap_unnested(kept, (begin, end)) for kept in lane):
                continue
            if number == len(lanes):
                lanes.append(lane)
            lane[:] = [kept for kept in lane if not (begin <= kept[0] and kept[1] <= end)]
            lane.append((begin, end))
            del lane[: -self.MAX_KEPT]
            return number
        raise AssertionError("unreachable: a new lane always fits")

    def settled(self, spans: Spans, track: Track, now_us: float) -> float:
        """The time before which no stage of `track` still to come can begin: the earliest of its
        begins still open, and now."""
        stack = spans.open.get(track) or []
        return min([now_us, *(begun for _, begun, _, _ in stack)])


def _overlap_unnested(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """The two stages overlap and neither holds the other."""
    overlap = a[0] < b[1] and b[0] < a[1]
    nested = (a[0] <= b[0] and b[1] <= a[1]) or (b[0] <= a[0] and a[1] <= b[1])
    return overlap and not nested


def function_named(name: str, place: str | None) -> str:
    """A compiled function as the timeline names it: "forward (model.py:12)"; torch's wrapper of
    a module compiled whole by the function it wraps and the user's torch.compile call."""
    return f"{name} ({(place or 'unknown').rsplit('/', 1)[-1]})"


def track_of(rank: int | None, pid: int | None, tid: Any) -> Track:
    where = f"rank {rank}" if rank is not None else (f"process {pid}" if pid is not None else "process unknown")
    return (where, tid if isinstance(tid, int) and not isinstance(tid, bool) else 0)


def track_name(track: Track) -> str:
    return f"{track[0]}, thread {track[1]}"


def event_of(payload: Any) -> tuple[str, str, float, dict[str, Any], Any] | None:
    """(name, phase, time in µs, arguments, tid) of a chromium_event's payload; None where it is
    not one (the caller counts it as skipped)."""
    if not isinstance(payload, dict):
        return None
    name, phase, stamp, args = payload.get("name"), payload.get("ph"), payload.get("ts"), payload.get("args")
    if not isinstance(name, str) or not isinstance(phase, str) or isinstance(stamp, bool) or not isinstance(stamp, (int, float)):
        return None
    return name, phase, float(stamp), args if isinstance(args, dict) else {}, payload.get("tid")


class TimelineBuilder:
    """The session's timeline, built as the trace's timing events are read."""

    def __init__(self) -> None:
        self.spans = Spans()
        self._kept: list[tuple[float, int, Matched]] = []  # a min-heap of the longest spans
        self._order = 0
        self.first_us: float | None = None
        self.count = 0
        self.not_drawn = 0
        self.not_drawn_s = 0.0
        self.stages: dict[str, list[float]] = {}  # name -> [seconds, count]
        self.whole_us = 0.0
        self.wholes = 0
        self.tracks: dict[Track, None] = {}

    def add(self, track: Track, name: str, phase: str, stamp: float, args: dict[str, Any]) -> None:
        if self.first_us is None or stamp < self.first_us:
            self.first_us = stamp
        for span in self.spans.add(track, name, phase, stamp, args):
            self._keep(span)

    def _keep(self, span: Matched) -> None:
        self.count += 1
        self.tracks.setdefault(span.track)
        seconds = (span.end_us - span.begin_us) / 1e6
        if span.outermost_of_name:
            key = span.name if span.name in self.stages or len(self.stages) < MAX_STAGES else "other"
            total = self.stages.setdefault(key, [0.0, 0])
            total[0] += seconds
            total[1] += 1
            if span.name in WHOLE_COMPILE:
                self.whole_us += span.end_us - span.begin_us
                self.wholes += 1
        self._order += 1
        heapq.heappush(self._kept, (seconds, self._order, span))
        if len(self._kept) > MAX_SPANS:
            shortest, _, _ = heapq.heappop(self._kept)
            self.not_drawn += 1
            self.not_drawn_s += shortest

    def finish(self, frames: dict[str, str]) -> Timeline | None:
        """The timeline (None where the trace has no timing event); `frames`: compile id -> the
        compiled function's name."""
        unmatched = self.spans.finish()
        if self.first_us is None:
            return None
        first = self.first_us
        kept = sorted((m for _, _, m in self._kept), key=lambda m: (m.begin_us, -m.end_us))
        spans = []
        for m in kept:
            compile_id = m.args.get("compile_id")
            compile_id = compile_id if isinstance(compile_id, str) and compile_id != "None" else None
            spans.append(
                TimelineSpan(
                    name=m.name,
                    track=track_name(m.track),
                    start_s=(m.begin_us - first) / 1e6,
                    duration_s=(m.end_us - m.begin_us) / 1e6,
                    depth=m.depth,
                    compile_id=compile_id,
                    frame=frames.get(compile_id) if compile_id else None,
                )
            )
        stages = [StageTotal(name, total[0], int(total[1])) for name, total in self.stages.items()]
        stages.sort(key=lambda s: -s.seconds)
        return Timeline(
            spans=spans,
            tracks=[track_name(t) for t in self.tracks],
            span_count=self.count,
            not_drawn=self.not_drawn,
            not_drawn_s=self.not_drawn_s,
            unmatched=unmatched,
            stages=stages,
            whole_compiles_s=self.whole_us / 1e6 if self.wholes else None,
        )
