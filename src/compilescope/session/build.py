"""Build a Session from structured-trace records (no torch).

Records carry a compile id; a compile begins at its `dynamo_start`. Compile ids can repeat in
one trace (`torch._dynamo.reset()`, which `torch._dynamo.explain` calls, starts counting again),
so a record belongs to the *latest* compile begun with its id. Frames are functions, keyed by
(file, first line, name): every version Dynamo compiled of one function is one Frame.

A trace may come from elsewhere: every value is checked for its type before it is used (a value
of the wrong type is left unknown, and said in `Session.skipped`), a record that cannot be read
is skipped with its reason, and records are built as they are read, one at a time, so that a
trace of any length takes the memory of the Session it describes, not of the file.
"""

from __future__ import annotations

import bisect
import json
import re
import typing
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compilescope.session.model import (
    Autotuning,
    CacheUse,
    CallTimes,
    ChildProcess,
    Compile,
    CompiledModule,
    CompileStatus,
    CompileTime,
    DecompiledCode,
    DynamicShape,
    Environment,
    Frame,
    GraphBreak,
    Incomplete,
    MethodCall,
    Program,
    ProgramKind,
    Session,
    incomplete_reason,
)
from compilescope.session.places import is_user_code, library
from compilescope.session.sources import read_source as _read_source
from compilescope.trace.ours import PROGRAM_END_KEY
from compilescope.trace.reader import (
    MAX_SKIPPED,
    CompileId,
    Record,
    TraceLog,
    file_lines,
    iter_records,
    json_value,
    open_trace,
    trace_files,
)

# The parsers of graphs, guards, graph breaks and kernels (session/breaks.py, graphs.py, guards.py,
# kernels.py: some 30 regular expressions to compile) are imported where first used: building the
# session of a run that compiled nothing, at the end of `compilescope run`, never needs them.


@dataclass
class _Pending:
    """A compile while its records are being read; a Compile when done."""

    compile: Compile
    frame_key: tuple[str | None, int | None, str]
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


def _without_attempt(compile_id: str) -> str:
    return re.sub(r"_\d+$", "", compile_id)


def _decompiled(data: Any) -> DecompiledCode | None:
    if not isinstance(data, dict) or not isinstance(data.get("source"), str):
        return None
    return DecompiledCode(source=data["source"], complete=data.get("complete") is True, note=_text(data.get("note")))


@dataclass
class TraceRead:
    """A Session built from one trace file, and how much of the file was records."""

    session: Session
    records: int  # records read (interned strings included)
    lines: int


def load_trace(path: str | Path) -> list[Session]:
    """One Session per trace file (per rank) found at `path`."""
    return [read.session for read in read_traces(path)]


def read_traces(path: str | Path) -> list[TraceRead]:
    """Each trace file (per rank) found at `path`, read one record at a time."""
    files = trace_files(path)
    if not files:
        raise FileNotFoundError(f"no trace files (*.log, *.log.gz) in {path}")
    reads = []
    for file in files:
        with open_trace(file) as handle:
            reads.append(build_from_lines(file_lines(handle), str(file)))
    return reads


def build_from_lines(lines: Iterable[str], name: str | None) -> TraceRead:
    """The Session of a trace's lines, built as its records are read (none kept after use)."""
    log = TraceLog(path=name, records=[], strings={}, skipped=[])
    builder = _Builder(log)
    for record in iter_records(lines, log):
        builder.add(record)
    records = log.records_read + len(log.strings)
    return TraceRead(builder.finish(), records, log.lines_read)


def build_session(log: TraceLog) -> Session:
    builder = _Builder(log)
    for record in log.records:
        builder.add(record)
    return builder.finish()


