"""Whole definitions from code objects: a function (its signature, defaults, annotations and
body), a nested function, a class body, a comprehension and a lambda. The body is what the
structurer makes of the code's graph (structure.Structurer), tidied; what Python adds to a
class body or a comprehension's code is left out.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterator
from types import CodeType
from typing import Any, cast

from compilescope.decompiler.comprehensions import comprehension_of
from compilescope.decompiler.normalize import EXIT
from compilescope.decompiler.scopes import ENCLOSING, declarations, is_declaration
from compilescope.decompiler.structure import Structurer
from compilescope.decompiler.tidy import tidy
from compilescope.decompiler.unparse import unparse
from compilescope.decompiler.values import NestedBodies, Temporaries, Unsupported, arguments, cell_name
from compilescope.decompiler.versions import TYPE_PARAMS

_CO_GENERATOR = 0x20  # code.co_flags: a generator function
_CO_ASYNC = 0x80 | 0x200  # code.co_flags: a coroutine or an async generator (`async def`)


def function_source(code: CodeType, defaults: tuple[Any, ...] | None = None, kwdefaults: dict[str, Any] | None = None) -> str:
    """Source for a function: `def f(...): ...`, with its default values (see add_defaults).
    Raises Unsupported where it cannot say."""
    function, temps = function_def(code)
    notes = add_defaults(function.args, defaults, kwdefaults)
    text = unparse(ast.fix_missing_locations(ast.Module(body=[function], type_ignores=[]))) + "\n"
    # objects in the code that no literal writes: named, shown here
    notes += [
        f"# {name} is the code's constant {_short_repr(value)} (an object no literal writes)" for name, value in temps.constants.items()
    ]
    if notes:
        text = "\n".join(notes) + "\n" + text
    return text


def function_def(code: CodeType) -> tuple[ast.FunctionDef, Temporaries]:
    """The function as an `ast.FunctionDef` (no defaults: they are not in the code), and the
    temporaries it uses."""
    around = ENCLOSING.set((*ENCLOSING.get(), code))  # (for the declarations of the functions in it)
    try:
        structurer = Structurer(code, NESTED)
        body = tidy(structurer.region(0, EXIT), code, structurer.temps) or [ast.Pass()]
    finally:
        ENCLOSING.reset(around)
    # The `return None` Python adds at the end of a function is not the user's (nor its copies
    # at the end of each way into the end).
    _drop_final_returns(body)
    if code.co_flags & 0x200:  # an async generator may only `return` bare (the same code as `return None`)
        _bare_returns(body)
    # A generator (async too) whose yields are all unreachable is still one: say so, as Python does.
    if code.co_flags & (_CO_GENERATOR | 0x200) and not any(isinstance(n, (ast.Yield, ast.YieldFrom)) for s in body for n in ast.walk(s)):
        body = [*body, ast.If(test=ast.Constant(value=False), body=[ast.Expr(value=ast.Yield(value=None))], orelse=[])]
    # `global`/`nonlocal`: what its stores, deletes and loads say it declared (scopes.py)
    body = [*declarations(code), *body]
    # (no type_params here, which typeshed requires: 3.10 and 3.11 have none; set below on 3.12+)
    kind = ast.AsyncFunctionDef if code.co_flags & _CO_ASYNC else ast.FunctionDef
    function = kind(name=function_name(code), args=arguments(code), body=body, decorator_list=[], returns=None, type_comment=None, lineno=1)  # type: ignore[call-overload]
    if TYPE_PARAMS:
        function.type_params = []
    return function, structurer.temps


def nested_function(code: CodeType) -> ast.FunctionDef:
    """A function defined inside the one being decompiled (its body, decompiled the same way)."""
    function, temps = function_def(code)
    if temps.constants:
        raise Unsupported(None, f"{code.co_name} holds constants no literal writes")
    return function


def _name_or_cell(value: object) -> str | None:
    return value.id if isinstance(value, ast.Name) else cell_name(value)


def class_body(code: CodeType) -> list[ast.stmt]:
    """The statements of a class body (its own code object, run once to fill the namespace),
    without what Python adds: `__module__ = __name__`, `__qualname__ = ...`, 3.13's
    `__firstlineno__` and `__static_attributes__`, the `__class__` cell it returns for methods
    that use `super()`. `__annotations__['x'] = T` after `x = v` is `x: T = v`."""
    function, temps = function_def(code)
    if temps.constants:
        raise Unsupported(None, f"class {code.co_name} holds constants no literal writes")
    declared = [st for st in function.body if is_declaration(st)]  # (first; they go after the docstring)
    body = [st for st in function.body[len(declared) :] if not (isinstance(st, ast.Pass) and len(function.body) == 1 + len(declared))]
    added = {"__module__", "__qualname__", "__firstlineno__", "__static_attributes__", "__classcell__"}
    if body and isinstance(body[-1], ast.Return) and (returned := _name_or_cell(body[-1].value)) is not None:
        # the __class__ cell, perhaps through a temporary
        copied = [st for st in body if _assigned_name(st) == returned and _name_or_cell(st.value) == "__class__"]  # type: ignore[attr-defined]
        if returned == "__class__" or (returned.startswith("__") and len(copied) == 1):
            body = [st for st in body[:-1] if not any(st is c for c in copied)]
    body = [st for st in body if _assigned_name(st) not in added]
    first = body[0] if body else None
    if (
        first is not None
        and _assigned_name(first) == "__doc__"
        and isinstance(first.value, ast.Constant)  # type: ignore[attr-defined]  # (an assignment: it has a value)
        and isinstance(first.value.value, str)  # type: ignore[attr-defined]
    ):
        body[0] = ast.Expr(value=first.value)  # type: ignore[attr-defined]  # the docstring
    if any(isinstance(n, ast.Return) for st in body for n in _own_nodes(st)):
        raise Unsupported(None, f"class {code.co_name}: a return in its body")
    body = _annotated(body)
    documented = (
        1
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)
        else 0
    )
    return [*body[:documented], *declared, *body[documented:]] or [ast.Pass()]


def _assigned_name(statement: ast.stmt) -> str | None:
    """The name `name = value` assigns; None for any other statement."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
        return statement.targets[0].id
    return None


