"""The decompiler's second layer: the instructions of one block -> Python statements (as `ast`).

A symbolic run of the value stack: each instruction pops and pushes `ast` expressions, and the
instructions that end a statement (a store, a discarded value, a return) emit an `ast` statement.
`ast.unparse` then writes valid Python with the right parentheses.

This module is the reader's machinery: the stack, values that wait on it (in temporaries where
they must), stores and assignments, what a block leaves for the next. What each opcode does is in
the table HANDLERS, filled by opcodes.py and opcodes_calls.py: one table for Python 3.10 to 3.13;
where the versions differ (how calls and NULLs sit on the stack, how operators are named), the
handler of the instruction says how.

Anything not understood raises Unsupported with the instruction, so that the caller shows the
bytecode there instead: never a guess.
"""

from __future__ import annotations

import ast
import copy
import dis
from collections.abc import Callable
from dataclasses import dataclass, field
from types import CodeType
from typing import Any, cast

from compilescope.decompiler.values import (
    CAUGHT,
    NEXT_ITEM,
    NULL,
    CaughtAs,
    ChainLeft,
    ExceptionMarker,
    NestedBodies,
    Saved,
    Temporaries,
    Unsupported,
    WithEnter,
    WithExit,
    WithTarget,
)
from compilescope.decompiler.versions import EXCEPTION_TABLE, TYPE_PARAMS


@dataclass
class ImportedModule:
    """IMPORT_NAME's module, until it is stored (`import a`) or names are taken from it."""

    module: str
    level: int
    fromlist: tuple[str, ...] | None


@dataclass
class ImportedName:
    """IMPORT_FROM: one name of a module, until it is stored (`from m import a as b`)."""

    source: ImportedModule
    name: str


@dataclass
class Delegated:
    """GET_YIELD_FROM_ITER: what `yield from` delegates to."""

    value: ast.expr


class BuildClass(ast.expr):
    """LOAD_BUILD_CLASS: the builtin a `class` statement calls with the body's function, the
    name and the bases, until the class is stored (`class C(B): ...`)."""

    _fields = ()


class Function(ast.expr):
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
class InPlace:
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
class Unpack:
    """`a, b = value`: UNPACK_SEQUENCE's slots, filled by the stores that follow."""

    value: Any  # what is unpacked: a value, the loop's item, or (nested) a slot of another
    count: int
    targets: list[ast.expr] = field(default_factory=list)
    star: int | None = None  # UNPACK_EX: the slot that takes the rest (`a, *b = value`)


@dataclass
class Slot:
    group: Unpack


# Stores to a plain name.
NAME_STORES = ("STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF")
# Instructions with no effect on the values of straight-line code.
IGNORED = frozenset({"NOP", "RESUME", "CACHE", "PRECALL", "EXTENDED_ARG", "TO_BOOL", "COPY_FREE_VARS", "MAKE_CELL"})
if not EXCEPTION_TABLE:  # 3.10's block stack: the graph has what they mean (exception edges)
    IGNORED = IGNORED | {"SETUP_FINALLY", "POP_BLOCK"}


# The table BlockReader.step looks each instruction up in: opcode name -> what it does to the
# reader. The handlers are in opcodes.py and opcodes_calls.py, which fill this table as they are
# imported (compilescope.decompiler's __init__ imports them, so it is full before any block is
# read). The table is owned here and filled from there, not imported from there, because those
# modules need the reader and the reader must not import them back: a cycle.
Handler = Callable[["BlockReader", dis.Instruction], None]
HANDLERS: dict[str, Handler] = {}
NOT_YET = "not decompiled yet"  # why an opcode with no handler is refused


def handles(*opnames: str) -> Callable[[Handler], Handler]:
    """Registers the decorated function as the handler of these opcodes: one handler each."""

    def register(handler: Handler) -> Handler:
        for opname in opnames:
            if opname in HANDLERS:
                raise ValueError(f"{opname} has two handlers: {HANDLERS[opname].__name__} and {handler.__name__}")
            HANDLERS[opname] = handler
        return handler

    return register


def _names_stored_next(upcoming: list[dis.Instruction], names: list[str], count: int) -> tuple[list[str], int] | None:
    """`names` and those the next instructions store, `count` different names in all, each
    stored by a store of a plain name (3.13: two by one instruction); with how many store
    instructions that took. None where the next instructions are not those stores."""
    names, stores = list(names), 0
    for following in upcoming:
        if len(names) >= count:
            break
        if following.opname in NAME_STORES:
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
        if instructions[position].opname not in IGNORED:
            count -= 1
        position += 1
    return position


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
    return isinstance(value, Function) or _made_class(value)


