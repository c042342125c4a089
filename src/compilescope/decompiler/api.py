"""compilescope.decompile(): source for any function or code object, never silently wrong.

Where the decompiler does not understand a construct, the result is still valid Python: the
function's signature, a comment saying what stopped it, its bytecode with that instruction
marked, and a body that raises NotImplementedError if run, so a guess can never pass for the
program.
"""

from __future__ import annotations

import ast
import dis
import functools
import inspect
import re
import reprlib
import time
from dataclasses import dataclass
from types import CodeType
from typing import Any

import compilescope.decompiler.versions as versions
from compilescope.decompiler.building import add_defaults, function_name, function_source
from compilescope.decompiler.unparse import unparse
from compilescope.decompiler.values import Unsupported, arguments
from compilescope.decompiler.verify import difference
from compilescope.decompiler.versions import PYTHON, TYPE_PARAMS

# the globals Dynamo puts in the code it makes: its graphs, resume functions, imports, builtins
_DYNAMO_NAMES = re.compile(r"\b__(?:compiled_fn_|resume_at_|import_|builtins_dict___)")


@dataclass
class Decompiled:
    source: str  # valid Python in every case
    complete: bool  # False: the body is the annotated bytecode, not decompiled
    note: str | None = None  # what stopped the decompiler, where
    seconds: float = 0.0
    # The output compiled again does what the bytecode does (verify.py). False where it was
    # not decompiled (complete False) or differs: then `difference` says in what, and so does
    # the comment at the top of `source`.
    verified: bool = False
    difference: str | None = None
    # Code Dynamo made (its transformed code, a resume function), which keeps values on its stack
    # across statements: unverified, it is still what Dynamo does, in another order of loads
    made_by_dynamo: bool = False


def made_by_dynamo(code: CodeType) -> bool:
    """Whether torch's Dynamo made this code: it calls Dynamo's own globals (its graphs, resume
    functions, imports, builtins) or is a resume function."""
    return bool(_DYNAMO_NAMES.search(" ".join(code.co_names))) or code.co_name.startswith("torch_dynamo_resume_in_")


class Source(str):
    """compilescope.decompile()'s result: the source, a str, that also says whether it was
    checked against the bytecode (`verified`) and, where not, in what it differs (`difference`)."""

    verified: bool = False
    difference: str | None = None


def _checked(code: CodeType, source: str, started: float) -> Decompiled:
    """The decompilation, checked: where it differs from the bytecode, a comment at its top says
    so, and that it is not the function."""
    said = difference(code, source)
    dynamo = made_by_dynamo(code)
    if said is None:
        return Decompiled(source, True, None, time.perf_counter() - started, verified=True, made_by_dynamo=dynamo)
    if dynamo:
        # (Dynamo's bytecode keeps values on its stack across statements, which no source writes:
        # its code never compiles back to the same instructions)
        warning = (
            f"# compilescope: Dynamo's code, not verified against its bytecode (here: {said}): Dynamo keeps\n"
            "# values on its stack in ways no Python source writes. A reading aid; dis.dis shows what runs.\n"
        )
    else:
        warning = (
            f"# compilescope: this decompilation differs from the bytecode in: {said}.\n"
            "# It is NOT the function: a reading aid only; the bytecode (dis.dis) is what runs.\n"
        )
    return Decompiled(warning + source, True, None, time.perf_counter() - started, False, said, dynamo)


def code_of(target: Any) -> CodeType:
    """The code object behind a function, method, nn.Module (its forward), torch.compile
    wrapper or any callable; a clear TypeError for anything else."""
    return _function_of(target)[0]


