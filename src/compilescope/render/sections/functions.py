"""The terminal's section on each compiled function: its place, each version it compiled
(status, ops, kernels, time, calls, why it was compiled again, failures, autotuning, CUDA
graphs, graph breaks), and the details asked for with --show (graph, guards, dynamic shapes,
AOT graphs, kernels and their code, compile time by stage, the caches' lookups, Inductor's passes).
"""

from __future__ import annotations

from rich.text import Text

from compilescope.findings.accuracy import graph_said, peaks_said
from compilescope.findings.rules import plural
from compilescope.render.sections.caches import cache_rows
from compilescope.render.sections.passes import passes_rows
from compilescope.render.terminal import duration_us, hanging, keep_phrases, limited, one_line_of, seconds, short_path, unknown
from compilescope.session.counts import compile_id_note
from compilescope.session.model import CallTimes, Compile, Frame, Graph

_STATUS_STYLE = {
    "ok": "green",
    "graph break": "yellow",
    "failed": "bold red",
    "empty graph": "dim",
    "skipped": "dim",
    "unknown": "magenta",
}
MAX_COMPILES = 50  # versions printed per function


def graph_rows(graph: Graph, indent: int) -> list[Text]:
    """A graph's nodes, a line each: what kind of node, its name, what it calls, its shape."""
    rows = []
    for node in graph.nodes:
        row = Text(f"{'':{indent}}{one_line_of(node.op):14} ")
        row.append(one_line_of(node.name))
        if node.target and node.op != "output" and node.target != node.name:
            row.append(f"  {one_line_of(node.target)}", style="dim")
        if node.shape:
            row.append(f"  {one_line_of(node.shape)}", style="cyan")
        rows.append(row)
    return rows


def frame_section(frame: Frame, show: set[str], max_compiles: int = MAX_COMPILES, torch: str | None = None) -> list:
    """A compiled function: where it is, each version it compiled, the calls it ran eager."""
    out: list = []
    title = Text("\n")
    title.append(one_line_of(frame.label), style="bold")
    if frame.compiled_at:
        called = next((c.called_from[-1].split(" in ")[0] for c in frame.compiles if c.called_from), None)
        title.append(
            f"  compiled at {short_path(frame.compiled_at)}" + (f", called at {short_path(called)}" if called else ""), style="dim"
        )
    else:
        title.append(f"  {short_path(frame.filename)}:{unknown(frame.lineno)}", style="dim")
    if frame.resumes:
        title.append(f"  (continues {one_line_of(frame.resumes)} after a graph break)", style="dim")
    out.append(title)
    for c in frame.compiles[:max_compiles]:
        out.extend(_compile(c, show, torch))
    if len(frame.compiles) > max_compiles:
        out.append(
            Text(
                f"  … {len(frame.compiles) - max_compiles} more versions of this function (the HTML report and the session's JSON list them all)",
                style="dim",
            )
        )
    eager = frame.calls_without_compiled_code
    if eager is not None and eager.calls:
        out.append(Text(f"  {'':6} {'no compiled code':11} {_calls(eager, 'ran')}", style="yellow"))
    if frame.call_order and len(frame.call_order) > 1:
        order = " → ".join(f"{one_line_of(run[0])} ×{run[1]}" for run in frame.call_order[:12] if len(run) == 2)
        if len(frame.call_order) > 12 or frame.call_order_cut:
            order += " → …"
        out.append(Text(f"  calls in order: {order}", style="dim"))
    return out


def _calls(times: CallTimes, verb: str = "served") -> str:
    text = f"{verb} {plural(times.calls, 'call')}" if times.calls else f"{verb} no calls"
    if times.calls and times.median_us is not None:
        text += f", median {duration_us(times.median_us)}"
    if times.raised:
        text += f" ({times.raised} raised)"
    return text


_ACCURACY_STYLE = {"matches": "green", "differs": "red", "not compared": "yellow", "not checked": "dim"}