def _made_class(value: Any) -> bool:
    return isinstance(value, ast.Call) and isinstance(value.func, BuildClass)


def _copy_of(value: Any) -> Any:
    """The top's copy (COPY 1): a new node that says which it copies, so that where the two are
    stored one after the other, tidy writes `a = b = v` (a chained assignment stores one value
    copied; `a = v; b = v` loads it twice)."""
    if not isinstance(value, ast.expr):
        return value
    copied = copy.copy(value)
    copied.compilescope_copy_of = value  # type: ignore[attr-defined]
    return copied


def _written(statement: ast.stmt) -> frozenset[str]:
    """The plain names a statement binds or deletes."""
    names = {n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
    names |= {a.asname or a.name.split(".")[0] for n in ast.walk(statement) if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    return frozenset(names)


def load_name(name: str) -> ast.expr:
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
        # (the values above the markers: a loop's iterator, a with's exit wait below them)
        below = next((at + 1 for at in range(len(self.stack) - 1, -1, -1) if not isinstance(self.stack[at], ast.expr)), 0)
        waiting = self.stack[below:]
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
        if not below or not isinstance(value, ast.expr) or all(plain_value(v) for v in [value, *self.stack[len(self.stack) - below :]]):
            return False
        # (this instruction's own names first: 3.13 stores two in one)
        found = _names_stored_next([i for i in self._upcoming if i.opname not in IGNORED], names, below + 1)
        if found is None:
            return False
        names, stores = found
        values = [*[self.pop_value(instruction) for _ in range(below)][::-1], value]
        self._emit_tuple_assignment(instruction, names[::-1], values)
        self._consumed = stores
        return True

    def _parallel_follows(self, value: Any, waiting: list[ast.expr]) -> bool:
        if not isinstance(value, ast.expr) or not all(plain_value(v) for v in [*waiting, value]):
            return False
        following = [i for i in self._upcoming[: len(waiting) * 2] if i.opname not in IGNORED][: len(waiting)]
        return len(following) == len(waiting) and all(i.opname in NAME_STORES for i in following)

    def emit(self, statement: ast.stmt, instruction: dis.Instruction | None = None) -> None:
        if not isinstance(statement, ast.FunctionDef) and any(isinstance(n, Function) for n in ast.walk(statement)):
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
        return not isinstance(value, (ast.AST, InPlace, ChainLeft))

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
                part[at] = load_name(held[-1][0].id)
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
            self.stack[index] = load_name(name)

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
        upcoming = [i for i in self._upcoming if i.opname not in IGNORED]
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
        following = [i for i in self._upcoming[:4] if i.opname not in IGNORED][:2]
        if not following or following[0].opname not in (*NAME_STORES, "STORE_FAST_LOAD_FAST"):
            return False
        if following[0].opname == "STORE_FAST_LOAD_FAST":
            return True
        return len(following) == 1 or not (following[1].opname.startswith("STORE_") or following[1].opname in ("POP_TOP", "RETURN_VALUE"))

    def _copy(self, depth: int, instruction: dis.Instruction) -> None:
        if len(self.stack) < depth:
            raise Unsupported(instruction, "the value stack is shorter than the copy")
        if not self._settled(self.stack[-depth]):
            self.spill(len(self.stack) - depth + 1, instruction=instruction)
        self.stack.append(_copy_of(self.stack[-depth]) if depth == 1 else self.stack[-depth])

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
                value, (Saved, ExceptionMarker, WithExit, WithEnter, Delegated)
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
            self.stack[index] = load_name(name)
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
        if not isinstance(value, (ImportedModule, ImportedName)):
            return False
        if not isinstance(target, ast.Name):
            raise Unsupported(instruction, "an import stored in something that is not a name")
        stored = target.id
        if isinstance(value, ImportedModule):
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
        last = self.statements[-1] if self.statements else None
        if isinstance(last, ast.ImportFrom) and getattr(last, "compilescope_source", None) is source:
            last.names.append(alias)  # `from m import a, b`: one IMPORT_NAME, a name taken from it after another
            return True
        statement = ast.ImportFrom(module=source.module or None, names=[alias], level=source.level)
        statement.compilescope_source = source  # type: ignore[attr-defined]
        self.emit(statement, instruction)
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
        if isinstance(inner, Function):
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
        if isinstance(value, Slot):
            self._fill(value, target, instruction)
            return
        if isinstance(value, InPlace):
            # (compared as written: a constant -1 read back from `x[-1]` is the negation of 1)
            if ast.dump(_as_read(value.target)) == ast.dump(_as_read(target)):
                # (a target of a store: a name, attribute or subscript)
                self.emit(
                    ast.AugAssign(target=cast("ast.Name | ast.Attribute | ast.Subscript", target), op=value.op, value=value.value),
                    instruction,
                )
                return
            value = ast.BinOp(left=value.target, op=value.op, right=value.value)
            value.compilescope_inplace = True  # (tidy: `x += v` once x is put back)
        if not isinstance(value, ast.expr):
            raise Unsupported(instruction, "stored something that is not a value")
        self.emit(ast.Assign(targets=[target], value=value, lineno=0), instruction)

    def _overwritten_name(self, instruction: dis.Instruction) -> ast.Name:
        """The name an unpacking's POP_TOP stands for: 3.13 drops a store that the next one
        overwrites (`for tag, _, _ in rows`: POP_TOP, then `_ = ...`), so it is that name."""
        following = next((i for i in self._upcoming if i.opname not in IGNORED and i.opname != "POP_TOP"), None)
        if following is None or following.opname not in ("STORE_FAST", "STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST"):
            raise Unsupported(instruction, "discarded a value under construction")
        name = following.argval[0] if isinstance(following.argval, tuple) else following.argval
        return ast.Name(id=name, ctx=ast.Store())

    def _fill(self, slot: Slot, target: ast.expr, instruction: dis.Instruction) -> None:
        """A store into one of UNPACK_SEQUENCE's slots; the last one makes the assignment (or
        the loop's target, or, nested as in `for i, (x, y) in ...`, the slot it unpacked)."""
        group = slot.group
        group.targets.append(target)
        if len(group.targets) < group.count:
            return
        if group.star is not None:
            group.targets[group.star] = ast.Starred(value=group.targets[group.star], ctx=ast.Store())
        whole = ast.Tuple(elts=group.targets, ctx=ast.Store())
        if isinstance(group.value, Slot):
            self._fill(group.value, whole, instruction)
        elif group.value is NEXT_ITEM:
            self.loop_target = whole
        elif isinstance(group.value, WithEnter):  # with m as (x, y)
            self.statements.append(WithTarget(whole))
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
            if instruction.opname not in IGNORED:
                self._previous = instruction.opname
                if instruction.opname != "POP_EXCEPT":
                    self._skip_name_cleanup = False
            if self._consumed:  # (counted without the ignored instructions between them)
                skip = _position_after(instructions, index, self._consumed) - index - 1
                self._consumed = 0
                self._previous = instructions[index + skip].opname
        self._upcoming = []

    def step(self, ins: dis.Instruction) -> None:
        """One instruction: its handler in HANDLERS (opcodes.py), after the checks every one gets."""
        op = ins.opname
        if op in IGNORED:
            return
        if self._parallel and op not in (*NAME_STORES, "STORE_FAST_STORE_FAST"):
            raise Unsupported(ins, "a parallel assignment interrupted before all its names were stored")
        handler = HANDLERS.get(op)
        if handler is None:
            raise Unsupported(ins, NOT_YET)
        handler(self, ins)

    def _definition(self, function: Function, decorators: list[ast.expr], name: str, ins: dis.Instruction) -> ast.stmt:
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
        if not isinstance(body, Function) or not (isinstance(written, ast.Constant) and written.value == name == body.code.co_name):
            raise Unsupported(ins, f"a class made another way than `class {name}:`")
        # (no type_params here, which typeshed requires: 3.10 and 3.11 have none; set below on 3.12+)
        definition = ast.ClassDef(
            name=name, bases=made.args[2:], keywords=made.keywords, body=self.nested.class_body(body.code), decorator_list=decorators
        )  # type: ignore[call-arg]
        if TYPE_PARAMS:
            definition.type_params = []
        return definition


def plain_value(value: ast.expr) -> bool:
    """A name or a constant (or a tuple of them): evaluating it later reads only names."""
    if isinstance(value, ast.Tuple):
        return all(plain_value(v) for v in value.elts)
    return isinstance(value, (ast.Name, ast.Constant))


def _as_read(target: ast.expr) -> ast.expr:
    """The same target as an expression that reads it (load context), to compare with values."""
    return ast.parse(ast.unparse(target), mode="eval").body
