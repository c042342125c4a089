"""Lists whose contents are known: Dynamo's frame values, written out.

torch 2.13's transformed code passes the live values of a frame to a resume function through
lists it builds, slices, extends, reorders and pops on the stack; decompiled, that is a dozen
statements of list surgery on temporaries (`__temp12[0:] = [__temp12[1], __temp12[0]]`) before
`return __resume_at_102_2([], __temp10, *__temp15)`. Where such a list is a temporary's own (made
from a display, held only by temporaries, never seen by other code until it is passed on), its
contents are known at every point, and the call can be written with them:
`return __resume_at_102_2([], [], b, x)`.

Exactness: a list is only followed while nothing but these statements touch it. Its items are
constants, names, or other such lists; an item that is any other expression is first stored in
a new temporary where it was evaluated, so nothing is evaluated later than before. A name used
as an item must not be rebound before the list is written out. A list is written out once on
each path (two displays would be two lists); anything else gives up and leaves the code as it
was.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field

from compilescope.decompiler.values import Temporaries


@dataclass(eq=False)
class _List:
    items: list[Item] = field(default_factory=list)
    written: bool = False  # written out on this path already (a second display is a second list)


Item = ast.expr | _List


class _GiveUp(Exception):
    pass


def written_out(body: list[ast.stmt], temps: Temporaries) -> list[ast.stmt]:
    """The function's body with its known lists written out where they are used, or the body
    unchanged where that is not exact."""
    if not any(_makes_list(statement, temps) for statement in body):
        return body
    try:
        folded, _ = _Fold(temps).block(body, {})
    except _GiveUp:
        return body
    return folded


def _makes_list(statement: ast.stmt, temps: Temporaries) -> bool:
    return (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
        and temps.owns(statement.targets[0].id)
        and isinstance(statement.value, (ast.List, ast.Subscript))
        and isinstance(getattr(statement.value, "value", statement.value), ast.List)
    )


class _Fold:
    def __init__(self, temps: Temporaries) -> None:
        self.temps = temps
        self.renders = 0  # lists written out so far

    # ---- a sequence of statements, with what the temporaries hold -----------------------------
    def block(self, body: list[ast.stmt], env: dict[str, Item]) -> tuple[list[ast.stmt], bool]:
        """The statements rewritten, and whether any of them was taken in (a list followed)."""
        out: list[ast.stmt] = []
        taken = False
        for statement in body:
            if self._take(statement, env, out):
                taken = True
                continue
            if isinstance(statement, ast.If) and not self._reads(statement.test, env):
                branches = []
                for side in (statement.body, statement.orelse):
                    renders = self.renders
                    rewritten, side_taken = self.block(side, copy.deepcopy(env))  # shared lists stay shared
                    if (side_taken or self.renders != renders) and not (rewritten and _leaves(rewritten[-1])):
                        raise _GiveUp  # a list changed or written out on one side only, then code after the if
                    branches.append(rewritten)
                    taken |= side_taken
                out.append(ast.If(test=statement.test, body=branches[0] or [ast.Pass()], orelse=branches[1]))
                self._rebinds(statement, env)
                continue
            out.append(self._use(statement, env))
        return out, taken

    # ---- statements that build, change or alias a followed list ---------------------------------
    def _take(self, statement: ast.stmt, env: dict[str, Item], out: list[ast.stmt]) -> bool:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            if isinstance(target, ast.Name) and self.temps.owns(target.id):
                value = self._value(statement.value, env, out)
                if value is None:
                    env.pop(target.id, None)
                    return False
                env[target.id] = value
                return True
            if isinstance(target, ast.Subscript):
                held = self._list(target.value, env)
                new = self._value(statement.value, env, out)
                if held is None or not isinstance(new, _List):
                    if held is not None or self._reads(statement, env):
                        raise _GiveUp
                    return False
                _assign(_unwritten(held), target.slice, new.items)
                return True
        if isinstance(statement, ast.Delete) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Subscript):
            held = self._list(statement.targets[0].value, env)
            if held is None:
                return False
            _delete(_unwritten(held), statement.targets[0].slice)
            return True
        if isinstance(statement, ast.Delete) and all(isinstance(t, ast.Name) and t.id in env for t in statement.targets):
            for t in statement.targets:
                env.pop(t.id)  # type: ignore[attr-defined]
            return True
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) and isinstance(statement.value.func, ast.Attribute):
            call = statement.value
            held = self._list(call.func.value, env)  # type: ignore[attr-defined]
            if held is None:
                return False
            _unwritten(held)
            if call.func.attr in ("extend", "append") and len(call.args) == 1 and not call.keywords:  # type: ignore[attr-defined]
                new = self._value(call.args[0], env, out)
                if call.func.attr == "extend" and isinstance(new, _List):  # type: ignore[attr-defined]
                    held.items += new.items
                    return True
                if call.func.attr == "append" and new is not None:  # type: ignore[attr-defined]
                    held.items.append(new)
                    return True
            raise _GiveUp
        return False

    def _value(self, value: ast.expr, env: dict[str, Item], out: list[ast.stmt]) -> Item | None:
        """What an expression is, where it is one of ours: a new list (from a display, or a slice
        of a followed one), or an item of a followed list; None for anything else."""
        if isinstance(value, ast.List):
            return _List([self._item(e, env, out) for e in value.elts])
        if isinstance(value, ast.Name) and value.id in env:
            return env[value.id]
        if isinstance(value, ast.Subscript):
            held = self._list(value.value, env) if not isinstance(value.value, ast.List) else self._value(value.value, env, out)
            if not isinstance(held, _List):
                return None
            if isinstance(value.slice, ast.Slice):
                return _List(list(held.items[_slice(value.slice)]))
            return held.items[_index(value.slice, len(held.items))]
        return None

    def _item(self, value: ast.expr, env: dict[str, Item], out: list[ast.stmt]) -> Item:
        if isinstance(value, ast.Starred):
            raise _GiveUp
        known = self._value(value, env, out)
        if known is not None:
            return known
        if isinstance(value, (ast.Constant, ast.Name)):
            return value
        # evaluated here, as before: stored in a new temporary, which the list then holds
        name = self.temps.new()
        out.append(ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=value, lineno=0))
        return ast.Name(id=name, ctx=ast.Load())

    def _list(self, value: ast.expr, env: dict[str, Item]) -> _List | None:
        if isinstance(value, ast.Name) and isinstance(env.get(value.id), _List):
            return env[value.id]  # type: ignore[return-value]
        if isinstance(value, ast.Subscript) and not isinstance(value.slice, ast.Slice):
            outer = self._list(value.value, env)
            if outer is not None:
                item = outer.items[_index(value.slice, len(outer.items))]
                return item if isinstance(item, _List) else None
        return None

    # ---- any other statement: the followed lists it reads, written out ------------------------
    def _reads(self, node: ast.AST, env: dict[str, Item]) -> bool:
        return any(isinstance(n, ast.Name) and n.id in env for n in ast.walk(node))

    def _use(self, statement: ast.stmt, env: dict[str, Item]) -> ast.stmt:
        if not self._reads(statement, env):
            self._rebinds(statement, env)
            return statement
        if any(
            isinstance(
                n,
                (
                    ast.If,
                    ast.For,
                    ast.While,
                    ast.Try,
                    ast.With,
                    ast.FunctionDef,
                    ast.Lambda,
                    ast.ListComp,
                    ast.SetComp,
                    ast.DictComp,
                    ast.GeneratorExp,
                ),
            )
            for n in ast.walk(statement)
        ):
            raise _GiveUp  # read inside a loop or a nested scope: not once, or not here
        if any(isinstance(n, ast.Name) and n.id in env and not isinstance(n.ctx, ast.Load) for n in ast.walk(statement)):
            raise _GiveUp
        rewritten = _Writer(self, env).visit(copy.deepcopy(statement))
        self._rebinds(statement, env)
        return rewritten

    def _rebinds(self, statement: ast.stmt, env: dict[str, Item]) -> None:
        """A statement that rebinds or deletes a name some followed list holds: that list can no
        longer be written out (the name would mean something else)."""
        changed = {n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        if not changed:
            return
        for name, value in list(env.items()):
            if isinstance(value, _List) and changed & _names_in(value):
                env[name] = _Stale()
            elif isinstance(value, ast.Name) and value.id in changed:
                env[name] = _Stale()

    def render(self, value: Item) -> ast.expr:
        if isinstance(value, _Stale):
            raise _GiveUp
        if isinstance(value, _List):
            if value.written:
                raise _GiveUp
            value.written = True
            self.renders += 1
            return ast.List(elts=[self.render(item) for item in value.items], ctx=ast.Load())
        return copy.deepcopy(value)


class _Stale(ast.expr):
    """A temporary whose list holds a name since rebound."""


class _Writer(ast.NodeTransformer):
    def __init__(self, fold: _Fold, env: dict[str, Item]) -> None:
        self.fold = fold
        self.env = env

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        args: list[ast.expr] = []
        for argument in node.args:  # f(*[a, b]) is f(a, b)
            if isinstance(argument, ast.Starred) and isinstance(argument.value, ast.List):
                args += argument.value.elts
            else:
                args.append(argument)
        node.args = args
        return node

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node.id in self.env:
            return self.fold.render(self.env[node.id])
        return node


def _unwritten(held: _List) -> _List:
    """A list about to change: not one already written out (whoever it was passed to holds the
    real list, and would see the change)."""
    if held.written:
        raise _GiveUp
    return held


def _names_in(value: _List, seen: set[int] | None = None) -> set[str]:
    seen = seen if seen is not None else set()
    if id(value) in seen:
        return set()
    seen.add(id(value))
    names: set[str] = set()
    for item in value.items:
        if isinstance(item, _List):
            names |= _names_in(item, seen)
        else:
            names |= {n.id for n in ast.walk(item) if isinstance(n, ast.Name)}
    return names


def _index(node: ast.expr, length: int) -> int:
    value = _constant_int(node)
    if value is None or not -length <= value < length:
        raise _GiveUp
    return value


def _constant_int(node: ast.expr | None) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
        and type(node.operand.value) is int
    ):
        return -node.operand.value
    return None


def _slice(node: ast.Slice) -> slice:
    bounds = []
    for part in (node.lower, node.upper):
        value = None if part is None else _constant_int(part)
        if part is not None and value is None:
            raise _GiveUp
        bounds.append(value)
    if node.step is not None:
        raise _GiveUp
    return slice(bounds[0], bounds[1])


def _assign(held: _List, target: ast.expr, items: list[Item]) -> None:
    if isinstance(target, ast.Slice):
        held.items[_slice(target)] = items
    else:
        raise _GiveUp


def _delete(held: _List, target: ast.expr) -> None:
    if isinstance(target, ast.Slice):
        del held.items[_slice(target)]
    else:
        del held.items[_index(target, len(held.items))]


def _leaves(statement: ast.stmt) -> bool:
    return isinstance(statement, (ast.Return, ast.Raise, ast.Continue, ast.Break))
