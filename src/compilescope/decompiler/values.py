"""What the decompiler's layers share: the error that refuses a function, the markers the
value stack holds besides values (NULL, a loop's next item, the exception being handled, a with's
exit), the statements only the structurer reads (a handler's end, `except ... as name`), the
names chosen for stack values (Temporaries) and a code object's parameters.

Kept apart from expressions.py, which reads instructions, so that every layer can use these
without importing the reader.
"""

from __future__ import annotations

import ast
import dis
from collections.abc import Callable
from dataclasses import dataclass
from types import CodeType
from typing import Any

from compilescope.decompiler.versions import PYTHON


class Unsupported(Exception):
    """An instruction (or a shape of code) this decompiler does not turn into Python yet."""

    def __init__(self, instruction: dis.Instruction | None, why: str) -> None:
        where = f"{instruction.opname} at offset {instruction.offset}" if instruction else "this code"
        super().__init__(f"{where}: {why} (Python {PYTHON})")
        self.instruction = instruction


class _Null:
    """The NULL that 3.11+ pushes beside a callable (and 3.10's LOAD_METHOD marker)."""


NULL = _Null()


@dataclass
class LoopIterator:
    """The iterator a for loop keeps on the stack (GET_ITER of `iterable`; GET_AITER: async)."""

    iterable: ast.expr
    is_async: bool = False


class LoopMarker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


NEXT_ITEM = LoopMarker("the loop's next item")  # what FOR_ITER pushes for the loop body
LOOP_DONE = LoopMarker("an exhausted loop")  # what FOR_ITER leaves for 3.12+'s END_FOR


class _Generator:
    """What RETURN_GENERATOR leaves for the POP_TOP after it (3.11+): nothing of the user's."""


GENERATOR = _Generator()


class ExceptionMarker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


CAUGHT = ExceptionMarker("the exception being handled")  # what a handler starts with
PREVIOUS = ExceptionMarker("the exception handled before")  # PUSH_EXC_INFO keeps it for POP_EXCEPT
# 3.10 enters a handler with the previous exception's traceback, value and type, then the
# current one's: [PREVIOUS x3, TRACEBACK, CAUGHT, EXCEPTION_TYPE]
TRACEBACK = ExceptionMarker("the exception's traceback")
EXCEPTION_TYPE = ExceptionMarker("the exception's type")
HANDLER_ENTRY_310 = (PREVIOUS, PREVIOUS, PREVIOUS, TRACEBACK, CAUGHT, EXCEPTION_TYPE)


@dataclass
class ExceptionMatch:
    """CHECK_EXC_MATCH: whether the exception being handled is an instance of `type`."""

    type: ast.expr


class HandlerEnd(ast.stmt):
    """POP_EXCEPT: the except clause ends here; what follows runs after the try statement."""

    _fields = ()


class CaughtAs(ast.stmt):
    """`except E as name` names the exception (a STORE of it): the structurer takes it out."""

    _fields = ()

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name


@dataclass
class WithExit:
    """BEFORE_WITH's `__exit__` of the context manager `manager`, kept below the with's body
    (BEFORE_ASYNC_WITH's `__aexit__`: async)."""

    manager: ast.expr
    is_async: bool = False


@dataclass
class WithEnter:
    """BEFORE_WITH's `__enter__()` result: stored (`as x`) or dropped where the body starts."""

    manager: ast.expr


class WithTarget(ast.stmt):
    """Where a with's body starts: what `__enter__()` was stored in (`as x`), or None."""

    _fields = ()

    def __init__(self, target: ast.expr | None) -> None:
        super().__init__()
        self.target = target


class _WithDone:
    """The `__exit__(None, None, None)` call after a with's body: the with statement's own."""


WITH_DONE = _WithDone()


@dataclass
class Saved:
    """LOAD_FAST_AND_CLEAR (3.12+ inlined comprehensions): the outer value of a name the
    comprehension uses, put back when it ends. Its presence marks the loop as a comprehension."""

    name: str


@dataclass
class ChainLeft:
    """A comparison chain so far (`a < b`), whose last operand the next comparison compares
    (`< c`): the structurer joins a chain's blocks with a CHAIN_COMPARE where each link was."""

    compare: ast.Compare