def _compile(c: Compile, show: set[str], torch: str | None = None) -> list:
    """One version of a function: its line (id, status, ops, kernels, time, calls), why it was
    compiled again, how it failed, autotuning, CUDA graphs, graph breaks, then its details."""
    out: list = []
    line = Text("  ")
    line.append(f"{one_line_of(c.compile_id):6}", style="bold")
    line.append(f" {c.status:11}", style=_STATUS_STYLE.get(c.status, ""))
    ops = [op for g in c.graphs for op in g.ops]
    if c.graphs:
        line.append(f" {plural(len(ops), 'op')}: {limited(ops, 8)}")
    line.append(f" · {plural(len(c.kernels), 'kernel')}" if c.kernels else "")
    line.append(f" · {seconds(c.compile_time_s)}", style="dim")
    if c.calls is not None:
        line.append(f" · {_calls(c.calls)}")
    out.append(line)
    if c.recompile_reason:
        for index, guard in enumerate(c.failed_guards):
            # (a long reason goes on under itself, not under the version's id)
            grid = hanging(29)
            reason = Text()
            if guard.previous_compile:
                reason.append(f"{one_line_of(guard.previous_compile)}: ", style="dim")
            reason.append(keep_phrases(one_line_of(guard.text)))
            if guard.user_code:
                reason.append(f"  (from {one_line_of(guard.user_code)}", style="dim")
                if guard.filename:
                    reason.append(f" at {short_path(guard.filename)}:{guard.lineno}", style="dim")
                reason.append(")", style="dim")
            grid.add_row(Text("         why compiled again: " if index == 0 else "                        and: ", style="yellow"), reason)
            out.append(grid)
    if c.failure:
        failure = Text("         ", style="red")
        failure.append(one_line_of(c.failure), style="red")
        if c.failure_filename:
            failure.append(f"\n           at {short_path(c.failure_filename)}:{unknown(c.failure_lineno)}", style="dim")
            if c.failure_code:
                failure.append(f": {one_line_of(c.failure_code)}")
        out.append(failure)
    for tuned in c.autotuning[:6]:
        line = Text(f"         autotuned {one_line_of(tuned.op)}: chose {one_line_of(tuned.best or 'unknown')}", style="dim")
        line.append(f" ({tuned.best_ms:.4f} ms)" if tuned.best_ms is not None else "")
        line.append(f" of {tuned.choices} choices" if tuned.choices is not None else "")
        if tuned.best_triton and tuned.best_triton_ms is not None:
            line.append(f"; Triton's best {one_line_of(tuned.best_triton)} {tuned.best_triton_ms:.4f} ms")
        out.append(line)
    if c.cudagraphs:
        if c.cudagraph_skip_reason:
            skipped = Text("         CUDA graphs: not used: ", style="yellow")
            skipped.append(one_line_of(c.cudagraph_skip_reason))
            out.append(skipped)
        elif c.cudagraph_recordings:
            out.append(
                Text(
                    f"         CUDA graphs: recorded {plural(c.cudagraph_recordings, 'time')}"
                    + (" (re-recorded)" if c.cudagraph_recordings > 1 else ""),
                    style="dim",
                )
            )
        else:
            out.append(Text("         CUDA graphs: asked for (reduce-overhead); no recording seen", style="dim"))
    for brk in c.graph_breaks:
        text = Text("         graph break: ", style="yellow")
        text.append(one_line_of(brk.reason))
        if brk.filename:
            text.append(f"\n           at {short_path(brk.filename)}:{unknown(brk.lineno)}", style="dim")
            if brk.code:
                text.append(f": {one_line_of(brk.code)}")
        out.append(text)
    if c.kernels and "kernels" not in show:
        out.append(Text("         kernels: " + limited([one_line_of(k.name) for k in c.kernels], 6), style="dim"))
    for graph in c.accuracy:
        said, outcome = graph_said(graph)
        label = f"accuracy (graph {graph.graph + 1}): " if len(c.accuracy) > 1 else "accuracy: "
        out.append(Text(f"         {label}{one_line_of(said)}", style=_ACCURACY_STYLE[outcome]))
        if graph.minifier is not None and graph.minifier.minify:
            out.append(Text(f"           minifier: {one_line_of(graph.minifier.minify)}", style="dim"))
        memory = peaks_said(graph)
        if memory:
            out.append(Text(f"           {one_line_of(memory)}", style="dim"))
    out.extend(_details(c, show, torch))
    return out


