"""Build a Session from structured-trace records (no torch).

Records carry a compile id; a compile begins at its `dynamo_start`. Compile ids can repeat in
one trace (`torch._dynamo.reset()`, which `torch._dynamo.explain` calls, starts counting again),
so a record belongs to the *latest* compile begun with its id. Frames are functions, keyed by
(file, first line, name): every version Dynamo compiled of one function is one Frame.
"""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compilescope.session.breaks import parse_graph_break, parse_recompile_reasons, split_recompile_reasons
from compilescope.session.graphs import parse_aot_graph, parse_dynamo_graph
from compilescope.session.guards import parse_guard_tree
from compilescope.session.kernels import parse_kernels
from compilescope.session.model import (
    CacheUse,
    CallTimes,
    ChildProcess,
    Compile,
    CompileTime,
    DecompiledCode,
    DynamicShape,
    Frame,
    GraphBreak,
    Program,
    Session,
)
from compilescope.trace.reader import CompileId, Record, TraceLog, read_trace, trace_files

# Records compilescope's own capture adds to the trace (torch never writes these names).
CAPTURE_RECORD = "compilescope_capture"  # the first line of a trace compilescope writes
ENVIRONMENT_RECORD = "compilescope_environment"
PROGRAM_RECORD = "compilescope_program"
CALLS_RECORD = "compilescope_calls"
GENERATED_CODE_RECORD = "compilescope_generated_code"
CHILDREN_RECORD = "compilescope_children"


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


def _without_attempt(compile_id: str) -> str:
    return re.sub(r"_\d+$", "", compile_id)


def _decompiled(data: Any) -> DecompiledCode | None:
    if not isinstance(data, dict) or not isinstance(data.get("source"), str):
        return None
    return DecompiledCode(source=data["source"], complete=bool(data.get("complete")), note=data.get("note"))


