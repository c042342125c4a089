"""Every private torch detail capture relies on, each guarded.

A newer torch that moved one of these degrades to "not available in torch X" (a note in the
session), never to a crash in the user's program.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import sys
from collections.abc import Callable, Iterator
from types import CodeType, FrameType
from typing import Any

# torch's structured trace is emitted on this logger (torch/_logging/_internal.py: trace_log);
# TORCH_TRACE and tlparse read the same records.
TRACE_LOGGER = "torch.__trace"


def torch_version() -> str:
    import torch

    return str(torch.__version__)


def not_available(what: str) -> str:
    return f"{what}: not available in torch {torch_version()}"


def trace_logger() -> logging.Logger:
    return logging.getLogger(TRACE_LOGGER)


def interned_strings() -> dict[str, int] | str:
    """The file names torch already interned in this process (it writes each one only once,
    so a capture started late must repeat them), or a note saying why not."""
    try:
        from torch._logging import structured

        table = structured.INTERN_TABLE
        if isinstance(table, dict):
            return dict(table)
    except Exception:
        pass
    return not_available("file names interned before capture")


# Dynamo's module: once it is imported, torch.compile can generate code (and it brings Inductor).
DYNAMO_MODULE = "torch._dynamo"


def inductor_cxx(only_if_loaded: bool = False) -> str | None:
    """The C++ compiler Inductor will call, as it would find it. `only_if_loaded`: None unless
    the program has loaded Inductor's config already (importing it imports Dynamo and Inductor,
    about a second, in a program that may never compile)."""
    try:
        if only_if_loaded:
            loaded = sys.modules.get("torch._inductor.config")
            if loaded is None:
                return None
            config: Any = loaded
        else:
            from torch._inductor import config

        configured = config.cpp.cxx
        names = [c for c in configured if c] if isinstance(configured, tuple) else [configured]
        for name in names:
            if isinstance(name, str) and shutil.which(name):
                return name
        return names[0] if names else None
    except Exception:
        return None


# Dynamo's settings that findings may advise on: their values as the program ended, so advice
# names only settings this torch has, by their exact names (torch renames them: cache_size_limit
# became recompile_limit).
DYNAMO_SETTINGS = (
    "recompile_limit",
    "cache_size_limit",
    "capture_scalar_outputs",
    "capture_dynamic_output_shape_ops",
    "specialize_int",
    "specialize_float",
    "automatic_dynamic_shapes",
    "assume_static_by_default",
    "reorderable_logging_functions",
    "ignore_logging_functions",
    "optimize_ddp",
)


def dynamo_config() -> Any:
    """torch._dynamo.config, once the program has imported Dynamo; None before."""
    return sys.modules.get("torch._dynamo.config")


def on_module_registered(hook: Callable[[Any, str, Any], None]) -> Any:
    """Call `hook(module, name, submodule)` as each submodule is registered on a module
    (torch.nn's global module-registration hooks: torch.compile(module) registers the module
    as its OptimizedModule's `_orig_mod`). The handle to remove it, or a line saying why not."""
    try:
        from torch.nn.modules.module import register_module_module_registration_hook

        return register_module_module_registration_hook(hook)
    except Exception as error:
        return not_available(f"module registration hooks ({type(error).__name__})")


def frames_dynamo_converted() -> int | None:
    """How many frames Dynamo has set out to compile in this process (its frame counter); None
    where Dynamo was never loaded (nothing asked torch.compile for anything: it is not loaded
    here either, a second of imports) or this torch does not count them."""
    import sys

    utils = sys.modules.get("torch._dynamo.utils")
    try:
        return int(utils.counters["frames"]["total"]) if utils is not None else None
    except Exception:
        return None


def modules_compiled_in_place(most: int) -> list[Any]:
    """The modules alive now that `module.compile()` compiled in place (nn.Module.compile sets
    their `_compiled_call_impl`), one per class, at most `most`; found among the objects
    Python's collector tracks, so asked only where it pays (nothing was compiled)."""
    import gc

    import torch

    found: dict[type, Any] = {}
    for value in gc.get_objects():
        # (type(), not isinstance: isinstance asks an object for its __class__, which a
        # deprecated name of torch's answers with a warning on the program's stderr)
        kind = type(value)
        if issubclass(kind, torch.nn.Module) and kind not in found and vars(value).get("_compiled_call_impl") is not None:
            found[kind] = value
            if len(found) >= most:
                break
    return list(found.values())


def on_compile_start(callback: Callable[[], object]) -> str | None:
    """Call `callback` as each compile starts (torch._dynamo.callback's start callbacks); a
    line saying why not where this torch has none."""
    try:
        from torch._dynamo.callback import callback_handler

        def on_start(*args: Any, **kwargs: Any) -> None:
            callback()

        callback_handler.register_start_callback(on_start)
    except Exception as error:
        return not_available(f"compile start callbacks ({type(error).__name__})")
    return None


class _Fresh:
    """A backend Dynamo has not seen: the code it compiled earlier in the process is guarded on
    the backend (BACKEND_MATCH), so it compiles afresh, as torch._dynamo.explain does with its
    own backend. Everything but the call is the wrapped backend's."""

    def __init__(self, compiler: Any) -> None:
        self._compiler = compiler

    def __call__(self, gm: Any, inputs: Any) -> Any:
        return self._compiler(gm, inputs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._compiler, name)


def fresh_backend(backend: Any, mode: str | None, options: dict[str, Any] | None, dynamic: bool | None) -> Any:
    """torch.compile's backend for (backend, mode, options), made new: a string backend as
    torch.compile makes it (torch._TorchCompileInductorWrapper / _TorchCompileWrapper), then
    wrapped so that Dynamo has never seen it. NotAvailable where this torch lacks them."""
    import torch

    try:
        if callable(backend):
            if mode is not None or options:
                raise ValueError("mode and options are for a backend named by a string")
            return _Fresh(backend)
        if backend == "inductor":
            return _Fresh(torch._TorchCompileInductorWrapper(mode, options, dynamic))
        return _Fresh(torch._TorchCompileWrapper(backend, mode, options, dynamic))
    except AttributeError as error:
        raise NotAvailable(not_available(f"torch.compile's backend wrappers ({error})")) from None


class NotAvailable(RuntimeError):
    """A private torch API compilescope needs is not in this torch."""


def dynamo_settings() -> dict[str, str] | None:
    """The values of DYNAMO_SETTINGS that this torch has, as repr(); None where the program has
    not loaded Dynamo (asking would import it)."""
    config = sys.modules.get("torch._dynamo.config")
    if config is None:
        return None
    found = {}
    for name in DYNAMO_SETTINGS:
        try:
            value = getattr(config, name)
        except Exception:  # not in this torch (or its config refuses the read)
            continue
        text = repr(value)
        found[name] = text if len(text) <= 200 else text[:200] + "…"
    return found


def register_bytecode_hook(hook: Callable[[CodeType, CodeType], CodeType | None], first: bool = False) -> Any:
    """Ask Dynamo to tell `hook(original_code, transformed_code)` about each code object it
    generates, before the code first runs. The hook returns None: Dynamo keeps its own code (only
    compilescope.debug's returns a code to run instead). `first`: called before the hooks
    registered already, so that they are given the code it returns (convert_frame calls them in
    order, each with the code the one before returned). Returns the handle to remove it, or a
    note saying why it is not available."""
    try:
        from torch._dynamo import convert_frame

        given: Any = hook  # (torch's BytecodeHook protocol names the arguments code and new_code)
        handle = convert_frame.register_bytecode_hook(given)
    except Exception as error:
        return f"{not_available('Dynamo bytecode hooks')} ({type(error).__name__})"
    if first:
        with contextlib.suppress(Exception):  # (an OrderedDict by handle id in torch 2.1 to 2.13)
            hooks: Any = convert_frame._bytecode_hooks
            hooks.move_to_end(handle.id, last=False)
    return handle


def guard_tree(original: CodeType, code: CodeType) -> str | None:
    """torch's guard tree (the text `dynamo_cpp_guards_str` records) of the compiled version of
    `original` that runs `code`, from Dynamo's cache entries; None where it has none (gone, or
    this torch keeps no guard manager there)."""
    try:
        from torch._dynamo.eval_frame import _debug_get_cache_entry_list

        for entry in _debug_get_cache_entry_list(original):
            if entry.code is code:
                return str(entry.guard_manager)
    except Exception:
        return None
    return None


def current_compile_id() -> dict[str, Any] | None:
    """The compile id Dynamo is working on now, as plain numbers; None outside a compile."""
    try:
        from torch._guards import CompileContext

        compile_id = CompileContext.current_compile_id()
    except Exception:
        return None
    if compile_id is None:
        return None
    return {
        "frame_id": getattr(compile_id, "frame_id", None),
        "frame_compile_id": getattr(compile_id, "frame_compile_id", None),
        "attempt": getattr(compile_id, "attempt", 0) or 0,
        "compiled_autograd_id": getattr(compile_id, "compiled_autograd_id", None),
    }


def compiling_scope(original: CodeType) -> tuple[dict[str, Any], tuple] | None:
    """The locals and closure cells of the frame Dynamo is compiling `original` in, from inside
    a bytecode hook: convert_frame's `_compile` arguments up the stack; None where that is not
    there (a newer torch). Read only, to name the function (record/generated.py)."""
    for local in _compiling_frames(original, ("_compile",)):
        scope, closure = local.get("locals"), local.get("closure")
        return (scope if isinstance(scope, dict) else {}, closure if isinstance(closure, tuple) else ())
    return None


def compiling_globals(original: CodeType) -> dict[str, Any] | None:
    """The globals of the frame Dynamo is compiling `original` in, from inside a bytecode hook:
    where it installs the names its code calls (`__resume_at_*`, `__compiled_fn_*`). Found as
    the `globals` argument of convert_frame's `_compile` up the stack; None where that is not
    there (a newer torch)."""
    for local in _compiling_frames(original, ("_compile", "_compile_inner")):
        if isinstance(local.get("globals"), dict):
            return local["globals"]
    return None


def _compiling_frames(original: CodeType, functions: tuple[str, ...]) -> Iterator[dict[str, Any]]:
    """The locals of each frame up the stack of convert_frame's `functions` that is compiling
    `original` (its `code` argument), nearest first; none where the stack cannot be read."""
    try:
        frame: FrameType | None = sys._getframe(2)
        while frame is not None:
            local = frame.f_locals
            if frame.f_code.co_name in functions and local.get("code") is original:
                yield local
            frame = frame.f_back
    except Exception:
        return


def compiled_versions(code: CodeType) -> list[tuple[str, CodeType]] | str:
    """(compile id, Dynamo's transformed code) of each compiled version of `code` this process
    still holds (torch's cache entries on the code object), oldest first; or why not."""
    try:
        from torch._dynamo.eval_frame import _debug_get_cache_entry_list

        entries = list(_debug_get_cache_entry_list(code))
    except Exception:  # (moved or renamed in a newer torch)
        return not_available("Dynamo's cache entries (torch._dynamo.eval_frame._debug_get_cache_entry_list)")
    found = [(str(getattr(e, "compile_id", None) or "unknown"), e.code) for e in entries if isinstance(getattr(e, "code", None), CodeType)]
    return found[::-1]  # (torch keeps the newest first)


# ---- run --check-accuracy (record/accuracy.py) ----------------------------------------------


def wrap_graph_compiles(wrap: Callable[[Any, list[Any], Any, Any, dict[str, Any]], Any]) -> str | None:
    """Have Dynamo give each graph it compiles to `wrap(graph, example_inputs, compiled, backend,
    capture)` and run what that returns instead of the backend's result (OutputGraph.
    call_user_compiler: the one place every backend's graph passes); `capture` says what Dynamo
    made of the frame around the graph (`capture_facts`). A line saying why not, where this torch
    has no such place. Only `run --check-accuracy` asks for it."""
    try:
        from torch._dynamo.output_graph import OutputGraph

        original = OutputGraph.call_user_compiler
    except Exception as error:
        return not_available(f"Dynamo's backend call ({type(error).__name__})")

    def call_user_compiler(self: Any, gm: Any, example_inputs: list[Any]) -> Any:
        graph = copied_graph(gm)  # (before the backend: its passes change the graph in place)
        compiled = original(self, gm, example_inputs)
        return wrap(graph, example_inputs, compiled, getattr(self, "compiler_fn", None), capture_facts(self))

    call_user_compiler.__wrapped__ = original  # type: ignore[attr-defined]
    OutputGraph.call_user_compiler = call_user_compiler  # type: ignore[method-assign]
    return None


def capture_facts(output_graph: Any) -> dict[str, Any]:
    """Whether the frame a graph came from broke into more graphs ("graph_break") or is the code
    after a break ("resumed"), whether
    Dynamo replays Python side effects after it ("side_effects": an attribute set, a list
    appended to), and whether it calls print or a logging function after it, reordered
    ("replays_calls": config.reorderable_logging_functions, the translator's debug_locals); a
    fact torch does not say is left out."""
    facts: dict[str, Any] = {}
    with contextlib.suppress(Exception):
        facts["graph_break"] = bool(output_graph.compile_subgraph_reason.graph_break)
    with contextlib.suppress(Exception):
        facts["side_effects"] = replays_side_effects(output_graph.side_effects)
    with contextlib.suppress(Exception):
        facts["replays_calls"] = bool(output_graph.root_tx.debug_locals)
    with contextlib.suppress(Exception):
        # (code after a graph break, compiled as a function of its own: the call broke, though
        # the code before the break may have made no graph, so no graph of its says so)
        facts["resumed"] = output_graph.root_tx.f_code.co_name.startswith("torch_dynamo_resume_in_")
    return facts


def ignored_logging_functions() -> int | None:
    """How many functions torch._dynamo.config.ignore_logging_functions holds (calls the compiled
    code leaves out); None where Dynamo is not loaded or has no such setting."""
    import sys

    config = sys.modules.get("torch._dynamo.config")
    ignored = getattr(config, "ignore_logging_functions", None)
    return len(ignored) if isinstance(ignored, (set, frozenset, list, tuple)) else None


def replays_side_effects(side_effects: Any) -> bool:
    """Whether Dynamo changes objects that existed before the frame ran (an attribute set, a list
    appended to, a global) or installs tensor hooks after the graph. Objects the frame made
    (its tensors among them) are tracked too, but an eager run makes its own."""
    for variable in side_effects.id_to_variable.values():
        made_by_frame = type(getattr(variable, "mutation_type", None)).__name__.endswith("New")
        if not made_by_frame and side_effects.is_modified(variable):
            return True
    return bool(side_effects.tensor_hooks)


def wrap_compiled_callables(wrap: Callable[[Any, Any], Any]) -> str | None:
    """Have each function torch.compile makes (of a function, of a module's call, of
    Module.compile's) pass through `wrap(original, compiled)` and hand the program what that
    returns (OptimizeContext.__call__, which torch.compile and torch._dynamo.optimize use). A line
    saying why not, where this torch has no such place. Only `run --check-accuracy` asks for it."""
    try:
        import torch
        from torch._dynamo.eval_frame import OptimizeContext

        original = OptimizeContext.__call__
    except Exception as error:
        return not_available(f"torch.compile's wrapper ({type(error).__name__})")

    def __call__(self: Any, fn: Any) -> Any:
        compiled = original(self, fn)
        if isinstance(fn, torch.nn.Module) or not callable(compiled) or compiled is fn:
            return compiled  # (a module's OptimizedModule: its call came through here already)
        return wrap(fn, compiled)

    __call__.__wrapped__ = original  # type: ignore[attr-defined]
    OptimizeContext.__call__ = __call__  # type: ignore[method-assign]
    return None


@contextlib.contextmanager
def running_eagerly() -> Iterator[None]:
    """Run the code inside eagerly (nothing compiled, nothing recorded:
    torch.compiler.set_stance("force_eager"), torch >= 2.6), down the paths Dynamo traced:
    torch.compiler.is_compiling() True, as torch's own non-strict export runs Python
    (torch.compiler._is_compiling_flag). Code under `if not torch.compiler.is_compiling():` (a
    print, a logger's warning, a counter) is what the compiled code left out; run here, it would
    change the program's output. Raises NotAvailable where this torch has no such flag."""
    import torch

    compiler = torch.compiler
    if not isinstance(getattr(compiler, "_is_compiling_flag", None), bool):
        raise NotAvailable(not_available("torch.compiler._is_compiling_flag (running Python as Dynamo traced it)"))
    before = compiler._is_compiling_flag
    with torch.compiler.set_stance("force_eager"):
        compiler._is_compiling_flag = True
        try:
            yield
        finally:
            compiler._is_compiling_flag = before


def skipping_guards() -> bool | None:
    """Whether compiled code runs without its guards checked (torch.compiler.set_stance(
    skip_guard_eval_unsafe=True)); None: not known in this torch."""
    try:
        from torch._dynamo.eval_frame import _is_skip_guard_eval_unsafe_stance

        return bool(_is_skip_guard_eval_unsafe_stance())
    except Exception:
        return None


def copied_graph(gm: Any) -> Any:
    """A GraphModule that runs `gm`'s graph as it is now, on its own copy of the graph (its
    modules and tensors shared); its nodes' metadata (Dynamo's fake tensors) dropped, so that a
    backend given it later makes its own, as torch's repro scripts do. None where it cannot be
    copied."""
    import copy

    try:
        import torch.fx

        graph = copy.deepcopy(gm.graph)
        placeholders = {}
        for node in graph.nodes:
            if node.op == "placeholder":
                placeholders[node.name] = _source_name(node)
            node.meta = {}
        copied = torch.fx.GraphModule(gm, graph)
        copied.__dict__["_compilescope_inputs"] = [placeholders[n.name] for n in graph.nodes if n.op == "placeholder"]
        return copied
    except Exception:
        return None


def _source_name(node: Any) -> str:
    """The name a graph's input has in the user's code ("L['x']", "L['self']._modules['fc']
    ._parameters['weight']"), as Dynamo's source says it; the placeholder's name where none."""
    for holder in (node, node.meta.get("grapharg")):
        source = getattr(holder, "_dynamo_source", None) or getattr(holder, "source", None)
        if source is not None:
            with contextlib.suppress(Exception):
                name = source.name
                return str(name() if callable(name) else name)
    return str(node.name)


def backend_facts(compiler_fn: Any) -> tuple[str | None, dict[str, Any]]:
    """The backend's name as torch.compile was given it ("inductor", "aot_eager"; None for a
    function of the user's) and its settings (Inductor's mode and options, as its config
    changes: {"triton.cudagraphs": True} under mode="reduce-overhead")."""
    seen = 0
    while compiler_fn is not None and seen < 5:
        name = getattr(compiler_fn, "compiler_name", None)
        if isinstance(name, str):
            config = getattr(compiler_fn, "config", None)
            return name, dict(config) if isinstance(config, dict) else {}
        compiler_fn = getattr(compiler_fn, "_torchdynamo_orig_backend", None) or getattr(compiler_fn, "_compiler", None)
        seen += 1
    return None, {}


def clone_input(value: Any) -> Any:
    """A copy of a tensor with its strides (torch._dynamo.utils.clone_input, which torch's own
    accuracy checks use); detached, requires_grad as the original."""
    import torch

    if not isinstance(value, torch.Tensor):
        return value
    try:
        from torch._dynamo.utils import clone_input as torch_clone

        copied = torch_clone(value.detach())
    except Exception:
        copied = value.detach().clone()
    return copied.requires_grad_(value.requires_grad) if copied.is_leaf and (copied.is_floating_point() or copied.is_complex()) else copied


def in_float64(gm: Any, inputs: list[Any]) -> tuple[Any, list[Any]]:
    """The graph and its inputs with every float made float64 (torch's cast_to_fp64, as its
    accuracy checks make their reference)."""
    import copy

    from torch._dynamo.debug_utils import cast_to_fp64

    return cast_to_fp64(copy.deepcopy(gm), inputs)


def lookup_backend(name: str) -> Any:
    from torch._dynamo.backends.registry import lookup_backend as lookup

    return lookup(name)


def dynamo_repro_script(gm: Any, inputs: list[Any], backend: str | None, save_dir: str) -> str:
    """torch's own after-Dynamo repro script of `gm` on `inputs` (their values saved under
    `save_dir`), whose `minify` command runs torch's accuracy minifier with `backend`, and whose
    `run` command checks it again (torch._dynamo.repro.after_dynamo)."""
    from torch._dynamo.repro.after_dynamo import generate_dynamo_fx_repro_string

    return generate_dynamo_fx_repro_string(gm, inputs, backend, check_accuracy=True, save_dir=save_dir, command="minify")
