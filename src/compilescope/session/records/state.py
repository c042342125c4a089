"""The state of a Session while its trace's records are read: what each record family's handlers
(session/records/*.py) are given, and change.

Records carry a compile id; a compile begins at its `dynamo_start`. Compile ids can repeat in
one trace (`torch._dynamo.reset()`, which `torch._dynamo.explain` calls, starts counting again),
so a record belongs to the *latest* compile begun with its id (`BuildState.pending`).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from compilescope.session.model import Compile, Frame, Guard, Program, Session
from compilescope.session.places import is_user_code
from compilescope.session.records.values import described, int_of, short, text_of, unknown
from compilescope.session.timeline import TimelineBuilder
from compilescope.trace.reader import MAX_SKIPPED, CompileId, Record, TraceLog

# A function, as Dynamo names the code it compiled: (file, first line, name)
FrameKey = tuple[str | None, int | None, str]


@dataclass
class Pending:
    """A compile while its records are being read; a Compile when done."""

    compile: Compile
    frame_key: FrameKey
    metrics: dict[str, Any] = field(default_factory=dict)
    backward_metrics: dict[str, Any] = field(default_factory=dict)
    break_texts: list[str] = field(default_factory=list)
    output_code: list[str] = field(default_factory=list)
    code_gen: list[float] = field(default_factory=list)  # begin and end of Inductor's code_gen
    kernel_stacks: dict[str, list[str]] = field(default_factory=dict)  # provenance: "name:N" -> tracebacks
    attempt: int = 0
    cudagraph_recordings: int = 0  # compilation_metrics_runtime records with a cudagraphify time
    runtime_skip: str | None = None  # a cudagraph_skip_reason said at run time
    key: tuple[int | None, int | None, int | None] = (None, None, None)  # CompileId.key
    began: bool = False  # its dynamo_start was read
    ended: bool = False  # its compilation_metrics was read: torch's report at a compile's end


@dataclass
class KernelCompiles:
    """The C++/Triton compiles of a run (the outermost `compile_file` spans of its timing events,
    in µs, which do not overlap), to tell how much of a compile's code generation they took."""

    spans: list[tuple[float, float]] = field(default_factory=list)
    open: list[float] = field(default_factory=list)  # begins of the spans not yet ended
    begins: list[float] = field(default_factory=list)  # (index): each span's begin, in time order
    spent: list[float] = field(default_factory=lambda: [0.0])  # (index): the time of the spans before each

    def index(self) -> None:
        # The compiles, in time order, with the running sum of their time: the compile time
        # inside a code_gen span is then found by bisection, not a scan per compile.
        self.spans.sort()
        self.begins = [b for b, _ in self.spans]
        self.spent = [0.0]
        for b, e in self.spans:
            self.spent.append(self.spent[-1] + max(e - b, 0.0))

    def time_inside(self, begin: float, end: float) -> float:
        """µs of C++/Triton compiling inside [begin, end] (after `index`)."""
        spans = self.spans
        first = max(bisect.bisect_left(self.begins, begin) - 1, 0)
        last = bisect.bisect_left(self.begins, end)
        if last - first <= 2:
            return sum(max(min(e, end) - max(b, begin), 0.0) for b, e in spans[first:last])
        # Whole spans in the middle, by their running sum; the two at the ends, clipped.
        inner = self.spent[last - 1] - self.spent[first + 1]
        ends = [spans[first], spans[last - 1]]
        return inner + sum(max(min(e, end) - max(b, begin), 0.0) for b, e in ends)


