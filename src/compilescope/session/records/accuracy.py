"""compilescope's records of `run --check-accuracy` (record/accuracy.py): one per checked call of
a compiled graph (compilescope_accuracy), then, once the program ended, the checks' cost, the
gradients compared, and for each graph that differed the stage that made it differ and torch's
minifier script (compilescope_accuracy_end). `apply_accuracy` puts them on each Compile."""

from __future__ import annotations

from typing import Any

from compilescope.session.accuracy import (
    AccuracyChecks,
    CallMemory,
    CheckedCall,
    ComparedValue,
    CompiledCallable,
    GraphAccuracy,
    MinifierScript,
    StageRun,
    WholeCall,
)
from compilescope.session.guards import in_user_words
from compilescope.session.model import Compile
from compilescope.session.records.state import BuildState, Handler
from compilescope.session.records.values import as_text, int_of, list_of, number_of
from compilescope.trace.reader import Record

OUTCOMES = ("matches", "differs", "not compared", "not checked")


def on_accuracy(state: BuildState, record: Record) -> None:
    if isinstance(record.metadata, dict):
        state.accuracy.append(record.metadata)
    else:
        state.wrong_type(record, "its metadata", record.metadata, "an object")


HANDLERS: dict[str, Handler] = {
    "compilescope_accuracy": on_accuracy,
    "compilescope_accuracy_call": on_accuracy,
    "compilescope_accuracy_end": on_accuracy,
}


def apply_accuracy(state: BuildState) -> None:
    """Each checked call on its compile's GraphAccuracy; the end's facts and the whole calls
    checked on the session."""
    whole: dict[tuple[Any, ...], CompiledCallable] = {}
    for facts in state.accuracy:
        if "calls_per_graph" in facts:
            _apply_end(state, facts)
            continue
        if "callable" in facts:
            _whole_call(state, whole, facts)
            continue
        graph = _graph(state, facts)
        if graph is None:
            continue
        graph.backend = as_text(facts.get("backend"))
        graph.calls.append(CheckedCall(**_call_facts(facts, len(graph.calls)), memory=_memory(facts.get("memory"))))
        graph.stopped = as_text(facts.get("stopped")) or graph.stopped
    if whole:
        if state.session.accuracy is None:  # (a run that ended before its checks' end record)
            state.session.accuracy = AccuracyChecks()
        state.session.accuracy.callables = list(whole.values())


def _whole_call(state: BuildState, whole: dict[tuple[Any, ...], CompiledCallable], facts: dict[str, Any]) -> None:
    name = as_text(facts.get("callable")) or "a compiled function"
    key = (name, facts.get("index"), as_text(facts.get("where")))
    found = whole.setdefault(key, CompiledCallable(name, where=as_text(facts.get("where")), compiled_at=as_text(facts.get("compiled_at"))))
    cause = facts.get("cause")
    found.calls.append(
        WholeCall(
            **_call_facts(facts, len(found.calls)),
            called_at=as_text(facts.get("called_at")),
            compiles=[_id_text(state, c) for c in list_of(facts.get("compile_ids")) if isinstance(c, dict)],
            cause=cause if cause in ("graph", "dynamo") else None,
            guards_skipped=facts.get("guards_skipped") is True,
        )
    )
    found.stopped = as_text(facts.get("stopped")) or found.stopped


def _call_facts(facts: dict[str, Any], before: int) -> dict[str, Any]:
    """What a checked call's record says of it, graph or whole: its number (after `before`
    calls), outcome, why, and the values compared."""
    outcome = facts.get("outcome")
    return {
        "call": int_of(facts.get("call")) or before + 1,
        "outcome": outcome if outcome in OUTCOMES else "not checked",
        "why": as_text(facts.get("why")),
        "compared": _compared(facts.get("compared")),
    }


def _id_text(state: BuildState, cid: dict[str, Any]) -> str:
    """The compile's id as the session shows it ("0/0"), where the trace has that compile."""
    key = (int_of(cid.get("compiled_autograd_id")), int_of(cid.get("frame_id")), int_of(cid.get("frame_compile_id")))
    item = state.latest.get(key)
    return item.compile.compile_id if item is not None else f"{cid.get('frame_id')}/{cid.get('frame_compile_id')}"


