"""The code Dynamo generated, read back as Python (compilescope run --decompile, the report).

Dynamo's bytecode hook tells us, before it first runs, each code object Dynamo made: the
transformed code of a compiled version (it calls the compiled graph, then the resume function
after a graph break) and the code of the function it came from. We keep those code objects and
decompile them when the capture ends (the decompiler is stdlib only; nothing of Dynamo's is
replaced or re-run). Each resume function a transformed code calls (`__resume_at_102_2`, a name
Dynamo installs in the module's globals) is linked to the function it names, so the reader can
follow the program from one to the next.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from types import CodeType
from typing import Any

from compilescope.record.hook_failures import HookFailures
from compilescope.trace.reader import CompileId

_RESUME_GLOBAL = re.compile(r"^__resume_at_\d+_\d+$")
_GRAPH_GLOBAL = re.compile(r"^__compiled_fn_\d+")


@dataclass
class _Generated:
    compile_id: str
    original: CodeType
    transformed: CodeType
    resumes: dict[str, str] = field(default_factory=dict)  # global name -> the resume function's name
    qualname: str | None = None  # the name users know: "GPT2LMHeadModel.forward"
    wraps: str | None = None  # for a decorator's inner function: what it wraps
    # the user's frames that called the compiled function, outermost first: (file, line, name)
    callers: list[tuple[str, int, str]] = field(default_factory=list)


class GeneratedCodeRecorder:
    def __init__(self) -> None:
        self.unavailable: str | None = None
        self.failures = HookFailures("reading Dynamo's code back")
        self._generated: list[_Generated] = []
        # id(a resume function's code) -> the global names it is installed under: Dynamo reuses
        # one resume function for the same break in every version, under a new name each time
        self._resume_names: dict[int, list[str]] = {}
        self._handle: Any = None
        self._alive: list[CodeType] = []  # the resume codes named above: no id is reused
        self._lock = threading.Lock()

    def start(self) -> None:
        import compilescope.record.torch_adapter as torch_adapter

        handle = torch_adapter.register_bytecode_hook(self._on_new_code)
        if isinstance(handle, str):
            self.unavailable = f"not recorded: {handle}"
            return
        self._handle = handle

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.remove()
            self._handle = None

    def _on_new_code(self, original: CodeType, transformed: CodeType) -> None:
        label = f"a compiled version of {getattr(original, 'co_name', '?')}"
        try:
            import compilescope.record.torch_adapter as torch_adapter

            compile_id = torch_adapter.current_compile_id()
            label = str(CompileId(**compile_id)) if compile_id else "unknown"
            resumes: dict[str, str] = {}
            names = [n for n in transformed.co_names if _RESUME_GLOBAL.match(n)]
            if names:
                scope = torch_adapter.compiling_globals(original) or {}
                for name in names:
                    code = getattr(scope.get(name), "__code__", None)
                    if isinstance(code, CodeType):
                        resumes[name] = code.co_name
                        with self._lock:
                            self._resume_names.setdefault(id(code), []).append(name)
                            self._alive.append(code)
            qualname, wraps = _names(original, torch_adapter.compiling_scope(original))
            with self._lock:
                self._generated.append(_Generated(label, original, transformed, resumes, qualname, wraps, user_callers()))
        except Exception as error:  # reading the code back is a bonus: never let it fail a compile,
            self.failures.add(error, f"{label} ({getattr(original, 'co_name', '?')})")  # but say so
        return None  # keep Dynamo's code

    def facts(self) -> dict[str, Any]:
        """What goes into the trace as the `compilescope_generated_code` record: for each
        compiled version, its function's code and the transformed code, decompiled."""
        if self.unavailable is not None:
            return {"unavailable": self.unavailable}
        started = time.perf_counter()
        with self._lock:
            generated = list(self._generated)
        if generated:  # the decompiler takes a tenth of a second to import: only when needed
            from compilescope.decompiler import decompile_code
        originals: dict[int, dict[str, Any]] = {}
        versions = []
        for item in generated:
            if id(item.original) not in originals:
                originals[id(item.original)] = _source(decompile_code(item.original))
            versions.append(
                {
                    "compile_id": item.compile_id,
                    "function": item.original.co_name,
                    "filename": item.original.co_filename,
                    "lineno": item.original.co_firstlineno,
                    "original": originals[id(item.original)],
                    "transformed": _source(decompile_code(item.transformed)),
                    "resume_functions": item.resumes,
                    "compiled_graphs": [n for n in item.transformed.co_names if _GRAPH_GLOBAL.match(n)],
                    "called_as": self._resume_names.get(id(item.original), []),
                    "qualname": item.qualname,
                    "wraps": item.wraps,
                    "parameters": parameters(item.original),
                    "called_from": [f"{file}:{line} in {name}" for file, line, name in item.callers],
                    "call_code": _line(*item.callers[-1][:2]) if item.callers else None,
                }
            )
        return {"versions": versions, "decompile_s": time.perf_counter() - started, **self.failures.facts()}


