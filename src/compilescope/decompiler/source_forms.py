"""Statements and expressions written the way the source writes them, where the bytecode reads
otherwise: part of the last layer (tidy.py), kept apart for its size.

- `x in {'a', 'b'}` and `for x in {1, 2}`, which Python folds into a frozenset constant;
- f-strings whose parts waited on the stack (`f"{'Too '}{T}"` -> `f"Too {...}"`);
- `a = b = v` where the bytecode copies v (COPY 1 / DUP_TOP);
- `x[i], x[j] = x[j], x[i]`, which the layer below holds in temporaries;
- `x += v` where x waited on the stack in a temporary (3.12+: while an inlined comprehension ran).
"""

from __future__ import annotations

import ast
from collections import Counter
from types import CodeType
from typing import cast

from compilescope.decompiler.values import Temporaries


def assigned_temp(statement: ast.stmt, temps: Temporaries) -> str | None:
    if (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
        and temps.owns(statement.targets[0].id)
    ):
        return statement.targets[0].id
    return None


def set_display(value: ast.expr) -> ast.expr:
    """A frozenset constant -> `{a, b}`: Python folds a set display of constants into one where
    only its items matter (the last operand of `in` / `not in`, what a for loop or a
    comprehension iterates over), and folds it again there; written as `frozenset({...})` it
    would be a call of the global `frozenset`."""
    if isinstance(value, ast.Constant) and type(value.value) is frozenset and value.value:
        # (in one order, not the hashes': a string's hash differs from run to run)
        return ast.Set(elts=[ast.Constant(value=item) for item in sorted(value.value, key=repr)])
    return value


def joined_parts(values: list[ast.expr]) -> list[ast.expr]:
    """The parts of an f-string with the strs the bytecode kept in temporaries, now put back,
    written as what they were: `f"{'Too '}{...}"` -> `f"Too {...}"`, `f"{f'{a}'}/"` -> `f"{a}/"`
    (BUILD_STRING joined them; a `{}` of its own would format them again)."""
    parts: list[ast.expr] = []
    for value in values:
        kept = value.value if isinstance(value, ast.FormattedValue) and getattr(value, "compilescope_joined", False) else None
        if isinstance(kept, ast.Constant) and isinstance(kept.value, str):
            parts.append(kept)
        elif isinstance(kept, ast.JoinedStr):
            parts += kept.values
        else:
            parts.append(value)
    return parts


def parallel_assignments(body: list[ast.stmt], temps: Temporaries, code: CodeType) -> None:
    """`T1 = e1; T2 = e2; t1 = T1; t2 = T2` (each T a temporary read there alone) -> `t1, t2 = e1,
    e2`: a tuple assignment to targets that are not all plain names (`x[i], x[j] = x[j], x[i]`),
    which evaluates e1, e2, then stores t1, t2, left to right, as these do. Values that were
    never held (a constant, a local) may end the tuple: `o.a, o.b = o.b, 0`."""
    index = 1
    while index < len(body):
        held: list[str] = []
        while len(held) < 3 and index - len(held) - 1 >= 0 and (name := assigned_temp(body[index - len(held) - 1], temps)):
            held.insert(0, name)
        for size in range(3, 1, -1):
            if held and _parallel_at(body, index, held[-size:] if size <= len(held) else held, size, code):
                index -= min(size, len(held))
                break
        index += 1


def _parallel_at(body: list[ast.stmt], index: int, held: list[str], size: int, code: CodeType) -> bool:
    stores = body[index : index + size]
    if len(stores) < size or not all(isinstance(s, ast.Assign) and len(s.targets) == 1 for s in stores):
        return False
    targets = [cast(ast.Assign, s).targets[0] for s in stores]
    values = [cast(ast.Assign, s).value for s in stores]
    if not all(isinstance(v, ast.Name) and v.id == name for v, name in zip(values, held)):
        return False
    stored = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    for late in values[len(held) :]:  # read after the stores before it: the same where they rebind nothing it reads
        if not (isinstance(late, ast.Constant) or isinstance(late, ast.Name) and late.id in code.co_varnames and late.id not in stored):
            return False
    # each temporary read once, there (its store and that read); the targets read none
    reads = Counter(n.id for n in (n for statement in body for n in ast.walk(statement)) if isinstance(n, ast.Name) and n.id in held)
    if any(reads[name] != 2 for name in held) or stored & set(held):
        return False
    start = index - len(held)
    early = [cast(ast.Assign, s).value for s in body[start:index]]
    body[start : index + size] = [
        ast.Assign(
            targets=[ast.Tuple(elts=targets, ctx=ast.Store())],
            value=ast.Tuple(elts=[*early, *values[len(held) :]], ctx=ast.Load()),
            lineno=0,
        )
    ]
    return True


def copies_stored(body: list[ast.stmt]) -> None:
    """`a = v'; b = v` where v' is the bytecode's copy of v (COPY 1 / DUP_TOP) -> `a = b = v`: the
    chained assignment that copies its value and stores it target by target, left to right."""
    index = 0
    while index < len(body):
        original = getattr(getattr(body[index], "value", None), "compilescope_copy_of", None)
        end = index
        while original is not None and end + 1 < len(body) and isinstance(body[end], ast.Assign):
            following = getattr(body[end + 1], "value", None)
            if following is original and isinstance(body[end + 1], ast.Assign):
                targets = [t for s in body[index : end + 2] for t in cast(ast.Assign, s).targets]
                body[index : end + 2] = [ast.Assign(targets=targets, value=cast(ast.expr, original), lineno=0)]
                break
            if getattr(following, "compilescope_copy_of", None) is not original:
                break
            end += 1
        index += 1


def inplace_assignments(body: list[ast.stmt]) -> None:
    """`x = x + v` whose `+` was the bytecode's in-place one, stored back where its left side was
    read from, once the temporary that held that side is put back -> `x += v`."""
    for index, statement in enumerate(body):
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], (ast.Name, ast.Attribute, ast.Subscript))
            and isinstance(value := statement.value, ast.BinOp)
            and getattr(value, "compilescope_inplace", False)
            and ast.unparse(value.left) == ast.unparse(statement.targets[0])
        ):
            body[index] = ast.AugAssign(target=statement.targets[0], op=value.op, value=value.right)
