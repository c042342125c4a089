"""Each lesson's facts, from its own run: what its program said (run.LessonRun.said) and what
compilescope saw of the same run (its session). Nothing here is the lab's printout: every
number is this machine's. A fact torch did not give is None, never a guess.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from compilescope.session.model import Compile, Frame, Guard, Session
from compilescope.stats import break_even
from compilescope.tour.run import LessonRun


def frames(session: Session | None, name: str) -> list[Frame]:
    """The compiled functions whose name (as users know it) starts with `name`."""
    return [f for f in (session.frames if session else []) if f.known_as.startswith(name)]


def _compiles(session: Session | None, name: str) -> list[Compile]:
    return [c for f in frames(session, name) for c in f.compiles]


def _tensor_guard(guard: Guard | None) -> dict[str, Any] | None:
    if guard is None:
        return None
    return {
        "text": guard.text,
        "plain": guard.plain,
        "dtype": guard.dtype,
        "size": guard.size,
        "stride": guard.stride,
        "requires_grad": guard.requires_grad,
    }


def setup(run: LessonRun) -> dict[str, Any]:
    """Lesson 1: what is here, and what a missing C++ compiler does."""
    facts = dict(run.said[0])
    facts["missing_compiler"] = run.first("missing_compiler")
    return facts


def toy(run: LessonRun) -> dict[str, Any]:
    """Lesson 2: each call, its guard, whether it compiled; the versions kept."""
    calls = [item for item in run.said if "call" in item]
    return {"calls": calls, "compiled": sum(1 for c in calls if c["compiled"]), "versions": run.first("versions")}


def first_call(cold: LessonRun, warm: LessonRun) -> dict[str, Any]:
    """Lesson 3: wrapping, the first call and the later ones, with an empty cache and a filled one."""

    def one(run: LessonRun) -> dict[str, Any]:
        compiles = run.session.compiles if run.session else []
        hits = sum(c.cache.fx_graph_hits or 0 for c in compiles)
        misses = sum(c.cache.fx_graph_misses or 0 for c in compiles)
        return {
            "wrap_s": run.first("wrap_s"),
            "calls_s": run.first("calls_s"),
            "compile_s": run.session.total_compile_time_s if run.session else None,
            "cache_hits": hits,
            "cache_misses": misses,
        }

    return {"wrapper": cold.first("wrapper"), "wrapped": cold.first("wrapped"), "cold": one(cold), "warm": one(warm)}


def graph(run: LessonRun) -> dict[str, Any]:
    """Lesson 4: Dynamo's graph, node by node, and the guard on x."""
    (c,) = _compiles(run.session, "TinyNet.forward")
    nodes = [[n.op, n.name if n.op in ("placeholder", "output") else (n.target or n.name)] for g in c.graphs for n in g.nodes]
    x = next((g for g in c.guards if g.source == "L['x']" and g.kind == "TENSOR_MATCH"), None)
    return {
        "graphs": len(c.graphs),
        "graph_breaks": len(c.graph_breaks),
        "operations": c.op_count,
        "nodes": nodes,
        "x_guard": _tensor_guard(x),
        "guards": len(c.guards),
        "guard_kinds": dict(Counter(g.kind for g in c.guards)),
    }


def recompile(run: LessonRun) -> dict[str, Any]:
    """Lesson 5: the calls and their times; the version compiled again and the guard that failed."""
    compiles = _compiles(run.session, "TinyNet.forward")
    again = next((c for c in compiles if c.failed_guards), None)
    failed = again.failed_guards[0] if again else None
    dynamic = next((g for c in compiles[1:] for g in c.guards if g.source == "L['x']" and g.kind == "TENSOR_MATCH"), None)
    # (a dimension of None in its size: any size passes)
    return {
        "calls": [[item["rows"], item["seconds"]] for item in run.said if "rows" in item],
        "compiles": len(compiles),
        "failed_guard": None if failed is None else {"text": failed.text, "expected": failed.expected, "actual": failed.actual},
        "dynamic_guard": _tensor_guard(dynamic),
        "sizes_seen": sorted({item["rows"] for item in run.said if "rows" in item}),
    }


def training(run: LessonRun) -> dict[str, Any]:
    """Lesson 6: AOT Autograd's forward and backward graphs, and the inference graph."""
    compiles = _compiles(run.session, "TinyNet.forward")
    train = next((c for c in compiles if c.aot.backward is not None), None)
    infer = next((c for c in compiles if c.aot.inference is not None), None)
    return {
        "forward": train.aot.forward.ops if train and train.aot.forward else None,
        "backward": train.aot.backward.ops if train and train.aot.backward else None,
        "inference": infer.aot.inference.ops if infer and infer.aot.inference else None,
        "compiles": len(compiles),
    }


def kernels(run: LessonRun) -> dict[str, Any]:
    """Lesson 7: one trip against two, then the kernels Inductor wrote for each model."""
    models = {}
    for name in ("BiasThenRelu", "MatmulThenRelu"):
        made = [k for c in _compiles(run.session, name) for k in c.kernels]
        models[name] = [{"name": k.name, "kind": k.kind, "aten_ops": k.aten_ops} for k in made]
    toy_facts = next(item for item in run.said if "two_trips_s" in item)
    return {"two_trips_s": toy_facts["two_trips_s"], "one_trip_s": toy_facts["one_trip_s"], "same": toy_facts["same"], "models": models}


def graph_breaks(run: LessonRun) -> dict[str, Any]:
    """Lesson 8: each module's graphs and breaks (the reason, the line), and fullgraph=True."""
    out: dict[str, Any] = {}
    for name in ("WithIf", "WithWhere"):
        compiles = [c for c in _compiles(run.session, f"{name}.forward") if c.status != "failed"]
        resumed = [c for f in frames(run.session, "forward (after line") for c in f.compiles] if name == "WithIf" else []
        breaks = [b for c in compiles for b in c.graph_breaks]
        out[name] = {
            "graphs": sum(len(c.graphs) for c in compiles + resumed),
            "breaks": [{"reason": b.reason, "line": b.lineno, "code": b.code} for b in breaks],
        }
    out["fullgraph"] = {item["fullgraph"]: item.get("error") for item in run.said if "fullgraph" in item}
    return out


def faster(run: LessonRun) -> dict[str, Any]:
    """Lesson 9: per model, the first compiled call, eager and compiled per call, the ratio."""
    models = []
    for item in run.said:
        if "model" in item:
            speedup = item["eager_ms"] / item["compiled_ms"] if item["compiled_ms"] else None
            even = break_even(item["first_call_s"], item["eager_ms"], item["compiled_ms"])
            models.append({**item, "speedup": speedup, "break_even_calls": even})
    compile_s = {
        f.known_as.split(".")[0]: sum(c.compile_time_s or 0.0 for c in f.compiles) for f in (run.session.frames if run.session else [])
    }
    for model in models:
        model["compile_s"] = compile_s.get(model["model"])
    return {"models": models}
