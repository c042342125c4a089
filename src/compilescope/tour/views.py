"""What each lesson shows of compilescope's view of its run, labelled in the tour's language.

compilescope's own views (render/console.py, render/sections/) are written in English and show
everything; a lesson shows the one thing it teaches (the graph and the guard on the input, the
version a failed guard made, the kernels and their code, the benchmark table), so these are
built here from the same session, as blocks (render/blocks.py: the terminal draws them with
render's table that fits it, the tour's page as HTML), with the labels from messages.py. Names torch gives (ops, guard
kinds, kernels, code) stay as they are.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from typing import Any

from rich.text import Text

from compilescope.findings.finding import seconds
from compilescope.render.blocks import Block, Code, Heading, Lines, Table
from compilescope.render.sections.functions import graph_rows
from compilescope.render.terminal import Column
from compilescope.render.text import one_line
from compilescope.session.model import Compile, FailedGuard, Frame, Guard
from compilescope.tour.messages import say

CODE_LINES = 30  # of a kernel's code: the loop and its fused body fit; the rest is counted
FASTER, SLOWER = 1.1, 0.9  # eager / compiled beyond these: "faster", "slower" (lesson 9), else about even


def _where(frame: Frame) -> str:
    name = os.path.basename(frame.filename) if frame.filename else "?"
    return f"{name}:{frame.lineno if frame.lineno is not None else '?'}"


def _dims(values: list[int | None] | None, lang: str) -> str:
    if values is None:
        return say("word.unknown", lang)
    return "[" + ", ".join(say("word.any", lang) if v is None else str(v) for v in values) + "]"


def tensor_guard(guard: Guard | dict[str, Any] | None, name: str, lang: str) -> str:
    """A tensor's guard in the tour's words: "x is a float32 tensor of size [8, 64], ..."."""
    if guard is None:
        return say("word.unknown", lang)
    get = guard.get if isinstance(guard, dict) else lambda key: getattr(guard, key)
    grad = get("requires_grad")
    return say(
        "guard.tensor",
        lang,
        name=name,
        dtype=get("dtype") or say("word.unknown", lang),
        size=_dims(get("size"), lang),
        stride=_dims(get("stride"), lang),
        grad=f"requires_grad={grad}" if grad is not None else "requires_grad=?",
    )


def input_guard(c: Compile, source: str = "L['x']") -> Guard | None:
    return next((g for g in c.guards if g.source == source and g.kind == "TENSOR_MATCH"), None)


def first_calls(cold: dict[str, Any], warm: dict[str, Any], lang: str) -> list[Block]:
    """Lesson 3: the program run with an empty compile cache, then with the one it filled."""
    calls = max(len(cold["calls_s"] or []), len(warm["calls_s"] or []))
    table = Table(
        [
            Column(say("view.run", lang)),
            Column(say("view.wrap", lang), "right"),
            *[Column(say("view.call", lang, number=str(n + 1)), "right") for n in range(calls)],
            Column(say("view.compiling", lang), "right"),
            Column(say("view.hits", lang), "right"),
        ],
        title=say("view.cache_table", lang),
    )
    for key, run in (("view.cold", cold), ("view.warm", warm)):
        figures = [run["wrap_s"], *(run["calls_s"] or [])]
        table.rows.append(
            [
                say(key, lang),
                *[seconds(v) if v is not None else "?" for v in figures],
                seconds(run["compile_s"]) if run["compile_s"] is not None else "?",
                f"{run['cache_hits']} / {run['cache_misses']}",
            ]
        )
    return [table]


def graph_and_guards(frame: Frame, c: Compile, lang: str) -> list[Block]:
    """Lesson 4: Dynamo's graph, node by node; the guards by kind; the one on the input."""
    out: list[Block] = [Heading(say("view.graph", lang, function=frame.known_as, where=_where(frame)))]
    for graph in c.graphs:
        out.append(Lines(graph_rows(graph, 2), mono=True))
    kinds = Counter(g.kind for g in c.guards)  # (each is a check torch runs, as the text counts them)
    listed = " · ".join(f"{kind} ×{count}" for kind, count in kinds.most_common())
    out.append(Heading(say("view.guards", lang, count=str(sum(kinds.values())), kinds=listed)))
    guard = input_guard(c)
    lines = [Text(say("view.guard_on", lang)), Text(f"  {tensor_guard(guard, 'x', lang)}")]
    if guard is not None:
        lines.append(Text("  " + say("view.torch_says", lang, text=one_line(guard.text)), style="dim"))
    out.append(Lines(lines))
    return out


def failed_guard(failed: FailedGuard, lang: str) -> str:
    """Why a version was not reused: expected and got where torch said both (a size, a type),
    else torch's text alone (a value guard says only what it expected)."""
    if failed.expected is not None and failed.actual is not None:
        return say("view.failed", lang, expected=failed.expected, actual=failed.actual, text=one_line(failed.text))
    return say("view.failed_only", lang, text=one_line(failed.text))