def _own_nodes(statement: ast.stmt) -> Iterator[ast.AST]:
    """The nodes of a statement, not those of the functions and classes it defines."""
    todo: list[ast.AST] = [statement]
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo += list(ast.iter_child_nodes(node))


def _annotated(body: list[ast.stmt]) -> list[ast.stmt]:
    """`x = v; __annotations__['x'] = T` -> `x: T = v`; alone, `x: T`."""
    out: list[ast.stmt] = []
    for statement in body:
        target = statement.targets[0] if isinstance(statement, ast.Assign) and len(statement.targets) == 1 else None
        if (
            isinstance(target, ast.Subscript)
            and isinstance(target.value, ast.Name)
            and target.value.id == "__annotations__"
            and isinstance(target.slice, ast.Constant)
            and isinstance(target.slice.value, str)
        ):
            name = target.slice.value
            value = None
            if out and _assigned_name(out[-1]) == name:
                value = out.pop().value  # type: ignore[attr-defined]
            out.append(ast.AnnAssign(target=ast.Name(id=name, ctx=ast.Store()), annotation=statement.value, value=value, simple=1))  # type: ignore[attr-defined]
            continue
        out.append(statement)
    return out


def comprehension(code: CodeType, iterable: ast.expr) -> ast.expr:
    """A list/set/dict comprehension or generator expression from its own code object (3.10,
    3.11; generator expressions on every version), called with the first `for`'s iterable."""
    kind = code.co_name
    body = nested_function(code).body
    named = {
        n.target.id
        for n in ast.walk(ast.Module(body=body, type_ignores=[]))
        if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name)
    }
    # `(d := e)` in a comprehension binds d in the function around it, which declares it
    # (scopes.py counts a comprehension's stores and global loads as the enclosing body's)
    while body and (isinstance(body[0], ast.Global) or (isinstance(body[0], ast.Nonlocal) and set(body[0].names) <= named)):
        body = body[1:]
    if body and _returns_none(body[-1]):
        body = body[:-1]
    result = None
    if kind in ("<listcomp>", "<setcomp>", "<dictcomp>"):
        if len(body) != 3 or not isinstance(body[0], ast.Assign) or not isinstance(body[2], ast.Return):
            raise Unsupported(None, f"a {kind} of a shape not decompiled yet")
        made = body[0].targets[0]
        if not (isinstance(made, ast.Name) and isinstance(body[2].value, ast.Name) and body[2].value.id == made.id):
            raise Unsupported(None, f"a {kind} of a shape not decompiled yet")
        result, body = made.id, body[1:2]
    if len(body) != 1:
        raise Unsupported(None, f"a {kind} of a shape not decompiled yet")
    return comprehension_of(kind, body[0], result, iterable)


