"""Comprehensions as Python writes them back: a comprehension's loop (its own code object before
3.12, inlined into the function from 3.12) read into one list, set, dict or generator
expression, with its conditions and its element (building.comprehension and the structurer
use it)."""

from __future__ import annotations

import ast
from typing import cast

from compilescope.decompiler.tidy import conditional_assignment, negate
from compilescope.decompiler.values import Unsupported


def inlined_comprehension(made: ast.stmt | None, loop: list[ast.stmt]) -> list[ast.stmt]:
    """3.12+ runs a comprehension in the function's own frame: `T = []` (the empty list the
    loop fills, in its temporary), then the loop. As written: `T = [e for x in it ...]`. Values
    computed before it (`sum` in `sum([...])`) are stored with it: `S, T = sum, []`."""
    kinds = {ast.List: "<listcomp>", ast.Set: "<setcomp>", ast.Dict: "<dictcomp>"}
    if (
        isinstance(made, ast.Assign)
        and len(made.targets) == 1
        and isinstance(made.targets[0], ast.Tuple)
        and isinstance(made.value, ast.Tuple)
        and len(made.targets[0].elts) == len(made.value.elts) > 1
    ):
        before = [ast.Assign(targets=[t], value=v, lineno=0) for t, v in zip(made.targets[0].elts[:-1], made.value.elts[:-1])]
        last = ast.Assign(targets=[made.targets[0].elts[-1]], value=made.value.elts[-1], lineno=0)
        return [*before, *inlined_comprehension(last, loop)]
    if not (
        isinstance(made, ast.Assign)
        and len(made.targets) == 1
        and isinstance(made.targets[0], ast.Name)
        and type(made.value) in kinds
        and len(loop) == 1
        and isinstance(loop[0], (ast.For, ast.AsyncFor))
    ):
        raise Unsupported(None, "an inlined comprehension of a shape not decompiled yet")
    empty = made.value
    if (isinstance(empty, ast.Dict) and empty.keys) or (not isinstance(empty, ast.Dict) and empty.elts):  # type: ignore[attr-defined]
        raise Unsupported(None, "an inlined comprehension of a shape not decompiled yet")
    kind = kinds[type(empty)]
    result = made.targets[0].id
    return [ast.Assign(targets=made.targets, value=comprehension_of(kind, loop[0], result, None), lineno=0)]


def comprehension_of(kind: str, statement: ast.stmt | None, result: str | None, iterable: ast.expr | None) -> ast.expr:
    """The comprehension a loop (or loops) that only adds to `result` writes; `iterable`
    replaces the first `for`'s when given (a comprehension's own function iterates `.0`)."""
    generators: list[ast.comprehension] = []
    while True:
        if isinstance(statement, (ast.For, ast.AsyncFor)) and not statement.orelse and len(statement.body) >= 1:
            is_async = int(isinstance(statement, ast.AsyncFor))
            generators.append(ast.comprehension(target=statement.target, iter=statement.iter, ifs=[], is_async=is_async))
            body = list(statement.body)
        elif isinstance(statement, ast.If) and generators and not statement.orelse:
            generators[-1].ifs.append(statement.test)
            body = list(statement.body)
        else:
            break
        # `if not c: continue` then the rest is `if c` around the rest
        while (
            len(body) > 1
            and isinstance(body[0], ast.If)
            and not body[0].orelse
            and len(body[0].body) == 1
            and isinstance(body[0].body[0], ast.Continue)
        ):
            generators[-1].ifs.append(negate(body[0].test))
            body = body[1:]
        body = _element_inlined(body, result)
        if len(body) != 1:
            raise Unsupported(None, f"a {kind} of a shape not decompiled yet")
        statement = body[0]
    element = _element(kind, statement, result)
    if not generators or element is None:
        raise Unsupported(None, f"a {kind} of a shape not decompiled yet")
    if result is not None and any(isinstance(n, ast.Name) and n.id == result for g in generators for n in ast.walk(g)):
        raise Unsupported(None, f"a {kind} that reads what it builds")
    if any(isinstance(n, ast.Name) and n.id == result for e in element for n in ast.walk(e)):
        raise Unsupported(None, f"a {kind} that reads what it builds")
    if iterable is not None:
        if not (isinstance(generators[0].iter, ast.Name) and generators[0].iter.id == ".0"):
            raise Unsupported(None, f"a {kind} of a shape not decompiled yet")
        generators[0].iter = iterable
    if kind == "<listcomp>":
        return ast.ListComp(elt=element[0], generators=generators)
    if kind == "<setcomp>":
        return ast.SetComp(elt=element[0], generators=generators)
    if kind == "<dictcomp>":
        return ast.DictComp(key=element[0], value=element[1], generators=generators)
    return ast.GeneratorExp(elt=element[0], generators=generators)