def _function_of(target: Any) -> tuple[CodeType, Any, list[str]]:
    """(the code, the function object that holds its defaults or None, and what the target was,
    as comment lines: the arguments a functools.partial binds, the object a method is bound to,
    a staticmethod's or classmethod's decorator)."""
    said: list[str] = []
    for _ in range(10):  # unwrap: bound methods, functools.wraps chains, torch.compile's wrapper
        if isinstance(target, CodeType):
            return target, None, said
        if isinstance(target, (functools.partial, functools.partialmethod)):
            said.append(_partial(target))
            target = target.func
            continue
        if isinstance(target, (staticmethod, classmethod)):
            said.append(f"@{type(target).__name__}")
            target = target.__func__
            continue
        if inspect.ismethod(target):
            bound = target.__self__
            to = f"the class {bound.__name__}" if isinstance(bound, type) else f"{_article(type(bound).__name__)} object (self)"
            said.append(f"# {_qualname(target.__func__)}, a method bound to {to}")
            target = target.__func__
            continue
        module = getattr(target, "_orig_mod", None)  # torch.compile's module wrapper (OptimizedModule)
        if module is not None and not isinstance(target, type) and getattr(module, "forward", None) is not None:
            said.append(
                f"# {type(module).__name__}.forward: what calling the module runs (compiled with torch.compile: the original module's)"
            )
            target = getattr(module.forward, "__func__", module.forward)
            continue
        inner = getattr(target, "_torchdynamo_orig_callable", None) or getattr(target, "__wrapped__", None)
        if inner is not None and inner is not target:
            if getattr(target, "_torchdynamo_orig_callable", None) is inner:
                said.append(f"# torch.compile's wrapper of {_qualname(inner)}: the original function")
            target = inner
            continue
        code = getattr(target, "__code__", None)
        if isinstance(code, CodeType):
            return code, target, said
        if getattr(target, "forward", None) is not None and not isinstance(target, type):  # nn.Module
            said.append(f"# {type(target).__name__}.forward: what calling the module runs")
            target = getattr(target.forward, "__func__", target.forward)  # (the module said it: not "a method bound to")
            continue
        call = getattr(type(target), "__call__", None)  # noqa: B004  (its code is wanted, not whether it is callable)
        if call is not None and hasattr(call, "__code__") and not isinstance(target, type):
            said.append(f"# {type(target).__name__}.__call__: what calling {_article(type(target).__name__)} object runs")
            target = call
            continue
        break
    raise TypeError(f"compilescope.decompile() takes a function, method, module or code object, not {_what(target)}")


def _what(target: Any) -> str:
    """What an object that has no bytecode is, in the error's words."""
    if isinstance(target, type):
        return f"a class ({target.__name__}): pass one of its methods, as {target.__name__}.method, or an instance to decompile its __call__ or forward"
    if inspect.isbuiltin(target) or type(target).__name__ in ("method_descriptor", "wrapper_descriptor", "method-wrapper"):
        return f"{type(target).__name__} {getattr(target, '__qualname__', getattr(target, '__name__', '?'))}: it is written in C and has no Python bytecode"
    return type(target).__name__


def _article(name: str) -> str:
    """'a Net', 'an Adder' (by the first letter: a rule of thumb, as for most class names)."""
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def _qualname(function: Any) -> str:
    """The name as "Net.forward", even for a class defined in a function (its "f.<locals>." left out)."""
    return str(getattr(function, "__qualname__", None) or getattr(function, "__name__", "?")).rsplit("<locals>.", 1)[-1]


def _partial(target: functools.partial[Any] | functools.partialmethod[Any]) -> str:
    """The arguments a partial binds, by the names of the function's parameters."""
    code = getattr(getattr(target, "func", None), "__code__", None)
    names = list(code.co_varnames[: code.co_argcount]) if isinstance(code, CodeType) else []
    if isinstance(target, functools.partialmethod) and names:
        names = names[1:]  # (self comes first, from the call)
    bound = [f"{names[n] if n < len(names) else f'argument {n + 1}'}={_short(value)}" for n, value in enumerate(target.args)]
    bound += [f"{name}={_short(value)}" for name, value in target.keywords.items()]
    kind = type(target).__name__
    return f"# functools.{kind} of {_qualname(target.func)}, which binds " + (", ".join(bound) if bound else "no arguments")


def _short(value: Any) -> str:
    """A bound value, short and on one line (a comment holds it)."""
    text = reprlib.repr(value)
    return "".join(ch if ch.isprintable() else "?" for ch in text)


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
        return _checked(code, function_source(code, defaults, kwdefaults), started)
    except Unsupported as error:
        return Decompiled(_annotated(code, error, defaults, kwdefaults), False, str(error), time.perf_counter() - started)
    except RecursionError:
        note = "this function is nested too deeply for the decompiler"
        return Decompiled(_annotated(code, Unsupported(None, note), defaults, kwdefaults), False, note, time.perf_counter() - started)
    except Exception as error:  # a bug of ours: still the bytecode, never a crash of the caller
        note = f"the decompiler failed ({type(error).__name__}: {error}); please report it"
        return Decompiled(_annotated(code, Unsupported(None, note), defaults, kwdefaults), False, note, time.perf_counter() - started)


def decompile(target: Any) -> Source:
    """Python source for `target` (a function, method, nn.Module, torch.compile wrapper or code
    object): readable, valid, and checked against the bytecode (`.verified`; where False,
    `.difference` and the comment at its top say what differs). What the decompiler does not
    understand yet comes out as the annotated bytecode in a function that raises if run."""
    code, function, said = _function_of(target)
    done = decompile_code(code, function)
    return sourced("".join(f"{line}\n" for line in said) + done.source, done)


def sourced(text: str, done: Decompiled) -> Source:
    """`text` as a Source that carries `done`'s check."""
    result = Source(text)
    result.verified, result.difference = done.verified, done.difference
    return result


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
