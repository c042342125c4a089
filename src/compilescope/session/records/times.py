"""Compile time and cache records: torch's report at the end of each compile
(compilation_metrics, and bwd_compilation_metrics for a backward compiled later), its report of
CUDA graphs recorded at run time (compilation_metrics_runtime), and its timing events
(chromium_event: the compile timeline, code generation, C++/Triton compiles, autotuning,
automatic dynamic shapes).

After the last record, `read_times` reads each compile's time by stage, the C++/Triton
compiling inside its code generation, its CUDA graphs and its use of the compile caches.
"""

from __future__ import annotations

import re
from typing import Any

from compilescope.session.model import CacheUse, CompileTime
from compilescope.session.records.dynamo import automatic_dynamic
from compilescope.session.records.inductor import autotuning
from compilescope.session.records.state import BuildState, Handler, Pending
from compilescope.session.records.values import int_of, number_of, text_of
from compilescope.session.timeline import event_of, track_of
from compilescope.trace.reader import Record, json_value


def on_compilation_metrics(state: BuildState, record: Record) -> None:
    item = state.pending(record)
    if item:
        item.ended = True
    if item and isinstance(record.metadata, dict):
        item.metrics = record.metadata


def on_compilation_metrics_runtime(state: BuildState, record: Record) -> None:
    # torch writes one when it records a CUDA graph for a compiled graph (at its first
    # calls, and again on each re-recording), with the time it took
    item = state.pending(record)
    if item and isinstance(record.metadata, dict):
        if number_of(record.metadata.get("runtime_cudagraphify_time_us")) is not None:
            item.cudagraph_recordings += 1
        item.runtime_skip = text_of(record.metadata.get("cudagraph_skip_reason")) or item.runtime_skip


def on_bwd_compilation_metrics(state: BuildState, record: Record) -> None:
    item = state.pending(record)
    if item and isinstance(record.metadata, dict):
        item.backward_metrics = record.metadata


def on_chromium_event(state: BuildState, record: Record) -> None:
    if record.payload is None:
        return
    event = json_value(record.payload)
    if not isinstance(event, dict):
        state.skip(f"line {record.line}: a chromium_event that is not a JSON object")
        return
    timed = event_of(event)
    if timed is None:
        state.skip(f"line {record.line}: a chromium_event without a name, phase and time")
        return
    name, phase, stamp, args, tid = timed
    state.timeline.add(track_of(record.rank, record.pid, tid), name, phase, stamp, args)
    if name == "compile_file":
        compiles = state.kernel_compiles
        if phase == "B":
            compiles.open.append(stamp)
        elif phase == "E" and compiles.open:
            begin = compiles.open.pop()
            if not compiles.open:  # only the outermost: nested ones are inside it
                compiles.spans.append((begin, stamp))
        return
    if name == "code_gen" and record.compile_id is not None:
        item = state.pending(record)
        if item is not None and phase in ("B", "E"):
            item.code_gen.append(stamp)
        return
    if name.endswith("_template_autotuning") and phase == "E" and record.compile_id is not None:
        autotuning(state, record, name.removesuffix("_template_autotuning"), event.get("args"))
        return
    if name == "automatic_dynamic" and record.compile_id is not None:
        automatic_dynamic(state, record, event.get("args"))


HANDLERS: dict[str, Handler] = {
    "compilation_metrics": on_compilation_metrics,
    "compilation_metrics_runtime": on_compilation_metrics_runtime,
    "bwd_compilation_metrics": on_bwd_compilation_metrics,
    "chromium_event": on_chromium_event,
}


# ---- when the trace has been read -----------------------------------------------------------

_CUDAGRAPHS = re.compile(r'"triton\.cudagraphs":\s*(true|false)')


def read_times(state: BuildState, item: Pending) -> None:
    """A compile's time by stage, its CUDA graphs and its use of the compile caches (after
    `state.kernel_compiles.index()`)."""
    c, m = item.compile, item.metrics
    c.time = _compile_time(m, item.backward_metrics)
    if len(item.code_gen) >= 2 and c.time.codegen_s is not None and state.kernel_compiles.spans:
        # the forward's code generation only: a backward compiled later (at the first
        # backward call) has its own, inside time.backward_s
        begin, end = item.code_gen[0], item.code_gen[1]
        spent = state.kernel_compiles.time_inside(begin, end) / 1e6
        c.time.kernel_compile_s = spent
        c.time.codegen_s = max(c.time.codegen_s - spent, 0.0)
    # The whole compile: torch's entire_frame_compile_time_s, plus the backward graph where
    # it was compiled later (at the first backward call): the total the terminal, the page's
    # stage chart and the findings all give
    c.compile_time_s = c.time.total_s + (c.time.backward_s or 0.0) if c.time.total_s is not None else None
    c.cudagraph_skip_reason = text_of(m.get("cudagraph_skip_reason")) or text_of(item.backward_metrics.get("cudagraph_skip_reason"))
    c.cudagraph_skip_reason = c.cudagraph_skip_reason or item.runtime_skip
    c.cudagraph_recordings = item.cudagraph_recordings or None
    if isinstance(config := m.get("inductor_config"), str) and (asked := _CUDAGRAPHS.search(config)) and asked.group(1) == "true":
        c.cudagraphs = True
    if c.cudagraph_recordings or c.cudagraph_skip_reason:
        c.cudagraphs = True
    c.cache = CacheUse(
        fx_graph_hits=int_of(m.get("inductor_fx_local_cache_hit_count")),
        fx_graph_misses=int_of(m.get("inductor_fx_local_cache_miss_count")),
        aot_autograd_hits=int_of(m.get("aotautograd_local_cache_hit_count")),
        aot_autograd_misses=int_of(m.get("aotautograd_local_cache_miss_count")),
        remote_hits=_sum(m, "inductor_fx_remote_cache_hit_count", "aotautograd_remote_cache_hit_count"),
        remote_misses=_sum(m, "inductor_fx_remote_cache_miss_count", "aotautograd_remote_cache_miss_count"),
        lookups=c.cache.lookups,  # read from the caches' own records (records/caches.py)
    )


def _sum(m: dict[str, Any], *keys: str) -> int | None:
    """The sum of the counts torch gave of `keys`; None where it gave none of them."""
    counts = [n for key in keys if (n := int_of(m.get(key))) is not None]
    return sum(counts) if counts else None


def _compile_time(m: dict[str, Any], bwd: dict[str, Any]) -> CompileTime:
    """A compile's time by stage, from torch's compilation_metrics (`m`) and, for a backward
    compiled later, bwd_compilation_metrics (`bwd`)."""

    def seconds(key: str) -> float | None:
        return number_of(m.get(key))

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
        time.backward_s = number_of(bwd.get("inductor_compile_time_s"))
    return time
