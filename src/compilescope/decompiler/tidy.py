"""The decompiler's last layer: put back what the bytecode made temporaries of, where that is exact.

The layer below stores every value that waits on the stack across a statement in a temporary
(`__temp3 = ...`), and every value passed between blocks in one per stack depth (`__stack0`).
That is always right and often unreadable. Here a temporary goes back into the one place that
reads it when moving its expression there cannot change what the program does:

- an expression with no effects that reads only local names (and constants, displays) may move
  past anything that does not rebind those names;
- any other expression may move only past code with no effects at all, and only to where it is
  the first thing evaluated that has any.

"No effects" is decided from the syntax alone: constants, local names, displays of such values.
Names Dynamo installs in a module's globals (`__compiled_fn_*`, `__resume_at_*`,
`__import_*`: each name is new, holds one object, and is never rebound) count as constants.
`x = a or b` and `a if c else b` are recognised where the blocks stored them in a depth temporary.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Callable, Iterator
from types import CodeType
from typing import cast

from compilescope.decompiler.known_lists import written_out
from compilescope.decompiler.source_forms import (
    assigned_temp,
    copies_stored,
    inplace_assignments,
    joined_parts,
    parallel_assignments,
    set_display,
)
from compilescope.decompiler.values import Temporaries

_DYNAMO_GLOBAL = re.compile(r"^__(compiled_fn|resume_at|import)_")


class _Names:
    def __init__(self, code: CodeType, temps: Temporaries, statements: list[ast.stmt] = ()) -> None:  # type: ignore[assignment]
        self.locals = set(code.co_varnames)
        self.temps = temps
        self._statements = statements
        self._fresh: set[str] | None = None

    def fresh(self, name: str) -> bool:
        """Whether `name` is a temporary bound once, to a new empty list or set (found once,
        when first asked: few functions have one)."""
        if not self.temps.owns(name):
            return False
        if self._fresh is None:
            self._fresh = _fresh_containers(self._statements, self.temps)
        return name in self._fresh

    def local(self, name: str) -> bool:
        return name in self.locals or self.temps.owns(name)

    def constant(self, name: str) -> bool:
        return bool(_DYNAMO_GLOBAL.match(name))


def _fresh_containers(statements: list[ast.stmt], temps: Temporaries) -> set[str]:
    """The temporaries bound once, to a new empty list or set (a comprehension's result, which
    its loop fills): looking up their `append`/`add` runs no code."""
    stores: Counter = Counter()
    empty: set[str] = set()
    for node in _all_nodes(statements):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            stores[node.id] += 1
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            pairs = (
                zip(target.elts, value.elts)
                if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts)
                else [(target, value)]
            )
            empty |= {t.id for t, v in pairs if isinstance(t, ast.Name) and isinstance(v, (ast.List, ast.Set)) and not v.elts}
    return {name for name in empty if stores[name] == 1 and temps.owns(name)}


def tidy(statements: list[ast.stmt], code: CodeType, temps: Temporaries) -> list[ast.stmt]:
    names = _Names(code, temps, statements)
    _walk_bodies(statements, lambda body: _values_across_blocks(body, temps))
    statements[:] = written_out(statements, temps)  # Dynamo's lists of frame values
    _walk_bodies(statements, _while_conditions)
    _walk_bodies(statements, _asserts)
    _walk_bodies(statements, lambda body: _return_in_try(body, temps))
    _walk_bodies(statements, lambda body: _returned_temps(body, temps))
    _values_put_back(statements, names, temps)
    _walk_bodies(statements, lambda body: parallel_assignments(body, temps, code))
    _walk_bodies(statements, _named_assignments)
    _walk_bodies(statements, copies_stored)
    _walk_bodies(statements, inplace_assignments)
    _walk_bodies(statements, _copies_of_what_follows)
    conditional = False
    for node in _all_nodes(statements):  # (one walk: this is on the decompiler's hot path)
        if isinstance(node, (ast.For, ast.While)):
            _drop_last_continue(node.body)
        elif isinstance(node, ast.Call):
            node.args = _spliced(node.args)
        elif isinstance(node, (ast.IfExp, ast.BoolOp)):
            conditional = True
        elif isinstance(node, ast.JoinedStr):
            node.values = joined_parts(node.values)
        if isinstance(node, ast.Compare) and isinstance(node.ops[-1], (ast.In, ast.NotIn)):
            node.comparators[-1] = set_display(node.comparators[-1])
        elif isinstance(node, (ast.For, ast.comprehension)):
            node.iter = set_display(node.iter)
    if conditional:
        _ShortCircuits().visit(ast.Module(body=statements, type_ignores=[]))
    return statements


class _ShortCircuits(ast.NodeTransformer):
    """`b or x if t else x` -> `t and b or x`, `x if t else b and x` -> `(t or b) and x`:
    3.10 threads the jumps of `(t and b) or x`, so that `x` reads as reached from two places;
    the two give the same value, and evaluate each part as often."""

    def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
        self.generic_visit(node)
        for kind, other, inner, outer in ((ast.Or, node.orelse, node.body, ast.And), (ast.And, node.body, node.orelse, ast.Or)):
            tail = other.values if isinstance(other, ast.BoolOp) and isinstance(other.op, kind) else [other]
            if (
                isinstance(inner, ast.BoolOp)
                and isinstance(inner.op, kind)
                and len(inner.values) > len(tail)
                and all(ast.dump(a) == ast.dump(b) for a, b in zip(inner.values[-len(tail) :], tail))
            ):
                rest = inner.values[: -len(tail)]
                first = rest[0] if len(rest) == 1 else ast.BoolOp(op=kind(), values=rest)
                joined = _flat(outer, [node.test, first])
                return _flat(kind, [joined, *tail])
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.expr:
        self.generic_visit(node)
        return _flat(type(node.op), node.values)


def _flat(kind: type, values: list[ast.expr]) -> ast.BoolOp:
    """`a and (b and c)` -> `a and b and c`: the same jumps."""
    flat: list[ast.expr] = []
    for value in values:
        flat += value.values if isinstance(value, ast.BoolOp) and isinstance(value.op, kind) else [value]
    return ast.BoolOp(op=kind(), values=flat)


def _copies_of_what_follows(body: list[ast.stmt]) -> None:
    """`if c: ...; return x` then `return x` -> `if c: ...` then `return x`: Python copies a
    short return onto the ways that reach it (3.10+); where a side of an if ends in a copy of
    the statement after the if, falling out of the if does the same."""
    for at in range(len(body) - 1):
        following = body[at + 1]
        if isinstance(body[at], ast.If) and isinstance(following, (ast.Return, ast.Raise)):
            _drop_copies(cast(ast.If, body[at]), ast.dump(following))


def _drop_copies(statement: ast.If, copy: str) -> None:
    for side in (statement.body, statement.orelse):
        if not side:
            continue
        last = side[-1]
        if ast.dump(last) == copy and len(side) > 1:
            side.pop()
        elif isinstance(last, ast.If):
            _drop_copies(last, copy)


def _drop_last_continue(body: list[ast.stmt]) -> None:
    """A `continue` where a loop's body ends anyway (at the end of an if's side, of a try's
    clause or else) goes: falling out of there goes round again too."""
    if not body:
        return
    last = body[-1]
    if isinstance(last, ast.Continue) and len(body) > 1:
        body.pop()
    elif isinstance(last, ast.If):
        for side in (last.body, last.orelse):
            _drop_last_continue(side)
            if last.body == []:
                last.body.append(ast.Pass())
        if len(last.orelse) == 1 and isinstance(last.orelse[0], ast.Continue):
            last.orelse = []  # (`else: continue` alone: no else at all)
    elif isinstance(last, ast.Try) and not last.finalbody:
        for side in ([] if last.orelse else [last.body]) + [last.orelse] + [h.body for h in last.handlers]:
            _drop_last_continue(side)
    elif isinstance(last, ast.Match):
        for case in last.cases:
            _drop_last_continue(case.body)


def _spliced(args: list[ast.expr]) -> list[ast.expr]:
    """`f(*(x, y), **kw)` -> `f(x, y, **kw)`: the positional arguments kept in a temporary while
    a 3.12+ inlined comprehension ran come back as a tuple display; written in the call, they
    make the same tuple. So does a tuple of constants, which Python folded into one
    (`f(1, **(k or {}))` passes `*(1,)`)."""
    spliced: list[ast.expr] = []
    for arg in args:
        if isinstance(arg, ast.Starred) and isinstance(arg.value, ast.Tuple):
            spliced += arg.value.elts
        elif isinstance(arg, ast.Starred) and isinstance(arg.value, ast.Constant) and type(arg.value.value) is tuple:
            spliced += [ast.Constant(value=item) for item in arg.value.value]
        else:
            spliced.append(arg)
    return spliced


def _named_assignments(body: list[ast.stmt]) -> None:
    """`t = (n := v)` -> `n = t = v`: both store n first (the assignment expression is the
    value the copy for t is taken from)."""
    for statement in body:
        if isinstance(statement, ast.Assign):
            names: list[ast.Name] = []
            while isinstance(statement.value, ast.NamedExpr):
                names.insert(0, statement.value.target)  # the innermost is stored first
                statement.value = statement.value.value
            statement.targets[:0] = names


def put_back_values(statements: list[ast.stmt], code: CodeType, temps: Temporaries, context: list[ast.stmt]) -> None:
    """Values kept across blocks (`x = a or b`) and temporaries back where they are read, in
    these statements alone (a 3.12+ inlined comprehension's loop, before it is read as one);
    `context` is code around them that may say what a temporary holds."""
    _walk_bodies(statements, lambda body: _values_across_blocks(body, temps))
    _values_put_back(statements, _Names(code, temps, [*context, *statements]), temps)


def _values_put_back(statements: list[ast.stmt], names: _Names, temps: Temporaries) -> None:
    for _ in range(10):
        _put_back(statements, names)
        # `a or b or c` (3.12+) joins from the inside out: the outer `or` is one assignment
        # only once the inner one's temporaries are back in it
        joined = [False]

        def join(body: list[ast.stmt]) -> None:
            joined[0] |= _values_across_blocks(body, temps)  # noqa: B023  (called in this round only)

        _walk_bodies(statements, join)
        if not joined[0]:
            break


def _put_back(statements: list[ast.stmt], names: _Names) -> None:
    """Temporaries back where they are read, round after round until none moves."""
    for _ in range(50):  # each round puts back at least one temporary; stop when none moves
        loads = Counter(n.id for n in _all_nodes(statements) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))
        stores = Counter(n.id for n in _all_nodes(statements) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
        changed = [False]

        def round_(body: list[ast.stmt]) -> None:
            changed[0] |= _chained_assignment(body, names, loads, stores) | _inline(body, names, loads, stores)  # noqa: B023  (called in this round only)

        _walk_bodies(statements, round_)
        if not changed[0]:
            break


# ---- x = a or b, a if c else b -------------------------------------------------------------------
def _values_across_blocks(body: list[ast.stmt], temps: Temporaries) -> bool:
    """`D = X; if not D: D = Y` -> `D = X or Y` (and `and`); `if C: D = A else: D = B` ->
    `D = A if C else B`, for a depth temporary D. Returns whether any was joined."""
    index, changed = 0, False
    while index < len(body):
        statement = body[index]
        split = _split_parallel(statement, temps)
        if split:  # `T1, T2 = a, b` into temporaries none of the values reads: one at a time
            body[index : index + 1] = split
            statement = body[index]
        target = assigned_temp(statement, temps)
        if target and index + 1 < len(body):
            following = body[index + 1]
            joined = _short_circuit(statement.value, target, following, temps)  # type: ignore[attr-defined]
            if joined is not None:
                body[index : index + 2] = [ast.Assign(targets=[ast.Name(id=target, ctx=ast.Store())], value=joined, lineno=0)]
                changed = True
                continue
        hoisted = _common_copies(statement, temps)
        if hoisted:  # values below a conditional expression, passed on the same on both sides
            body[index:index] = hoisted
            index += len(hoisted)
            statement = body[index]
        joined_if = conditional_assignment(statement, temps.owns)
        if joined_if is not None:
            body[index] = joined_if
            changed = True
            continue
        index += 1
    return changed


def conditional_assignment(statement: ast.stmt, owns: Callable[[str], bool]) -> ast.Assign | None:
    """`if c: T = a else: T = b` -> `T = a if c else b`, for a name T that `owns` says is a
    temporary; None for any other statement."""
    if not (isinstance(statement, ast.If) and len(statement.body) == 1 and len(statement.orelse) == 1):
        return None
    yes, no = statement.body[0], statement.orelse[0]
    names = [
        st.targets[0].id if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) else None
        for st in (yes, no)
    ]
    if names[0] is None or names[0] != names[1] or not owns(names[0]):
        return None
    value = ast.IfExp(test=statement.test, body=yes.value, orelse=no.value)  # type: ignore[attr-defined]
    return ast.Assign(targets=[ast.Name(id=names[0], ctx=ast.Store())], value=value, lineno=0)


def _common_copies(statement: ast.stmt, temps: Temporaries) -> list[ast.stmt]:
    """`if c: T1 = S1; T = a else: T1 = S1; T = b` (a value computed before the conditional
    expression `a if c else b`, which each side passes on in the same temporary): the copies
    both sides start with, taken out of the if to go before it, leaving one assignment on each
    side. A copy of one temporary into another has no effect, and the test reads neither."""
    if not (isinstance(statement, ast.If) and len(statement.body) == len(statement.orelse) > 1):
        return []
    count = len(statement.body) - 1
    copies = statement.body[:count]
    for yes, no in zip(copies, statement.orelse[:count]):
        target = assigned_temp(yes, temps)
        if target is None or ast.dump(yes) != ast.dump(no) or not (isinstance(yes.value, ast.Name) and temps.owns(yes.value.id)):  # type: ignore[attr-defined]
            return []
    written = {c.targets[0].id for c in copies}  # type: ignore[attr-defined]
    if any(isinstance(n, ast.NamedExpr) or isinstance(n, ast.Name) and n.id in written for n in ast.walk(statement.test)):
        return []
    statement.body, statement.orelse = statement.body[count:], statement.orelse[count:]
    return copies


def _split_parallel(statement: ast.stmt, temps: Temporaries) -> list[ast.stmt] | None:
    if not (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Tuple)
        and isinstance(statement.value, ast.Tuple)
    ):
        return None
    targets, values = statement.targets[0].elts, statement.value.elts
    if len(targets) != len(values) or not all(isinstance(t, ast.Name) and temps.owns(t.id) for t in targets):
        return None
    read = {n.id for v in values for n in ast.walk(v) if isinstance(n, ast.Name)}
    if read & {t.id for t in targets}:  # type: ignore[attr-defined]
        return None
    return [ast.Assign(targets=[t], value=v, lineno=0) for t, v in zip(targets, values)]


def _short_circuit(first: ast.expr, target: str, following: ast.stmt, temps: Temporaries) -> ast.expr | None:
    if not (
        isinstance(following, ast.If)
        and not following.orelse
        and len(following.body) == 1
        and assigned_temp(following.body[0], temps) == target
    ):
        return None
    second = following.body[0].value  # type: ignore[attr-defined]
    test = following.test
    negated = _is_not(test)
    tested = test.operand if negated else test  # type: ignore[attr-defined]
    # the test reads the value just stored: the temporary itself, or (3.12+) the same local name
    same = (isinstance(tested, ast.Name) and tested.id == target) or (isinstance(first, ast.Name) and ast.dump(tested) == ast.dump(first))
    if not same or target in {n.id for n in ast.walk(second) if isinstance(n, ast.Name)}:
        return None
    kind = ast.Or if negated else ast.And
    values = [*first.values] if isinstance(first, ast.BoolOp) and isinstance(first.op, kind) else [first]
    rest = [*second.values] if isinstance(second, ast.BoolOp) and isinstance(second.op, kind) else [second]  # a or (b or c): the same
    return ast.BoolOp(op=kind(), values=[*values, *rest])


# ---- assert ------------------------------------------------------------------------------------------
def _asserts(body: list[ast.stmt]) -> None:
    """`if not c: raise AssertionError(m)` with the AssertionError LOAD_ASSERTION_ERROR loads
    (the builtin, whatever the name means here) is `assert c, m`."""
    for index, statement in enumerate(body):
        if isinstance(statement, ast.Raise) and statement.cause is None and (said := _assertion_message(statement.exc)):
            # `assert False, m`: Python drops the test that is always false, not the assert
            # (under -O nothing is raised)
            body[index] = ast.Assert(test=ast.Constant(value=False), msg=said[0])
        elif (
            isinstance(statement, ast.If)
            and not statement.orelse
            and len(statement.body) == 1
            and isinstance(inner := statement.body[0], ast.Assert)
            and isinstance(inner.test, ast.Constant)
            and inner.test.value is False
        ):
            # (the raise in the if's body was made `assert False` first: bodies are tidied inside out)
            body[index] = ast.Assert(test=negate(statement.test), msg=inner.msg)


def _assertion_message(raised: ast.expr | None) -> tuple[ast.expr | None] | None:
    """(the message,) where `raised` is LOAD_ASSERTION_ERROR's error, called with one message
    or not called; else None."""
    if isinstance(raised, ast.Call) and len(raised.args) == 1 and not raised.keywords:
        return (raised.args[0],) if getattr(raised.func, "compilescope_assert", False) else None
    return (None,) if getattr(raised, "compilescope_assert", False) else None


# ---- try: return x -----------------------------------------------------------------------------
def _return_in_try(body: list[ast.stmt], temps: Temporaries) -> None:
    """3.11+ computes `return f(x)` inside a try and returns after it: `try: T = f(x)` then
    `return T` is `try: return f(x)` when no handler goes on to that return (a finally runs
    between the two either way)."""
    for index in range(len(body) - 1):
        statement, following = body[index], body[index + 1]
        if not (isinstance(statement, ast.Try) and not statement.orelse and statement.body):
            continue
        last = statement.body[-1]
        target = assigned_temp(last, temps)
        if target is None or not (
            isinstance(following, ast.Return) and isinstance(following.value, ast.Name) and following.value.id == target
        ):
            continue
        if all(h.body and isinstance(h.body[-1], (ast.Return, ast.Raise, ast.Break, ast.Continue)) for h in statement.handlers):
            statement.body[-1] = ast.Return(value=last.value)  # type: ignore[attr-defined]
            del body[index + 1]
            return


def _returned_temps(body: list[ast.stmt], temps: Temporaries) -> None:
    """`T = v` then `return T` -> `return v`: the return reads the value just stored, and
    nothing else can (3.10 passes a returned value to the return it shares in a temporary, one
    store on each way, so the temporary is stored more than once and not inlined below)."""
    index = 0
    while index < len(body) - 1:
        target = assigned_temp(body[index], temps)
        following = body[index + 1]
        if (
            target is not None
            and isinstance(following, ast.Return)
            and isinstance(following.value, ast.Name)
            and following.value.id == target
        ):
            body[index : index + 2] = [ast.Return(value=body[index].value)]  # type: ignore[attr-defined]
        index += 1


# ---- while loops -----------------------------------------------------------------------------------
def _while_conditions(body: list[ast.stmt]) -> None:
    """`while True:` with the loop's condition where the bytecode tests it, as written:
    `while True: if not c: break ...` -> `while c: ...`, and 3.11+'s inverted loop
    `if c: while True: ...; if not c: break` -> `while c: ...` (the same tests, in the same order)."""
    for index, statement in enumerate(body):
        if isinstance(statement, ast.If) and len(statement.body) == 1 and isinstance(statement.body[0], ast.While):
            _break_when_not(statement.body[0].body)
        if isinstance(statement, ast.While):
            _break_when_not(statement.body)
        if isinstance(statement, ast.While) and _is_true(statement.test) and not statement.orelse:
            first = statement.body[0]
            if _breaks_when(first) is not None and len(statement.body) > 1:
                statement.test = negate(_breaks_when(first))  # type: ignore[arg-type]
                statement.body = statement.body[1:]
        if isinstance(statement, ast.If) and not statement.orelse and len(statement.body) == 1:
            loop = statement.body[0]
            if isinstance(loop, ast.While) and _is_true(loop.test) and not loop.orelse and len(loop.body) > 1:
                last = _breaks_when(loop.body[-1])
                if last is not None and ast.dump(last) == ast.dump(negate(statement.test)):
                    body[index] = ast.While(test=statement.test, body=loop.body[:-1], orelse=[])


def _break_when_not(loop_body: list[ast.stmt]) -> None:
    """A loop body ending `if c: continue` then `break` is `if not c: break` (then on)."""
    if len(loop_body) >= 2 and isinstance(loop_body[-1], ast.Break):
        last = loop_body[-2]
        if isinstance(last, ast.If) and not last.orelse and len(last.body) == 1 and isinstance(last.body[0], ast.Continue):
            loop_body[-2:] = [ast.If(test=negate(last.test), body=[ast.Break()], orelse=[])]


def _breaks_when(statement: ast.stmt) -> ast.expr | None:
    if isinstance(statement, ast.If) and not statement.orelse and len(statement.body) == 1 and isinstance(statement.body[0], ast.Break):
        return statement.test
    return None


def _is_true(test: ast.expr) -> bool:
    return isinstance(test, ast.Constant) and test.value is True


def negate(test: ast.expr) -> ast.expr:
    """`not test`, written plainly where that means exactly the same: `not not x` is x only as a
    truth value, which is how a condition is used; `is`/`in` have exact opposites."""
    if _is_not(test):
        return test.operand  # type: ignore[attr-defined]
    opposite = {ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in opposite:
        return ast.Compare(left=test.left, ops=[opposite[type(test.ops[0])]()], comparators=test.comparators)
    if isinstance(test, ast.BoolOp):
        # `not (not a or b)` is `a and not b` (De Morgan, which keeps the order and the
        # short-circuits), where that leaves no more `not`s
        negated = [negate(value) for value in test.values]
        before = 1 + sum(_is_not(value) for value in test.values)
        if sum(_is_not(value) for value in negated) <= before:
            kind = ast.Or if isinstance(test.op, ast.And) else ast.And
            flat = [
                part
                for value in negated
                for part in (value.values if isinstance(value, ast.BoolOp) and isinstance(value.op, kind) else [value])
            ]
            return ast.BoolOp(op=kind(), values=flat)
    return ast.UnaryOp(op=ast.Not(), operand=test)


def _is_not(test: ast.expr) -> bool:
    return isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)


# ---- putting temporaries back --------------------------------------------------------------------
def _inline(body: list[ast.stmt], names: _Names, loads: Counter, stores: Counter) -> bool:
    changed = False
    index = 0
    while index < len(body):
        statement = body[index]
        target = assigned_temp(statement, names.temps)
        if target is None or stores[target] != 1:
            index += 1
            continue
        value = statement.value  # type: ignore[attr-defined]
        if loads[target] == 0:
            if _effect_free(value, names):  # a value nobody reads, made without effects
                del body[index]
                changed = True
                continue
            index += 1
            continue
        if index + 1 < len(body) and _store_through(body, index, target, names):
            changed = True
            continue
        if loads[target] == 1 and _move(body, index, target, value, names):
            del body[index]
            loads[target] = 0
            changed = True
            continue
        index += 1
    return changed


def _chained_assignment(body: list[ast.stmt], names: _Names, loads: Counter, stores: Counter) -> bool:
    """`T = v; x = T; self.y = T` (every read of T) -> `x = self.y = v`: a chained assignment
    stores its value target by target, left to right, as these do."""
    changed = False
    for index in range(len(body)):
        target = assigned_temp(body[index], names.temps)
        if target is None or stores[target] != 1 or loads[target] < 2:
            continue
        copies = body[index + 1 : index + 1 + loads[target]]
        if len(copies) != loads[target] or not all(
            isinstance(c, ast.Assign) and len(c.targets) == 1 and isinstance(c.value, ast.Name) and c.value.id == target for c in copies
        ):
            continue
        if any(isinstance(n, ast.Name) and n.id == target for c in copies for n in ast.walk(c.targets[0])):  # type: ignore[attr-defined]
            continue
        value = body[index].value  # type: ignore[attr-defined]
        body[index : index + 1 + len(copies)] = [ast.Assign(targets=[c.targets[0] for c in copies], value=value, lineno=0)]  # type: ignore[attr-defined]
        loads[target] = stores[target] = 0
        changed = True
        break
    return changed


def _store_through(body: list[ast.stmt], index: int, target: str, names: _Names) -> bool:
    """`T = E; n = T; ...T...` -> `n = E; ...n...`: the bytecode kept a copy of what it stored in
    the local `n`; reading `n` gives the same object as long as `n` is not rebound before the
    last read of T, and every read of T is in this list of statements."""
    following = body[index + 1]
    if not (isinstance(following, ast.Assign) and len(following.targets) == 1 and isinstance(following.targets[0], ast.Name)):
        return False
    local = following.targets[0].id
    if not (isinstance(following.value, ast.Name) and following.value.id == target and names.local(local) and not names.temps.owns(local)):
        return False
    rest = body[index + 2 :]
    reads = [i for i, statement in enumerate(rest) if _load_of(statement, target) is not None]
    if any(_load_of(s, target) is not None for s in _nested_statements(rest)):
        return False  # read inside a nested block: not followed here
    last = reads[-1] if reads else -1
    if any(local in _rebinds(statement) for statement in rest[: last + 1]):
        return False
    for statement in rest[: last + 1]:
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and node.id == target:
                node.id = local
    body[index : index + 2] = [ast.Assign(targets=following.targets, value=body[index].value, lineno=0)]  # type: ignore[attr-defined]
    return True


def _nested_statements(statements: list[ast.stmt]) -> Iterator[ast.stmt]:
    for statement in statements:
        for field in ("body", "orelse", "finalbody"):
            for inner in getattr(statement, field, []) or []:
                if isinstance(inner, ast.stmt):
                    yield inner
                    yield from _nested_statements([inner])
        for handler in getattr(statement, "handlers", []) or []:
            yield from handler.body
            yield from _nested_statements(handler.body)


def _move(body: list[ast.stmt], index: int, target: str, value: ast.expr, names: _Names) -> bool:
    """Put `value` where `target` is read, if that read is in a later statement of `body` and
    moving it there is exact. Returns whether it moved."""
    reads_locals = _effect_free(value, names)
    read_names = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
    for later in body[index + 1 :]:
        use = _load_of(later, target)
        if use is None:
            # code in between: it must not rebind what the value reads, and if the value has
            # effects (or reads state that code could change), it must have none itself
            if _rebinds(later) & read_names:
                return False
            if not reads_locals and not _statement_effect_free(later, names):
                return False
            continue
        if not _expression_position(later, use):
            return False
        before = _evaluated_before(later, use)
        if not reads_locals and not all(_node_effect_free(n, names) for n in before):
            return False
        _replace(later, use, value)
        return True
    return False


def _effect_free(value: ast.expr, names: _Names) -> bool:
    return all(_node_effect_free(n, names) for n in ast.walk(value))


def _node_effect_free(node: ast.AST, names: _Names) -> bool:
    if isinstance(node, ast.Name):
        return names.local(node.id) or names.constant(node.id)
    if isinstance(node, ast.Attribute) and node.attr in ("append", "add") and isinstance(node.value, ast.Name):
        return names.fresh(node.value.id)  # (a new list's or set's own method)
    if isinstance(node, ast.Starred):
        return isinstance(node.value, (ast.List, ast.Tuple))
    if isinstance(node, ast.FormattedValue):  # a str kept in a temporary is joined, not formatted
        return getattr(node, "compilescope_joined", False)
    if isinstance(node, ast.JoinedStr):  # (joining strs runs no code; its parts are judged on their own)
        return True
    return isinstance(node, (ast.Constant, ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Load, ast.Store, ast.Del, ast.expr_context))


def _statement_effect_free(statement: ast.stmt, names: _Names) -> bool:
    if isinstance(statement, ast.Assign):
        return all(isinstance(t, ast.Name) for t in statement.targets) and _effect_free(statement.value, names)
    if isinstance(statement, ast.Delete):  # of a local that is bound: the code just stored it
        return all(isinstance(t, ast.Name) and names.local(t.id) for t in statement.targets)
    return False


def _rebinds(statement: ast.stmt) -> set[str]:
    return {n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}


def _load_of(statement: ast.stmt, name: str) -> ast.Name | None:
    for node in ast.walk(statement):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            return node
    return None


def _expression_position(statement: ast.stmt, use: ast.Name) -> bool:
    """The read is in the part of the statement that is evaluated once, first: not in a nested
    block, a loop, a lambda or the value of a short-circuit/conditional after its first part."""
    roots: list[ast.AST] = []
    if isinstance(statement, (ast.Assign, ast.Expr, ast.Return, ast.AugAssign)):
        roots = [statement.value] if statement.value is not None else []
        if isinstance(statement, ast.Assign):
            roots += statement.targets
        if isinstance(statement, ast.AugAssign) and not isinstance(statement.target, ast.Name):
            roots.append(statement.target)  # `T.x += v`: T is evaluated first, once
    elif isinstance(statement, (ast.If, ast.While)):
        roots = [statement.test]
    elif isinstance(statement, ast.For):
        roots = [statement.iter]
    elif isinstance(statement, ast.Raise):
        roots = [r for r in (statement.exc, statement.cause) if r is not None]
    elif isinstance(statement, ast.Delete):
        roots = list(statement.targets)
    elif isinstance(statement, ast.With):  # the first item's manager (entering it runs code)
        roots = [statement.items[0].context_expr]
    for root in roots:
        if any(node is use for node in _straight_nodes(root)):
            return True
    return False


def _straight_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes of an expression that are always evaluated, exactly once."""
    yield node
    if isinstance(node, (ast.Lambda, ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)):
        return
    if isinstance(node, ast.BoolOp):
        yield from _straight_nodes(node.values[0])
        return
    if isinstance(node, ast.IfExp):
        yield from _straight_nodes(node.test)
        return
    if isinstance(node, ast.Compare):  # a chain stops at the first false comparison
        yield from _straight_nodes(node.left)
        yield from _straight_nodes(node.comparators[0])
        return
    for child in ast.iter_child_nodes(node):
        yield from _straight_nodes(child)


def _evaluated_before(statement: ast.stmt, use: ast.Name) -> list[ast.AST]:
    """The nodes whose evaluation finishes before `use` is read, in Python's order."""
    order: list[ast.AST] = []
    found = [False]

    def visit(node: ast.AST) -> None:
        if found[0]:
            return
        if node is use:
            found[0] = True
            return
        for child in _children_in_order(node):
            visit(child)
            if found[0]:
                return
        order.append(node)

    if isinstance(statement, ast.Assign):
        visit(statement.value)  # the value first, then the targets
        for target in statement.targets:
            visit(target)
    else:
        for child in _children_in_order(statement):
            visit(child)
    return order


def _children_in_order(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.Call):
        if len(node.args) == 1 and isinstance(node.args[0], ast.Starred):
            # `f(*a, **k)`: a is only read here; the call itself makes a tuple of it, after k
            return [node.func, node.args[0].value, *[k.value for k in node.keywords]]
        return [node.func, *node.args, *[k.value for k in node.keywords]]
    if isinstance(node, ast.Dict):
        return [part for pair in zip(node.keys, node.values) for part in pair if part is not None]
    if isinstance(node, (ast.If, ast.While)):
        return [node.test]
    if isinstance(node, ast.With):
        return [node.items[0].context_expr]
    if isinstance(node, ast.For):
        return [node.iter]
    return [
        child
        for child in ast.iter_child_nodes(node)
        if not isinstance(child, (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop))
    ]


def _replace(statement: ast.stmt, use: ast.Name, value: ast.expr) -> None:
    for node in ast.walk(statement):
        for field, old in ast.iter_fields(node):
            if old is use:
                setattr(node, field, value)
                return
            if isinstance(old, list):
                for position, item in enumerate(old):
                    if item is use:
                        old[position] = value
                        return


def _all_nodes(statements: list[ast.stmt]) -> Iterator[ast.AST]:
    for statement in statements:
        yield from ast.walk(statement)


def _walk_bodies(statements: list[ast.stmt], visit) -> None:  # noqa: ANN001
    """Call `visit` on every statement list, innermost first."""
    for statement in statements:
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(statement, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], (ast.stmt, ast.excepthandler, ast.match_case)):
                if field in ("handlers", "cases"):
                    for handler in inner:
                        _walk_bodies(handler.body, visit)
                else:
                    _walk_bodies(inner, visit)
    visit(statements)
