"""After the program: for each graph `run --check-accuracy` found differing, which stage of the
compile made it differ, and torch's minifier script for it.

The graph (as Dynamo gave it to the backend) is run again alone on the inputs of the call that
differed, compiled by each stage of torch.compile in turn, as torch's minifier bisects a
backend: `aot_eager` (AOT Autograd: tracing, functionalization, the joint graph), then
`aot_eager_decomp_partition` (with Inductor's decompositions and its partitioner), then the
program's own backend and settings (Inductor's code generation). The first that differs from the
eager run is named. Where even the program's own backend matches when run again, the difference
depends on what the program did around the call (a replayed CUDA graph, state the graph reads),
and that is what is said.

The minifier's script is torch's own after-Dynamo repro (torch._dynamo.repro.after_dynamo), with
the inputs' values saved beside it: `python SCRIPT minify`, run in its folder, shrinks the graph
to the fewest operations that still differ (torch's accuracy minifier) and writes them to
`repro.py` there (each step in `checkpoints/`); `python SCRIPT run` checks the whole graph again.
This runs once the program has ended, so nothing here can change what the program did; its own
compiles are kept out of the program's trace. Imports torch: capture only.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import sys
import time
from typing import Any

import torch

import compilescope.record.torch_adapter as torch_adapter
from compilescope.record.accuracy import CheckedGraph
from compilescope.record.accuracy_compare import compare, flat
from compilescope.record.accuracy_memory import peaks
from compilescope.record.random_states import RandomStates, rng_states, set_rng_states
from compilescope.record.staging import restored
from compilescope.session import error_summary
from compilescope.trace.ours import ACCURACY_END_RECORD

# Each stage: the backend torch's minifier would try, and what differing there means.
STAGES = [
    ("aot_eager", "AOT Autograd (tracing, functionalization)"),
    ("aot_eager_decomp_partition", "AOT Autograd with Inductor's decompositions and partitioner"),
]


def find_stage(graph: CheckedGraph) -> dict[str, Any]:
    """Run the kept inputs through each stage; what each gave and the first that differs."""
    assert graph.kept is not None
    started = time.perf_counter()
    states = rng_states()
    kept = graph.kept = restored(graph.kept)
    expected = _run(graph.graph, kept, states)
    order = [name for name, _ in STAGES]
    # (the stages before the program's own backend: none before aot_eager, none at all for eager)
    stages = STAGES[: order.index(graph.backend)] if graph.backend in order else [] if graph.backend == "eager" else list(STAGES)
    own = graph.backend or str(getattr(graph.compiler_fn, "__name__", None) or "the program's backend")
    own_meaning = "Inductor (its lowering and generated code)" if graph.backend == "inductor" else f"the backend {own}"
    results: list[dict[str, Any]] = []
    first: str | None = None
    for name, meaning in [*stages, (own, own_meaning)]:
        try:
            compiler = graph.compiler_fn if name == own else torch_adapter.lookup_backend(name)
            compiled = compiler(torch_adapter.copied_graph(graph.graph), [torch_adapter.clone_input(a) for a in kept])
            got = _run(compiled, kept, states)
            compared = [compare(f"output {i}", c, e) for i, (c, e) in enumerate(zip(flat(got), flat(expected), strict=False))]
            differs = [c for c in compared if not c.matches]
            results.append({"stage": name, "meaning": meaning, "matches": not differs, "compared": [c.facts() for c in differs[:3]]})
            if differs and first is None:
                first = name
        except Exception as error:
            results.append({"stage": name, "meaning": meaning, "failed": error_summary(error)})
        if first is not None:
            break
    set_rng_states(states)
    return {"stages": results, "first_differs": first, "seconds": round(time.perf_counter() - started, 3)}


def _run(function: Any, kept: list[Any], states: RandomStates) -> Any:
    set_rng_states(states)
    with torch.no_grad():
        return function(*[torch_adapter.clone_input(a) for a in kept])


def write_minifier_script(graph: CheckedGraph, folder: str, shown_from: str | None = None) -> dict[str, Any]:
    """torch's minifier script for the graph, in `folder/<compile id>/`: the command that runs it
    and where its output goes."""
    assert graph.kept is not None
    cid = graph.compile_id
    name = f"{cid.get('frame_id')}_{cid.get('frame_compile_id')}" + (f"_{graph.index}" if graph.index else "")
    where = os.path.join(folder, f"graph_{name}")
    try:
        torch_adapter.lookup_backend(graph.backend or "")
    except Exception:  # (a function of the user's: torch.compile named it, nothing registered it)
        return {
            "why": f"torch's minifier needs a backend named by a string it can look up; {graph.backend or 'this graph'} is a function "
            "of yours (torch._dynamo.register_backend would register it by name)"
        }
    try:
        inputs = os.path.abspath(os.path.join(where, "inputs"))
        os.makedirs(inputs, exist_ok=True)
        # (the inputs as values, without requires_grad: what differed is the forward, and torch's
        # minifier, given inputs that need gradients, runs backward too and fails in its metrics)
        values = [a.detach() if isinstance(a, torch.Tensor) else a for a in graph.kept]
        text = torch_adapter.dynamo_repro_script(torch_adapter.copied_graph(graph.graph), values, graph.backend, inputs)
        script = os.path.join(where, f"minify_{name}.py")
        with open(script, "w", encoding="utf-8") as out:
            out.write(_with_unboxed_calls(_relative_inputs(text, inputs)))
    except Exception as error:
        return {"why": f"could not be written: {error_summary(error)}"}
    shown = os.path.relpath(where, shown_from) if shown_from else where
    if shown.startswith(".."):
        shown = where
    on_path = shutil.which("python")  # ("python" where the shell's finds this Python; else its path)
    python = "python" if on_path and os.path.abspath(on_path) == sys.executable else shlex.quote(sys.executable)
    facts: dict[str, Any] = {
        "folder": where,
        "script": os.path.basename(script),
        "minify": f"cd {shlex.quote(shown)} && {python} {os.path.basename(script)} minify",
        "check": f"cd {shlex.quote(shown)} && {python} {os.path.basename(script)} run",
        "output": "repro.py (the smallest graph that still differs) and checkpoints/ in that folder",
    }
    if graph.settings:  # (torch's script sets the global configs only; a mode's settings are the backend's own)
        facts["note"] = (
            "the script compiles with Inductor's global settings; these of your torch.compile mode/options are not in it: "
            + ", ".join(f"{key}={value!r}" for key, value in sorted(graph.settings.items()))
        )
    return facts


# torch's accuracy minifier calls a compiled graph with its inputs as one list wherever the
# function is marked `_boxed_call`, and AOT Autograd's wrapper of Inductor's graph inherits that
# mark (simple_wraps copies the __dict__) though it takes its inputs one by one: every check
# then fails with "not enough values to unpack", and the minifier says the graph "does not fail
# accuracy testing" (torch 2.13). Dynamo calls what a backend returns one input at a time, always:
# the script takes the mark off by wrapping what the backends return, before torch's own code runs.
_UNBOXED = """
# compilescope: torch's minifier would call Inductor's compiled graph with its inputs as one
# list (a `_boxed_call` mark its wrapper inherits wrongly); Dynamo calls it with them one by one.
import torch._dynamo.repro.after_dynamo as _after_dynamo