def _element_inlined(body: list[ast.stmt], result: str | None) -> list[ast.stmt]:
    """`T = a if c else b` (or, 3.12+, still as `if c: T = a else: T = b`) then `R.append(T)`
    or `yield T`: the element computed in branches and kept in a temporary, added just after.
    The same as `R.append(a if c else b)`: R is the comprehension's own new list, looking up
    its method runs no code."""
    if len(body) == 3:
        return _dict_element_inlined(body, result)
    if len(body) != 2:
        return body
    first, element = body
    first = conditional_assignment(first, lambda name: name.startswith("__")) or first
    if not (isinstance(first, ast.Assign) and len(first.targets) == 1 and isinstance(first.targets[0], ast.Name)):
        return body
    name = first.targets[0].id
    if not name.startswith("__") or name == result or not isinstance(element, ast.Expr):
        return body
    uses = [n for n in ast.walk(element) if isinstance(n, ast.Name) and n.id == name]
    call = element.value
    if isinstance(call, ast.Yield) and len(uses) == 1 and call.value is uses[0]:
        return [ast.Expr(value=ast.Yield(value=first.value))]
    adds = (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and isinstance(call.func.value, ast.Name)
        and call.func.value.id == result
    )
    added = cast(ast.Call, call)  # (a call wherever `adds` holds)
    if adds and len(uses) == 1 and len(added.args) == 1 and added.args[0] is uses[0]:
        return [ast.Expr(value=ast.Call(func=added.func, args=[first.value], keywords=[]))]
    return body


def _dict_element_inlined(body: list[ast.stmt], result: str | None) -> list[ast.stmt]:
    """3.12+ `{k: a if c else b for ...}`: the key kept in a temporary, each branch storing
    (key, value) in two more, then `R[K] = V`. As `R[k] = a if c else b`, the form of a
    dict comprehension's step (it computes the key first, as the comprehension does)."""
    first, branch, step = body

    def temp(node):
        return isinstance(node, ast.Name) and node.id.startswith("__") and node.id != result

    if not (
        isinstance(first, ast.Assign)
        and len(first.targets) == 1
        and temp(first.targets[0])
        and isinstance(branch, ast.If)
        and len(branch.body) == 1
        and len(branch.orelse) == 1
    ):
        return body
    key = first.targets[0].id  # type: ignore[attr-defined]
    values = []
    names = None
    for side in (branch.body[0], branch.orelse[0]):
        if not (
            isinstance(side, ast.Assign)
            and len(side.targets) == 1
            and isinstance(side.targets[0], ast.Tuple)
            and isinstance(side.value, ast.Tuple)
            and len(side.targets[0].elts) == len(side.value.elts) == 2
        ):
            return body
        targets = side.targets[0].elts
        if not all(temp(t) for t in targets) or not (isinstance(side.value.elts[0], ast.Name) and side.value.elts[0].id == key):
            return body
        if names not in (None, [t.id for t in targets]):  # type: ignore[attr-defined]
            return body
        names = [t.id for t in targets]  # type: ignore[attr-defined]
        values.append(side.value.elts[1])
    if not (names and isinstance(step, ast.Assign) and len(step.targets) == 1 and isinstance(step.targets[0], ast.Subscript)):
        return body
    target = step.targets[0]
    if not (
        isinstance(target.value, ast.Name)
        and target.value.id == result
        and isinstance(target.slice, ast.Name)
        and target.slice.id == names[0]
        and isinstance(step.value, ast.Name)
        and step.value.id == names[1]
    ):
        return body
    used = [n.id for part in (branch.test, *values) for n in ast.walk(part) if isinstance(n, ast.Name)]
    if key in used or names[0] in used or names[1] in used:
        return body
    value = ast.IfExp(test=branch.test, body=values[0], orelse=values[1])
    return [ast.Assign(targets=[ast.Subscript(value=target.value, slice=first.value, ctx=ast.Store())], value=value, lineno=0)]


def _element(kind: str, statement: ast.stmt | None, result: str | None) -> tuple[ast.expr, ...] | None:
    """What one step of the comprehension adds: `result.append(e)`, `.add(e)`, `result[k] = v`,
    `yield e`."""
    if kind == "<genexpr>":
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Yield) and statement.value.value is not None:
            return (statement.value.value,)
        return None
    if kind == "<dictcomp>":
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Subscript):
            target = statement.targets[0]
            if isinstance(target.value, ast.Name) and target.value.id == result:
                return (target.slice, statement.value)
        return None
    method = "append" if kind == "<listcomp>" else "add"
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        if (
            isinstance(call.func, ast.Attribute)
            and call.func.attr == method
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id == result
            and len(call.args) == 1
            and not call.keywords
        ):
            return (call.args[0],)
    return None