def lambda_of(code: CodeType) -> ast.expr:
    """`lambda args: e`: the body must be one expression (a conditional one comes back as
    `if c: return a` then `return b`)."""
    function = nested_function(code)
    body = [st for st in function.body if not isinstance(st, ast.Global)]  # (declared around it: see scopes.py)
    if (
        len(body) == 2
        and isinstance(body[0], ast.If)
        and not body[0].orelse
        and len(body[0].body) == 1
        and isinstance(body[0].body[0], ast.Return)
        and isinstance(body[1], ast.Return)
    ):
        # (a lambda's returns all have values: `return None` too)
        body = [
            ast.Return(value=ast.IfExp(test=body[0].test, body=cast(ast.expr, body[0].body[0].value), orelse=cast(ast.expr, body[1].value)))
        ]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        raise Unsupported(None, "a lambda whose body is not one expression")
    return ast.Lambda(args=function.args, body=body[0].value)


def _short_repr(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    text = " ".join(text.split())
    return text if len(text) <= 120 else text[:117] + "..."


def function_name(code: CodeType) -> str:
    """The code's name as a Python identifier (`<lambda>` -> `_lambda_`)."""
    name = code.co_name
    return name if name.isidentifier() else "_" + "".join(c if c.isalnum() or c == "_" else "_" for c in name).strip("_") + "_"


def add_defaults(arguments: ast.arguments, defaults: tuple[Any, ...] | None, kwdefaults: dict[str, Any] | None) -> list[str]:
    """The defaults (they live on the function object, not in its code), written as literals or
    builtins' names where they are one; any other object is written as a name `__default_P`,
    and a note for each says what it is. Returns the notes."""
    notes: list[str] = []

    def node(parameter: str, value: Any) -> ast.expr:
        if _literal(value):
            return _literal_node(value)
        name = getattr(value, "__name__", None)
        if isinstance(name, str) and getattr(builtins, name, None) is value:
            return ast.Name(id=name, ctx=ast.Load())
        notes.append(f"# __default_{parameter} is the default {_short_repr(value)} (an object no literal writes)")
        return ast.Name(id=f"__default_{parameter}", ctx=ast.Load())

    positional = [*arguments.posonlyargs, *arguments.args]
    if defaults and len(defaults) <= len(positional):
        arguments.defaults = [node(p.arg, v) for p, v in zip(positional[len(positional) - len(defaults) :], defaults)]
    if kwdefaults:
        arguments.kw_defaults = [node(a.arg, kwdefaults[a.arg]) if a.arg in kwdefaults else None for a in arguments.kwonlyargs]
    return notes


def _literal_node(value: Any) -> ast.expr:
    return ast.parse(repr(value), mode="eval").body if isinstance(value, tuple) else ast.Constant(value=value)


def _literal(value: Any) -> bool:
    """A value whose repr is itself: written as the default, it makes the same value."""
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return not (isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))))
    if isinstance(value, tuple):
        return all(_literal(v) for v in value)
    return False


def _bare_returns(body: list[ast.stmt]) -> None:
    """Each `return None` of the function's own (not of the functions it defines) as `return`."""
    for statement in body:
        for node in _own_nodes(statement):
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Constant) and node.value.value is None:
                node.value = None


def _drop_final_returns(body: list[ast.stmt]) -> None:
    """Take out each `return None` after which the function ends anyway: the last statement,
    and the last of each way through an if, with or try that is the last statement. (Not a
    try body's with an `else:` (it would run), a finally's (it would swallow an exception), or
    a loop's (it leaves the loop).)"""
    if not body:
        return
    last = body[-1]
    if _returns_none(last):
        if len(body) > 1:
            del body[-1]
            _drop_final_returns(body)
        return
    inner: list[list[ast.stmt]] = []
    if isinstance(last, ast.If):
        inner = [last.body, last.orelse]
    elif isinstance(last, (ast.With, ast.AsyncWith)):
        inner = [last.body]
    elif isinstance(last, ast.Try):
        inner = [h.body for h in last.handlers] + ([last.orelse] if last.orelse else [last.body])
    elif isinstance(last, ast.Match):
        inner = [case.body for case in last.cases]
    for statements in inner:
        _drop_final_returns(statements)


def _returns_none(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Return) and isinstance(statement.value, ast.Constant) and statement.value.value is None


# What the reader calls for a nested def, class, comprehension or lambda (see NestedBodies).
NESTED = NestedBodies(function=nested_function, class_body=class_body, comprehension=comprehension, lambda_of=lambda_of)