@dataclass
class BuildState:
    """A Session being built, and what its records said that is put in place when the trace ends."""

    log: TraceLog
    session: Session
    frames: dict[FrameKey, Frame] = field(default_factory=dict)
    latest: dict[tuple, Pending] = field(default_factory=dict)  # CompileId.key -> the latest compile of that id
    order: list[Pending] = field(default_factory=list)  # every compile, in the order they began
    program: Program | None = None  # compilescope's record of the program
    calls: dict[str, Any] | None = None  # compilescope's record of the calls each version served
    generated: dict[str, Any] | None = None  # compilescope's record of Dynamo's code
    accuracy: list[dict[str, Any]] = field(default_factory=list)  # run --check-accuracy's checked calls, then its end
    kernel_compiles: KernelCompiles = field(default_factory=KernelCompiles)
    sources: dict[str, list[str] | None] = field(default_factory=dict)  # user files read for graph-break context
    skipped_more: int = 0  # reasons to skip beyond the first MAX_SKIPPED
    records_program_end: bool = False  # the trace is `compilescope run`'s of its program (trace/ours.py)
    program_recorded: bool = False  # its PROGRAM_RECORD was read
    # torch's guard trees read so far, by their text: the same tree comes again and again (each
    # rank, each copy of a module, a compile that ends as it did before), parsed once
    guard_trees: dict[str, list[Guard]] = field(default_factory=dict)
    # records of kinds this compilescope does not know (records/kinds.py), counted by kind
    unknown_kinds: dict[str, int] = field(default_factory=dict)
    timeline: TimelineBuilder = field(default_factory=TimelineBuilder)  # torch's timing events (session/timeline.py)

    @classmethod
    def of(cls, log: TraceLog) -> BuildState:
        return cls(log=log, session=Session(trace_files=[log.path] if log.path else []))

    def skip(self, reason: str) -> None:
        """Say what could not be read (the first MAX_SKIPPED reasons; the rest are counted)."""
        if len(self.session.skipped) < MAX_SKIPPED:
            self.session.skipped.append(reason)
        else:
            self.skipped_more += 1

    def wrong_type(self, record: Record, key: str, value: Any, expected: str) -> None:
        self.skip(f"line {record.line}: {short(record.kind)!r}: {key} is {described(value)}, not {expected}: left unknown")

    def pending(self, record: Record) -> Pending | None:
        """The compile a record belongs to (begun here where the record comes before its
        dynamo_start), or None for a record of no compile."""
        if record.compile_id is None:
            return None
        found = self.latest.get(record.compile_id.key)
        if found is None:
            found = self.begin(record.compile_id, None)
        if record.compile_id.attempt > found.attempt:
            # Dynamo restarted this compile (restart_reasons say why): what the abandoned
            # attempt captured is not what runs.
            found.attempt = record.compile_id.attempt
            c = found.compile
            c.compile_id = str(record.compile_id)  # as torch writes it after a restart: "0/0_1"
            c.graphs, c.guards, c.guards_text, c.dynamic, c.kernels = [], [], "", [], []
            c.ddp_pieces, c.collectives = [], None
            c.cache.lookups, c.passes = [], []
            found.output_code = []
            c.aot = type(c.aot)()
        found.compile.records.append(record.line)
        return found

    def begin(self, compile_id: CompileId, stack: list[dict] | None) -> Pending:
        frame_key, called_from, code = self.where(stack)
        compile_ = Compile(
            compile_id=str(CompileId(compile_id.frame_id, compile_id.frame_compile_id, 0, compile_id.compiled_autograd_id)),
            status="unknown",
        )
        compile_.called_from, compile_.call_code = called_from, code
        item = Pending(compile=compile_, frame_key=frame_key, key=compile_id.key)
        self.latest[compile_id.key] = item
        self.order.append(item)
        return item

    def where(self, stack: Any) -> tuple[FrameKey, list[str], str | None]:
        """The compiled function (file, first line, name), the user's frames that called it, and
        the code of the last of them."""
        if not isinstance(stack, list) or not stack or not isinstance(stack[-1], dict):
            return (None, None, "unknown"), [], None
        last = stack[-1]
        name = last.get("name")
        frame_key = (self.log.string(last.get("filename")), int_of(last.get("line")), name if isinstance(name, str) else "unknown")
        called_from = []
        code = None
        for entry in stack[:-1]:
            if not isinstance(entry, dict):
                continue
            filename = self.log.string(entry.get("filename")) or "?"
            if not is_user_code(filename):  # torch's, a library's, runpy's, compilescope's own
                continue
            called_from.append(f"{filename}:{unknown(int_of(entry.get('line')))} in {text_of(entry.get('name')) or 'unknown'}")
            code = text_of(entry.get("loc"))
        return frame_key, called_from, code


# What reads one kind of record into the state (each family's HANDLERS; all of them: kinds.KINDS)
Handler = Callable[[BuildState, Record], None]
