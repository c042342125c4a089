"""What `run --check-accuracy` found, in words: a finding per compiled graph whose result differs
from the same graph run eagerly (with the stage that made it differ, and what to do next), and the
one-line summaries the terminal and the report show per graph and for the run."""

from __future__ import annotations

from compilescope.findings import INFO, PROBLEM, WARNING
from compilescope.findings.accuracy_calls import whole_call_findings, whole_calls_said
from compilescope.findings.accuracy_values import number, outcome_of, outcomes_counted, value_said
from compilescope.findings.finding import Finding, plural, seconds
from compilescope.findings.kinds import FindingKind
from compilescope.session.accuracy import GraphAccuracy
from compilescope.session.model import Compile, Frame, Session
from compilescope.session.sizes import size

# What differing at each stage means, and the backend that gives eager's results meanwhile
# (the stage before it: it matched)
_STAGE_ADVICE = {
    "aot_eager": (
        "AOT Autograd's tracing of the graph (functionalization, the joint graph)",
        "eager",
    ),
    "aot_eager_decomp_partition": (
        "the decompositions Inductor asks AOT Autograd for, or its partitioner",
        "aot_eager",
    ),
    "inductor": ("Inductor's code for it (its lowering, fusion and generated kernels)", "aot_eager"),
}


def graph_said(graph: GraphAccuracy) -> tuple[str, str]:
    """The graph's check in one line, and how it went ("matches", "differs", "not compared",
    "not checked")."""
    calls = graph.calls
    compared = [c for c in calls if c.outcome in ("matches", "differs")]
    if graph.differs:
        wrong = [c for c in calls if c.outcome == "differs"]
        text = (
            f"differs from eager in {len(wrong)} of {plural(len(compared), 'call')} checked"
            if wrong
            else "matches eager in its calls checked"
        )
        first = next((v for c in wrong for v in c.compared if not v.matches), None)
        if first is not None:
            text += f": {value_said(first)}"
        grads = [g for g in graph.gradients or [] if not g.matches]
        if grads:
            text += f"; gradients of the first training step differ ({len(grads)} of {len(graph.gradients or [])})"
        if graph.first_differs:
            text += f"; first stage that differs: {graph.first_differs}"
        return text, "differs"
    if graph.matches:
        largest = graph.largest()
        text = f"matches eager in {plural(len(compared), 'call')} checked"
        if largest is not None and largest.max_abs is not None:
            text += f" (largest difference {number(largest.max_abs)})"
        if graph.gradients:
            text += f"; gradients of the first training step match ({plural(len(graph.gradients), 'input')})"
        return text, "matches"
    if any(c.outcome == "not compared" for c in calls):
        why = next((c.why for c in calls if c.why), "")
        return f"not compared: {why}", "not compared"
    why = next((c.why for c in calls if c.why), None) or graph.stopped or "not called"
    return f"not checked: {why}", "not checked"


def peaks_said(graph: GraphAccuracy) -> str | None:
    """ "memory on cuda:0, its first call run again after the program: peak eager 30 MiB,
    compiled 12 MiB; kept after the call: eager 1.0 MiB, compiled 1.0 MiB"; None: not measured."""
    peaks = graph.peaks
    if peaks is None:
        return None
    if peaks.why:
        return f"memory: {peaks.why}"
    return (
        f"memory on {peaks.device}, its first call run again after the program: peak eager {size(peaks.eager_peak)}, "
        f"compiled {size(peaks.compiled_peak)}; kept after the call (outputs, tensors saved for the backward): "
        f"eager {_signed(peaks.eager_added)}, compiled {_signed(peaks.compiled_added)}"
    )


def _signed(count: int | None) -> str:
    """A size that may be negative (a run that freed more than it kept: a CUDA graph tree
    letting go of earlier outputs): "−64 MiB"."""
    return f"−{size(-count)}" if count is not None and count < 0 else size(count)


def checks_said(session: Session) -> str | None:
    """The run's checks in one line; None where none were asked for."""
    checks = session.accuracy
    graphs = [g for c in session.compiles for g in c.accuracy]
    if checks is None and not graphs:
        return None
    if checks is not None and checks.unavailable:
        return f"Accuracy: not checked: {checks.unavailable}"
    counted = outcomes_counted([outcome_of(g) for g in graphs])
    calls = checks.calls_per_graph if checks is not None else None
    text = f"Accuracy against eager: {plural(len(graphs), 'graph')} checked" + (
        f" (first {plural(calls, 'call')} of each)" if calls else ""
    )
    text += ": " + (counted or "none was called")
    whole = whole_calls_said(session)
    if whole:
        text += f"; {whole}"
    if checks is not None and checks.seconds is not None:
        text += f"; checking took {seconds(checks.seconds)} while the program ran"
        if checks.stages_seconds:
            text += f" and {seconds(checks.stages_seconds)} after it"
    return text


def accuracy_findings(session: Session) -> list[Finding]:
    found = whole_call_findings(session)
    for frame in session.frames:
        for compile_ in frame.compiles:
            for graph in compile_.accuracy:
                if graph.differs:
                    found.append(_differs(session, frame, compile_, graph))
    for frame in session.frames:
        for compile_ in frame.compiles:
            for graph in compile_.accuracy:
                more = _uses_more_memory(frame, compile_, graph)
                if more is not None:
                    found.append(more)
    graphs = [g for c in session.compiles for g in c.accuracy]
    matched = [g for g in graphs if g.matches]
    if matched and not found:
        found.append(
            Finding(
                INFO,
                f"No compiled graph differs from eager ({len(matched)} of {plural(len(graphs), 'graph')} checked match)",
                detail=checks_said(session) or "",
                kind=FindingKind.ACCURACY,
            )
        )
    return found