class Temporaries:
    """Names for values the bytecode keeps on the stack where source needs a variable: new ones
    for values stored mid-block, and one per stack depth for values passed between blocks. The
    prefix is chosen so that no name of the function can be taken."""

    def __init__(self, code: CodeType) -> None:
        taken = {*code.co_varnames, *code.co_names, *code.co_cellvars, *code.co_freevars}
        prefix = "__"
        while any(name.startswith((prefix + "temp", prefix + "stack", prefix + "const")) for name in taken):
            prefix += "_"
        self._prefix = prefix
        self._count = 0
        self._joins = 0
        self.constants: dict[str, Any] = {}  # the objects named by constant()

    def constant(self, index: int, value: Any) -> str:
        """The name standing for the code's constant number `index`, an object no literal
        writes (its repr is in `constants`, for the reader)."""
        name = f"{self._prefix}const{index}"
        self.constants[name] = value
        return name

    def new(self) -> str:
        self._count += 1
        return f"{self._prefix}temp{self._count}"

    def joined(self) -> str:
        """A new name for a value several blocks pass to the one they all reach (one per place
        and depth, so each name has one meaning)."""
        self._joins += 1
        return f"{self._prefix}stack{self._joins}"

    def owns(self, name: str) -> bool:
        """A temporary (a local of ours); constants' names are not."""
        return name.startswith((self._prefix + "temp", self._prefix + "stack"))


def arguments(code: CodeType) -> ast.arguments:
    names = code.co_varnames
    positional_only = code.co_posonlyargcount
    count = code.co_argcount
    keyword_only = code.co_kwonlyargcount
    args = [ast.arg(arg=n) for n in names[:count]]
    index = count + keyword_only
    vararg = kwarg = None
    if code.co_flags & 0x04:  # CO_VARARGS
        vararg = ast.arg(arg=names[index])
        index += 1
    if code.co_flags & 0x08:  # CO_VARKEYWORDS
        kwarg = ast.arg(arg=names[index])
    return ast.arguments(
        posonlyargs=args[:positional_only],
        args=args[positional_only:],
        vararg=vararg,
        kwonlyargs=[ast.arg(arg=n) for n in names[count : count + keyword_only]],
        kw_defaults=[None] * keyword_only,
        kwarg=kwarg,
        defaults=[],
    )


@dataclass(frozen=True)
class NestedBodies:
    """How the reader turns a nested code object into source: a `def`, a class body, a
    comprehension (with its first iterable) or a lambda. Each is decompiled as a whole function
    is, which is building.py's work above the reader: building.py passes these down through the
    Structurer, so that the reader (expressions.py) never imports what is built on it."""

    function: Callable[[CodeType], ast.FunctionDef]
    class_body: Callable[[CodeType], list[ast.stmt]]
    comprehension: Callable[[CodeType, ast.expr], ast.expr]
    lambda_of: Callable[[CodeType], ast.expr]


def cell_of(name: str) -> ast.expr:
    """The cell of `name` itself, not its value: `(lambda: name).__closure__[0]`. A closure's cells
    are read by MAKE_FUNCTION, which writes the nested function and drops them; anywhere else (Dynamo
    passes a cell to the code that makes a resume function) the cell is a value, and this is the
    source that makes it, with the variable still unbound if it is."""
    function = ast.Lambda(args=_no_arguments(), body=ast.Name(id=name, ctx=ast.Load()))
    closure = ast.Attribute(value=function, attr="__closure__", ctx=ast.Load())
    return ast.Subscript(value=closure, slice=ast.Constant(value=0), ctx=ast.Load())


def _no_arguments() -> ast.arguments:
    return ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])


def cell_name(node: object) -> str | None:
    """The name whose cell `node` is (as cell_of writes it), or None."""
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.slice, ast.Constant)
        and node.slice.value == 0
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "__closure__"
        and isinstance(node.value.value, ast.Lambda)
        and isinstance(node.value.value.body, ast.Name)
        and not node.value.value.args.args
    ):
        return node.value.value.body.id
    return None
