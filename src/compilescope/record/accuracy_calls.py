"""`run --check-accuracy`: each torch.compile'd function or module, called as a whole, against its
Python code run eagerly.

The graph checks (accuracy.py) run each graph Dynamo captured eagerly: they find what AOT Autograd
or Inductor got wrong, never what Dynamo did, since the graph they run is Dynamo's. Dynamo's part
shows only against the Python itself: a graph run whose guards were not checked
(skip_guard_eval_unsafe), a Python value baked in as a constant that has since changed, a side
effect replayed wrong. So, on the first N calls of each function torch.compile made, the wrapper:

1. copies the call's arguments (tensors with their strides, a module it is the call of, deep),
   and the random number generators' states;
2. makes the program's call, noting the graphs it ran and the inputs they changed in place;
3. where running the Python again cannot change the program (no graph break, whose Python
   between graphs would run twice; no side effect Dynamo replays; no tensor changed in place but
   the call's own arguments; no module hook registered since its first call, which the compiled
   code may skip: module_hooks.py), runs the original function on the copies with torch.compile
   set aside (force_eager) and is_compiling() True (the paths Dynamo traced), from the same
   generator states, and puts the generators back;
4. compares every output and every argument changed in place (accuracy_compare.py).

Where the whole call differs and every graph it ran matched its own eager run on that call, the
stage is Dynamo's capture. Written to the trace as ACCURACY_CALL_RECORD. Imports torch: capture.
"""

from __future__ import annotations

import copy
import functools
import inspect
import re
import sys
import threading
import time
from typing import Any

import torch

import compilescope.record.torch_adapter as torch_adapter
from compilescope.record.accuracy_compare import Compared, compare
from compilescope.record.module_hooks import hooks_of, modules_reached
from compilescope.record.random_states import RandomStates, moved, rng_states, set_rng_states
from compilescope.record.staging import Staged
from compilescope.session import error_summary
from compilescope.trace.ours import ACCURACY_CALL_RECORD

_running = threading.local()  # .graphs: the graphs run by the whole call being checked on this thread


def graphs_running() -> list[dict[str, Any]] | None:
    """Where a whole call is being checked on this thread: the list its graphs note their runs in
    (accuracy.py's CheckedGraph appends {"graph", "outcome", "mutated"}); None otherwise."""
    return getattr(_running, "graphs", None)