def _differs(session: Session, frame: Frame, compile_: Compile, graph: GraphAccuracy) -> Finding:
    label = compile_.compile_id + (f" graph {graph.graph + 1}" if len(compile_.accuracy) > 1 else "")
    lines = []
    wrong_calls = [c for c in graph.calls if c.outcome == "differs"]
    for call in wrong_calls[:1]:
        for value in [v for v in call.compared if not v.matches][:3]:
            lines.append(f"{value_said(value)}; {value.judged}")
    for value in [g for g in graph.gradients or [] if not g.matches][:3]:
        lines.append(f"{value_said(value)}; {value.judged}")
    if graph.stages:
        said = [
            f"{s.stage} {'matches' if s.matches else 'differs' if s.matches is False else 'failed: ' + (s.failed or 'unknown')}"
            for s in graph.stages
        ]
        lines.append("Run again alone on the same inputs, compiled by each stage: " + ", ".join(said) + ".")
    elif graph.stage_failed:
        lines.append(f"The stage could not be found: {graph.stage_failed}")
    checked = [c for c in graph.calls if c.outcome in ("matches", "differs")]
    fix = _next_step(graph)
    return Finding(
        PROBLEM,
        f"Compiled {frame.label_of(compile_)} ({label}) differs from eager",
        detail="\n".join(lines),
        fix=fix,
        kind=FindingKind.ACCURACY,
        compile_ids=(compile_.compile_id,),
        where=frame.place,
        in_user_code=True,
        frames=(frame.name,),
        cost=f"wrong results in {len(wrong_calls)} of {plural(len(checked), 'call')} checked"
        if wrong_calls
        else "wrong gradients in the first training step",
    )


def _next_step(graph: GraphAccuracy) -> str:
    lines = []
    stage = graph.first_differs
    if stage in _STAGE_ADVICE:
        what, instead = _STAGE_ADVICE[stage]
        lines.append(f"The difference comes from {what}: every stage before it matched eager.")
        lines.append(
            f'Until it is fixed, compile this function with torch.compile(..., backend="{instead}"): its results are eager\'s '
            "(without Inductor's speed-up)."
        )
    elif stage is not None:
        meaning = next((s.meaning for s in graph.stages if s.stage == stage), f"the backend {stage}")
        lines.append(f"The difference comes from {meaning}: every stage before it matched eager.")
    elif graph.stages and all(s.matches for s in graph.stages):
        lines.append(
            "Run again alone on the same inputs, every stage matched: the difference depends on what happened around the call "
            "(a CUDA graph replay overwriting an output, an input the program changed between calls, or nondeterministic kernels)."
        )
    minifier = graph.minifier
    if minifier is not None and minifier.minify:
        lines.append(f"Shrink it to the fewest operations that still differ with torch's minifier: {minifier.minify}")
        lines.append(f"It writes {minifier.output}; `{minifier.check}` checks the whole graph again.")
        if minifier.note:
            lines.append(f"Note: {minifier.note}.")
    elif minifier is not None and minifier.why:
        lines.append(f"No minifier script: {minifier.why}.")
    return "\n".join(lines)


# Compiled needs clearly more than eager: this much more, and this share more
MORE_BYTES = 64 * 2**20
MORE_SHARE = 1.5


def _uses_more_memory(frame: Frame, compile_: Compile, graph: GraphAccuracy) -> Finding | None:
    peaks = graph.peaks
    if peaks is None or peaks.eager_peak is None or peaks.compiled_peak is None:
        return None
    if not (peaks.compiled_peak > MORE_SHARE * peaks.eager_peak and peaks.compiled_peak - peaks.eager_peak > MORE_BYTES):
        return None
    causes = []
    if compile_.cudagraphs:
        causes.append(
            'it runs under CUDA graphs (mode="reduce-overhead"), whose memory pool of its own stays reserved between calls; '
            'mode="max-autotune-no-cudagraphs" (or the default mode) compiles it without them'
        )
    if peaks.compiled_added is not None and peaks.eager_added is not None and peaks.compiled_added > peaks.eager_added + MORE_BYTES:
        causes.append(
            f"it keeps {size(peaks.compiled_added)} after the call against eager's {size(peaks.eager_added)}: the tensors AOT Autograd's "
            "partitioner saves for the backward; torch._functorch.config.activation_memory_budget = 0.5 (of 1.0) makes it recompute more instead"
        )
    return Finding(
        WARNING,
        f"Compiled {frame.label_of(compile_)} ({compile_.compile_id}) needs more GPU memory than eager: "
        f"peak {size(peaks.compiled_peak)} against {size(peaks.eager_peak)}",
        detail=peaks_said(graph) or "",
        fix="Likely: " + "; or ".join(causes) + "." if causes else "",
        kind=FindingKind.ACCURACY,
        compile_ids=(compile_.compile_id,),
        where=frame.place,
        frames=(frame.name,),
        cost=f"{size(peaks.compiled_peak - peaks.eager_peak)} more at its peak",
    )
