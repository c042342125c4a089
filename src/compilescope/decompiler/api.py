"""compilescope.decompile(): source for any function or code object, never silently wrong.

Where the decompiler does not understand a construct, the result is still valid Python: the
function's signature, a comment saying what stopped it, its bytecode with that instruction
marked, and a body that raises NotImplementedError if run, so a guess can never pass for the
program.
"""

from __future__ import annotations

import ast
import dis
import inspect
import time
from dataclasses import dataclass
from types import CodeType
from typing import Any

import compilescope.decompiler.versions as versions
from compilescope.decompiler.building import add_defaults, function_name, function_source
from compilescope.decompiler.unparse import unparse
from compilescope.decompiler.values import Unsupported, arguments
from compilescope.decompiler.versions import PYTHON, TYPE_PARAMS


@dataclass
class Decompiled:
    source: str  # valid Python in every case
    complete: bool  # False: the body is the annotated bytecode, not decompiled
    note: str | None = None  # what stopped the decompiler, where
    seconds: float = 0.0


def code_of(target: Any) -> CodeType:
    """The code object behind a function, method, nn.Module (its forward), torch.compile
    wrapper or any callable; a clear TypeError for anything else."""
    return _function_of(target)[0]


def _function_of(target: Any) -> tuple[CodeType, Any]:
    """(the code, the function object that holds its defaults, or None)."""
    for _ in range(10):  # unwrap: bound methods, functools.wraps chains, torch.compile's wrapper
        if isinstance(target, CodeType):
            return target, None
        if inspect.ismethod(target):
            target = target.__func__
            continue
        inner = getattr(target, "_torchdynamo_orig_callable", None) or getattr(target, "__wrapped__", None)
        if inner is not None and inner is not target:
            target = inner
            continue
        code = getattr(target, "__code__", None)
        if isinstance(code, CodeType):
            return code, target
        if getattr(target, "forward", None) is not None and not isinstance(target, type):  # nn.Module, OptimizedModule
            target = getattr(target, "_orig_mod", target).forward
            continue
        call = getattr(type(target), "__call__", None)  # noqa: B004  (its code is wanted, not whether it is callable)
        if call is not None and hasattr(call, "__code__"):
            target = call
            continue
        break
    raise TypeError(f"compilescope.decompile() takes a function, method, module or code object, not {type(target).__name__}")


def decompile_code(code: CodeType, function: Any = None) -> Decompiled:
    """Source for a code object (with the defaults of `function`, when given)."""
    started = time.perf_counter()
    defaults, kwdefaults = getattr(function, "__defaults__", None), getattr(function, "__kwdefaults__", None)
    if not versions.READS_THIS_PYTHON:
        note = (
            f"compilescope reads the bytecode of Python {versions.OLDEST[0]}.{versions.OLDEST[1]} to "
            f"{versions.NEWEST[0]}.{versions.NEWEST[1]}, not yet {PYTHON}'s: shown as it is"
        )
        return Decompiled(_annotated(code, Unsupported(None, note), defaults, kwdefaults), False, note, time.perf_counter() - started)
    try:
        source = function_source(code, defaults, kwdefaults)
        return Decompiled(source, True, None, time.perf_counter() - started)
    except Unsupported as error:
        return Decompiled(_annotated(code, error, defaults, kwdefaults), False, str(error), time.perf_counter() - started)
    except RecursionError:
        note = "this function is nested too deeply for the decompiler"
        return Decompiled(_annotated(code, Unsupported(None, note), defaults, kwdefaults), False, note, time.perf_counter() - started)
    except Exception as error:  # a bug of ours: still the bytecode, never a crash of the caller
        note = f"the decompiler failed ({type(error).__name__}: {error}); please report it"
        return Decompiled(_annotated(code, Unsupported(None, note), defaults, kwdefaults), False, note, time.perf_counter() - started)


def decompile(target: Any) -> str:
    """Python source for `target` (a function, method, nn.Module, torch.compile wrapper or code
    object): readable, valid, and equivalent to the bytecode. What the decompiler does not
    understand yet comes out as the annotated bytecode in a function that raises if run."""
    return decompile_code(*_function_of(target)).source


def _annotated(
    code: CodeType, error: Unsupported, defaults: tuple[Any, ...] | None = None, kwdefaults: dict[str, Any] | None = None
) -> str:
    stop = error.instruction.offset if error.instruction is not None else None
    version = PYTHON
    lines = [
        f"compilescope could not decompile {code.co_name}: {error}",
        f"Its bytecode (Python {version}); the instruction it stopped at is marked >>:"
        if stop is not None
        else f"Its bytecode (Python {version}):",
    ]
    for instruction in dis.get_instructions(code):
        if instruction.opname == "CACHE":
            continue
        mark = ">>" if instruction.offset == stop else "  "
        lines.append(f"{mark} {instruction.offset:5} {instruction.opname:<24} {instruction.argrepr}".rstrip())
    # (no type_params here, which typeshed requires: 3.10 and 3.11 have none; set below on 3.12+)
    function = ast.FunctionDef(  # type: ignore[call-overload]
        name=function_name(code),
        args=arguments(code),
        body=[
            ast.Raise(
                exc=ast.Call(
                    func=ast.Name(id="NotImplementedError", ctx=ast.Load()),
                    args=[ast.Constant(value=f"compilescope could not decompile {code.co_name}: {error}")],
                    keywords=[],
                ),
                cause=None,
            )
        ],
        decorator_list=[],
        returns=None,
        type_comment=None,
        lineno=1,
    )
    if TYPE_PARAMS:
        function.type_params = []
    notes = add_defaults(function.args, defaults, kwdefaults)  # (they live on the function, not its code)
    text = unparse(ast.fix_missing_locations(ast.Module(body=[function], type_ignores=[])))
    header, body = text.split("\n", 1)
    comments = "\n".join(f"    # {line}" for line in lines)
    return "".join(f"{note}\n" for note in notes) + f"{header}\n{comments}\n{body}\n"
