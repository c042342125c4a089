"""Inductor's records: the code it generated for each graph (inductor_output_code, read into
kernels), where each kernel came from in the user's code (provenance tracking's stack traces),
and max-autotune's choices (from the timing events).

After the last record, `read_kernels` reads each compile's kernels out of its code and puts
on each the user's lines it came from.
"""

from __future__ import annotations

import re
from typing import Any

from compilescope.session.model import Autotuning, Compile
from compilescope.session.records.state import BuildState, Handler, Pending
from compilescope.session.records.values import int_of, number_in, number_of, text_of
from compilescope.trace.reader import Record, json_value

# (the parser of Inductor's code, session/kernels.py, is imported where first used: see dynamo.py)


def on_inductor_output_code(state: BuildState, record: Record) -> None:
    item = state.pending(record)
    if item and record.payload is not None:
        item.output_code.append(record.payload)


def on_fx_graph_runnable(state: BuildState, record: Record) -> None:
    # The graph Inductor was given, as a script torch can run (its inputs' shapes and strides
    # in load_args): what `compilescope repro` builds its script from (render/repro.py).
    item = state.pending(record)
    if item and record.payload is not None:
        item.compile.runnable.append(record.payload)


def on_inductor_provenance_tracking_kernel_stack_traces(state: BuildState, record: Record) -> None:
    # Written when Inductor's provenance tracking is on: kernel -> the user's lines.
    item = state.pending(record)
    if item and record.payload:
        data = json_value(record.payload)
        if isinstance(data, dict):
            item.kernel_stacks.update({str(k): [str(t) for t in v] for k, v in data.items() if isinstance(v, list)})


def autotuning(state: BuildState, record: Record, op: str, args: Any) -> None:
    """max-autotune's choice for one operation: torch's autotune_choices_stats (a JSON
    string) in the timing event's arguments (chromium_event "<op>_template_autotuning")."""
    stats = args.get("autotune_choices_stats") if isinstance(args, dict) else None
    data = json_value(stats) if isinstance(stats, str) else stats
    item = state.pending(record)
    if item is None or not isinstance(data, dict):
        return
    item.compile.autotuning.append(
        Autotuning(
            op=op,
            choices=int_of(data.get("num_choices")),
            triton_choices=int_of(data.get("num_triton_choices")),
            best=text_of(data.get("best_kernel")),
            best_ms=number_of(data.get("best_time")),
            best_triton=text_of(data.get("best_triton_kernel")),
            best_triton_ms=number_of(data.get("best_triton_time")),
        )
    )


HANDLERS: dict[str, Handler] = {
    "inductor_output_code": on_inductor_output_code,
    "fx_graph_runnable": on_fx_graph_runnable,
    "inductor_provenance_tracking_kernel_stack_traces": on_inductor_provenance_tracking_kernel_stack_traces,
}


# ---- when the trace has been read -----------------------------------------------------------


def read_kernels(item: Pending) -> None:
    """A compile's code from Inductor, its kernels read out of it, and where each came from."""
    c = item.compile
    graph_ops = set()
    for graph in (c.aot.forward, c.aot.backward, c.aot.inference):
        if graph is not None:
            graph_ops.update(graph.ops)
    c.inductor_code = "\n\n".join(item.output_code)
    from compilescope.session.kernels import parse_kernels

    for code in item.output_code:
        c.kernels.extend(parse_kernels(code, graph_ops))
    _kernel_sources(c, item.kernel_stacks)


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
            kernel.num_gb = number_in(m.group(1))
        if m := re.search(r"'kernel_flop': ([0-9.e+-]+)", kernel.code):
            kernel.flop = number_in(m.group(1))