def _details(c: Compile, show: set[str], torch: str | None = None) -> list:
    """The details of one version asked for with --show (render.DETAILS), in that order."""
    out: list = []
    if "graph" in show:
        for graph in c.graphs:
            out.append(Text("         graph:", style="bold"))
            out.extend(graph_rows(graph, 11))
    if "guards" in show:
        out.append(
            Text(
                f"         guards: {len(c.guards)} (torch counts {unknown(c.guard_count)} before it builds them; checking them took {unknown(c.guard_latency_us, ' µs')})",
                style="bold",
            )
        )
        marks = 0
        for kept in c.guards:
            if kept.kind == "DIMENSION_DYNAMIC_MARKING_GUARD":
                marks += 1
                continue
            row = Text(f"           {one_line_of(kept.kind):16} ", style="dim")
            row.append(one_line_of(kept.plain))
            out.append(row)
        if marks:
            out.append(
                Text(
                    f"           and {marks} DIMENSION_DYNAMIC_MARKING_GUARD, not listed: that a tensor carries no "
                    "mark_dynamic / maybe_mark_dynamic / mark_unbacked / mark_static marks",
                    style="dim",
                )
            )
    if "dynamic" in show and c.dynamic:
        out.append(Text("         dynamic shapes:", style="bold"))
        for d in c.dynamic:
            row = Text(f"           {one_line_of(d.kind)}: ")
            row.append(" ".join(one_line_of(x) for x in (d.symbol, d.source) if x))
            if d.value:
                row.append(f" = {one_line_of(d.value)}")
            if d.range:
                row.append(f" range {one_line_of(d.range)}", style="dim")
            if d.reason:
                row.append(f" ({one_line_of(d.reason)})", style="dim")
            if d.filename:
                row.append(f"  at {short_path(d.filename)}:{d.lineno}", style="dim")
            out.append(row)
    if "aot" in show:
        for which in ("forward", "backward", "inference"):
            graph = getattr(c.aot, which)
            if graph is not None:
                out.append(Text(f"         AOT {which} graph ({len(graph.ops)} ATen ops):", style="bold"))
                out.append(Text("           " + "\n           ".join(one_line_of(op) for op in graph.ops)))
    if "kernels" in show or "code" in show:
        for kernel in c.kernels:
            row = Text(f"         {one_line_of(kernel.kind):12} ", style="dim")
            row.append(one_line_of(kernel.name), style="bold")
            if kernel.aten_ops:
                row.append("  made from " + ", ".join(one_line_of(op) for op in kernel.aten_ops))
                if kernel.aten_ops_from == "kernel name":
                    row.append(" (read from its name)", style="dim")
            elif kernel.aten_ops is None:
                row.append("  made from: unknown", style="dim")
            out.append(row)
            if "code" in show and kernel.code:
                from rich.syntax import Syntax  # pygments: only when code is asked for

                lexer = "cpp" if kernel.kind == "cpp" else "python"
                out.append(Syntax(kernel.code, lexer, line_numbers=False, word_wrap=True, theme="ansi_dark"))
    if "time" in show:
        t = c.time
        out.append(
            Text(
                f"         time: Dynamo {seconds(t.dynamo_s)} · AOT Autograd {seconds(t.aot_autograd_s)} · "
                f"Inductor {seconds(t.inductor_s)} · code gen {seconds(t.codegen_s)} · C++/Triton compiler {seconds(t.kernel_compile_s)}"
                + (f" · loaded from cache {seconds(t.from_cache_s)}" if t.from_cache_s is not None else "")
                + (f" · backward {seconds(t.backward_s)}" if t.backward_s is not None else "")
                + f" · FX graph cache {unknown(c.cache.fx_graph_hits)} hit / {unknown(c.cache.fx_graph_misses)} miss",
                style="dim",
            )
        )
    if "cache" in show:
        out.extend(cache_rows(c))
    if "passes" in show:
        out.extend(passes_rows(c, torch))  # (torch: the version a missing record is said of)
    return out


def functions_section(frames: list[Frame], named: list[str], show: set[str], max_frames: int, torch: str | None = None) -> list:
    """Each compiled function (the first `max_frames`), with what compile ids mean where the
    findings did not say it already (`named`: the ids they showed)."""
    if not frames:
        return []
    out: list = [Text("Compiled functions", style="bold underline")]
    if not named:
        out.append(Text(compile_id_note([c.compile_id for f in frames for c in f.compiles]), style="dim"))
    for frame in frames[:max_frames]:
        out.extend(frame_section(frame, show, torch=torch))
    if len(frames) > max_frames:
        out.append(Text(f"… {len(frames) - max_frames} more functions (--all to list them all, --frame NAME for one)", style="dim"))
    return out