def _apply_end(state: BuildState, facts: dict[str, Any]) -> None:
    state.session.accuracy = AccuracyChecks(
        calls_per_graph=int_of(facts.get("calls_per_graph")),
        graphs_checked=int_of(facts.get("graphs_checked")),
        seconds=number_of(facts.get("seconds")),
        stages_seconds=number_of(facts.get("stages_seconds")),
        unavailable=as_text(facts.get("unavailable")),
        callables_unavailable=as_text(facts.get("calls_unavailable")),
    )
    for trained in list_of(facts.get("gradients")):
        graph = _graph(state, trained) if isinstance(trained, dict) else None
        gradients = trained.get("gradients") if graph is not None else None
        if graph is not None and isinstance(gradients, dict):
            graph.gradients_why = as_text(gradients.get("why"))
            graph.gradients = _compared(gradients.get("compared")) if "compared" in gradients else None
    for measured in list_of(facts.get("peaks")):
        graph = _graph(state, measured) if isinstance(measured, dict) else None
        figures = measured.get("peaks") if graph is not None else None
        if graph is not None and isinstance(figures, dict):
            graph.peaks = CallMemory(
                device=as_text(figures.get("device")),
                why=as_text(figures.get("why")),
                **{k: int_of(figures.get(k)) for k in ("compiled_added", "eager_added", "compiled_peak", "eager_peak")},
            )
    for differing in list_of(facts.get("differing")):
        graph = _graph(state, differing) if isinstance(differing, dict) else None
        if graph is None:
            continue
        graph.first_differs = as_text(differing.get("first_differs"))
        graph.stage_failed = as_text(differing.get("stage_failed"))
        graph.stages = [
            StageRun(
                stage=as_text(s.get("stage")) or "unknown",
                meaning=as_text(s.get("meaning")) or "",
                matches=s.get("matches") if isinstance(s.get("matches"), bool) else None,
                failed=as_text(s.get("failed")),
                compared=_compared(s.get("compared")),
            )
            for s in list_of(differing.get("stages"))
            if isinstance(s, dict)
        ]
        minifier = differing.get("minifier")
        if isinstance(minifier, dict):
            graph.minifier = MinifierScript(
                **{k: as_text(minifier.get(k)) for k in ("folder", "script", "minify", "check", "output", "note", "why")}
            )


def _graph(state: BuildState, facts: dict[str, Any]) -> GraphAccuracy | None:
    cid = facts.get("compile_id")
    if not isinstance(cid, dict):
        state.skip("an accuracy check: not in the shape compilescope writes (no compile id)")
        return None
    key = (int_of(cid.get("compiled_autograd_id")), int_of(cid.get("frame_id")), int_of(cid.get("frame_compile_id")))
    item = state.latest.get(key)
    if item is None:
        state.skip(
            f"an accuracy check of compile {cid.get('frame_id')}/{cid.get('frame_compile_id')}: the trace has no compile with that id"
        )
        return None
    return _graph_of(item.compile, int_of(facts.get("graph")) or 0)


def _graph_of(compile_: Compile, index: int) -> GraphAccuracy:
    for graph in compile_.accuracy:
        if graph.graph == index:
            return graph
    graph = GraphAccuracy(graph=index)
    compile_.accuracy.append(graph)
    compile_.accuracy.sort(key=lambda g: g.graph)
    return graph


def _compared(values: Any) -> list[ComparedValue]:
    found = []
    for value in list_of(values):
        if not isinstance(value, dict):
            continue
        shape = value.get("shape")
        found.append(
            ComparedValue(
                what=in_user_words(as_text(value.get("what")) or "a value"),
                matches=value.get("matches") is True,
                shape=[int(s) for s in shape] if isinstance(shape, list) and all(int_of(s) is not None for s in shape) else None,
                dtype=as_text(value.get("dtype")),
                max_abs=number_of(value.get("max_abs")),
                max_rel=number_of(value.get("max_rel")),
                judged=as_text(value.get("judged")) or "",
            )
        )
    return found


def _memory(facts: Any) -> CallMemory | None:
    if not isinstance(facts, dict):
        return None
    if "why" in facts:
        return CallMemory(why=as_text(facts.get("why")))
    memory = CallMemory(device=as_text(facts.get("device")))
    for run in ("compiled", "eager"):
        figures = facts.get(run)
        if not isinstance(figures, dict):
            continue
        before, after = int_of(figures.get("allocated_before")), int_of(figures.get("allocated_after"))
        peak_before, peak_after = int_of(figures.get("peak_before")), int_of(figures.get("peak_after"))
        if before is not None and after is not None:
            setattr(memory, f"{run}_added", after - before)
        if before is not None and peak_before is not None and peak_after is not None and peak_after > peak_before:
            setattr(memory, f"{run}_peak", peak_after - before)
    return memory
