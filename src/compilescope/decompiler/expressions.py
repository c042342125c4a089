"""The decompiler's second layer: the instructions of one block -> Python statements (as `ast`).

A symbolic run of the value stack: each instruction pops and pushes `ast` expressions, and the
instructions that end a statement (a store, a discarded value, a return) emit an `ast` statement.
`ast.unparse` then writes valid Python with the right parentheses. One table for Python 3.10 to
3.13; where the versions differ (how calls and NULLs sit on the stack, how operators are named),
the differences are handled where the instruction is.

Anything not understood raises Unsupported with the instruction, so that the caller shows the
bytecode there instead: never a guess.
"""

from __future__ import annotations

import ast
import dis
import sys
from dataclasses import dataclass, field
from types import CodeType
from typing import Any, cast

from compilescope.decompiler.values import (
    CAUGHT,
    EXCEPTION_TYPE,
    GENERATOR,
    NEXT_ITEM,
    NULL,
    PREVIOUS,
    TRACEBACK,
    WITH_DONE,
    CaughtAs,
    ChainLeft,
    ExceptionMarker,
    ExceptionMatch,
    HandlerEnd,
    LoopIterator,
    LoopMarker,
    NestedBodies,
    Saved,
    Temporaries,
    Unsupported,
    WithEnter,
    WithExit,
    WithTarget,
)


@dataclass
class _Import:
    """IMPORT_NAME's module, until it is stored (`import a`) or names are taken from it."""

    module: str
    level: int
    fromlist: tuple[str, ...] | None


@dataclass
class _ImportedName:
    """IMPORT_FROM: one name of a module, until it is stored (`from m import a as b`)."""

    source: _Import
    name: str


@dataclass
class _Delegated:
    """GET_YIELD_FROM_ITER: what `yield from` delegates to."""

    value: ast.expr


@dataclass
class _Code:
    """LOAD_CONST of a code object, until MAKE_FUNCTION makes it a function."""

    code: CodeType


class _BuildClass(ast.expr):
    """LOAD_BUILD_CLASS: the builtin a `class` statement calls with the body's function, the
    name and the bases, until the class is stored (`class C(B): ...`)."""

    _fields = ()


class _Locals:
    """LOAD_LOCALS (3.12+, in a class body): the namespace the next load looks in first."""


LOCALS = _Locals()


class _Function(ast.expr):
    """A function made by MAKE_FUNCTION from a nested `def`, until it is stored (`def f`),
    decorated and stored, or used some other way (refused: a def is a statement)."""

    _fields = ()

    def __init__(self, code: CodeType, defaults: list[ast.expr], kwdefaults: dict[str, ast.expr]) -> None:
        super().__init__()
        self.code = code
        self.defaults = defaults
        self.kwdefaults = kwdefaults
        self.annotations: dict[str, ast.expr] = {}  # parameter (or "return") -> its annotation


@dataclass
class _Comprehension:
    """A comprehension's own function (3.10, 3.11; generator expressions on every version),
    until it is called with its first iterable."""

    code: CodeType


_COMPREHENSIONS = ("<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>")


@dataclass
class _InPlace:
    """`x += y` before its store: the store decides whether it is an augmented assignment."""

    op: ast.operator
    target: ast.expr
    value: ast.expr


def _display_parts(value: Any) -> Any:
    """A copy of a list, set, tuple or dict display (no `*`, no `**`) and its parts, in the
    order they are evaluated, as (list, index) places; None for anything else."""
    if isinstance(value, (ast.List, ast.Set, ast.Tuple)) and not any(isinstance(e, ast.Starred) for e in value.elts):
        # (cast: mypy would match a dict[str, Load] against every keyword, lineno's int too)
        copy = type(value)(elts=list(value.elts), **cast("dict[str, Any]", {"ctx": ast.Load()} if not isinstance(value, ast.Set) else {}))
        return copy, [(copy.elts, at) for at in range(len(copy.elts))]
    if isinstance(value, ast.Dict) and all(k is not None for k in value.keys):
        dict_copy = ast.Dict(keys=list(value.keys), values=list(value.values))
        return dict_copy, [(part, at) for at in range(len(dict_copy.keys)) for part in (dict_copy.keys, dict_copy.values)]
    return None


@dataclass
class _Unpack:
    """`a, b = value`: UNPACK_SEQUENCE's slots, filled by the stores that follow."""

    value: Any  # what is unpacked: a value, the loop's item, or (nested) a slot of another
    count: int
    targets: list[ast.expr] = field(default_factory=list)
    star: int | None = None  # UNPACK_EX: the slot that takes the rest (`a, *b = value`)


@dataclass
class _Slot:
    group: _Unpack


_BINARY = {
    "+": ast.Add,
    "-": ast.Sub,
    "*": ast.Mult,
    "/": ast.Div,
    "//": ast.FloorDiv,
    "%": ast.Mod,
    "**": ast.Pow,
    "@": ast.MatMult,
    "<<": ast.LShift,
    ">>": ast.RShift,
    "&": ast.BitAnd,
    "|": ast.BitOr,
    "^": ast.BitXor,
}
# Python 3.10 names each operator in the opcode.
_BINARY_310 = {
    "ADD": "+",
    "SUBTRACT": "-",
    "MULTIPLY": "*",
    "TRUE_DIVIDE": "/",
    "FLOOR_DIVIDE": "//",
    "MODULO": "%",
    "POWER": "**",
    "MATRIX_MULTIPLY": "@",
    "LSHIFT": "<<",
    "RSHIFT": ">>",
    "AND": "&",
    "OR": "|",
    "XOR": "^",
}
_COMPARE = {"<": ast.Lt, "<=": ast.LtE, ">": ast.Gt, ">=": ast.GtE, "==": ast.Eq, "!=": ast.NotEq}
_UNARY = {"UNARY_NEGATIVE": ast.USub, "UNARY_NOT": ast.Not, "UNARY_INVERT": ast.Invert, "UNARY_POSITIVE": ast.UAdd}
# Stores to a plain name.
_NAME_STORES = ("STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF")
# Instructions with no effect on the values of straight-line code.
_IGNORED = frozenset({"NOP", "RESUME", "CACHE", "PRECALL", "EXTENDED_ARG", "TO_BOOL", "COPY_FREE_VARS", "MAKE_CELL"})
if sys.version_info < (3, 11):  # 3.10's block stack: the graph has what they mean (exception edges)
    _IGNORED = _IGNORED | {"SETUP_FINALLY", "POP_BLOCK"}


def _names_stored_next(upcoming: list[dis.Instruction], names: list[str], count: int) -> tuple[list[str], int] | None:
    """`names` and those the next instructions store, `count` different names in all, each
    stored by a store of a plain name (3.13: two by one instruction); with how many store
    instructions that took. None where the next instructions are not those stores."""
    names, stores = list(names), 0
    for following in upcoming:
        if len(names) >= count:
            break
        if following.opname in _NAME_STORES:
            names.append(following.argval)
        elif following.opname == "STORE_FAST_STORE_FAST":
            names += list(following.argval)
        else:
            return None
        stores += 1
    return (names, stores) if len(names) == count == len(set(names)) else None


def _position_after(instructions: list[dis.Instruction], index: int, count: int) -> int:
    """The index just past the `count` instructions after `index` that are not ignored."""
    position = index + 1
    while count and position < len(instructions):
        if instructions[position].opname not in _IGNORED:
            count -= 1
        position += 1
    return position


def _comparison(instruction: dis.Instruction) -> ast.cmpop:
    """The operator of COMPARE_OP (3.13: `bool(<)` where the result is tested), IS_OP or
    CONTAINS_OP (their argument: negated), or a chain's link standing for one of them."""
    kind = instruction.opcode if instruction.opname == "CHAIN_COMPARE" else None
    name = dis.opname[kind] if kind is not None else instruction.opname
    if name == "IS_OP":
        return ast.IsNot() if instruction.argval else ast.Is()
    if name == "CONTAINS_OP":
        return ast.NotIn() if instruction.argval else ast.In()
    symbol = str(instruction.argval)
    if symbol.startswith("bool(") and symbol.endswith(")"):
        symbol = symbol[5:-1]
    return _COMPARE[symbol]()