class CheckedCallable:
    """One function torch.compile made, checked as a whole on its first calls."""

    def __init__(self, owner: Any, original: Any, compiled: Any) -> None:
        self.owner = owner  # accuracy.py's AccuracyCheck
        self.original = original
        self.compiled = compiled
        self.name, self.where = _described(original)
        self.index = len(owner.callables)  # (two compiled copies of one module have one name)
        self.compiled_at = _program_line()
        self.checked = 0
        self.stopped: str | None = None
        self.seconds = 0.0
        self.first_hooks: set[Any] | None = None  # the hooks it could reach at its first call (module_hooks.py)

    def __call__(self, args: tuple, kwargs: dict[str, Any]) -> Any:
        if self.checked >= self.owner.calls or self.stopped is not None or graphs_running() is not None:
            return self.compiled(*args, **kwargs)
        started = time.perf_counter()
        tensors = _call_tensors(self.original, args, kwargs)
        copies, problem = self._copies(args, kwargs, tensors)
        problem = problem or self._hook_added(args, kwargs)
        versions = {id(t): t._version for t in tensors}
        states = rng_states()
        skipping = torch_adapter.skipping_guards()
        self.seconds += time.perf_counter() - started
        ran: list[dict[str, Any]] = []
        _running.graphs = ran
        try:
            result = self.compiled(*args, **kwargs)  # the program's own call: its result goes back untouched
        finally:
            _running.graphs = None
        if not ran:
            return result  # (no graph ran: nothing compiled to compare; not counted)
        self.checked += 1
        started = time.perf_counter()
        after = rng_states()
        facts: dict[str, Any] = {"compile_ids": [entry["graph"].compile_id for entry in ran], "called_at": _program_line()}
        if skipping:
            facts["guards_skipped"] = True
        try:
            problem = problem or _not_safe(ran, _parameters(self.original))
            if problem is not None:
                facts.update(outcome="not checked", why=problem)
            else:
                facts.update(self._compare(args, kwargs, result, copies, versions, states, after, ran))
        except torch.OutOfMemoryError:
            self.stopped = "out of memory while checking: no more calls of it are checked"
            facts.update(outcome="not checked", why=self.stopped)
        except torch_adapter.NotAvailable as error:
            facts.update(outcome="not checked", why=str(error))
        except Exception as error:  # never fail the program for our check
            facts.update(outcome="not checked", why=f"the check failed: {error_summary(error)}")
        finally:
            set_rng_states(after)
            self.seconds += time.perf_counter() - started
        self._write(facts)
        return result

    def _hook_added(self, args: tuple, kwargs: dict[str, Any]) -> str | None:
        """Why not to run the call's Python again where a module hook it can reach was registered
        after its first call (module_hooks.py), or None; the first call notes the hooks there."""
        try:
            hooks = hooks_of(modules_reached(self.original, _module_of(self.original), _leaves((args, kwargs))))
        except Exception as error:
            return f"its modules' hooks could not be read ({error_summary(error)})"
        if self.first_hooks is None:
            self.first_hooks = set(hooks)
            return None
        added = [said for key, said in hooks.items() if key not in self.first_hooks]
        if not added:
            return None
        return (
            f"{added[0]} was registered after its first call"
            + (f" (and {len(added) - 1} more hook{'s' if len(added) > 2 else ''})" if len(added) > 1 else "")
            + ": torch does not guard on hooks (torch._dynamo.config.skip_nnmodule_hook_guards), so the compiled code may "
            "not call it, while an eager run would, repeating what it does to the program"
        )

    def _copies(self, args: tuple, kwargs: dict[str, Any], tensors: list[torch.Tensor]) -> tuple[Any, str | None]:
        """(the function, args, kwargs) to run eagerly, staged (staging.Staged), or why none: a module
        the call belongs to and the arguments deep-copied, tensors with their strides (`tensors`:
        every tensor they hold, _call_tensors)."""
        module = _module_of(self.original)
        size = sum(t.numel() * t.element_size() for t in {id(t): t for t in tensors}.values())
        if size > KEEP_BYTES:
            return None, f"its arguments and module hold {size / 2**30:.1f} GiB, more than the check copies ({KEEP_BYTES / 2**30:.0f} GiB)"
        try:
            staged = Staged()
            memo: dict[int, Any] = {id(t): staged.add(t) for t in tensors}
            # (a module's call, torch.compile(model): the module copied, called as the program calls it)
            function: Any = self.original if module is None else copy.deepcopy(module, memo)
            staged.copies = (function, copy.deepcopy(args, memo), copy.deepcopy(kwargs, memo))
            return staged, None
        except torch.OutOfMemoryError:
            self.stopped = "out of memory while copying its arguments: no more calls of it are checked"
            return None, self.stopped
        except Exception as error:  # (an object that refuses copying; the CPU's memory short)
            return None, f"its arguments could not be copied ({error_summary(error)})"

    def _compare(
        self,
        args: tuple,
        kwargs: dict[str, Any],
        result: Any,
        copies: Any,
        versions: dict[int, int],
        states: RandomStates,
        after: RandomStates,
        ran: list[dict[str, Any]],
    ) -> dict[str, Any]:
        function, copied_args, copied_kwargs = copies.placed()
        set_rng_states(states)
        _running.graphs = []  # (a compiled function it calls passes straight through)
        try:
            with torch_adapter.running_eagerly():
                expected = function(*copied_args, **copied_kwargs)
        finally:
            _running.graphs = None
        drew = moved(states, after)
        set_rng_states(after)
        got, wanted = _leaves(result), _leaves(expected)
        if len(got) != len(wanted):
            compared = [Compared("outputs", False, judged=f"{len(got)} values compiled, {len(wanted)} eagerly")]
        else:
            exact: list[Any] = []

            def reference(i: int) -> Any:  # the float64 run's output i, made once, where rounding is to be judged
                if not exact:
                    exact.append(self._float64_outputs(args, kwargs, versions, states))
                    set_rng_states(after)
                return exact[0][i] if exact[0] is not None and len(exact[0]) == len(got) else None

            compared = [
                compare(f"output {i}", c, e, functools.partial(reference, i)) for i, (c, e) in enumerate(zip(got, wanted, strict=False))
            ]
            # arguments the compiled call changed in place, as the eager run left its copies
            originals, copied = _tensors((args,)), _tensors((copied_args,))
            compared += [
                compare(f"argument {i} after the call (changed in place)", a, c)
                for i, (a, c) in enumerate(zip(originals, copied, strict=False))
                if a._version != versions.get(id(a), a._version)
            ]
        facts: dict[str, Any] = {"compared": [c.facts() for c in compared]}
        differs = [c for c in compared if not c.matches]
        if differs and drew:
            facts.update(outcome="not compared", why="the call draws random numbers, and compiled code draws other ones than eager")
            return facts
        facts["outcome"] = "differs" if differs else "matches"
        if differs:
            outcomes = [entry["outcome"] for entry in ran]
            if "differs" in outcomes:
                facts["cause"] = "graph"
            elif all(o == "matches" for o in outcomes):
                facts["cause"] = "dynamo"
        return facts

    def _float64_outputs(self, args: tuple, kwargs: dict[str, Any], versions: dict[int, int], states: RandomStates) -> list[Any] | None:
        """The call's outputs run eagerly with every float made float64, from the same generator
        states (as torch's own accuracy checks make their reference); None where the call changed
        its arguments or module in place (their values before it are gone) or cannot run so."""
        tensors = _call_tensors(self.original, args, kwargs)
        if any(t._version != versions.get(id(t), t._version) for t in tensors):
            return None
        try:
            memo: dict[int, Any] = {id(t): _in_float64(t) for t in tensors}  # (a module's parameters too: deep copies take them)
            module = _module_of(self.original)
            function: Any = self.original if module is None else copy.deepcopy(module, memo)
            copied_args, copied_kwargs = copy.deepcopy(args, memo), copy.deepcopy(kwargs, memo)
            set_rng_states(states)
            _running.graphs = []
            try:
                with torch_adapter.running_eagerly():
                    return _leaves(function(*copied_args, **copied_kwargs))
            finally:
                _running.graphs = None
        except torch.OutOfMemoryError:
            raise
        except Exception:  # (an op without float64: judged without it)
            return None

    def _write(self, facts: dict[str, Any]) -> None:
        facts = {
            "callable": self.name,
            "index": self.index,
            "where": self.where,
            "compiled_at": self.compiled_at,
            "call": self.checked,
            "seconds": round(self.seconds, 6),
            **facts,
        }
        if self.stopped:
            facts["stopped"] = self.stopped
        try:
            self.owner.writer.write_record(ACCURACY_CALL_RECORD, facts)
        except Exception:  # (a full disk: the program goes on)
            pass