class _Builder:
    def __init__(self, log: TraceLog) -> None:
        self.log = log
        self.session = Session(trace_files=[log.path] if log.path else [])
        self.frames: dict[tuple[str | None, int | None, str], Frame] = {}
        self.latest: dict[tuple, _Pending] = {}
        self.order: list[_Pending] = []
        self.program: Program | None = None
        self.calls: dict[str, Any] | None = None
        self.generated: dict[str, Any] | None = None
        self.kernel_compiles: list[tuple[float, float]] = []  # C++/Triton compile_file spans (µs)
        self._open_compiles: list[float] = []
        self._sources: dict[str, list[str] | None] = {}  # user files read for graph-break context
        self._compile_begins: list[float] = []
        self._compile_spent: list[float] = [0.0]
        self._skipped_more = 0
        self.records_program_end = False  # the trace is `compilescope run`'s of its program (trace/ours.py)
        self.program_recorded = False  # its PROGRAM_RECORD was read

    def skip(self, reason: str) -> None:
        """Say what could not be read (the first MAX_SKIPPED reasons; the rest are counted)."""
        if len(self.session.skipped) < MAX_SKIPPED:
            self.session.skipped.append(reason)
        else:
            self._skipped_more += 1

    def wrong_type(self, record: Record, key: str, value: Any, expected: str) -> None:
        self.skip(f"line {record.line}: {_short(record.kind)!r}: {key} is {_a(value)}, not {expected}: left unknown")

    # ---- dispatch ---------------------------------------------------------------------------
    def add(self, record: Record) -> None:
        if record.rank is not None and self.session.rank is None:
            self.session.rank = record.rank
        if self.session.started is None:
            self.session.started = record.written
        handler = getattr(self, f"_on_{record.kind}", None)
        if handler is not None:
            try:
                handler(record)
            except Exception as error:  # a record in a shape we do not know: say so, go on
                self.skip(f"line {record.line}: could not read {_short(record.kind)!r} ({type(error).__name__}: {_short(str(error))})")

    def pending(self, record: Record) -> _Pending | None:
        if record.compile_id is None:
            return None
        found = self.latest.get(record.compile_id.key)
        if found is None:
            found = self._begin(record.compile_id, None)
        if record.compile_id.attempt > found.attempt:
            # Dynamo restarted this compile (restart_reasons say why): what the abandoned
            # attempt captured is not what runs.
            found.attempt = record.compile_id.attempt
            c = found.compile
            c.compile_id = str(record.compile_id)  # as torch writes it after a restart: "0/0_1"
            c.graphs, c.guards, c.guards_text, c.dynamic, c.kernels = [], [], "", [], []
            c.ddp_pieces, c.collectives = [], None
            found.output_code = []
            c.aot = type(c.aot)()
        found.compile.records.append(record.line)
        return found

    def _where(self, stack: Any) -> tuple[tuple[str | None, int | None, str], list[str], str | None]:
        """The compiled function (file, first line, name), the user's frames that called it, and
        the code of the last of them."""
        if not isinstance(stack, list) or not stack or not isinstance(stack[-1], dict):
            return (None, None, "unknown"), [], None
        last = stack[-1]
        name = last.get("name")
        frame_key = (self.log.string(last.get("filename")), _int(last.get("line")), name if isinstance(name, str) else "unknown")
        called_from = []
        code = None
        for entry in stack[:-1]:
            if not isinstance(entry, dict):
                continue
            filename = self.log.string(entry.get("filename")) or "?"
            if not is_user_code(filename):  # torch's, a library's, runpy's, compilescope's own
                continue
            called_from.append(f"{filename}:{_unknown(_int(entry.get('line')))} in {_text(entry.get('name')) or 'unknown'}")
            code = _text(entry.get("loc"))
        return frame_key, called_from, code

    def _begin(self, compile_id: CompileId, stack: list[dict] | None) -> _Pending:
        frame_key, called_from, code = self._where(stack)
        compile_ = Compile(
            compile_id=str(CompileId(compile_id.frame_id, compile_id.frame_compile_id, 0, compile_id.compiled_autograd_id)),
            status="unknown",
        )
        compile_.called_from, compile_.call_code = called_from, code
        item = _Pending(compile=compile_, frame_key=frame_key, key=compile_id.key)
        self.latest[compile_id.key] = item
        self.order.append(item)
        return item

    # ---- record handlers -----------------------------------------------------------------------
    def _on_dynamo_start(self, record: Record) -> None:
        assert record.compile_id is not None
        existing = self.latest.get(record.compile_id.key)
        stack = record.metadata.get("stack") if isinstance(record.metadata, dict) else None
        if stack is not None and not isinstance(stack, list):
            self.wrong_type(record, "stack", stack, "a list")
        if existing is not None and existing.frame_key[2] == "unknown" and not existing.metrics:
            # Records (a timing event, the recompile reasons) came before dynamo_start: they
            # belong to this compile, which now learns its function.
            existing.frame_key, existing.compile.called_from, existing.compile.call_code = self._where(stack)
            existing.compile.records.append(record.line)
            existing.began = True
            return
        if existing is not None and record.compile_id.attempt > 0:
            existing.compile.records.append(record.line)
            existing.began = True
            return  # a restart of the same compile
        began = self._begin(record.compile_id, stack)
        began.compile.records.append(record.line)
        began.began = True

    def _on_dynamo_output_graph(self, record: Record) -> None:
        item = self.pending(record)
        if item and record.payload is not None:
            from compilescope.session.graphs import parse_dynamo_graph

            item.compile.graphs.append(parse_dynamo_graph(record.payload))

    def _on_dynamo_cpp_guards_str(self, record: Record) -> None:
        item = self.pending(record)
        if item and record.payload is not None:
            item.compile.guards_text = record.payload
            from compilescope.session.guards import parse_guard_tree

            item.compile.guards = parse_guard_tree(record.payload)

    def _on_dynamo_graph_break_reason(self, record: Record) -> None:
        item = self.pending(record)
        if item and record.payload is not None:
            item.break_texts.append(record.payload)

    def _on_recompile_reasons(self, record: Record) -> None:
        item = self.pending(record)
        if item and record.payload is not None:
            lines = _json_or_lines(record.payload)
            item.compile.recompile_reason = lines
            from compilescope.session.breaks import parse_recompile_reasons

            item.compile.failed_guards = parse_recompile_reasons(lines)

    def _on_compilation_metrics(self, record: Record) -> None:
        item = self.pending(record)
        if item:
            item.ended = True
        if item and isinstance(record.metadata, dict):
            item.metrics = record.metadata

    def _on_compilation_metrics_runtime(self, record: Record) -> None:
        # torch writes one when it records a CUDA graph for a compiled graph (at its first
        # calls, and again on each re-recording), with the time it took
        item = self.pending(record)
        if item and isinstance(record.metadata, dict):
            if _number(record.metadata.get("runtime_cudagraphify_time_us")) is not None:
                item.cudagraph_recordings += 1
            item.runtime_skip = _text(record.metadata.get("cudagraph_skip_reason")) or item.runtime_skip

    def _on_bwd_compilation_metrics(self, record: Record) -> None:
        item = self.pending(record)
        if item and isinstance(record.metadata, dict):
            item.backward_metrics = record.metadata

    def _aot(self, record: Record, which: str) -> None:
        item = self.pending(record)
        if item and record.payload is not None:
            from compilescope.session.graphs import parse_aot_graph

            setattr(item.compile.aot, which, parse_aot_graph(record.payload))

    def _on_aot_forward_graph(self, record: Record) -> None:
        self._aot(record, "forward")

    def _on_aot_backward_graph(self, record: Record) -> None:
        self._aot(record, "backward")

    def _on_aot_inference_graph(self, record: Record) -> None:
        self._aot(record, "inference")

    def _on_inductor_output_code(self, record: Record) -> None:
        item = self.pending(record)
        if item and record.payload is not None:
            item.output_code.append(record.payload)

    def _on_inductor_provenance_tracking_kernel_stack_traces(self, record: Record) -> None:
        # Written when Inductor's provenance tracking is on: kernel -> the user's lines.
        item = self.pending(record)
        if item and record.payload:
            data = json_value(record.payload)
            if isinstance(data, dict):
                item.kernel_stacks.update({str(k): [str(t) for t in v] for k, v in data.items() if isinstance(v, list)})

    def _on_optimize_ddp_split_child(self, record: Record) -> None:
        item = self.pending(record)
        name = record.metadata.get("name") if isinstance(record.metadata, dict) else None
        if item and record.payload is not None:
            from compilescope.session.graphs import parse_ddp_piece

            item.compile.ddp_pieces.append(parse_ddp_piece(_text(name) or "?", record.payload))

    def _on_inductor_collective_schedule(self, record: Record) -> None:
        item = self.pending(record)
        if item and record.payload is not None:
            schedule = json_value(record.payload)
            if not isinstance(schedule, list):
                self.wrong_type(record, "payload", schedule, "a list")
                return
            # one record per graph Inductor compiled (a forward, its backward): in order
            item.compile.collectives = (item.compile.collectives or []) + [_unknown(_text(op)) for op in schedule]

    def _on_create_symbol(self, record: Record) -> None:
        self._dynamic(record, "symbol")

    def _on_create_unbacked_symbol(self, record: Record) -> None:
        self._dynamic(record, "unbacked symbol")

    def _on_symbolic_shape_specialization(self, record: Record) -> None:
        self._dynamic(record, "specialization")

    def _on_guard_added_fast(self, record: Record) -> None:
        self._dynamic(record, "guard")

    def _dynamic(self, record: Record, kind: str) -> None:
        item = self.pending(record)
        meta = record.metadata if isinstance(record.metadata, dict) else {}
        if item is None:
            return
        sources = meta.get("sources")
        decision = DynamicShape(
            kind=kind,
            symbol=_str(meta.get("symbol")) or _str(meta.get("expr")),
            source=_str(meta.get("source")) or (", ".join(str(s) for s in sources) if isinstance(sources, list) and sources else None),
            value=_str(meta.get("val", meta.get("value"))),
            range=_str(meta.get("vr")),
            reason=_str(meta.get("reason")),
        )
        user_stack = meta.get("user_stack")
        if isinstance(user_stack, list) and user_stack:
            top = user_stack[0] if kind in ("symbol", "unbacked symbol") else user_stack[-1]
            if isinstance(top, dict):
                decision.filename = self.log.string(top.get("filename"))
                decision.lineno = _int(top.get("line"))
                decision.code = _text(top.get("loc"))
        item.compile.dynamic.append(decision)

    def _on_chromium_event(self, record: Record) -> None:
        if record.payload is None:
            return
        event = json_value(record.payload)
        if not isinstance(event, dict):
            self.skip(f"line {record.line}: a chromium_event that is not a JSON object")
            return
        name, phase, stamp = event.get("name"), event.get("ph"), event.get("ts")
        stamp = _number(stamp)
        if name == "compile_file" and stamp is not None:
            if phase == "B":
                self._open_compiles.append(stamp)
            elif phase == "E" and self._open_compiles:
                begin = self._open_compiles.pop()
                if not self._open_compiles:  # only the outermost: nested ones are inside it
                    self.kernel_compiles.append((begin, stamp))
            return
        if name == "code_gen" and stamp is not None and record.compile_id is not None:
            item = self.pending(record)
            if item is not None and phase in ("B", "E"):
                item.code_gen.append(stamp)
            return
        if isinstance(name, str) and name.endswith("_template_autotuning") and phase == "E" and record.compile_id is not None:
            self._autotuning(record, name.removesuffix("_template_autotuning"), event.get("args"))
            return
        if name == "automatic_dynamic" and record.compile_id is not None:
            item = self.pending(record)
            args = event.get("args")
            args = args if isinstance(args, dict) else {}
            if item is not None:
                dim = args.get("dim_changed")
                item.compile.dynamic.append(
                    DynamicShape(
                        kind="automatic dynamic",
                        source=f"{args.get('name')}" + (f" dim {dim}" if dim not in (None, "all", "scalar") else ""),
                        value=f"{args.get('cached')} -> {args.get('new')}",
                        reason=_str(args.get("reason")),
                    )
                )

    def _autotuning(self, record: Record, op: str, args: Any) -> None:
        """max-autotune's choice for one operation: torch's autotune_choices_stats (a JSON
        string) in the timing event's arguments."""
        stats = args.get("autotune_choices_stats") if isinstance(args, dict) else None
        data = json_value(stats) if isinstance(stats, str) else stats
        item = self.pending(record)
        if item is None or not isinstance(data, dict):
            return
        item.compile.autotuning.append(
            Autotuning(
                op=op,
                choices=_int(data.get("num_choices")),
                triton_choices=_int(data.get("num_triton_choices")),
                best=_text(data.get("best_kernel")),
                best_ms=_number(data.get("best_time")),
                best_triton=_text(data.get("best_triton_kernel")),
                best_triton_ms=_number(data.get("best_triton_time")),
            )
        )

    def _on_torch_version(self, record: Record) -> None:
        if record.payload:
            data = json_value(record.payload)
            version = data.get("pytorch_version") if isinstance(data, dict) else None
            if version is not None and not isinstance(version, str):
                self.wrong_type(record, "pytorch_version", version, "a string")
            elif version:
                self.session.environment.torch = self.session.environment.torch or version

    def _on_compilescope_capture(self, record: Record) -> None:
        meta = record.metadata if isinstance(record.metadata, dict) else {}
        rank = meta.get("rank")
        if isinstance(rank, int) and not isinstance(rank, bool) and self.session.rank is None:
            self.session.rank = rank  # the rank a launcher gave the process (RANK)
        if meta.get(PROGRAM_END_KEY) is True:
            self.records_program_end = True
        version = meta.get("compilescope")
        if isinstance(version, str) and self.session.compilescope_version is None:
            self.session.compilescope_version = version  # the compilescope that wrote the trace

    def _on_compilescope_environment(self, record: Record) -> None:
        if not isinstance(record.metadata, dict):
            self.wrong_type(record, "its metadata", record.metadata, "an object")
            return
        env = self.session.environment
        for key in _ENVIRONMENT_FIELDS:
            value = record.metadata.get(key)
            if value is None:
                continue
            if key in ("dynamo_config", "libraries"):
                if isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
                    setattr(env, key, dict(value))
                else:
                    self.wrong_type(record, key, value, "an object of strings")
            elif key == "threads" and _int(value) is None:
                self.wrong_type(record, key, value, "a whole number")
            elif key != "threads" and not isinstance(value, str):
                self.wrong_type(record, key, value, "a string")
            else:
                setattr(env, key, value)

    def _on_compilescope_program(self, record: Record) -> None:
        self.program_recorded = True
        meta = record.metadata
        if not isinstance(meta, dict):
            self.wrong_type(record, "its metadata", meta, "an object")
            return

        def typed(key: str, check: Any, expected: str) -> Any:
            value = meta.get(key)
            if value is None:
                return None
            if check(value):
                return value
            self.wrong_type(record, key, value, expected)
            return None

        argv = typed("argv", lambda v: isinstance(v, list) and all(isinstance(a, str) for a in v), "a list of strings")
        wall = typed("wall_time_s", lambda v: _number(v) is not None, "a number")
        self.program = Program(
            kind=typed("kind", lambda v: v in _PROGRAM_KINDS, "one of " + ", ".join(_PROGRAM_KINDS)) or "script",
            target=typed("target", _is_str, "a string") or "unknown",
            argv=argv or [],
            exit_status=typed("exit_status", lambda v: _int(v) is not None, "a whole number"),
            exception=typed("exception", _is_str, "a string"),
            wall_time_s=None if wall is None else float(wall),
        )

    def _on_compilescope_calls(self, record: Record) -> None:
        if isinstance(record.metadata, dict):
            self.calls = record.metadata
            for key in ("versions", "eager", "order"):
                value = record.metadata.get(key)
                if value is not None and not isinstance(value, list):
                    self.wrong_type(record, key, value, "a list")
        else:
            self.wrong_type(record, "its metadata", record.metadata, "an object")

    def _on_compilescope_fixes(self, record: Record) -> None:
        applied = record.metadata.get("applied") if isinstance(record.metadata, dict) else None
        if not isinstance(applied, list):
            self.wrong_type(record, "applied", applied, "a list")
            return
        self.session.fixes = [str(item) for item in applied]

    def _on_compilescope_children(self, record: Record) -> None:
        listed = record.metadata.get("children") if isinstance(record.metadata, dict) else None
        # (compilescope 0.1.0's first traces held the list as the record's payload)
        data = listed if listed is not None else (json_value(record.payload) if record.payload is not None else None)
        if isinstance(data, list):
            self.session.children = [child for item in data if (child := _child(item)) is not None]

    def _on_compilescope_compiled_modules(self, record: Record) -> None:
        data = record.metadata if isinstance(record.metadata, dict) else {}
        modules = data.get("modules")
        if not isinstance(modules, list):
            return
        found = []
        for item in modules:
            if not isinstance(item, dict) or not isinstance(item.get("module"), str):
                self.skip(f"line {record.line}: a compiled module: not in the shape compilescope writes ({_a(item)})")
                continue
            calls = [
                MethodCall(
                    method=call["method"],
                    filename=_text(call.get("filename")),
                    lineno=_int(call.get("lineno")),
                    code=_text(call.get("code")),
                    name=_text(call.get("name")),
                )
                for call in _list(item.get("method_calls"))
                if isinstance(call, dict) and isinstance(call.get("method"), str)
            ]
            found.append(
                CompiledModule(
                    module=item["module"],
                    forward_filename=_text(item.get("forward_filename")),
                    forward_lineno=_int(item.get("forward_lineno")),
                    compiled_from=[n for n in _list(item.get("compiled_from")) if isinstance(n, str)],
                    compile_code=_text(item.get("compile_code")),
                    methods=[n for n in _list(item.get("methods")) if isinstance(n, str)],
                    method_calls=calls,
                )
            )
        self.session.compiled_modules = found

    def _on_compilescope_generated_code(self, record: Record) -> None:
        data = record.metadata
        if record.payload:
            try:
                data = json_value(record.payload)
            except (ValueError, RecursionError):
                self.skip(f"line {record.line}: 'compilescope_generated_code': its payload is not JSON: left unknown")
                return
        if isinstance(data, dict):
            self.generated = data
        else:
            self.wrong_type(record, "its code", data, "an object")

    # ---- finishing ------------------------------------------------------------------------------
    def finish(self) -> Session:
        self._index_kernel_compiles()
        for item in self.order:
            try:
                self._finish_compile(item)
            except Exception as error:  # metrics in a shape we do not know: the compile stays, unknown
                item.compile.status = "unknown"
                self.skip(f"compile {item.compile.compile_id}: could not read its metrics ({type(error).__name__}: {_short(str(error))})")
        self._name_by_frame_id()
        for item in self.order:
            frame = self.frames.get(item.frame_key)
            if frame is None:
                filename, lineno, name = item.frame_key
                frame = Frame(name=name, filename=filename, lineno=lineno)
                self.frames[item.frame_key] = frame
                self.session.frames.append(frame)
            frame.compiles.append(item.compile)
        self._link_resumes()
        for apply, what in (
            (self._apply_calls, "the calls each version served"),
            (self._apply_generated_code, "Dynamo's code, decompiled"),
            (self._breaks_in_compiled_frames, "the lines of the compiled functions that led into library code"),
            (self._place_compiled_modules, "where the modules compiled whole were compiled"),
        ):
            try:
                apply()
            except Exception as error:  # compilescope's own record, in a shape it does not know
                self.skip(f"{what}: could not be read ({type(error).__name__}: {_short(str(error))})")
        self.session.program = self.program
        self.session.incomplete = self._incomplete()
        env = self.session.environment
        if env.python is None:
            env.python = next(
                (v.split()[0] for i in self.order if isinstance(v := i.metrics.get("python_version"), str) and v.split()), None
            )
        if env.torch is None:
            env.torch = next((v for i in self.order if isinstance(v := i.metrics.get("pytorch_version"), str) and v), None)
        skipped = [f"line {s.line}: {s.reason}" for s in self.log.skipped] + self.session.skipped
        more = self.log.skipped_more + self._skipped_more
        if more:
            skipped.append(f"… and {more} more that could not be read (only the first {MAX_SKIPPED} of each kind are listed)")
        self.session.skipped = skipped
        return self.session

    def _incomplete(self) -> Incomplete | None:
        """What says the trace holds only part of its run: a compile begun (dynamo_start) that
        torch never reported the end of (compilation_metrics: written also where a compile
        fails), the last such where there are several; and, for `compilescope run`'s trace of
        its program, no record of the program's end."""
        unended = [item for item in self.order if item.began and not item.ended]
        compile_id = unended[-1].compile.compile_id if unended else None
        program_finished = self.program_recorded if self.records_program_end else None
        if compile_id is None and program_finished is not False:
            return None
        return Incomplete(incomplete_reason(compile_id, program_finished), compile_id, program_finished)

    def _finish_compile(self, item: _Pending) -> None:
        c, m = item.compile, item.metrics
        if item.frame_key[2] == "unknown" and isinstance(m.get("co_name"), str) and m["co_name"]:
            item.frame_key = (_text(m.get("co_filename")), _int(m.get("co_firstlineno")), m["co_name"])
        from compilescope.session.breaks import parse_graph_break

        c.graph_breaks = [parse_graph_break(text) for text in item.break_texts]
        for brk in c.graph_breaks:
            _bound_summaries(brk)
            self._attach_source(brk)
        c.op_count = _int(m.get("graph_op_count"))
        c.guard_count = _int(m.get("guard_count"))
        c.guard_latency_us = _number(m.get("guard_latency_us"))
        restarts = m.get("restart_reasons")
        c.restarts = [str(r) for r in restarts] if isinstance(restarts, list) else []
        if c.recompile_reason is None and isinstance(m.get("recompile_reason"), str) and m["recompile_reason"]:
            c.recompile_reason = [m["recompile_reason"]]
            from compilescope.session.breaks import parse_recompile_reasons

            c.failed_guards = parse_recompile_reasons(c.recompile_reason)
        for guard in c.failed_guards:
            guard.filename = _full_path(guard.filename, item.frame_key[0])
        if m.get("fail_type"):
            reason = _text(m.get("fail_reason")) or ""
            reason = reason.strip()
            c.failure = f"{_text(m['fail_type']) or 'unknown'}: {_failure_summary(reason)}".strip()
            c.failure_filename = _text(m.get("fail_user_frame_filename"))
            c.failure_lineno = _int(m.get("fail_user_frame_lineno"))
            c.failure_hints = [h.strip()[:SUMMARY_LIMIT] for h in re.findall(r"^\s*Hint: (.+)$", reason, re.M)][:5]
            if caused := re.search(r"^Caused by: (.*?)\s+# ", reason, re.M):
                c.failure_code = caused.group(1).strip()
        c.time = _compile_time(m, item.backward_metrics)
        if len(item.code_gen) >= 2 and c.time.codegen_s is not None and self.kernel_compiles:
            # the forward's code generation only: a backward compiled later (at the first
            # backward call) has its own, inside time.backward_s
            begin, end = item.code_gen[0], item.code_gen[1]
            spent = self._kernel_compile_time(begin, end) / 1e6
            c.time.kernel_compile_s = spent
            c.time.codegen_s = max(c.time.codegen_s - spent, 0.0)
        # The whole compile: torch's entire_frame_compile_time_s, plus the backward graph where
        # it was compiled later (at the first backward call): the total the terminal, the page's
        # stage chart and the findings all give
        c.compile_time_s = c.time.total_s + (c.time.backward_s or 0.0) if c.time.total_s is not None else None
        c.cudagraph_skip_reason = _text(m.get("cudagraph_skip_reason")) or _text(item.backward_metrics.get("cudagraph_skip_reason"))
        c.cudagraph_skip_reason = c.cudagraph_skip_reason or item.runtime_skip
        c.cudagraph_recordings = item.cudagraph_recordings or None
        if isinstance(config := m.get("inductor_config"), str) and (asked := _CUDAGRAPHS.search(config)) and asked.group(1) == "true":
            c.cudagraphs = True
        if c.cudagraph_recordings or c.cudagraph_skip_reason:
            c.cudagraphs = True
        c.cache = CacheUse(
            fx_graph_hits=_int(m.get("inductor_fx_local_cache_hit_count")),
            fx_graph_misses=_int(m.get("inductor_fx_local_cache_miss_count")),
            aot_autograd_hits=_int(m.get("aotautograd_local_cache_hit_count")),
            aot_autograd_misses=_int(m.get("aotautograd_local_cache_miss_count")),
        )
        graph_ops = set()
        for graph in (c.aot.forward, c.aot.backward, c.aot.inference):
            if graph is not None:
                graph_ops.update(graph.ops)
        c.inductor_code = "\n\n".join(item.output_code)
        from compilescope.session.kernels import parse_kernels

        for code in item.output_code:
            c.kernels.extend(parse_kernels(code, graph_ops))
        _kernel_sources(c, item.kernel_stacks)
        c.status = _status(c, m)

    def _name_by_frame_id(self) -> None:
        """A compile that never learned its function (the recompile limit's refusal writes no
        dynamo_start, and its metrics name no code) belongs to the function of the other
        compiles with its frame id: torch numbers frames, not compiles, by that id."""
        known = {item.key[:2]: item.frame_key for item in self.order if item.frame_key[2] != "unknown"}
        for item in self.order:
            if item.frame_key[2] == "unknown" and item.key[:2] in known:
                item.frame_key = known[item.key[:2]]

    def _apply_generated_code(self) -> None:
        """Dynamo's code, decompiled (compilescope's own record): put on each Compile, with the
        code it compiled."""
        data = self.generated
        if data is None:
            return
        if data.get("unavailable"):
            self.session.decompiled = str(data["unavailable"])
            return
        self._hook_failures(data)
        seconds = _number(data.get("decompile_s"))
        self.session.decompiled = f"decompiled when the run ended, in {seconds:.2f} s" if seconds is not None else "decompiled"
        # Keyed without the restart attempt ("3/0_1" -> "3/0"): inside the bytecode hook torch
        # still reports attempt 0, and the code comes from the last attempt, the one that held.
        # An id comes back after torch._dynamo.reset(): both lists are in the order the compiles
        # ran, so each version takes the first compile of its id not yet taken.
        frames_of = {id(c): frame for frame in self.session.frames for c in frame.compiles}
        by_id: dict[tuple[str, str], list[Compile]] = {}
        for item in self.order:
            by_id.setdefault((_without_attempt(item.compile.compile_id), item.frame_key[2]), []).append(item.compile)
        for version in _list(data.get("versions")):
            if (
                not isinstance(version, dict)
                or not isinstance(version.get("compile_id"), str)
                or not isinstance(version.get("function"), str)
            ):
                self.skip(f"the code of a compiled version: not in the shape compilescope writes ({_a(version)})")
                continue
            waiting = by_id.get((_without_attempt(version["compile_id"]), version["function"])) or []
            if not waiting:
                self.skip(
                    f"the code of compiled version {_short(version['compile_id'])} of {_short(version['function'])}: the trace has no compile with that id"
                )
                continue
            compile_ = waiting.pop(0)
            compile_.transformed_code = _decompiled(version.get("transformed"))
            compile_.original_code = _decompiled(version.get("original"))
            resumes = version.get("resume_functions")
            compile_.resume_functions = {str(k): v for k, v in resumes.items() if isinstance(v, str)} if isinstance(resumes, dict) else {}
            compile_.compiled_graphs = [n for n in _list(version.get("compiled_graphs")) if isinstance(n, str)]
            compile_.called_as = [n for n in _list(version.get("called_as")) if isinstance(n, str)]
            compile_.for_function = _text(version.get("wraps")) or _text(version.get("qualname"))
            # torch's stack (dynamo_start) leaves out the direct caller of a function given to
            # torch.compile (its wrapper's caller is where it stops): the stack compilescope read
            # as the compile ran has it. (Not for resume functions: their caller is Dynamo's code.)
            ours = [n for n in _list(version.get("called_from")) if isinstance(n, str)]
            if ours and not version["function"].startswith("torch_dynamo_resume_in_"):
                compile_.called_from = ours
                compile_.call_code = _text(version.get("call_code"))
            frame = frames_of.get(id(compile_))
            if frame is not None and frame.parameters is None:
                given = version.get("parameters")
                if isinstance(given, list) and all(isinstance(n, str) for n in given):
                    frame.parameters = list(given)
            if frame is not None and frame.qualname is None:
                frame.qualname = _text(version.get("qualname"))
                frame.wraps = _text(version.get("wraps"))

    def _hook_failures(self, data: dict[str, Any]) -> None:
        """What a hook of ours said failed inside torch's compile (record/hook_failures.py)."""
        failures = [_short(f) for f in _list(data.get("failures")) if isinstance(f, str)][: LIMIT_HOOK_FAILURES + 1]
        self.session.capture_problems.extend(failures)

    def _apply_calls(self) -> None:
        """Put the calls each version served (compilescope's own record) on its Compile, and the
        calls that ran no compiled code, and their order, on the Frame."""
        data = self.calls
        if data is None:
            return
        if data.get("unavailable"):
            self.session.calls_recorded = str(data["unavailable"])
            return
        self._hook_failures(data)
        method = data.get("method")
        self.session.calls_recorded = method if isinstance(method, str) and method else "recorded"
        for version in _list(data.get("versions")):
            cid = version.get("compile_id") if isinstance(version, dict) else None
            if not isinstance(cid, dict):
                self.skip(f"calls of a compiled version: not in the shape compilescope writes ({_a(version)})")
                continue
            key = (_int(cid.get("compiled_autograd_id")), _int(cid.get("frame_id")), _int(cid.get("frame_compile_id")))
            item = self.latest.get(key)
            if item is None:
                self.skip(
                    f"calls of compiled version {_short(_str(version.get('label')) or 'unknown')}: the trace has no compile with that id"
                )
                continue
            item.compile.calls = _call_times(version)
        for original in _list(data.get("eager")):
            frame = self._frame_named(original.get("frame")) if isinstance(original, dict) else None
            if frame is not None:
                # Two code objects of one function (the resume functions of both sides of a
                # branch) add up.
                frame.calls_without_compiled_code = _add_calls(frame.calls_without_compiled_code, _call_times(original))
        for order in _list(data.get("order")):
            frame = self._frame_named(order.get("frame")) if isinstance(order, dict) else None
            if frame is not None:
                runs = [
                    run
                    for run in _list(order.get("runs"))
                    if isinstance(run, list) and len(run) == 2 and isinstance(run[0], str) and _int(run[1]) is not None
                ]
                frame.call_order = [[label, count] for label, count in runs]
                frame.call_order_cut = order.get("cut") is True

    def _frame_named(self, key: Any) -> Frame | None:
        if not isinstance(key, list) or len(key) != 3:
            return None
        filename, lineno, name = key
        if not isinstance(filename, (str, type(None))) or _int(lineno) is None or not isinstance(name, str):
            return None
        return self.frames.get((filename, lineno, name))

    def _index_kernel_compiles(self) -> None:
        # The C++/Triton compiles, in time order, with the latest end so far at each: the
        # compile time inside a code_gen span is then found by bisection, not a scan per compile.
        self.kernel_compiles.sort()
        self._compile_begins = [b for b, _ in self.kernel_compiles]
        self._compile_spent = [0.0]
        for b, e in self.kernel_compiles:
            self._compile_spent.append(self._compile_spent[-1] + max(e - b, 0.0))

    def _kernel_compile_time(self, begin: float, end: float) -> float:
        """µs of C++/Triton compiling inside [begin, end] (the outermost compile_file spans, which
        do not overlap)."""
        spans = self.kernel_compiles
        first = max(bisect.bisect_left(self._compile_begins, begin) - 1, 0)
        last = bisect.bisect_left(self._compile_begins, end)
        if last - first <= 2:
            return sum(max(min(e, end) - max(b, begin), 0.0) for b, e in spans[first:last])
        # Whole spans in the middle, by their running sum; the two at the ends, clipped.
        inner = self._compile_spent[last - 1] - self._compile_spent[first + 1]
        ends = [spans[first], spans[last - 1]]
        return inner + sum(max(min(e, end) - max(b, begin), 0.0) for b, e in ends)

    def _attach_source(self, brk: GraphBreak, around: int = 3) -> None:
        """The lines around a break, read from the user's file, but only if the file still has,
        at that line, the code torch reported: a file edited since the run must not mislead."""
        if not brk.filename or not brk.lineno or not brk.code or brk.lineno < 1:
            return
        if brk.filename not in self._sources:
            if len(self._sources) >= 256:
                self._sources.clear()
            self._sources[brk.filename] = _read_source(brk.filename)
        lines = self._sources[brk.filename]
        if lines is None or brk.lineno > len(lines) or lines[brk.lineno - 1].strip() != brk.code.strip():
            return
        start = max(1, brk.lineno - around)
        brk.context = lines[start - 1 : brk.lineno + around]
        brk.context_start = start

    def _place_compiled_modules(self) -> None:
        """torch's wrapper of a module compiled whole (`inner`, in torch's external_utils.py)
        is placed at the user's torch.compile call of that module."""
        by_forward = {f"{m.module}.forward": m for m in self.session.compiled_modules or [] if m.compiled_from}
        for frame in self.session.frames:
            module = by_forward.get(frame.wraps or "")
            if module is not None and library(frame.filename) == "torch":  # (not a library's decorator: transformers' `wrapper`)
                frame.compiled_at = module.compiled_from[-1].split(" in ")[0]

    def _breaks_in_compiled_frames(self) -> None:
        """A break in a library's code (torch's, transformers') that the user's compiled function
        called into: the user's line is the compiled function's own call, which torch's traceback
        can leave out (it folds consecutive frames of one name, as resume functions are: a module's
        `forward` calling a torch module's `forward`). Dynamo continues after the break in a resume
        function named for that line (`torch_dynamo_resume_in_forward_at_31`): this version's (from
        its transformed code, where recorded), or the frame's only one."""
        for frame in self.session.frames:
            if frame.is_resume or not is_user_code(frame.filename):
                continue
            resumes = {
                other.name: other.name.rpartition("_at_")[2]
                for other in self.session.frames
                if other.is_resume
                and other.filename == frame.filename
                and other.name.startswith(f"torch_dynamo_resume_in_{frame.name}_at_")
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
                    source = self._sources.setdefault(frame.filename, _read_source(frame.filename))
                    brk.user_filename, brk.user_lineno, brk.user_function = frame.filename, line, frame.name
                    brk.user_code = source[line - 1].strip() if source and line <= len(source) else None

    def _link_resumes(self) -> None:
        # Dynamo names the function that continues after a break at line N of `fn`
        # "torch_dynamo_resume_in_<fn>_at_<N>".
        breaks: dict[tuple[str | None, str], list[GraphBreak]] = {}
        for other in self.session.frames:
            for compile_ in other.compiles:
                for brk in compile_.graph_breaks:
                    breaks.setdefault((brk.filename, str(brk.lineno)), []).append(brk)
        for frame in self.session.frames:
            if not frame.is_resume:
                continue
            rest = frame.name.removeprefix("torch_dynamo_resume_in_")
            function, _, line = rest.rpartition("_at_")
            frame.resumes = f"{function} line {line}"
            for brk in breaks.get((frame.filename, line), ()):
                brk.resume_function = frame.name


_TRACEBACK_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in [^\n]*\n\s*(?P<code>[^\n]*)')


def _kernel_sources(c: Compile, stacks: dict[str, list[str]]) -> None:
    """The user's lines each kernel came from: Inductor's provenance (when it was on), else the
    captured graph's "# File:" comments for the kernel's source nodes."""
    by_kernel: dict[str, list[list[str]]] = {}
    for key, traces in stacks.items():
        name = key.rsplit(":", 1)[0].removeprefix("extern_kernels.")
        lines = []
        for trace in traces:
            frames = list(_TRACEBACK_FRAME.finditer(trace))
            if frames:
                last = frames[-1]
                lines.append(f"{last.group('file')}:{last.group('line')}  {last.group('code').strip()}")
        by_kernel.setdefault(name, []).append(list(dict.fromkeys(lines)))
    node_sources = {n.name: n.source for g in c.graphs for n in g.nodes if n.source}
    for kernel in c.kernels:
        found = by_kernel.get(kernel.name)
        if found:
            kernel.source_lines = found.pop(0)
        elif kernel.source_nodes:
            kernel.source_lines = list(dict.fromkeys(node_sources[n] for n in kernel.source_nodes if n in node_sources))
        if m := re.search(r"'kernel_num_gb': ([0-9.e+-]+)", kernel.code):
            kernel.num_gb = _float_text(m.group(1))
        if m := re.search(r"'kernel_flop': ([0-9.e+-]+)", kernel.code):
            kernel.flop = _float_text(m.group(1))


SUMMARY_LIMIT = 1000  # characters of a line read out of torch's message (its whole text is kept)


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


_CUDAGRAPHS = re.compile(r'"triton\.cudagraphs":\s*(true|false)')
_RAISED = re.compile(r"got (?P<error>\w+(?:Error|Exception))\((?P<quote>['\"])(?P<message>.*?)(?P=quote)\)", re.S)


def _full_path(shortened: str | None, known: str | None) -> str | None:
    """torch writes a guard's place with torch.utils._traceback.shorten_filename, which cuts the
    path at its common prefix with torch's folder (and, when that prefix is only "/", one
    character too many: "/tmp/t.py" becomes "mp/t.py"). Where the compiled function's own file
    ends with that text, it is the full path; otherwise torch's text stays as it is."""
    if shortened and known and not shortened.startswith("/") and known.endswith(shortened):
        return known
    return shortened


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


def _compile_time(m: dict[str, Any], bwd: dict[str, Any]) -> CompileTime:
    def seconds(key: str) -> float | None:
        return _number(m.get(key))

    total = seconds("entire_frame_compile_time_s")
    backend = seconds("backend_compile_time_s")
    inductor = seconds("inductor_compile_time_s")
    codegen = seconds("code_gen_time_s")
    time = CompileTime(total_s=total)
    if total is not None:
        time.dynamo_s = total - (backend or 0.0)
    time.cache_saved_s = seconds("remote_cache_time_saved_s") or None
    if m.get("aotautograd_local_cache_hit_count") and inductor is None:
        # Served by the AOT Autograd cache: the backend only loaded the compiled graph.
        time.from_cache_s = backend
    elif backend is not None:
        time.aot_autograd_s = backend - (inductor or 0.0)
    if inductor is not None:
        time.inductor_s = inductor - (codegen or 0.0)
    time.codegen_s = codegen
    if bwd:
        time.backward_s = _number(bwd.get("inductor_compile_time_s"))
    return time


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


def _child(data: Any) -> ChildProcess | None:
    """A child process as compilescope's own record says it, or None where it is not in the
    shape compilescope writes."""
    if not isinstance(data, dict) or not isinstance(data.get("command"), str):
        return None

    def number(key: str) -> int | None:
        return _int(data.get(key))  # (at most 64 bits: what a session holds)

    seconds = data.get("compile_time_s")
    return ChildProcess(
        pid=number("pid"),
        parent_pid=number("parent_pid"),
        command=data["command"],
        how=str(data.get("how") or "started"),
        followed=data.get("followed") is True,
        why_not=_str(data.get("why_not")),
        trace=_str(data.get("trace")),
        rank=number("rank"),
        functions=number("functions") or 0,
        compiles=number("compiles") or 0,
        recompiles=number("recompiles") or 0,
        graph_breaks=number("graph_breaks") or 0,
        kernels=number("kernels") or 0,
        compile_time_s=float(seconds) if isinstance(seconds, (int, float)) and not isinstance(seconds, bool) else None,
    )


def _str(value: Any) -> str | None:
    """A scalar as text (torch writes a symbol's value as a number or a string); a list or an
    object, which torch does not write there, as compact JSON."""
    if value is None:
        return None
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)[:10_000]
    return str(value)