def load_trace(path: str | Path) -> list[Session]:
    """One Session per trace file (per rank) found at `path`."""
    files = trace_files(path)
    if not files:
        raise FileNotFoundError(f"no trace files (*.log) in {path}")
    return [build_session(read_trace(f)) for f in files]


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

    # ---- dispatch ---------------------------------------------------------------------------
    def add(self, record: Record) -> None:
        if record.rank is not None and self.session.rank is None:
            self.session.rank = record.rank
        handler = getattr(self, f"_on_{record.kind}", None)
        if handler is not None:
            try:
                handler(record)
            except Exception as error:  # a record in a shape we do not know: say so, go on
                self.session.skipped.append(
                    f"line {record.line}: could not read {record.kind!r} ({type(error).__name__}: {error})"
                )

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
            found.output_code = []
            c.aot = type(c.aot)()
        found.compile.records.append(record.line)
        return found

    def _where(self, stack: list[dict] | None) -> tuple[tuple[str | None, int | None, str], list[str]]:
        """The compiled function (file, first line, name) and the user's frames that called it."""
        if not stack:
            return (None, None, "unknown"), []
        last = stack[-1]
        frame_key = (self.log.string(last.get("filename")), last.get("line"), str(last.get("name")))
        called_from = []
        for entry in stack[:-1]:
            filename = self.log.string(entry.get("filename")) or "?"
            if "/torch/" in filename or "/site-packages/" in filename or "/compilescope/" in filename:
                continue
            called_from.append(f"{filename}:{entry.get('line')} in {entry.get('name')}")
        return frame_key, called_from

    def _begin(self, compile_id: CompileId, stack: list[dict] | None) -> _Pending:
        frame_key, called_from = self._where(stack)
        compile_ = Compile(compile_id=str(CompileId(compile_id.frame_id, compile_id.frame_compile_id, 0, compile_id.compiled_autograd_id)), status="unknown")
        compile_.called_from = called_from
        item = _Pending(compile=compile_, frame_key=frame_key)
        self.latest[compile_id.key] = item
        self.order.append(item)
        return item

    # ---- record handlers -----------------------------------------------------------------------
    def _on_dynamo_start(self, record: Record) -> None:
        assert record.compile_id is not None
        existing = self.latest.get(record.compile_id.key)
        stack = record.metadata.get("stack") if isinstance(record.metadata, dict) else None
        if existing is not None and existing.frame_key[2] == "unknown" and not existing.metrics:
            # Records (a timing event, the recompile reasons) came before dynamo_start: they
            # belong to this compile, which now learns its function.
            existing.frame_key, existing.compile.called_from = self._where(stack)
            existing.compile.records.append(record.line)
            return
        if existing is not None and record.compile_id.attempt > 0:
            existing.compile.records.append(record.line)
            return  # a restart of the same compile
        self._begin(record.compile_id, stack).compile.records.append(record.line)

    def _on_dynamo_output_graph(self, record: Record) -> None:
        item = self.pending(record)
        if item and record.payload is not None:
            item.compile.graphs.append(parse_dynamo_graph(record.payload))

    def _on_dynamo_cpp_guards_str(self, record: Record) -> None:
        item = self.pending(record)
        if item and record.payload is not None:
            item.compile.guards_text = record.payload
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
            item.compile.failed_guards = parse_recompile_reasons(lines)

    def _on_compilation_metrics(self, record: Record) -> None:
        item = self.pending(record)
        if item and isinstance(record.metadata, dict):
            item.metrics = record.metadata

    def _on_bwd_compilation_metrics(self, record: Record) -> None:
        item = self.pending(record)
        if item and isinstance(record.metadata, dict):
            item.backward_metrics = record.metadata

    def _aot(self, record: Record, which: str) -> None:
        item = self.pending(record)
        if item and record.payload is not None:
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
            data = json.loads(record.payload)
            if isinstance(data, dict):
                item.kernel_stacks.update({str(k): [str(t) for t in v] for k, v in data.items() if isinstance(v, list)})

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
        decision = DynamicShape(
            kind=kind,
            symbol=_str(meta.get("symbol")) or _str(meta.get("expr")),
            source=_str(meta.get("source")) or (", ".join(meta["sources"]) if meta.get("sources") else None),
            value=_str(meta.get("val", meta.get("value"))),
            range=_str(meta.get("vr")),
            reason=_str(meta.get("reason")),
        )
        user_stack = meta.get("user_stack") or []
        if user_stack:
            top = user_stack[0] if kind in ("symbol", "unbacked symbol") else user_stack[-1]
            decision.filename = self.log.string(top.get("filename"))
            decision.lineno = top.get("line")
            decision.code = top.get("loc")
        item.compile.dynamic.append(decision)

    def _on_chromium_event(self, record: Record) -> None:
        if record.payload is None:
            return
        event = json.loads(record.payload)
        name, phase, stamp = event.get("name"), event.get("ph"), event.get("ts")
        if name == "compile_file" and isinstance(stamp, (int, float)):
            if phase == "B":
                self._open_compiles.append(stamp)
            elif phase == "E" and self._open_compiles:
                begin = self._open_compiles.pop()
                if not self._open_compiles:  # only the outermost: nested ones are inside it
                    self.kernel_compiles.append((begin, stamp))
            return
        if name == "code_gen" and isinstance(stamp, (int, float)) and record.compile_id is not None:
            item = self.pending(record)
            if item is not None and phase in ("B", "E"):
                item.code_gen.append(stamp)
            return
        if name == "automatic_dynamic" and record.compile_id is not None:
            item = self.pending(record)
            args = event.get("args", {})
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

    def _on_torch_version(self, record: Record) -> None:
        if record.payload:
            data = json.loads(record.payload)
            self.session.environment.torch = self.session.environment.torch or data.get("pytorch_version")

    def _on_compilescope_capture(self, record: Record) -> None:
        meta = record.metadata if isinstance(record.metadata, dict) else {}
        rank = meta.get("rank")
        if isinstance(rank, int) and not isinstance(rank, bool) and self.session.rank is None:
            self.session.rank = rank  # the rank a launcher gave the process (RANK)

    def _on_compilescope_environment(self, record: Record) -> None:
        if isinstance(record.metadata, dict):
            env = self.session.environment
            for key, value in record.metadata.items():
                if hasattr(env, key) and value is not None:
                    setattr(env, key, value)

    def _on_compilescope_program(self, record: Record) -> None:
        if isinstance(record.metadata, dict):
            meta = record.metadata
            self.program = Program(
                kind=str(meta.get("kind", "script")),
                target=str(meta.get("target", "")),
                argv=list(meta.get("argv", [])),
                exit_status=meta.get("exit_status"),
                exception=meta.get("exception"),
                wall_time_s=meta.get("wall_time_s"),
            )

    def _on_compilescope_calls(self, record: Record) -> None:
        if isinstance(record.metadata, dict):
            self.calls = record.metadata

    def _on_compilescope_children(self, record: Record) -> None:
        if record.payload is None:
            return
        data = json.loads(record.payload)
        if isinstance(data, list):
            self.session.children = [child for item in data if (child := _child(item)) is not None]

    def _on_compilescope_generated_code(self, record: Record) -> None:
        if record.payload:
            with contextlib.suppress(ValueError):
                self.generated = json.loads(record.payload)
        elif isinstance(record.metadata, dict):
            self.generated = record.metadata

    # ---- finishing ------------------------------------------------------------------------------
    def finish(self) -> Session:
        for item in self.order:
            self._finish_compile(item)
            frame = self.frames.get(item.frame_key)
            if frame is None:
                filename, lineno, name = item.frame_key
                frame = Frame(name=name, filename=filename, lineno=lineno)
                self.frames[item.frame_key] = frame
                self.session.frames.append(frame)
            frame.compiles.append(item.compile)
        self._link_resumes()
        self._apply_calls()
        self._apply_generated_code()
        self.session.program = self.program
        env = self.session.environment
        if env.python is None:
            env.python = next(
                (str(i.metrics["python_version"]).split()[0] for i in self.order if i.metrics.get("python_version")),
                None,
            )
        if env.torch is None:
            env.torch = next((i.metrics.get("pytorch_version") for i in self.order if i.metrics.get("pytorch_version")), None)
        self.session.skipped = [f"line {s.line}: {s.reason}" for s in self.log.skipped] + self.session.skipped
        return self.session

    def _finish_compile(self, item: _Pending) -> None:
        c, m = item.compile, item.metrics
        if item.frame_key[2] == "unknown" and m.get("co_name"):
            item.frame_key = (m.get("co_filename"), m.get("co_firstlineno"), str(m["co_name"]))
        c.graph_breaks = [parse_graph_break(text) for text in item.break_texts]
        for brk in c.graph_breaks:
            _attach_source(brk)
        c.op_count = m.get("graph_op_count")
        c.guard_count = m.get("guard_count")
        c.guard_latency_us = m.get("guard_latency_us")
        c.restarts = [str(r) for r in m.get("restart_reasons") or []]
        if c.recompile_reason is None and m.get("recompile_reason"):
            c.recompile_reason = [str(m["recompile_reason"])]
            c.failed_guards = parse_recompile_reasons(c.recompile_reason)
        if m.get("fail_type"):
            reason = str(m.get("fail_reason") or "").strip()
            c.failure = f"{m['fail_type']}: {reason.splitlines()[0] if reason else ''}".strip()
            c.failure_filename = m.get("fail_user_frame_filename")
            c.failure_lineno = m.get("fail_user_frame_lineno")
            if caused := re.search(r"^Caused by: (.*?)\s+# ", reason, re.M):
                c.failure_code = caused.group(1).strip()
        c.time = _compile_time(m, item.backward_metrics)
        if len(item.code_gen) >= 2 and c.time.codegen_s is not None and self.kernel_compiles:
            begin, end = item.code_gen[0], item.code_gen[-1]
            spent = sum(min(e, end) - max(b, begin) for b, e in self.kernel_compiles if b < end and e > begin) / 1e6
            c.time.kernel_compile_s = spent
            c.time.codegen_s = max(c.time.codegen_s - spent, 0.0)
        c.compile_time_s = c.time.total_s
        c.cache = CacheUse(
            fx_graph_hits=m.get("inductor_fx_local_cache_hit_count"),
            fx_graph_misses=m.get("inductor_fx_local_cache_miss_count"),
            aot_autograd_hits=m.get("aotautograd_local_cache_hit_count"),
            aot_autograd_misses=m.get("aotautograd_local_cache_miss_count"),
        )
        graph_ops = set()
        for graph in (c.aot.forward, c.aot.backward, c.aot.inference):
            if graph is not None:
                graph_ops.update(graph.ops)
        c.inductor_code = "\n\n".join(item.output_code)
        for code in item.output_code:
            c.kernels.extend(parse_kernels(code, graph_ops))
        _kernel_sources(c, item.kernel_stacks)
        c.status = _status(c, m)

    def _apply_generated_code(self) -> None:
        """Put Dynamo's code and the code it compiled, decompiled (compilescope's own record),
        on each Compile."""
        data = self.generated
        if data is None:
            return
        if data.get("unavailable"):
            self.session.decompiled = str(data["unavailable"])
            return
        seconds = data.get("decompile_s")
        self.session.decompiled = f"decompiled when the run ended, in {seconds:.2f} s" if isinstance(seconds, (int, float)) else "decompiled"
        # Keyed without the restart attempt ("3/0_1" -> "3/0"): inside the bytecode hook torch
        # still reports attempt 0, and the code comes from the last attempt, the one that held.
        # An id comes back after torch._dynamo.reset(): both lists are in the order the compiles
        # ran, so each version takes the first compile of its id not yet taken.
        by_id: dict[tuple[str, str], list[Compile]] = {}
        for item in self.order:
            by_id.setdefault((_without_attempt(item.compile.compile_id), item.frame_key[2]), []).append(item.compile)
        for version in data.get("versions") or []:
            waiting = by_id.get((_without_attempt(str(version.get("compile_id"))), str(version.get("function")))) or []
            if not waiting:
                self.session.skipped.append(f"the code of compiled version {version.get('compile_id')} of {version.get('function')}: the trace has no compile with that id")
                continue
            compile_ = waiting.pop(0)
            compile_.transformed_code = _decompiled(version.get("transformed"))
            compile_.original_code = _decompiled(version.get("original"))
            compile_.resume_functions = {str(k): str(v) for k, v in (version.get("resume_functions") or {}).items()}
            compile_.compiled_graphs = [str(n) for n in version.get("compiled_graphs") or []]
            compile_.called_as = [str(n) for n in version.get("called_as") or []]

    def _apply_calls(self) -> None:
        """Put the calls each version served (compilescope's own record) on its Compile, and the
        calls that ran no compiled code, and their order, on the Frame."""
        data = self.calls
        if data is None:
            return
        if data.get("unavailable"):
            self.session.calls_recorded = str(data["unavailable"])
            return
        self.session.calls_recorded = str(data.get("method") or "recorded")
        for version in data.get("versions") or []:
            cid = version.get("compile_id") or {}
            item = self.latest.get((cid.get("compiled_autograd_id"), cid.get("frame_id"), cid.get("frame_compile_id")))
            if item is None:
                self.session.skipped.append(f"calls of compiled version {version.get('label')}: the trace has no compile with that id")
                continue
            item.compile.calls = _call_times(version)
        for original in data.get("eager") or []:
            frame = self._frame_named(original.get("frame"))
            if frame is not None:
                # Two code objects of one function (the resume functions of both sides of a
                # branch) add up.
                frame.calls_without_compiled_code = _add_calls(frame.calls_without_compiled_code, _call_times(original))
        for order in data.get("order") or []:
            frame = self._frame_named(order.get("frame"))
            if frame is not None:
                frame.call_order = [[str(label), int(count)] for label, count in order.get("runs") or []]
                frame.call_order_cut = bool(order.get("cut"))

    def _frame_named(self, key: Any) -> Frame | None:
        if not isinstance(key, list) or len(key) != 3:
            return None
        filename, lineno, name = key
        return self.frames.get((filename, lineno, name))

    def _link_resumes(self) -> None:
        # Dynamo names the function that continues after a break at line N of `fn`
        # "torch_dynamo_resume_in_<fn>_at_<N>".
        for frame in self.session.frames:
            if not frame.is_resume:
                continue
            rest = frame.name.removeprefix("torch_dynamo_resume_in_")
            function, _, line = rest.rpartition("_at_")
            frame.resumes = f"{function} line {line}"
            for other in self.session.frames:
                for compile_ in other.compiles:
                    for brk in compile_.graph_breaks:
                        if brk.filename == frame.filename and str(brk.lineno) == line:
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
            kernel.num_gb = float(m.group(1))
        if m := re.search(r"'kernel_flop': ([0-9.e+-]+)", kernel.code):
            kernel.flop = float(m.group(1))