KEEP_BYTES = 4 * 2**30  # the most the check copies for one call (its arguments and module)


def checked(owner: Any, original: Any, compiled: Any) -> Any:
    """What the program gets from torch.compile: a function that calls `compiled`, checking its
    first calls; torch's attributes on it (_torchdynamo_orig_callable) kept."""
    checker = CheckedCallable(owner, original, compiled)
    owner.callables.append(checker)  # (after: its index is the count before it)

    @functools.wraps(compiled)
    def checked_call(*args: Any, **kwargs: Any) -> Any:
        return checker(args, kwargs)

    if "__wrapped__" in vars(compiled):  # (as torch sets it: the user's function, not torch's wrapper)
        checked_call.__wrapped__ = compiled.__wrapped__
    return checked_call


def _parameters(original: Any) -> set[str] | None:
    """The names the compiled frame has for what the check copies: the function's parameters; for
    a module's call, its forward's (`self` among them) and those of torch's wrapper around a
    torch.nn module (external_utils.wrap_inline: `fn`, the module, and its `args`, `kwargs`).
    None where the code cannot be read."""
    module = _module_of(original)
    target = type(module).forward if module is not None else inspect.unwrap(original)
    code = getattr(target, "__code__", None)
    if code is None:
        return None
    count = (
        code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    )
    names = set(code.co_varnames[:count])
    return names | {"self", "fn", "args", "kwargs"} if module is not None else names


