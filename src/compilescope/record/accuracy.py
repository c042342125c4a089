"""`compilescope run --check-accuracy[=N]`: is each compiled graph's result right?

Dynamo gives every graph it captured to the backend (OutputGraph.call_user_compiler); with the
flag, we keep a copy of that graph as Dynamo made it (before the backend's passes change it) and
wrap what the backend returns. On each graph's first N calls the wrapper:

1. copies the inputs (their strides kept; a GPU's into the CPU's memory, so that the program's
   call never runs short of GPU memory for our copies) and the random number generators' states;
2. makes the program's call, as it would be made: the program gets that result, untouched;
3. runs Dynamo's graph eagerly on the copies, from the same generator states, then puts the
   generators back where the compiled call left them: the program's random stream is the one
   it has without us;
4. compares every output, and every input the call changed in place, with tolerances that fit
   its dtype (accuracy_compare.py), judging rounding against a float64 run where needed.

In training (grad mode on, an input requiring grad), the first check also compares gradients:
on fresh copies it runs the graph eagerly and compiled once more, and asks both for the
gradients of the same random output gradients (torch.autograd.grad: nothing accumulates into
the program's .grad). Not where CUDA graphs run: a second compiled call would overwrite the
program's outputs in their pool.

Where compiled and eager drew random numbers (dropout in training) and differ, the check says it
cannot compare: Inductor draws other numbers than eager. A graph that differs keeps its inputs
(copied before the call) until the program ends; then accuracy_stages.py finds the first stage
that differs and writes the minifier's script. Each check is written to the trace as it is made
(ACCURACY_RECORD), so a run killed later keeps what was checked. Out of memory while checking
stops the checks of that graph, says so, and the program goes on. Imports torch: capture only.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

import torch

import compilescope.record.torch_adapter as torch_adapter
from compilescope.record.accuracy_calls import checked, graphs_running
from compilescope.record.accuracy_compare import Compared, compare, flat
from compilescope.record.graph_mutations import held_tensors_changed
from compilescope.record.random_states import RandomStates, moved, rng_states, set_rng_states
from compilescope.record.staging import kept, restored, staged_copies
from compilescope.session import error_summary
from compilescope.trace.ours import ACCURACY_RECORD

DEFAULT_CALLS = 3  # reduce-overhead's third call is its first replay of a recorded CUDA graph
KEEP_BYTES = 4 * 2**30  # the most input memory kept for the gradients' check at the program's end


class AccuracyCheck:
    """The checks of one run: installed once Dynamo is imported (`start`)."""

    def __init__(self, calls: int, writer: Any, at_end: Callable[[], None] | None = None) -> None:
        self.calls = calls
        self.writer = writer
        self.graphs: list[CheckedGraph] = []
        self.callables: list[Any] = []  # accuracy_calls.py's CheckedCallable, one per function torch.compile made
        self.unavailable: str | None = None
        self.calls_unavailable: str | None = None  # why whole calls are not checked
        self._at_end = at_end

    def start(self) -> None:
        """Once Dynamo is imported: wrap each graph it compiles from now on, and ask for `at_end`
        at the program's exit, before torch's own exit functions (atexit runs the newest first:
        torch's, which take back the operators its libraries defined, came with its import, so
        that the stages are compiled while torch is whole)."""
        self.unavailable = torch_adapter.wrap_graph_compiles(self._wrap)
        if self.unavailable is None:
            self.calls_unavailable = torch_adapter.wrap_compiled_callables(functools.partial(checked, self))
        if self._at_end is not None and self.unavailable is None:
            import atexit

            atexit.register(self._at_end)

    def _wrap(self, graph: Any, example_inputs: list[Any], compiled: Any, compiler_fn: Any, capture: dict[str, Any]) -> Any:
        compile_id = torch_adapter.current_compile_id()
        if graph is None or compile_id is None:
            return compiled
        index = sum(1 for g in self.graphs if g.compile_id == compile_id)
        backend, settings = torch_adapter.backend_facts(compiler_fn)
        graph_checked = CheckedGraph(self, compiled, graph, compile_id, index, backend, settings, compiler_fn)
        graph_checked.capture = capture
        self.graphs.append(graph_checked)
        return graph_checked

    def seconds(self) -> float:
        return sum(g.seconds for g in self.graphs) + sum(c.seconds for c in self.callables)


class CheckedGraph:
    """A compiled graph as Dynamo calls it, checked on its first calls."""

    def __init__(
        self,
        owner: AccuracyCheck,
        compiled: Any,
        graph: Any,
        compile_id: dict[str, Any],
        index: int,
        backend: str | None,
        settings: dict,
        compiler_fn: Any,
    ) -> None:
        self._compiled = compiled
        self.compiled = compiled  # (what the backend returned: accuracy_memory.py runs it again)
        self.owner = owner
        self.graph = graph
        self.compile_id = compile_id
        self.index = index
        self.backend = backend
        self.settings = settings
        self.compiler_fn = compiler_fn
        self.inputs: list[str] = list(getattr(graph, "_compilescope_inputs", []))
        self.capture: dict[str, Any] = {}  # what Dynamo made of the frame around it (torch_adapter.capture_facts)
        self.checked = 0  # calls checked so far
        self.stopped: str | None = None  # why no more calls are checked
        self.seconds = 0.0
        # the first call in grad mode: its inputs, until the program ends (or why not kept)
        self.training: dict[str, Any] | None = None
        self.first: dict[str, Any] | None = None  # the first call's inputs on a GPU (for the peaks), or why not kept
        self.kept: list[Any] | None = None  # the inputs of the first call that differed, copied before it (in the CPU's memory)
        changed = held_tensors_changed(graph)  # (tensors it holds, not inputs: an eager run would change them again)
        self.holds_changed = (
            f"its graph changes in place {len(changed)} tensor{'s' if len(changed) != 1 else ''} it holds itself, not as inputs "
            "(as Dynamo holds an optimizer's parameters and state), which an eager run would change a second time"
            if changed
            else None
        )

    def __getattr__(self, name: str) -> Any:  # (what Dynamo asks of the compiled function)
        if name in ("__self__", "__func__"):
            # Dynamo swaps a GraphModule's bound forward (the eager backend's result) for the
            # module's own forward, which would bypass this check: it is not told the module.
            raise AttributeError(name)
        return getattr(self._compiled, name)

    def __call__(self, *args: Any) -> Any:
        running = graphs_running()  # (a whole call being checked: it notes this graph's run)
        if running is None and (self.checked >= self.owner.calls or self.stopped is not None):
            return self._compiled(*args)
        versions = [a._version if isinstance(a, torch.Tensor) else None for a in args]
        if self.checked >= self.owner.calls or self.stopped is not None:
            result = self._compiled(*args)
            self._ran(running, args, versions, "not checked")
            return result
        self.checked += 1
        outcome = "not checked"
        started = time.perf_counter()
        staged = None
        try:
            problem = self.holds_changed or _uncopyable(args)
            if problem is None:
                staged = staged_copies(args)
        except torch.OutOfMemoryError:
            problem = "out of memory while copying its inputs: no more calls of this graph are checked"
            self.stopped = problem
        except Exception as error:  # (the CPU's memory short: its allocator raises a RuntimeError)
            problem = f"its inputs could not be copied ({error_summary(error)})"
        memory = _Memory(args)
        states = rng_states()
        self.seconds += time.perf_counter() - started
        memory.before("compiled")
        result = self._compiled(*args)  # the program's own call: its result goes back untouched
        memory.after("compiled")
        started = time.perf_counter()
        after = rng_states()
        try:
            if staged is None:
                self._write({"outcome": "not checked", "why": problem})
            else:
                outcome = self._check(args, restored(staged), versions, states, after, result, memory)
        except torch.OutOfMemoryError:
            self.stopped = "out of memory while checking: no more calls of this graph are checked"
            self._write({"outcome": "not checked", "why": self.stopped})
        except Exception as error:  # never fail the program for our check
            self._write({"outcome": "not checked", "why": f"the check failed: {error_summary(error)}"})
        finally:
            set_rng_states(after)
            self.seconds += time.perf_counter() - started
        self._ran(running, args, versions, outcome)
        return result

    def _ran(self, running: list[dict[str, Any]] | None, args: tuple, versions: list[Any], outcome: str) -> None:
        """Where a whole call is being checked: this graph ran in it, with this outcome, changing
        these inputs in place."""
        if running is not None:
            mutated = [self._label(i) for i, a in enumerate(args) if isinstance(a, torch.Tensor) and a._version != versions[i]]
            running.append({"graph": self, "outcome": outcome, "mutated": mutated})

    def _check(
        self, args: tuple, before: list[Any], versions: list[Any], states: RandomStates, after: RandomStates, result: Any, memory: _Memory
    ) -> str:
        copies = [torch_adapter.clone_input(a) for a in before]  # (the eager run changes what it is given)
        set_rng_states(states)
        memory.before("eager")
        with torch.no_grad():
            expected = self.graph(*copies)
        memory.after("eager")
        drew = moved(states, after) or moved(states, rng_states())
        set_rng_states(after)
        values = [("output", i, c, e) for i, (c, e) in enumerate(zip(flat(result), flat(expected), strict=False))]
        if len(flat(result)) != len(flat(expected)):
            compared = [Compared("outputs", False, judged=f"{len(flat(result))} outputs compiled, {len(flat(expected))} eagerly")]
        else:
            # inputs the compiled call changed in place (its version counter moved), as eager left its copies
            changed = [
                i for i, a in enumerate(args) if isinstance(a, torch.Tensor) and versions[i] is not None and a._version != versions[i]
            ]
            values += [("input", i, args[i], copies[i]) for i in changed]
            reference = _Float64(self.graph, before, states)
            compared = [compare(self._name(kind, i), c, e, reference.value(kind, i)) for kind, i, c, e in values]
        facts: dict[str, Any] = {"compared": [c.facts() for c in compared]}
        differs = [c for c in compared if not c.matches]
        if differs and drew:
            facts.update(
                outcome="not compared", why="the graph draws random numbers (dropout, say), and compiled code draws other ones than eager"
            )
        else:
            facts["outcome"] = "differs" if differs else "matches"
        if self.first is None and any(isinstance(a, torch.Tensor) and a.is_cuda for a in args):
            # (the inputs of its first call, for its peaks eager and compiled once the program is over)
            size = sum(a.numel() * a.element_size() for a in before if isinstance(a, torch.Tensor))
            self.first = {"kept": kept(before), "grad": torch.is_grad_enabled()} if size <= KEEP_BYTES else {"why": _too_large(size)}
        if self.training is None and torch.is_grad_enabled() and any(isinstance(a, torch.Tensor) and a.requires_grad for a in args):
            self._keep_for_gradients(before, states, result)
        facts["memory"] = memory.facts()
        if facts["outcome"] == "differs" and self.kept is None:
            self.kept = kept(before)
        self._write(facts)
        return str(facts["outcome"])

    def _keep_for_gradients(self, before: list[Any], states: RandomStates, result: Any) -> None:
        """The first call in grad mode: its inputs kept (in the CPU's memory, so that the GPU's
        is the program's) until the program ends, and a hook on its outputs that notes whether
        the program's backward went through them: only then was it training, and only then are
        the gradients compared (a backward of our own would compile one the program never
        needed)."""
        size = sum(a.numel() * a.element_size() for a in before if isinstance(a, torch.Tensor))
        if size > KEEP_BYTES:
            self.training = {"why": f"not compared: {_too_large(size)}"}
            return
        self.training = {"kept": kept(before), "states": states, "backward": False}

        def ran(_: Any) -> None:
            if self.training is not None:
                self.training["backward"] = True

        for value in flat(result):
            if isinstance(value, torch.Tensor) and value.requires_grad:
                value.register_hook(ran)

    def gradients(self) -> dict[str, Any] | None:
        """At the program's end: the gradients of the first call in grad mode compared, where
        the program's backward went through it; None where there was no such call."""
        training, self.training = self.training, None
        if training is None or "why" in training:
            return training
        if not training["backward"]:
            return None
        before = restored(training["kept"])
        if self.settings.get("triton.cudagraphs") and any(isinstance(a, torch.Tensor) and a.is_cuda for a in before):
            return {
                "why": 'not compared under CUDA graphs (mode="reduce-overhead"): a compiled call of our own would change the tree of recorded graphs'
            }
        states = training["states"]
        after = rng_states()
        runs = []
        for run in (self.graph, self._compiled):
            leaves = [torch_adapter.clone_input(a) for a in before]
            set_rng_states(states)
            with torch.enable_grad():
                outputs = flat(run(*leaves))
            runs.append((leaves, outputs))
        set_rng_states(after)
        (eager_in, eager_out), (compiled_in, compiled_out) = runs
        outputs = [
            i
            for i, (e, c) in enumerate(zip(eager_out, compiled_out, strict=False))
            if isinstance(e, torch.Tensor) and isinstance(c, torch.Tensor) and e.requires_grad and c.requires_grad and e.is_floating_point()
        ]
        wanted = [i for i, a in enumerate(eager_in) if isinstance(a, torch.Tensor) and a.requires_grad]
        if not outputs or not wanted:
            return {"why": "no output of this graph needs a gradient"}
        generators: dict[torch.device, torch.Generator] = {}
        seeds = []
        for i in outputs:
            e = eager_out[i]
            generator = generators.setdefault(e.device, torch.Generator(device=e.device).manual_seed(0))
            seeds.append(torch.randn(e.shape, generator=generator, device=e.device, dtype=e.dtype))
        eager_grads = torch.autograd.grad([eager_out[i] for i in outputs], [eager_in[i] for i in wanted], seeds, allow_unused=True)
        compiled_grads = torch.autograd.grad([compiled_out[i] for i in outputs], [compiled_in[i] for i in wanted], seeds, allow_unused=True)
        exact: list[Any] = []

        def reference(k: int) -> Any:  # the float64 run's gradients, made once, where rounding is to be judged
            if not exact:
                exact.append(_float64_gradients(self.graph, before, states, outputs, wanted, seeds))
                set_rng_states(after)
            return exact[0][k] if exact[0] is not None else None

        compared = [
            compare(f"gradient of {self._label(i)}", c, e, functools.partial(reference, k))
            for k, (i, c, e) in enumerate(zip(wanted, compiled_grads, eager_grads, strict=False))
        ]
        return {"compared": [c.facts() for c in compared]}

    def _name(self, kind: str, index: int) -> str:
        return f"output {index}" if kind == "output" else f"input {self._label(index)} after the call (changed in place)"

    def _label(self, index: int) -> str:
        return self.inputs[index] if index < len(self.inputs) else f"{index}"

    def _write(self, facts: dict[str, Any]) -> None:
        facts = {
            "compile_id": self.compile_id,
            "graph": self.index,
            "call": self.checked,
            "backend": self.backend,
            "seconds": round(self.seconds, 6),
            **facts,
        }
        if self.stopped:
            facts["stopped"] = self.stopped
        try:
            self.owner.writer.write_record(ACCURACY_RECORD, facts)
        except Exception:  # (a full disk: the program goes on)
            pass


class _Float64:
    """The float64 run of the graph on the same inputs, made once and only when a value is not
    within its tolerance (it costs a copy of every input in float64)."""

    def __init__(self, graph: Any, before: list[Any], states: RandomStates) -> None:
        self._graph, self._before, self._states = graph, before, states
        self._made: tuple[list[Any], list[Any]] | None = None
        self._failed = False

    def value(self, kind: str, index: int) -> Any:
        return lambda: self._value(kind, index)

    def _value(self, kind: str, index: int) -> Any:
        if self._made is None and not self._failed:
            try:
                graph, inputs = torch_adapter.in_float64(self._graph, [torch_adapter.clone_input(a) for a in self._before])
                now = rng_states()
                set_rng_states(self._states)
                try:
                    with torch.no_grad():
                        self._made = (flat(graph(*inputs)), inputs)
                finally:
                    set_rng_states(now)
            except Exception:  # (an op without float64: judged without it)
                self._failed = True
        if self._made is None:
            return None
        outputs, inputs = self._made
        values = outputs if kind == "output" else inputs
        return values[index] if index < len(values) else None


class _Memory:
    """What each run added to the CUDA allocator's memory, where the inputs are on a CUDA
    device (read from its counters: no synchronisation, no reset of the program's peaks)."""

    def __init__(self, args: tuple) -> None:
        devices = {a.device for a in args if isinstance(a, torch.Tensor) and a.is_cuda}
        self.device = next(iter(devices)) if len(devices) == 1 else None
        self.figures: dict[str, dict[str, int]] = {}

    def before(self, run: str) -> None:
        if self.device is not None:
            self.figures[run] = {
                "allocated_before": torch.cuda.memory_allocated(self.device),
                "peak_before": torch.cuda.max_memory_allocated(self.device),
            }

    def after(self, run: str) -> None:
        if self.device is not None:
            figures = self.figures[run]
            figures["allocated_after"] = torch.cuda.memory_allocated(self.device)
            figures["peak_after"] = torch.cuda.max_memory_allocated(self.device)

    def facts(self) -> dict[str, Any]:
        if self.device is None:
            return {"why": "not measured: the graph's inputs are not on one CUDA device"}
        return {"device": str(self.device), **self.figures}


def _float64_gradients(
    graph: Any, before: list[Any], states: RandomStates, outputs: list[int], wanted: list[int], seeds: list[Any]
) -> list[Any] | None:
    """The gradients of a float64 run of the graph (None where it cannot run so)."""
    try:
        graph64, inputs = torch_adapter.in_float64(graph, [torch_adapter.clone_input(a) for a in before])
        leaves = [a.detach().requires_grad_() if i in wanted else a for i, a in enumerate(inputs)]
        set_rng_states(states)
        with torch.enable_grad():
            values = flat(graph64(*leaves))
        grads = torch.autograd.grad(
            [values[i] for i in outputs],
            [leaves[i] for i in wanted],
            [s.to(values[i].dtype) for s, i in zip(seeds, outputs, strict=False)],
            allow_unused=True,
        )
        return list(grads)
    except Exception:
        return None


def _too_large(size: int) -> str:
    return (
        f"the graph's inputs ({size / 2**30:.1f} GiB) are more than the check keeps until the program ends ({KEEP_BYTES / 2**30:.0f} GiB)"
    )


def _uncopyable(args: tuple) -> str | None:
    for index, value in enumerate(args):
        if not isinstance(value, (torch.Tensor, int, float, bool, torch.SymInt, torch.SymFloat, torch.SymBool, type(None))):
            return f"input {index} is a {type(value).__name__}, which the check cannot copy"
    return None