_lookup_backend = _after_dynamo.lookup_backend


def _calls_unboxed(name):
    backend = _lookup_backend(name)

    def compile_graph(gm, example_inputs, **kwargs):
        compiled = backend(gm, example_inputs, **kwargs)
        if not getattr(compiled, "_boxed_call", False) or isinstance(compiled, torch.nn.Module):
            return compiled

        def call(*args):
            return compiled(*args)

        call.__dict__.update({k: v for k, v in vars(compiled).items() if k != "_boxed_call"})
        return call

    return compile_graph


_after_dynamo.lookup_backend = _calls_unboxed

"""


def _with_unboxed_calls(text: str) -> str:
    main = "if __name__ == '__main__':"
    return text.replace(main, _UNBOXED + main, 1) if main in text else text


def _relative_inputs(text: str, inputs: str) -> str:
    """The script finds its saved inputs beside itself, wherever it is run from (and wherever
    its folder is moved)."""
    beside = "__import__('os').path.join(__import__('os').path.dirname(__import__('os').path.abspath(__file__)), 'inputs')"
    return text.replace(f"save_dir={inputs!r}", f"save_dir={beside}")


def finish(check: Any, folder: str | None, shown_from: str | None = None) -> dict[str, Any]:
    """The checks' end, once the program is done: for each graph that differed, the stage and
    the minifier's script (in `folder`; None: none written). Says what it does on stderr: an
    Inductor compile per stage takes seconds."""
    graphs = []
    started = time.perf_counter()
    trained, measured = [], []
    for graph in check.graphs:
        try:
            gradients = graph.gradients()
        except Exception as error:
            gradients = {"why": f"could not be compared: {error_summary(error)}"}
        if gradients is not None:
            trained.append({"compile_id": graph.compile_id, "graph": graph.index, "gradients": gradients})
        try:
            memory = peaks(graph)
        except Exception as error:
            memory = {"why": f"not measured: {error_summary(error)}"}
        if memory is not None:
            measured.append({"compile_id": graph.compile_id, "graph": graph.index, "peaks": memory})
    for graph in check.graphs:
        if graph.kept is None:
            continue
        cid = graph.compile_id
        label = f"{cid.get('frame_id')}/{cid.get('frame_compile_id')}"
        print(f"compilescope: graph {label} differs from eager: finding the stage that makes it differ…", file=sys.__stderr__, flush=True)
        facts: dict[str, Any] = {"compile_id": cid, "graph": graph.index}
        try:
            facts.update(find_stage(graph))
        except Exception as error:
            facts["stage_failed"] = error_summary(error)
        if folder is not None:
            facts["minifier"] = write_minifier_script(graph, folder, shown_from)
        graph.kept = None
        graphs.append(facts)
    return {
        "calls_per_graph": check.calls,
        "graphs_checked": len(check.graphs),
        "seconds": round(check.seconds(), 6),
        "stages_seconds": round(time.perf_counter() - started, 3),
        "unavailable": check.unavailable,
        "calls_checked": len(check.callables),
        "calls_unavailable": check.calls_unavailable,
        "differing": graphs,
        "gradients": trained,
        "peaks": measured,
    }


def finish_unrecorded(check: Any, folder: str | None, shown_from: str | None, logger: Any, handler: Any) -> None:
    """finish(), written to the trace, with our trace handler taken off torch's logger meanwhile:
    the compiles that find the stages are ours, not the program's. Never raises: the program is
    exiting."""
    handlers = logger.handlers if logger is not None else None
    try:
        if logger is not None and handlers is not None:
            logger.handlers = [h for h in handlers if h is not handler]
        check.writer.write_record(ACCURACY_END_RECORD, finish(check, folder, shown_from))
    except Exception as error:
        with contextlib.suppress(Exception):
            print(f"compilescope: the accuracy check could not finish: {error_summary(error)}", file=sys.__stderr__)
    finally:
        if logger is not None and handlers is not None:
            logger.handlers = [*handlers]