def parameters(code: CodeType) -> list[str]:
    """The function's parameters as its `def` writes them: ["self", "x", "*args", "key",
    "**kwargs"] (keyword-only ones after "*args", or after a bare "*")."""
    import inspect

    names = list(code.co_varnames)
    positional = code.co_argcount
    keyword_only = code.co_kwonlyargcount
    out = names[:positional]
    at = positional + keyword_only
    if code.co_flags & inspect.CO_VARARGS:
        out.append("*" + names[at])
        at += 1
    elif keyword_only:
        out.append("*")
    out.extend(names[positional : positional + keyword_only])
    if code.co_flags & inspect.CO_VARKEYWORDS:
        out.append("**" + names[at])
    return out


def user_callers(most: int = 8) -> list[tuple[str, int, str]]:
    """The user's frames on the stack now, outermost first (inside the bytecode hook, the
    compiled function's callers are below Dynamo's frames: torch's own stack in dynamo_start
    leaves them out for a function given to torch.compile). Only read."""
    import sys

    from compilescope.session.places import is_user_code

    found: list[tuple[str, int, str]] = []
    frame: Any = sys._getframe(2)
    while frame is not None and len(found) < most:
        code = frame.f_code
        if is_user_code(code.co_filename):
            found.append((code.co_filename, frame.f_lineno, code.co_name))
        frame = frame.f_back
    return found[::-1]


def _line(filename: str, lineno: int) -> str | None:
    import linecache

    text = linecache.getline(filename, lineno).strip()
    return text or None


def _names(code: CodeType, scope: tuple[dict[str, Any], tuple] | None) -> tuple[str | None, str | None]:
    """The compiled function's qualified name, as users know it, and, for a decorator's inner
    function (`can_return_tuple.<locals>.wrapper`), the function it wraps: found among its
    closure's cells, the way the decorator holds it. A method is named by the class of the
    object it ran on (a dataclass's generated __init__ by the dataclass: its code has none).
    Only names are read (no call, no repr)."""
    qualname = getattr(code, "co_qualname", None) or code.co_name
    local, closure = scope if scope is not None else ({}, ())
    first = code.co_varnames[0] if code.co_argcount and code.co_varnames else None
    if first == "self" and "self" in local:
        owner = type(local["self"]).__qualname__
        if "<locals>" in qualname or not qualname.startswith(owner + "."):
            if "<locals>" not in qualname or code.co_name in ("__init__", "__post_init__", "__eq__", "__repr__"):
                qualname = f"{owner}.{code.co_name}"
    wraps = None
    if "<locals>" in qualname:
        for cell in closure:
            try:
                held = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            name = _callable_name(held)
            if name is not None:
                wraps = name
                break
    return qualname, wraps


def _callable_name(value: Any) -> str | None:
    """ "GPT2LMHeadModel.forward" for a function or bound method; None for anything else."""
    import types

    if isinstance(value, types.MethodType):
        function = value.__func__
        return f"{type(value.__self__).__qualname__}.{getattr(function, '__name__', '?')}"
    if isinstance(value, types.FunctionType):
        return value.__qualname__
    kind = type(value)
    if callable(value) and hasattr(kind, "forward"):  # a module: torch.compile(module) wraps it
        return f"{kind.__qualname__}.forward"
    return None


def _source(result: Any) -> dict[str, Any]:
    return {
        "source": result.source,
        "complete": result.complete,
        "note": result.note,
        "verified": result.verified,
        "difference": result.difference,
        "made_by_dynamo": result.made_by_dynamo,
    }