def empty_display(value: Any) -> bool:
    """`{}`, `[]` or an empty set display: one that DICT_MERGE, LIST_EXTEND and the like may
    still add to in place."""
    return isinstance(value, ast.Dict) and not value.keys or isinstance(value, (ast.List, ast.Set)) and not value.elts


def name_cleanup(instructions: list[dis.Instruction]) -> bool:
    if len(instructions) < 3:
        return False
    load, store, delete = instructions[:3]
    return (
        load.opname == "LOAD_CONST"
        and load.argval is None
        and store.opname in ("STORE_FAST", "STORE_NAME", "STORE_DEREF")
        and delete.opname in ("DELETE_FAST", "DELETE_NAME", "DELETE_DEREF")
        and store.argval == delete.argval
    )


def _stored(value: ast.expr, instruction: dis.Instruction | None) -> ast.expr:
    """A value as the right side of an assignment: a formatted part of an f-string on its own is
    f"{x}" (a str, as BUILD_STRING needs); a slice has no expression of its own."""
    if isinstance(value, ast.FormattedValue):
        return ast.JoinedStr(values=[value])
    if isinstance(value, ast.Slice):
        raise Unsupported(instruction, "a slice kept on the stack across statements")
    return value


def _holds_function(value: Any) -> bool:
    while isinstance(value, ast.Call) and len(value.args) == 1 and not _made_class(value):
        value = value.args[0]
    return isinstance(value, _Function) or _made_class(value)


def _made_class(value: Any) -> bool:
    return isinstance(value, ast.Call) and isinstance(value.func, _BuildClass)


def _writable(value: Any) -> bool:
    """A constant that `ast.unparse` writes as a literal giving the same value."""
    if value is None or value is Ellipsis or isinstance(value, (bool, int, str, bytes)):
        return True
    if isinstance(value, (float, complex)):
        return all(part == part for part in (value.real, value.imag))  # not NaN (inf unparses as 1e309)
    if isinstance(value, (tuple, frozenset)):
        return all(_writable(v) for v in value)
    return False