def versions(compiles: list[Compile], lang: str) -> list[Block]:
    """Lesson 5: each version, why it was compiled, and its guard on x (dynamic or not)."""
    table = Table(
        [Column(say("view.version", lang)), Column(say("view.why", lang), long=True), Column(say("view.x_guard", lang), long=True)]
    )
    for c in compiles:
        why = say("view.first_call", lang)
        if c.failed_guards:
            why = failed_guard(c.failed_guards[0], lang)
        table.rows.append([c.compile_id, why, tensor_guard(input_guard(c), "x", lang)])
    return [table]


def aot_graphs(c: Compile, lang: str) -> list[Block]:
    """Lesson 6: AOT Autograd's graphs of one version, their ATen operations in order."""
    out: list[Block] = []
    for which in ("forward", "backward", "inference"):
        graph = getattr(c.aot, which)
        if graph is not None:
            out.append(Heading(say(f"view.aot.{which}", lang, count=str(len(graph.ops)))))
            out.append(Lines([Text(f"  {one_line(op)}") for op in graph.ops], mono=True))
    return out


def kernels(model: str, c: Compile, lang: str) -> list[Block]:
    """Lesson 7: what Inductor made of one model (kernels and library calls, with the ATen ops
    each came from), then the code of the first kernel it wrote."""
    table = Table(
        [Column(say("view.kernel", lang)), Column(say("view.kind", lang)), Column(say("view.made_from", lang), long=True)],
        title=say("view.kernels_of", lang, model=model),
    )
    for k in c.kernels:
        kind = say("word.library_call", lang) if k.kind == "library call" else k.kind
        table.rows.append([k.name, kind, ", ".join(k.aten_ops) if k.aten_ops else say("word.unknown", lang)])
    out: list[Block] = [table]
    written = next((k for k in c.kernels if k.code), None)
    if written is not None:
        lines = written.code.strip("\n").splitlines()
        lines = lines[_kernel_start(lines) :]
        while lines and lines[-1].startswith("'''"):  # the end of the string Inductor's wrapper holds it in
            lines.pop()
        out.append(Heading(say("view.code", lang, kernel=written.name)))
        more = say("view.more_lines", lang, count=str(len(lines) - CODE_LINES)) if len(lines) > CODE_LINES else None
        out.append(Code("\n".join(lines[:CODE_LINES]), "cpp" if written.kind == "cpp" else "python", more))
    return out


def _kernel_start(lines: list[str]) -> int:
    """Where the kernel itself begins in the code Inductor wrote: the C++ function or the Triton
    one (above it: includes, imports and the launch metadata, which would fill the lines shown)."""
    for index, line in enumerate(lines):
        if re.match(r'\s*(extern "C"|@triton\.jit|def triton_)', line):
            return index
    return 0


def graph_breaks(frame: Frame, c: Compile, lang: str) -> list[Block]:
    """Lesson 8: each break of one version: its line, the code, torch's reason."""
    lines = []
    for brk in c.graph_breaks:
        line = "?" if brk.lineno is None else str(brk.lineno)
        lines.append(Text(say("view.break", lang, function=frame.known_as, line=line, code=one_line(brk.code or "?")), style="bold yellow"))
        lines.append(Text("  " + say("view.torch_says", lang, text=one_line(brk.reason)), style="dim"))
    return [Lines(lines)] if lines else []


def fullgraph(results: dict[str, str | None], lang: str) -> list[Block]:
    """Lesson 8: what torch.compile(model, fullgraph=True) did with each model."""
    said = [say("view.fullgraph", lang, model=model, result=error or say("word.compiled", lang)) for model, error in results.items()]
    return [Lines([Text(line) for line in said])]


def benchmark(models: list[dict[str, Any]], device: str, lang: str) -> list[Block]:
    """Lesson 9: eager against compiled per model, with the first call and the break-even (only
    where compiled was clearly faster, as the lesson's verdict says: a saving within the
    timings' noise would give a break-even that means nothing)."""
    runs = str(models[0]["runs"]) if models else "?"
    table = Table(
        [
            Column(say("view.model", lang)),
            Column(say("view.eager_ms", lang), "right"),
            Column(say("view.compiled_ms", lang), "right"),
            Column(say("view.speedup", lang), "right"),
            Column(say("view.first", lang), "right"),
            Column(say("view.break_even", lang), "right"),
        ],
        title=say("view.bench", lang, device=device, runs=runs),
    )
    for m in models:
        ratio = m["speedup"]
        speed = Text("?") if ratio is None else Text(f"{ratio:.2f}×", style="green" if ratio >= 1.05 else "red" if ratio < 0.95 else "")
        even = m.get("break_even_calls")
        clearly_faster = ratio is not None and ratio > FASTER
        table.rows.append(
            [
                f"{m['model']} {m['size']}×{m['size']}",
                f"{m['eager_ms']:.3f}",
                f"{m['compiled_ms']:.3f}",
                speed,
                seconds(m["first_call_s"]),
                f"{even:.0f}" if clearly_faster and even is not None else say("word.no_saving", lang),
            ]
        )
    return [table]