def _text(value: Any) -> str | None:
    """A string as it is, or None for anything else: no value of another type is dressed up as text."""
    return value if isinstance(value, str) else None


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


_PROGRAM_KINDS = typing.get_args(ProgramKind)  # what a session may hold as Program.kind


def _int(value: Any) -> int | None:
    """A whole number as torch writes one (a line, a count: at most 64 bits), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and -(2**63) < value < 2**63 else None


def _number(value: Any) -> float | None:
    """An int or a float as torch wrote it (not a bool, not NaN, infinite or beyond a float's
    range, which no timing or count is), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value if -1e300 < value < 1e300 else None


def _float_text(text: str) -> float | None:
    try:
        return _number(float(text))
    except ValueError:
        return None


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _unknown(value: Any) -> str:
    return "unknown" if value is None else str(value)


def _a(value: Any) -> str:
    """What a value from a record is, for the user: "a list", "the string 'abc'"."""
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a whole number", float: "a number"}
    if value is None:
        return "null"
    if isinstance(value, str):
        return f"the string {_short(value, 40)!r}"
    if isinstance(value, (bool, int, float)):
        return f"{names[type(value)]} ({_short(str(value), 40)})"
    return names.get(type(value), type(value).__name__)


LIMIT_HOOK_FAILURES = 5  # as record/hook_failures.py keeps, and one line for how many in all


def _short(text: str, limit: int = 200) -> str:
    # Messages quote values from the trace: at most `limit` characters of one.
    return text if len(text) <= limit else text[:limit] + f"… ({len(text) - limit} characters more)"


_ENVIRONMENT_FIELDS = tuple(Environment.__dataclass_fields__)


def _call_times(facts: dict[str, Any]) -> CallTimes:
    iqr = facts.get("iqr_us")
    iqr_us = [float(v) for v in iqr] if isinstance(iqr, list) and len(iqr) == 2 and all(_number(v) is not None for v in iqr) else None
    return CallTimes(
        calls=_int(facts.get("calls")) or 0,
        total_ms=_number(facts.get("total_ms")) or 0.0,
        median_us=_number(facts.get("median_us")),
        iqr_us=iqr_us,
        raised=_int(facts.get("raised")) or 0,
        sampled=_int(facts.get("sampled")),
    )


def _add_calls(first: CallTimes | None, second: CallTimes) -> CallTimes:
    if first is None or first.calls == 0:
        return second
    if second.calls == 0:
        return first
    # The median of the two together is not known from the two medians: say unknown.
    return CallTimes(calls=first.calls + second.calls, total_ms=first.total_ms + second.total_ms, raised=first.raised + second.raised)