def _not_safe(ran: list[dict[str, Any]], parameters: set[str] | None = None) -> str | None:
    """Why running the call's Python again could change the program, or None. A tensor changed in
    place is safe only where it is one of the call's `parameters` (copied): Dynamo names a
    closure's tensor as a local too (L['total'])."""
    for entry in ran:
        capture = entry["graph"].capture
        if capture.get("graph_break") is not False:
            if "graph_break" not in capture:
                return torch_adapter.not_available("whether the call broke into graphs")
            return "it broke into more graphs: its Python between them would run a second time"
        if capture.get("resumed"):
            return "it broke into more graphs (a graph break before any graph): its Python around them would run a second time"
        if capture.get("side_effects") is not False:
            if "side_effects" not in capture:
                return torch_adapter.not_available("whether the call has Python side effects")
            return (
                "Dynamo replays Python side effects after its graph (an attribute set, a list appended to), which an eager run would repeat"
            )
        if capture.get("replays_calls"):
            return (
                "Dynamo calls print or a logging function after its graph (torch._dynamo.config.reorderable_logging_functions), "
                "which an eager run would call a second time"
            )
        if getattr(entry["graph"], "holds_changed", None):
            return entry["graph"].holds_changed.replace("its graph changes", "a graph it ran changes", 1)
        for name in entry["mutated"]:
            local = re.match(r"L\['([^']+)'\]", name)
            if local is None:
                return f"it changes {name} in place, which an eager run would change a second time"
            if parameters is not None and local.group(1) not in parameters:
                return f"it changes {name} in place, not one of its arguments (a closure's), which an eager run would change a second time"
    if torch_adapter.ignored_logging_functions():
        return (
            "torch._dynamo.config.ignore_logging_functions is set: the compiled code leaves out calls to those functions, "
            "which an eager run would make"
        )
    return None


def _described(original: Any) -> tuple[str, str | None]:
    """The callable in the user's words ("Net", "train_step") and its file:line."""
    module = _module_of(original)
    target = type(module).forward if module is not None else inspect.unwrap(original)
    name = type(module).__name__ if module is not None else getattr(target, "__qualname__", None) or repr(target)
    code = getattr(target, "__code__", None)
    return str(name), f"{code.co_filename}:{code.co_firstlineno}" if code is not None else None


def _program_line() -> str | None:
    """The program's line that called torch.compile (the first frame out of torch and
    compilescope), as file:line."""
    import os

    ours = (os.path.dirname(os.path.dirname(__file__)), os.path.dirname(torch.__file__))
    frame = sys._getframe(1)
    while frame is not None:
        if not frame.f_code.co_filename.startswith(ours) and not frame.f_code.co_filename.startswith("<frozen"):
            return f"{frame.f_code.co_filename}:{frame.f_lineno}"
        frame = frame.f_back  # type: ignore[assignment]
    return None


def _module_of(original: Any) -> torch.nn.Module | None:
    """The module whose call torch.compile compiled: its bound __call__, or torch's wrapper of
    a torch.nn module (external_utils.wrap_inline); None for a function."""
    for candidate in (getattr(original, "__self__", None), inspect.unwrap(original)):
        if isinstance(candidate, torch.nn.Module):
            return candidate
    return None


def _call_tensors(original: Any, args: tuple, kwargs: dict[str, Any]) -> list[torch.Tensor]:
    """Every tensor a call can read: its arguments', and the parameters and buffers of the module
    it belongs to and of any module among its arguments (`self` of a compiled method)."""
    leaves = _leaves((args, kwargs))
    modules = [_module_of(original), *(leaf for leaf in leaves if isinstance(leaf, torch.nn.Module))]
    held = [t for m in modules if m is not None for t in (*m.parameters(), *m.buffers())]
    return [leaf for leaf in leaves if isinstance(leaf, torch.Tensor)] + held


def _in_float64(tensor: torch.Tensor) -> torch.Tensor:
    """A copy of the tensor, float64 where it is a float; a parameter stays a parameter."""
    copied = torch_adapter.clone_input(tensor)
    if copied.is_floating_point():
        with torch.no_grad():
            copied = copied.to(torch.float64)
        copied.requires_grad_(tensor.requires_grad)
    if isinstance(tensor, torch.nn.Parameter):
        return torch.nn.Parameter(copied.detach(), requires_grad=tensor.requires_grad)
    return copied


def _tensors(value: Any) -> list[torch.Tensor]:
    return [leaf for leaf in _leaves(value) if isinstance(leaf, torch.Tensor)]


def _leaves(value: Any) -> list[Any]:
    try:
        import torch.utils._pytree as pytree

        return list(pytree.tree_leaves(value))
    except Exception:
        from compilescope.record.accuracy_compare import flat

        return flat(value)