def _written(statement: ast.stmt) -> frozenset[str]:
    """The plain names a statement binds or deletes."""
    names = {n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
    names |= {a.asname or a.name.split(".")[0] for n in ast.walk(statement) if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    return frozenset(names)


def _load(name: str) -> ast.expr:
    return ast.Name(id=name, ctx=ast.Load())


class BlockReader:
    """Turns instructions into statements, keeping the stack between calls (a block may leave
    values for the next one)."""

    def __init__(self, code: CodeType, nested: NestedBodies, stack: list[Any] | None = None, temps: Temporaries | None = None) -> None:
        self.code = code
        self.nested = nested
        self.stack: list[Any] = list(stack or [])
        self.temps = temps or Temporaries(code)
        self.loop_target: ast.expr | None = None  # what the loop's next item was stored in
        self.statements: list[ast.stmt] = []
        self._kw_names: tuple[str, ...] = ()
        # `a, b = b, a` stored one name at a time: the stores so far, and how many waiting
        # values are still to be stored before it is one parallel assignment.
        self._parallel: list[tuple[ast.expr, ast.expr]] = []
        self._parallel_left = 0
        self._upcoming: list[dis.Instruction] = []  # the rest of the block, for the parallel store
        self._previous = ""  # the instruction before this one (a SWAP before a parallel store)
        self._walrus = False  # the top was copied for an assignment expression: the store names it
        self._consumed = 0  # instructions after this one that it has read as well (skipped)
        self._skip_name_cleanup = False  # just after POP_EXCEPT: `e = None; del e` may follow
        self._parallel_swapped = False

    # ---- helpers -------------------------------------------------------------------------------
    def pop(self, instruction: dis.Instruction) -> Any:
        if not self.stack:
            raise Unsupported(instruction, "the value stack is empty here")
        return self.stack.pop()

    def pop_value(self, instruction: dis.Instruction) -> ast.expr:
        value = self.pop(instruction)
        if not isinstance(value, ast.expr):
            raise Unsupported(instruction, f"expected a value on the stack, found {type(value).__name__}")
        return value

    @staticmethod
    def _value(value: Any, instruction: dis.Instruction) -> ast.expr:
        if not isinstance(value, ast.expr):
            raise Unsupported(instruction, f"expected a value on the stack, found {type(value).__name__}")
        return value

    def pop_values(self, instruction: dis.Instruction, count: int) -> list[ast.expr]:
        values = [self.pop_value(instruction) for _ in range(count)]
        values.reverse()
        return values

    def _store_name(self, instruction: dis.Instruction, name: str, value: Any) -> None:
        """A store to a plain name. When the values waiting on the stack are plain names and
        constants and the next instructions store each of them, it is one parallel assignment
        (`a, b = b, a`, which 3.11+ stores one name at a time)."""
        target = ast.Name(id=name, ctx=ast.Store())
        if not self._parallel and self._stored_in_turn(instruction, [name], value):
            return
        waiting = [v for v in self.stack if isinstance(v, ast.expr)]
        if not self._parallel and (not waiting or not self._parallel_follows(value, waiting)):
            self.assign(instruction, target, value)
            return
        if not self._parallel:
            self._parallel_left = len(waiting) + 1
            self._parallel_swapped = self._previous in ("SWAP", "ROT_TWO", "ROT_THREE", "ROT_FOUR", "ROT_N")
        self._parallel.append((target, value))
        self._parallel_left -= 1
        if self._parallel_left == 0:
            pairs, self._parallel = self._parallel, []
            targets, values = zip(*pairs)
            if all(ast.dump(v) == ast.dump(values[0]) for v in values):  # a = b = x: stored left to right
                self.emit(ast.Assign(targets=list(targets), value=values[0], lineno=0), instruction)
                return
            if not self._parallel_swapped:
                # the values were stored straight off the stack, last first (3.11+ drops the
                # SWAPs that would store them in order): reversed, they are as written
                targets, values = targets[::-1], values[::-1]
            self.emit(
                ast.Assign(
                    targets=[ast.Tuple(elts=list(targets), ctx=ast.Store())], value=ast.Tuple(elts=list(values), ctx=ast.Load()), lineno=0
                ),
                instruction,
            )

    def _stored_in_turn(self, instruction: dis.Instruction, names: list[str], value: Any) -> bool:
        """`a, b = f(), g()`, which 3.11+ stores straight off the stack, last first, with no
        swap: the values waiting below this one are stored by the next instructions, one name
        each. Written as the tuple assignment it is (all values are computed before any store
        either way; the names differ, so the order of the stores does not show). False (nothing
        done) where the values are all plain: see _parallel_follows."""
        below = 0
        while below < len(self.stack) and isinstance(self.stack[-1 - below], ast.expr):
            below += 1
        if not below or not isinstance(value, ast.expr) or all(_plain(v) for v in [value, *self.stack[len(self.stack) - below :]]):
            return False
        # (this instruction's own names first: 3.13 stores two in one)
        found = _names_stored_next([i for i in self._upcoming if i.opname not in _IGNORED], names, below + 1)
        if found is None:
            return False
        names, stores = found
        values = [*[self.pop_value(instruction) for _ in range(below)][::-1], value]
        self._emit_tuple_assignment(instruction, names[::-1], values)
        self._consumed = stores
        return True

    def _parallel_follows(self, value: Any, waiting: list[ast.expr]) -> bool:
        if not isinstance(value, ast.expr) or not all(_plain(v) for v in [*waiting, value]) or len(waiting) != len(self.stack):
            return False
        following = [i for i in self._upcoming[: len(waiting) * 2] if i.opname not in _IGNORED][: len(waiting)]
        return len(following) == len(waiting) and all(i.opname in _NAME_STORES for i in following)

    def emit(self, statement: ast.stmt, instruction: dis.Instruction | None = None) -> None:
        if not isinstance(statement, ast.FunctionDef) and any(isinstance(n, _Function) for n in ast.walk(statement)):
            raise Unsupported(instruction, "a nested function used without a name (a def is a statement)")
        # A value still on the stack was computed before this statement, but as source it would
        # be evaluated after it, unless it is first stored in a temporary.
        self.spill(len(self.stack), _written(statement), instruction)
        self.statements.append(statement)

    # ---- values that wait on the stack ------------------------------------------------------------
    # The stack holds source expressions not yet evaluated. That is exact as long as those that
    # read anything changeable are evaluated in stack order, bottom to top, with no statement in
    # between. Where that would break (a statement runs while they wait, a value is duplicated, a
    # swap reorders them), they are stored in temporaries first, in stack order: the order and the
    # number of times Python evaluated them.
    def _settled(self, value: Any, written: frozenset[str] = frozenset()) -> bool:
        """Whether evaluating `value` later, or twice, reads the same as evaluating it now."""
        if isinstance(value, ast.Constant):
            return True
        if isinstance(value, ast.Name):
            return value.id not in written and (value.id in self.code.co_varnames or self.temps.owns(value.id))
        if isinstance(value, ast.Tuple):
            return all(self._settled(v, written) for v in value.elts)
        if isinstance(value, ast.Slice):
            return all(part is None or self._settled(part, written) for part in (value.lower, value.upper, value.step))
        return not isinstance(value, (ast.AST, _InPlace, ChainLeft))

    def _comprehension_start(self) -> int:
        """Where a 3.12+ inlined comprehension's entries start on the stack (its saved names),
        or 0. A display below it (the dict that `f(k=v, **{k: v for ...})` merges it into) stays
        one while it runs, its parts in temporaries where they must be: a new object, made
        after it, is the same object."""
        return next((at for at, value in enumerate(self.stack) if isinstance(value, Saved)), 0)

    def _display_held(
        self, index: int, inlined: int, written: frozenset[str], instruction: dis.Instruction | None
    ) -> list[tuple[ast.Name, ast.expr]] | None:
        """For a display at stack `index`, below an inlined comprehension (at `inlined`): each
        unsettled part goes in a new temporary, which the display reads instead; returns
        (temporary, part) in the order the parts are evaluated. None for any other value."""
        display = _display_parts(self.stack[index]) if index < inlined else None
        if display is None:
            return None
        copy, parts = display
        held = []
        for part, at in parts:
            if not self._settled(part[at], written):
                held.append((ast.Name(id=self.temps.new(), ctx=ast.Store()), _stored(part[at], instruction)))
                part[at] = _load(held[-1][0].id)
        self.stack[index] = copy
        return held

    def spill(self, height: int, written: frozenset[str] = frozenset(), instruction: dis.Instruction | None = None) -> None:
        """Store every unsettled value of the bottom `height` stack entries in a temporary."""
        inlined = self._comprehension_start()
        for index in range(min(height, len(self.stack))):
            value = self.stack[index]
            if self._settled(value, written):
                continue
            if empty_display(value) and index < height - 1:
                continue  # still being built: made later, a new empty one is the same (not the top, which a COPY may be about to copy)
            held = self._display_held(index, inlined, written, instruction)
            if held is not None:  # its parts go in temporaries, where they must
                self.statements += [ast.Assign(targets=[target], value=part, lineno=0) for target, part in held]
                continue
            if not isinstance(value, ast.expr):
                raise Unsupported(instruction, "a value under construction is still waiting on the stack across this statement")
            name = self.temps.new()
            self.statements.append(ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=_stored(value, instruction), lineno=0))
            self.stack[index] = _load(name)

    def _spill_for_swap(self, depth: int, instruction: dis.Instruction) -> None:
        """Before swapping the top with the entry `depth` down: spill if two unsettled values
        would change their order."""
        window = self.stack[-depth:]
        unsettled = [not self._settled(v) for v in window]
        if (unsettled[-1] and any(unsettled[:-1])) or (unsettled[0] and any(unsettled[1:])):
            self.spill(len(self.stack), instruction=instruction)

    def _tuple_assignment(self, instruction: dis.Instruction) -> bool:
        """`a, b = x, y` (and three): the values, then a swap that reverses them (3.10:
        ROT_THREE, ROT_TWO) and a store to each name, first to last. Written as it was; False
        (nothing done) for any other swap."""
        count = {"ROT_TWO": 2, "ROT_THREE": 3}.get(instruction.opname) or instruction.argval
        upcoming = [i for i in self._upcoming if i.opname not in _IGNORED]
        swaps = 1
        if instruction.opname == "ROT_THREE":
            if not upcoming or upcoming[0].opname != "ROT_TWO":
                return False
            upcoming, swaps = upcoming[1:], 2
        if count not in (2, 3) or len(self.stack) < count or not all(isinstance(v, ast.expr) for v in self.stack[-count:]):
            return False
        found = _names_stored_next(upcoming, [], count)
        if found is None:
            return False
        names, stores = found
        self._emit_tuple_assignment(instruction, names, [self.pop_value(instruction) for _ in range(count)][::-1])
        self._consumed = swaps - 1 + stores
        return True

    def _emit_tuple_assignment(self, instruction: dis.Instruction, names: list[str], values: list[ast.expr]) -> None:
        targets: list[ast.expr] = [ast.Name(id=name, ctx=ast.Store()) for name in names]
        self.emit(
            ast.Assign(
                targets=[ast.Tuple(elts=targets, ctx=ast.Store())],
                value=ast.Tuple(elts=[_stored(v, instruction) for v in values], ctx=ast.Load()),
                lineno=0,
            ),
            instruction,
        )

    def _named_expression_follows(self) -> bool:
        """Whether the copy of the top about to be made is an assignment expression's: the next
        instruction stores it in a name and what follows uses the value kept, neither storing it
        again (`a = b = v`) nor dropping it (a statement of its own)."""
        following = [i for i in self._upcoming[:4] if i.opname not in _IGNORED][:2]
        if not following or following[0].opname not in (*_NAME_STORES, "STORE_FAST_LOAD_FAST"):
            return False
        if following[0].opname == "STORE_FAST_LOAD_FAST":
            return True
        return len(following) == 1 or not (following[1].opname.startswith("STORE_") or following[1].opname in ("POP_TOP", "RETURN_VALUE"))

    def _copy(self, depth: int, instruction: dis.Instruction) -> None:
        if len(self.stack) < depth:
            raise Unsupported(instruction, "the value stack is shorter than the copy")
        if not self._settled(self.stack[-depth]):
            self.spill(len(self.stack) - depth + 1, instruction=instruction)
        self.stack.append(self.stack[-depth])

    def leave(
        self, height: int, instruction: dis.Instruction | None = None, names: list[str] | None = None, tested: bool = False
    ) -> list[Any]:
        """The block ends with values above the bottom `height` entries, for the next block:
        store them in the names that block expects them in (`names`, when another block reaching
        it chose them; new ones otherwise), in one assignment, so that values already in such
        names are read first. `tested`: the block's last value was just tested and popped, so
        all these are values below what the next blocks compute. Returns the next block's view
        of them."""
        targets: list[ast.expr]
        values: list[ast.expr]
        targets, values = [], []
        inlined = self._comprehension_start()
        chosen = list(names) if names is not None else None
        for index in range(height, len(self.stack)):
            value = self.stack[index]
            if value is NULL or isinstance(
                value, (Saved, ExceptionMarker, WithExit, WithEnter, _Delegated)
            ):  # markers, not values: they go on
                continue
            if isinstance(value, ast.Constant) and index < inlined:
                continue
            if empty_display(value) and (tested or index < len(self.stack) - 1):
                # a display still being built, below what goes on (`f(**(kw or {}))` merges into
                # one): made later, a new empty one is the same, so it goes on as it is
                continue
            held = self._display_held(index, inlined, frozenset(), instruction)
            if held is not None:  # its parts go in temporaries, in order, where they must
                targets += [target for target, _ in held]
                values += [part for _, part in held]
                continue
            if not isinstance(value, ast.expr):
                raise Unsupported(instruction, "a value under construction flows into the next block")
            if chosen is not None:
                if not chosen:
                    raise Unsupported(instruction, "blocks reach the same place with different values on the stack")
                name = chosen.pop(0)
            else:
                name = self.temps.joined()
            self.stack[index] = _load(name)
            if isinstance(value, ast.Name) and value.id == name:
                continue
            targets.append(ast.Name(id=name, ctx=ast.Store()))
            values.append(_stored(value, instruction))
        if chosen:
            raise Unsupported(instruction, "blocks reach the same place with different values on the stack")
        if targets:
            statement = (
                ast.Assign(targets=targets, value=values[0], lineno=0)
                if len(targets) == 1
                else ast.Assign(targets=[ast.Tuple(elts=targets, ctx=ast.Store())], value=ast.Tuple(elts=values, ctx=ast.Load()), lineno=0)
            )
            self.statements.append(statement)
        return self.stack[height:]

    def _import(self, instruction: dis.Instruction, target: ast.expr, value: Any) -> bool:
        """A store of an imported module or name: the import statement. False if not one."""
        if not isinstance(value, (_Import, _ImportedName)):
            return False
        if not isinstance(target, ast.Name):
            raise Unsupported(instruction, "an import stored in something that is not a name")
        stored = target.id
        if isinstance(value, _Import):
            if value.fromlist is not None or value.level:
                raise Unsupported(instruction, "a module imported with names, stored whole")
            if "." in value.module and stored == value.module.split(".")[0]:
                alias = ast.alias(name=value.module)  # import a.b binds a
            elif "." in value.module:
                raise Unsupported(instruction, "a dotted import stored under another name")
            else:
                alias = ast.alias(name=value.module, asname=None if stored == value.module else stored)
            self.emit(ast.Import(names=[alias]), instruction)
            return True
        source = value.source
        if source.fromlist is None:  # import a.b as c: IMPORT_FROM b of a.b
            if source.module.partition(".")[2] != value.name:
                raise Unsupported(instruction, "an attribute of a module taken while importing it")
            self.emit(ast.Import(names=[ast.alias(name=source.module, asname=stored)]), instruction)
            return True
        alias = ast.alias(name=value.name, asname=None if stored == value.name else stored)
        self.emit(ast.ImportFrom(module=source.module or None, names=[alias], level=source.level), instruction)
        return True

    def assign(self, instruction: dis.Instruction, target: ast.expr, value: Any) -> None:
        if isinstance(value, WithEnter):  # with m as target
            self.statements.append(WithTarget(target))
            return
        if value is CAUGHT:  # except E as name
            if not isinstance(target, ast.Name):
                raise Unsupported(instruction, "an exception stored in something that is not a name")
            self.statements.append(CaughtAs(target.id))
            return
        if isinstance(value, Saved):  # a comprehension's variable put back: the comprehension's scope did it
            if not (isinstance(target, ast.Name) and target.id == value.name):
                raise Unsupported(instruction, "a comprehension's saved variable stored elsewhere")
            return
        if self._import(instruction, target, value):
            return
        decorators: list[ast.expr] = []
        inner = value
        while isinstance(inner, ast.Call) and len(inner.args) == 1 and not inner.keywords and _holds_function(inner.args[0]):
            decorators.append(inner.func)
            inner = inner.args[0]
        if isinstance(inner, _Function):
            if not isinstance(target, ast.Name):
                raise Unsupported(instruction, "a nested function stored in something that is not a name")
            self.emit(self._definition(inner, decorators, target.id, instruction), instruction)
            return
        if _made_class(inner):
            if not isinstance(target, ast.Name):
                raise Unsupported(instruction, "a class stored in something that is not a name")
            self.emit(self._class_definition(inner, decorators, target.id, instruction), instruction)
            return
        if value is NEXT_ITEM:
            self.loop_target = target
            return
        if isinstance(value, _Slot):
            self._fill(value, target, instruction)
            return
        if isinstance(value, _InPlace):
            if ast.dump(value.target) == ast.dump(_as_read(target)):
                # (a target of a store: a name, attribute or subscript)
                self.emit(
                    ast.AugAssign(target=cast("ast.Name | ast.Attribute | ast.Subscript", target), op=value.op, value=value.value),
                    instruction,
                )
                return
            value = ast.BinOp(left=value.target, op=value.op, right=value.value)
        if not isinstance(value, ast.expr):
            raise Unsupported(instruction, "stored something that is not a value")
        self.emit(ast.Assign(targets=[target], value=value, lineno=0), instruction)

    def _overwritten_name(self, instruction: dis.Instruction) -> ast.Name:
        """The name an unpacking's POP_TOP stands for: 3.13 drops a store that the next one
        overwrites (`for tag, _, _ in rows`: POP_TOP, then `_ = ...`), so it is that name."""
        following = next((i for i in self._upcoming if i.opname not in _IGNORED and i.opname != "POP_TOP"), None)
        if following is None or following.opname not in ("STORE_FAST", "STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST"):
            raise Unsupported(instruction, "discarded a value under construction")
        name = following.argval[0] if isinstance(following.argval, tuple) else following.argval
        return ast.Name(id=name, ctx=ast.Store())

    def _fill(self, slot: _Slot, target: ast.expr, instruction: dis.Instruction) -> None:
        """A store into one of UNPACK_SEQUENCE's slots; the last one makes the assignment (or
        the loop's target, or, nested as in `for i, (x, y) in ...`, the slot it unpacked)."""
        group = slot.group
        group.targets.append(target)
        if len(group.targets) < group.count:
            return
        if group.star is not None:
            group.targets[group.star] = ast.Starred(value=group.targets[group.star], ctx=ast.Store())
        whole = ast.Tuple(elts=group.targets, ctx=ast.Store())
        if isinstance(group.value, _Slot):
            self._fill(group.value, whole, instruction)
        elif group.value is NEXT_ITEM:
            self.loop_target = whole
        else:
            self.emit(ast.Assign(targets=[whole], value=group.value, lineno=0), instruction)

    # ---- the instructions ----------------------------------------------------------------------
    def run(self, instructions: list[dis.Instruction]) -> None:
        skip = 0
        for index, instruction in enumerate(instructions):
            if skip:
                skip -= 1
                continue
            if self._skip_name_cleanup and name_cleanup(instructions[index : index + 3]):
                # `except E as e` ends with `e = None; del e`, Python's own: not written
                skip = 2
                self._skip_name_cleanup = False
                continue
            self._upcoming = instructions[index + 1 :]
            self.step(instruction)
            if instruction.opname not in _IGNORED:
                self._previous = instruction.opname
                if instruction.opname != "POP_EXCEPT":
                    self._skip_name_cleanup = False
            if self._consumed:  # (counted without the ignored instructions between them)
                skip = _position_after(instructions, index, self._consumed) - index - 1
                self._consumed = 0
                self._previous = instructions[index + skip].opname
        self._upcoming = []

    def step(self, ins: dis.Instruction) -> None:  # noqa: C901  (one table of opcodes)
        op = ins.opname
        if op in _IGNORED:
            return
        if self._parallel and op not in (*_NAME_STORES, "STORE_FAST_STORE_FAST"):
            raise Unsupported(ins, "a parallel assignment interrupted before all its names were stored")
        if op == "LOAD_CONST":
            if isinstance(ins.argval, CodeType):
                self.stack.append(_Code(ins.argval))
                return
            if _writable(ins.argval):
                self.stack.append(ast.Constant(value=ins.argval))
            else:  # an object put in the code (Dynamo does: torch.device(...)): named, not guessed
                self.stack.append(_load(self.temps.constant(cast(int, ins.arg), ins.argval)))  # (LOAD_CONST has an arg)
        elif op in (
            "LOAD_FAST",
            "LOAD_FAST_CHECK",
            "LOAD_DEREF",
            "LOAD_NAME",
            "LOAD_GLOBAL",
            "LOAD_CLASSDEREF",
            "LOAD_FROM_DICT_OR_GLOBALS",
        ):
            if op == "LOAD_GLOBAL" and sys.version_info >= (3, 11) and ins.arg is not None and ins.arg & 1:
                if sys.version_info >= (3, 13):
                    self.stack += [_load(ins.argval), NULL]
                else:
                    self.stack += [NULL, _load(ins.argval)]
            else:
                self.stack.append(_load(ins.argval))
        elif op == "LOAD_BUILD_CLASS":
            self.stack.append(_BuildClass())
        elif op == "LOAD_LOCALS":
            self.stack.append(LOCALS)
        elif op == "LOAD_FROM_DICT_OR_DEREF":  # 3.12+: a class body reads a name of the function around it
            if self.pop(ins) is not LOCALS:
                raise Unsupported(ins, "LOAD_FROM_DICT_OR_DEREF without the class body's namespace")
            self.stack.append(_load(ins.argval))
        elif op == "SETUP_ANNOTATIONS":  # a class body's `__annotations__`: its `x: T` store into it
            pass
        elif op == "LOAD_FAST_LOAD_FAST":
            self.stack += [_load(ins.argval[0]), _load(ins.argval[1])]
        elif op == "PUSH_NULL":
            self.stack.append(NULL)
        elif op in _NAME_STORES and self._walrus:
            self._walrus = False
            self.stack.append(ast.NamedExpr(target=ast.Name(id=ins.argval, ctx=ast.Store()), value=self.pop_value(ins)))
        elif op == "STORE_FAST_LOAD_FAST" and self._walrus:
            self._walrus = False
            stored, loaded = ins.argval
            self.stack += [ast.NamedExpr(target=ast.Name(id=stored, ctx=ast.Store()), value=self.pop_value(ins)), _load(loaded)]
        elif op in _NAME_STORES:
            self._store_name(ins, ins.argval, self.pop(ins))
        elif op == "STORE_FAST_STORE_FAST":
            first, second = ins.argval
            value, other = self.pop(ins), self.pop(ins)
            if (
                isinstance(value, ast.expr)
                and isinstance(other, ast.expr)
                and _plain(value)
                and _plain(other)
                and ast.dump(value) != ast.dump(other)
            ):
                # `a, b = x, y` on 3.13: one instruction stores both names, the last first
                targets: list[ast.expr] = [ast.Name(id=second, ctx=ast.Store()), ast.Name(id=first, ctx=ast.Store())]
                self.emit(
                    ast.Assign(
                        targets=[ast.Tuple(elts=targets, ctx=ast.Store())], value=ast.Tuple(elts=[other, value], ctx=ast.Load()), lineno=0
                    ),
                    ins,
                )
            else:
                self.stack.append(other)
                if not self._stored_in_turn(ins, [first, second], value):
                    self._store_name(ins, first, value)
                    self._store_name(ins, second, self.pop(ins))
        elif op in ("SWAP", "ROT_TWO", "ROT_THREE") and self._tuple_assignment(ins):
            pass
        elif op in ("SWAP", "ROT_TWO"):
            depth = 2 if op == "ROT_TWO" else ins.argval
            if len(self.stack) < depth:
                raise Unsupported(ins, "the value stack is shorter than the swap")
            self._spill_for_swap(depth, ins)
            self.stack[-1], self.stack[-depth] = self.stack[-depth], self.stack[-1]
        elif op in ("ROT_THREE", "ROT_FOUR", "ROT_N"):  # 3.10: the top goes `depth` down
            depth = {"ROT_THREE": 3, "ROT_FOUR": 4}.get(op) or ins.argval
            if len(self.stack) < depth:
                raise Unsupported(ins, "the value stack is shorter than the rotation")
            if sum(not self._settled(v) for v in self.stack[-depth:]) > 1:
                self.spill(len(self.stack), instruction=ins)
            self.stack.insert(len(self.stack) - depth, self.stack.pop())
        elif op in ("COPY", "DUP_TOP") and (ins.argval or 1) == 1 and self._named_expression_follows():
            self._walrus = True  # the store that follows names the value where it stays: `(x := v)`
        elif op == "COPY":
            self._copy(ins.argval, ins)
        elif op == "DUP_TOP":
            self._copy(1, ins)
        elif op == "DUP_TOP_TWO":
            self._copy(2, ins)
            self._copy(2, ins)
        elif op == "STORE_FAST_LOAD_FAST":
            stored, loaded = ins.argval
            self.assign(ins, ast.Name(id=stored, ctx=ast.Store()), self.pop(ins))
            self.stack.append(_load(loaded))
        elif op == "LOAD_ATTR":
            owner = self.pop_value(ins)
            attribute = ast.Attribute(value=owner, attr=ins.argval, ctx=ast.Load())
            if sys.version_info >= (3, 12) and ins.arg is not None and ins.arg & 1:
                self.stack += [attribute, NULL] if sys.version_info >= (3, 13) else [NULL, attribute]
            else:
                self.stack.append(attribute)
        elif op == "LOAD_SUPER_ATTR":  # 3.12+: [super, class, self] -> super().attr
            owner_self = self.pop_value(ins)
            owner_class = self.pop_value(ins)
            function = self.pop_value(ins)
            explicit = bool((ins.arg or 0) & 2)  # super(C, self) as written; else super()
            call = ast.Call(func=function, args=[owner_class, owner_self] if explicit else [], keywords=[])
            attribute = ast.Attribute(value=call, attr=ins.argval, ctx=ast.Load())
            if (ins.arg or 0) & 1:
                self.stack += [attribute, NULL] if sys.version_info >= (3, 13) else [NULL, attribute]
            else:
                self.stack.append(attribute)
        elif op == "LOAD_METHOD":  # 3.10, 3.11
            owner = self.pop_value(ins)
            self.stack += [NULL, ast.Attribute(value=owner, attr=ins.argval, ctx=ast.Load())]
        elif op == "STORE_ATTR":
            owner = self.pop_value(ins)
            self.assign(ins, ast.Attribute(value=owner, attr=ins.argval, ctx=ast.Store()), self.pop(ins))
        elif op == "BINARY_SUBSCR":
            key = self.pop_value(ins)
            container = self.pop_value(ins)
            self.stack.append(ast.Subscript(value=container, slice=key, ctx=ast.Load()))
        elif op == "STORE_SUBSCR":
            key = self.pop_value(ins)
            container = self.pop_value(ins)
            self.assign(ins, ast.Subscript(value=container, slice=key, ctx=ast.Store()), self.pop(ins))
        elif op == "BUILD_SLICE":
            parts = self.pop_values(ins, ins.argval)
            self.stack.append(ast.Slice(*[None if isinstance(p, ast.Constant) and p.value is None else p for p in parts]))
        elif op == "BINARY_SLICE":  # 3.12+
            stop = self.pop_value(ins)
            start = self.pop_value(ins)
            container = self.pop_value(ins)
            bounds = [None if isinstance(p, ast.Constant) and p.value is None else p for p in (start, stop)]
            self.stack.append(ast.Subscript(value=container, slice=ast.Slice(*bounds), ctx=ast.Load()))
        elif op == "STORE_SLICE":  # 3.12+
            stop = self.pop_value(ins)
            start = self.pop_value(ins)
            container = self.pop_value(ins)
            bounds = [None if isinstance(p, ast.Constant) and p.value is None else p for p in (start, stop)]
            self.assign(ins, ast.Subscript(value=container, slice=ast.Slice(*bounds), ctx=ast.Store()), self.pop(ins))
        elif op == "BINARY_OP" or op.startswith(("BINARY_", "INPLACE_")) and op.split("_", 1)[1] in _BINARY_310:
            symbol = ins.argrepr if op == "BINARY_OP" else _BINARY_310[op.split("_", 1)[1]]
            inplace = symbol.endswith("=") or op.startswith("INPLACE_")
            operator = _BINARY.get(symbol.rstrip("="))
            if operator is None:
                raise Unsupported(ins, f"operator {symbol!r}")
            right = self.pop_value(ins)
            left = self.pop_value(ins)
            self.stack.append(_InPlace(operator(), left, right) if inplace else ast.BinOp(left=left, op=operator(), right=right))
        elif op in _UNARY:
            self.stack.append(ast.UnaryOp(op=_UNARY[op](), operand=self.pop_value(ins)))
        elif op == "CALL_INTRINSIC_1" and ins.argrepr == "INTRINSIC_UNARY_POSITIVE":
            self.stack.append(ast.UnaryOp(op=ast.UAdd(), operand=self.pop_value(ins)))
        elif op in ("COMPARE_OP", "IS_OP", "CONTAINS_OP", "CHAIN_COMPARE"):
            right = self.pop_value(ins)
            left = self.pop(ins)
            if isinstance(left, ChainLeft):  # the next comparison of a chain: `a < b < c`
                compare = ast.Compare(
                    left=left.compare.left, ops=[*left.compare.ops, _comparison(ins)], comparators=[*left.compare.comparators, right]
                )
            elif isinstance(left, ast.expr):
                compare = ast.Compare(left=left, ops=[_comparison(ins)], comparators=[right])
            else:
                raise Unsupported(ins, f"expected a value on the stack, found {type(left).__name__}")
            self.stack.append(ChainLeft(compare) if op == "CHAIN_COMPARE" else compare)
        elif op in ("BUILD_TUPLE", "BUILD_LIST", "BUILD_SET"):
            values = self.pop_values(ins, ins.argval)
            kind = {"BUILD_TUPLE": ast.Tuple, "BUILD_LIST": ast.List, "BUILD_SET": ast.Set}[op]
            self.stack.append(kind(elts=values, ctx=ast.Load()) if kind is not ast.Set else ast.Set(elts=values))
        elif op == "BUILD_MAP":
            values = self.pop_values(ins, 2 * ins.argval)
            self.stack.append(ast.Dict(keys=cast("list[ast.expr | None]", values[0::2]), values=values[1::2]))
        elif op == "BUILD_CONST_KEY_MAP":
            keys = self.pop_value(ins)
            values = self.pop_values(ins, ins.argval)
            if not isinstance(keys, ast.Constant) or not isinstance(keys.value, tuple):
                raise Unsupported(ins, "keys that are not constants")
            self.stack.append(ast.Dict(keys=[ast.Constant(value=k) for k in keys.value], values=values))
        elif op == "KW_NAMES":  # 3.11, 3.12: the keyword names of the next call
            self._kw_names = tuple(ins.argval) if isinstance(ins.argval, tuple) else tuple(self.code.co_consts[cast(int, ins.arg)])
        elif op in ("CALL", "CALL_FUNCTION", "CALL_METHOD", "CALL_FUNCTION_KW", "CALL_KW"):
            names: tuple[str, ...] = ()
            if op in ("CALL_FUNCTION_KW", "CALL_KW"):
                constant = self.pop_value(ins)
                if not isinstance(constant, ast.Constant) or not isinstance(constant.value, tuple):
                    raise Unsupported(ins, "keyword names that are not constants")
                names = constant.value
            elif self._kw_names:
                names, self._kw_names = self._kw_names, ()
            if ins.argval in (0, 1) and len(self.stack) >= 2 and isinstance(self.stack[-2], _Comprehension) and not names:
                # a comprehension's function called with its first iterable: [f(x) for x in it]
                iterator = self.stack.pop()
                made = self.stack.pop()
                iterable = iterator.iterable if isinstance(iterator, LoopIterator) else self._value(iterator, ins)
                self.stack.append(self.nested.comprehension(made.code, iterable))
                return
            args = self.pop_values(ins, ins.argval)
            if op in ("CALL", "CALL_KW") and sys.version_info >= (3, 13):
                # [callable, self or NULL, args...]
                bound = self.pop(ins)
                callable_ = self.pop(ins)
                if bound is not NULL:
                    args = [self._value(bound, ins), *args]
            elif op == "CALL":
                # 3.11, 3.12: [NULL, callable, args...] or [callable, self, args...]
                top = self.pop(ins)
                below = self.pop(ins)
                if below is NULL:
                    callable_ = top
                else:
                    callable_, args = below, [self._value(top, ins), *args]
            else:  # 3.10: [callable, args...]; CALL_METHOD: [NULL, method, args...] as we keep it
                callable_ = self.pop(ins)
                if self.stack and self.stack[-1] is NULL:
                    self.stack.pop()
            if isinstance(callable_, WithExit):  # the with's own __exit__(None, None, None)
                if len(args) != 3 or not all(isinstance(a, ast.Constant) and a.value is None for a in args):
                    raise Unsupported(ins, "a with's __exit__ called another way")
                self.stack.append(WITH_DONE)
                return
            if not isinstance(callable_, ast.expr):
                raise Unsupported(ins, "calling something that is not a value")
            positional = args[: len(args) - len(names)]
            keywords = [ast.keyword(arg=name, value=value) for name, value in zip(names, args[len(args) - len(names) :])]
            self.stack.append(ast.Call(func=callable_, args=positional, keywords=keywords))
        elif op in ("DELETE_FAST", "DELETE_NAME", "DELETE_GLOBAL", "DELETE_DEREF"):
            self.emit(ast.Delete(targets=[ast.Name(id=ins.argval, ctx=ast.Del())]), ins)
        elif op == "DELETE_ATTR":
            owner = self.pop_value(ins)
            self.emit(ast.Delete(targets=[ast.Attribute(value=owner, attr=ins.argval, ctx=ast.Del())]), ins)
        elif op == "DELETE_SUBSCR":
            key = self.pop_value(ins)
            container = self.pop_value(ins)
            self.emit(ast.Delete(targets=[ast.Subscript(value=container, slice=key, ctx=ast.Del())]), ins)
        elif op == "CALL_FUNCTION_EX":
            self._call_with_unpacking(ins)
        elif op == "LIST_TO_TUPLE" or (op == "CALL_INTRINSIC_1" and ins.argrepr == "INTRINSIC_LIST_TO_TUPLE"):
            value = self.pop_value(ins)
            self.stack.append(
                ast.Tuple(elts=value.elts if isinstance(value, ast.List) else [ast.Starred(value=value, ctx=ast.Load())], ctx=ast.Load())
            )
        elif op in ("LIST_APPEND", "SET_ADD", "LIST_EXTEND", "SET_UPDATE", "DICT_UPDATE", "DICT_MERGE", "MAP_ADD"):
            self._add_to_container(ins)
        elif op == "MAKE_FUNCTION":
            self._make_function(ins)
        elif op == "SET_FUNCTION_ATTRIBUTE":  # 3.13: [value, function]
            function = self.pop(ins)
            value = self.pop(ins)
            self.stack.append(self._with_attribute(function, ins.arg or 0, value, ins))
        elif op == "LOAD_FAST_AND_CLEAR":
            self.stack.append(Saved(ins.argval))
        elif op == "LOAD_CLOSURE":  # the cell of a variable a nested function reads
            self.stack.append(_load(ins.argval))
        elif op in ("BEFORE_WITH", "SETUP_WITH"):  # 3.11+ / 3.10 (its handler is in the graph)
            manager = self.pop_value(ins)
            self.stack += [WithExit(manager), WithEnter(manager)]
        elif op == "PUSH_EXC_INFO":  # [exc] -> [previous exc, exc]
            caught = self.pop(ins)
            if caught is not CAUGHT:
                raise Unsupported(ins, "PUSH_EXC_INFO outside an exception handler's start")
            self.stack += [PREVIOUS, CAUGHT]
        elif op == "CHECK_EXC_MATCH":  # [exc, type] -> [exc, matches]
            matched = self.pop_value(ins)
            if not self.stack or self.stack[-1] is not CAUGHT:
                raise Unsupported(ins, "CHECK_EXC_MATCH without the exception below it")
            self.stack.append(ExceptionMatch(matched))
        elif op == "POP_EXCEPT":
            for _ in range(3 if sys.version_info < (3, 11) else 1):
                if not self.stack or self.stack[-1] is not PREVIOUS:
                    raise Unsupported(ins, "POP_EXCEPT without the exception handled before")
                self.stack.pop()
            self._skip_name_cleanup = True
            # values computed inside the clause (`return f(e)` computes f(e) before the clause
            # ends) are evaluated there: into temporaries before the end is marked
            self.spill(len(self.stack), instruction=ins)
            self.statements.append(HandlerEnd())
        elif op == "GEN_START":  # 3.10: a generator's start; nothing of the user's
            pass
        elif op == "RETURN_GENERATOR":
            self.stack.append(GENERATOR)
        elif op == "GET_YIELD_FROM_ITER":
            self.stack.append(_Delegated(self.pop_value(ins)))
        elif op == "YIELD_FROM":  # [delegated, None] -> its result (3.12+: above the receiver END_SEND drops)
            sent = self.pop(ins)
            delegated = self.pop(ins)
            if not isinstance(delegated, _Delegated) or not (isinstance(sent, ast.Constant) and sent.value is None):
                raise Unsupported(ins, "yield from of a shape not decompiled yet")
            if sys.version_info >= (3, 12):
                self.stack.append(delegated)
            self.stack.append(ast.YieldFrom(value=delegated.value))
        elif op == "END_SEND":
            value = self.pop(ins)
            if not isinstance(self.pop(ins), _Delegated):
                raise Unsupported(ins, "END_SEND without its yield from")
            self.stack.append(value)
        elif op == "YIELD_VALUE":
            self.stack.append(ast.Yield(value=self.pop_value(ins)))
        elif op == "LOAD_ASSERTION_ERROR":
            error = ast.Name(id="AssertionError", ctx=ast.Load())
            error.compilescope_assert = True  # type: ignore[attr-defined]  # tidy writes `assert`
            self.stack.append(error)
        elif op == "IMPORT_NAME":
            fromlist = self.pop_value(ins)
            level = self.pop_value(ins)
            if not isinstance(fromlist, ast.Constant) or not isinstance(level, ast.Constant):
                raise Unsupported(ins, "an import whose level or names are not constants")
            # (constants of IMPORT_NAME: a tuple of names or None, and an int)
            imported = tuple(cast("tuple[str, ...]", fromlist.value)) if fromlist.value is not None else None
            if imported == ("*",):
                raise Unsupported(ins, "import *")
            self.stack.append(_Import(str(ins.argval), int(cast(int, level.value)), imported))
        elif op == "IMPORT_FROM":
            source = self.stack[-1] if self.stack else None
            if isinstance(source, _ImportedName) and source.source.fromlist is None:
                # import a.b.c as d: b of a.b.c, then c of that (the module below is dropped)
                self.stack.append(_ImportedName(source.source, f"{source.name}.{ins.argval}"))
            elif not isinstance(source, _Import):
                raise Unsupported(ins, "IMPORT_FROM without the module below it")
            else:
                self.stack.append(_ImportedName(source, str(ins.argval)))
        elif op == "GET_ITER":
            self.stack.append(LoopIterator(self.pop_value(ins)))
        elif op == "END_FOR":  # 3.12 pops the iterator and what FOR_ITER left; 3.13 only the latter
            for _ in range(2 if sys.version_info < (3, 13) else 1):
                if not self.stack or not isinstance(self.stack[-1], (LoopIterator, LoopMarker)):
                    raise Unsupported(ins, "END_FOR outside a loop's exit")
                self.stack.pop()
        elif op in ("UNPACK_SEQUENCE", "UNPACK_EX"):
            value = self.pop(ins)
            if value is not NEXT_ITEM and not isinstance(value, (ast.expr, _Slot)):
                raise Unsupported(ins, "unpacking something that is not a value")
            if op == "UNPACK_SEQUENCE":
                group = _Unpack(value, ins.arg or 0)
            else:  # the names before the starred one, and after it
                before, after = (ins.arg or 0) & 0xFF, (ins.arg or 0) >> 8
                group = _Unpack(value, before + 1 + after, star=before)
            self.stack += [_Slot(group) for _ in range(group.count)]
        elif op in ("FORMAT_VALUE", "FORMAT_SIMPLE", "FORMAT_WITH_SPEC", "CONVERT_VALUE"):
            self._format(ins)
        elif op == "BUILD_STRING":
            parts = self.pop_values(ins, ins.argval)
            values = []
            for part in parts:
                if isinstance(part, ast.JoinedStr):
                    values += part.values
                elif isinstance(part, ast.FormattedValue) or (isinstance(part, ast.Constant) and isinstance(part.value, str)):
                    values.append(part)
                else:  # a str kept in a temporary: f"{s}" is s
                    values.append(ast.FormattedValue(value=part, conversion=-1, format_spec=None))
            self.stack.append(ast.JoinedStr(values=values))
        elif op == "POP_TOP":
            value = self.pop(ins)
            if isinstance(value, _Slot):
                self._fill(value, self._overwritten_name(ins), ins)
            elif isinstance(value, ast.Constant) or (isinstance(value, ast.Name) and self.temps.owns(value.id)):
                pass  # dropping a constant or a copy already stored has no effect
            elif isinstance(value, ast.expr):
                self.emit(ast.Expr(value=value), ins)
            elif isinstance(value, LoopIterator):
                pass  # leaving a for loop (break, return): its iterator goes
            elif value is GENERATOR or isinstance(value, _Import) or value in (CAUGHT, WITH_DONE, TRACEBACK, EXCEPTION_TYPE):
                pass  # a generator's start; a module whose names were imported; `except E:`; a with's end
            elif isinstance(value, _ImportedName) and value.source.fromlist is None:
                pass  # the module between, in `import a.b.c as d`
            elif isinstance(value, WithEnter):  # `with m:` without `as`
                self.statements.append(WithTarget(None))
            elif value is not NULL:
                raise Unsupported(ins, "discarded a value under construction")
        elif op == "RAISE_VARARGS":
            parts = self.pop_values(ins, ins.argval)
            self.emit(ast.Raise(exc=parts[0] if parts else None, cause=parts[1] if len(parts) > 1 else None), ins)
        elif op == "RETURN_VALUE":
            self.emit(ast.Return(value=self.pop_value(ins)), ins)
        elif op == "RETURN_CONST":
            self.emit(ast.Return(value=ast.Constant(value=ins.argval)), ins)
        else:
            raise Unsupported(ins, "not decompiled yet")

    def _add_to_container(self, ins: dis.Instruction) -> None:
        """LIST_APPEND and friends: onto a literal still being built, a new element (`[*a, b]`,
        `{**d}`); onto a container already in a variable, the method that does the same."""
        op = ins.opname
        if op == "MAP_ADD":
            value = self.pop_value(ins)
            key = self.pop_value(ins)
        else:
            value = self.pop_value(ins)
        depth = ins.argval if op != "MAP_ADD" else ins.argval
        if len(self.stack) < depth:
            raise Unsupported(ins, "the value stack is shorter than the container's place")
        target = self.stack[-depth]
        literal = isinstance(target, (ast.List, ast.Set, ast.Dict)) and all(
            self._settled(v) for v in self.stack[len(self.stack) - depth + 1 :]
        )
        if op == "DICT_MERGE" and not (literal and isinstance(target, ast.Dict)):
            raise Unsupported(ins, "keyword arguments merged into something that is not a literal")
        if not literal:
            # Added to an object already made (or values computed after the literal wait above
            # it): store it, then call the method that does what the instruction does.
            self.spill(len(self.stack) - depth + 1, instruction=ins)
            target = self.stack[-depth]
        if literal and isinstance(target, (ast.List, ast.Set)) and op in ("LIST_APPEND", "SET_ADD", "LIST_EXTEND", "SET_UPDATE"):
            if op in ("LIST_APPEND", "SET_ADD"):
                target.elts.append(value)
            elif isinstance(value, ast.Constant) and isinstance(value.value, (tuple, frozenset)):
                target.elts += [ast.Constant(value=v) for v in value.value]
            else:
                target.elts.append(ast.Starred(value=value, ctx=ast.Load()))
            return
        if literal and isinstance(target, ast.Dict) and op in ("DICT_UPDATE", "DICT_MERGE", "MAP_ADD"):
            if op == "MAP_ADD":
                target.keys.append(key)
                target.values.append(value)
            else:
                target.keys.append(None)
                target.values.append(value)
            return
        if isinstance(target, ast.Name):
            method = {
                "LIST_APPEND": "append",
                "SET_ADD": "add",
                "LIST_EXTEND": "extend",
                "SET_UPDATE": "update",
                "DICT_UPDATE": "update",
            }.get(op)
            if op == "MAP_ADD":
                self.emit(ast.Assign(targets=[ast.Subscript(value=target, slice=key, ctx=ast.Store())], value=value, lineno=0), ins)
                return
            if method is not None:
                self.emit(
                    ast.Expr(value=ast.Call(func=ast.Attribute(value=target, attr=method, ctx=ast.Load()), args=[value], keywords=[])), ins
                )
                return
        raise Unsupported(ins, f"{op} onto something that is not a container being built")

    def _make_function(self, ins: dis.Instruction) -> None:
        if sys.version_info < (3, 11):
            self.pop(ins)  # the qualified name
        code = self.pop(ins)
        if not isinstance(code, _Code):
            raise Unsupported(ins, "MAKE_FUNCTION of something that is not a code object")
        function: Any = self._function(code.code, ins)
        flags = (ins.arg or 0) if sys.version_info < (3, 13) else 0
        for flag in (0x08, 0x04, 0x02, 0x01):  # pushed in the reverse order
            if flags & flag:
                function = self._with_attribute(function, flag, self.pop(ins), ins)
        self.stack.append(function)

    def _function(self, code: CodeType, ins: dis.Instruction) -> Any:
        if code.co_flags & 0x80 or code.co_flags & 0x200 or code.co_flags & 0x100:
            raise Unsupported(ins, "async functions are not decompiled yet")
        if code.co_name in _COMPREHENSIONS:
            return _Comprehension(code)
        if code.co_name == "<lambda>":  # an expression: it can go anywhere a value goes
            return self.nested.lambda_of(code)
        return _Function(code, [], {})

    @staticmethod
    def _with_attribute(function: Any, flag: int, value: Any, ins: dis.Instruction) -> Any:
        if flag == 0x08:  # the closure: the cells are the enclosing function's own names
            return function
        if flag == 0x04:  # annotations: (name, value, name, value, ...)
            if isinstance(value, ast.Constant) and isinstance(value.value, tuple):
                items: list[Any] = [ast.Constant(value=v) for v in value.value]
            elif isinstance(value, ast.Tuple):
                items = list(value.elts)
            else:
                raise Unsupported(ins, "annotations that are not a tuple of names and values")
            names = items[0::2]
            if not isinstance(function, _Function) or not all(isinstance(n, ast.Constant) and isinstance(n.value, str) for n in names):
                raise Unsupported(ins, "annotations of something that is not a nested function")
            function.annotations = {n.value: v for n, v in zip(names, items[1::2])}
            return function
        if not isinstance(function, (_Function, ast.Lambda)):
            raise Unsupported(ins, "defaults for something that is not a nested function")
        if flag == 0x01:
            if isinstance(value, ast.Tuple):
                defaults = list(value.elts)
            elif isinstance(value, ast.Constant) and isinstance(value.value, tuple):
                defaults = [ast.Constant(value=v) for v in value.value]
            else:
                raise Unsupported(ins, "defaults that are not a tuple")
            if isinstance(function, ast.Lambda):
                function.args.defaults = defaults
            else:
                function.defaults = defaults
            return function
        if flag == 0x02:
            if not isinstance(value, ast.Dict) or not all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in value.keys):
                raise Unsupported(ins, "keyword defaults that are not a dict of names")
            kwdefaults = {k.value: v for k, v in zip(value.keys, value.values)}  # type: ignore[union-attr]
            if isinstance(function, ast.Lambda):
                function.args.kw_defaults = [kwdefaults.get(a.arg) for a in function.args.kwonlyargs]
            else:
                function.kwdefaults = kwdefaults
            return function
        raise Unsupported(ins, f"function attribute {flag}")

    def _definition(self, function: _Function, decorators: list[ast.expr], name: str, ins: dis.Instruction) -> ast.stmt:
        if function.code.co_name != name:
            raise Unsupported(ins, f"a nested function {function.code.co_name} stored as {name}")
        definition = self.nested.function(function.code)
        definition.args.defaults = function.defaults
        definition.args.kw_defaults = [function.kwdefaults.get(a.arg) for a in definition.args.kwonlyargs]
        definition.decorator_list = decorators
        annotations = dict(function.annotations)
        arguments = definition.args
        for argument in [*arguments.posonlyargs, *arguments.args, arguments.vararg, *arguments.kwonlyargs, arguments.kwarg]:
            if argument is not None and argument.arg in annotations:
                argument.annotation = annotations.pop(argument.arg)
        definition.returns = annotations.pop("return", None)
        if annotations:
            raise Unsupported(ins, f"annotations of names that are not parameters of {name}: {sorted(annotations)}")
        return definition

    def _class_definition(self, made: ast.Call, decorators: list[ast.expr], name: str, ins: dis.Instruction) -> ast.stmt:
        """`class name(bases, keywords): body` from the call of __build_class__ that made it."""
        body, written = (made.args + [None])[:2]
        if not isinstance(body, _Function) or not (isinstance(written, ast.Constant) and written.value == name == body.code.co_name):
            raise Unsupported(ins, f"a class made another way than `class {name}:`")
        # (no type_params here, which typeshed requires: 3.10 and 3.11 have none; set below on 3.12+)
        definition = ast.ClassDef(
            name=name, bases=made.args[2:], keywords=made.keywords, body=self.nested.class_body(body.code), decorator_list=decorators
        )  # type: ignore[call-arg]
        if sys.version_info >= (3, 12):
            definition.type_params = []
        return definition

    def _call_with_unpacking(self, ins: dis.Instruction) -> None:
        """`f(*args, **kwargs)`: CALL_FUNCTION_EX with the positional arguments as one sequence
        and, when its flag is set, the keywords as one mapping."""
        kwargs = self.pop_value(ins) if (ins.arg or 0) & 1 else None
        args = self.pop_value(ins)
        callable_ = self.pop(ins)
        if callable_ is NULL:  # 3.13: NULL above the callable
            callable_ = self.pop(ins)
        elif self.stack and self.stack[-1] is NULL:  # 3.11, 3.12: NULL below it
            self.stack.pop()
        if not isinstance(callable_, ast.expr):
            raise Unsupported(ins, "calling something that is not a value")
        if isinstance(args, (ast.Tuple, ast.List)):
            positional = list(args.elts)
        elif isinstance(args, ast.Constant) and isinstance(args.value, tuple):  # `()`, `(1, 2)`
            positional = [ast.Constant(value=v) for v in args.value]
        else:
            positional = [ast.Starred(value=args, ctx=ast.Load())]
        keywords: list[ast.keyword] = []
        if isinstance(kwargs, ast.Dict) and all(
            k is None or (isinstance(k, ast.Constant) and isinstance(k.value, str) and k.value.isidentifier()) for k in kwargs.keys
        ):
            # (each key a str constant or None: checked just above)
            keywords = [
                ast.keyword(arg=None if k is None else cast(str, cast(ast.Constant, k).value), value=v)
                for k, v in zip(kwargs.keys, kwargs.values)
            ]
        elif kwargs is not None:
            keywords = [ast.keyword(arg=None, value=kwargs)]
        self.stack.append(ast.Call(func=callable_, args=positional, keywords=keywords))

    def _format(self, ins: dis.Instruction) -> None:
        op = ins.opname
        spec = None
        if op == "FORMAT_VALUE":  # 3.10-3.12: flags = conversion | 4 when a spec is on the stack
            flags = ins.arg or 0
            if flags & 4:
                spec = self.pop_value(ins)
            conversion = {0: -1, 1: ord("s"), 2: ord("r"), 3: ord("a")}[flags & 3]
            value = self.pop_value(ins)
        elif op == "CONVERT_VALUE":  # 3.13: marks the value; FORMAT_* follows
            value = self.pop_value(ins)
            self.stack.append(
                ast.FormattedValue(value=value, conversion={1: ord("s"), 2: ord("r"), 3: ord("a")}[ins.arg or 1], format_spec=None)
            )
            return
        else:
            if op == "FORMAT_WITH_SPEC":
                spec = self.pop_value(ins)
            value = self.pop_value(ins)
            conversion = -1
            if isinstance(value, ast.FormattedValue):
                formatted = value  # (mypy checks a tuple assignment item by item: `value.conversion` would be read as rebound)
                value, conversion = formatted.value, formatted.conversion
        if spec is not None and not isinstance(spec, ast.JoinedStr):
            spec = ast.JoinedStr(values=[spec])
        # an f-string of its own (f"{x}", a str); BUILD_STRING joins the parts of a longer one
        self.stack.append(ast.JoinedStr(values=[ast.FormattedValue(value=value, conversion=conversion, format_spec=spec)]))


def _plain(value: ast.expr) -> bool:
    """A name or a constant (or a tuple of them): evaluating it later reads only names."""
    if isinstance(value, ast.Tuple):
        return all(_plain(v) for v in value.elts)
    return isinstance(value, (ast.Name, ast.Constant))


def _as_read(target: ast.expr) -> ast.expr:
    """The same target as an expression that reads it (load context), to compare with values."""
    return ast.parse(ast.unparse(target), mode="eval").body