def _attach_source(brk: GraphBreak, around: int = 3) -> None:
    """The lines around a break, read from the user's file, but only if the file still has, at
    that line, the code torch reported: a file edited since the run must not mislead."""
    if not brk.filename or not brk.lineno or not brk.code:
        return
    try:
        with open(brk.filename, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return
    if brk.lineno > len(lines) or lines[brk.lineno - 1].strip() != brk.code.strip():
        return
    start = max(1, brk.lineno - around)
    brk.context = lines[start - 1 : brk.lineno + around]
    brk.context_start = start


def _status(c: Compile, metrics: dict[str, Any]) -> str:
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
        value = m.get(key)
        return float(value) if isinstance(value, (int, float)) else None

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
        value = bwd.get("inductor_compile_time_s")
        time.backward_s = float(value) if isinstance(value, (int, float)) else None
    return time


def _json_or_lines(payload: str) -> list[str]:
    # One reason is written as plain text (possibly several lines), several as a JSON list.
    try:
        data = json.loads(payload)
    except json.JSONDecodeError:
        return split_recompile_reasons([line for line in payload.splitlines() if line.strip()])
    if isinstance(data, list):
        return [str(item) for item in data]
    return [str(data)]


def _child(data: Any) -> ChildProcess | None:
    """A child process as compilescope's own record says it, or None where it is not in the
    shape compilescope writes."""
    if not isinstance(data, dict) or not isinstance(data.get("command"), str):
        return None

    def number(key: str) -> int | None:
        value = data.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

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
    return None if value is None else str(value)


def _call_times(facts: dict[str, Any]) -> CallTimes:
    iqr = facts.get("iqr_us")
    return CallTimes(
        calls=int(facts.get("calls") or 0),
        total_ms=float(facts.get("total_ms") or 0.0),
        median_us=facts.get("median_us"),
        iqr_us=list(iqr) if isinstance(iqr, list) else None,
        raised=int(facts.get("raised") or 0),
        sampled=facts.get("sampled"),
    )


def _add_calls(first: CallTimes | None, second: CallTimes) -> CallTimes:
    if first is None or first.calls == 0:
        return second
    if second.calls == 0:
        return first
    # The median of the two together is not known from the two medians: say unknown.
    return CallTimes(calls=first.calls + second.calls, total_ms=first.total_ms + second.total_ms, raised=first.raised + second.raised)
