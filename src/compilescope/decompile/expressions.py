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
from typing import Any



class Unsupported(Exception):
    """An instruction (or a shape of code) this decompiler does not turn into Python yet."""

    def __init__(self, instruction: dis.Instruction | None, why: str) -> None:
        where = f"{instruction.opname} at offset {instruction.offset}" if instruction else "this code"
        super().__init__(f"{where}: {why} (Python {sys.version_info.major}.{sys.version_info.minor})")
        self.instruction = instruction


class _Null:
    """The NULL that 3.11+ pushes beside a callable (and 3.10's LOAD_METHOD marker)."""


NULL = _Null()


@dataclass
class LoopIterator:
    """The iterator a for loop keeps on the stack (GET_ITER of `iterable`)."""

    iterable: ast.expr


class _LoopMarker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


NEXT_ITEM = _LoopMarker("the loop's next item")  # what FOR_ITER pushes for the loop body
LOOP_DONE = _LoopMarker("an exhausted loop")  # what FOR_ITER leaves for 3.12+'s END_FOR


@dataclass
class _InPlace:
    """`x += y` before its store: the store decides whether it is an augmented assignment."""

    op: ast.operator
    target: ast.expr
    value: ast.expr


@dataclass
class _Unpack:
    """`a, b = value`: UNPACK_SEQUENCE's slots, filled by the stores that follow."""

    value: ast.expr
    count: int
    targets: list[ast.expr] = field(default_factory=list)


@dataclass
class _Slot:
    group: _Unpack


_BINARY = {
    "+": ast.Add, "-": ast.Sub, "*": ast.Mult, "/": ast.Div, "//": ast.FloorDiv, "%": ast.Mod,
    "**": ast.Pow, "@": ast.MatMult, "<<": ast.LShift, ">>": ast.RShift, "&": ast.BitAnd,
    "|": ast.BitOr, "^": ast.BitXor,
}
# Python 3.10 names each operator in the opcode.
_BINARY_310 = {
    "ADD": "+", "SUBTRACT": "-", "MULTIPLY": "*", "TRUE_DIVIDE": "/", "FLOOR_DIVIDE": "//",
    "MODULO": "%", "POWER": "**", "MATRIX_MULTIPLY": "@", "LSHIFT": "<<", "RSHIFT": ">>",
    "AND": "&", "OR": "|", "XOR": "^",
}
_COMPARE = {"<": ast.Lt, "<=": ast.LtE, ">": ast.Gt, ">=": ast.GtE, "==": ast.Eq, "!=": ast.NotEq}
_UNARY = {"UNARY_NEGATIVE": ast.USub, "UNARY_NOT": ast.Not, "UNARY_INVERT": ast.Invert, "UNARY_POSITIVE": ast.UAdd}
# Instructions with no effect on the values of straight-line code.
_IGNORED = frozenset({"NOP", "RESUME", "CACHE", "PRECALL", "EXTENDED_ARG", "TO_BOOL", "COPY_FREE_VARS", "MAKE_CELL"})


def _load(name: str) -> ast.expr:
    return ast.Name(id=name, ctx=ast.Load())


class BlockReader:
    """Turns instructions into statements, keeping the stack between calls (a block may leave
    values for the next one)."""

    def __init__(self, code: CodeType, stack: list[Any] | None = None) -> None:
        self.code = code
        self.stack: list[Any] = list(stack or [])
        self.loop_target: ast.expr | None = None  # what the loop's next item was stored in
        self.statements: list[ast.stmt] = []
        self._kw_names: tuple[str, ...] = ()
        # `a, b = b, a` stored one name at a time: the stores so far, and how many waiting
        # values are still to be stored before it is one parallel assignment.
        self._parallel: list[tuple[ast.expr, ast.expr]] = []
        self._parallel_left = 0

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

    def pop_values(self, instruction: dis.Instruction, count: int) -> list[ast.expr]:
        values = [self.pop_value(instruction) for _ in range(count)]
        values.reverse()
        return values

    def _store_name(self, instruction: dis.Instruction, name: str, value: Any) -> None:
        """A store to a plain name; with values still waiting on the stack, the start (or the
        next part) of a parallel assignment, when those values are plain names and constants."""
        target = ast.Name(id=name, ctx=ast.Store())
        waiting = [v for v in self.stack if isinstance(v, ast.expr)]
        if not self._parallel and not waiting:
            self.assign(instruction, target, value)
            return
        if not isinstance(value, ast.expr) or not all(_plain(v) for v in [*waiting, value]) or len(waiting) != len(self.stack):
            raise Unsupported(instruction, "a value computed earlier is still waiting on the stack across this statement")
        if not self._parallel:
            self._parallel_left = len(waiting) + 1
        self._parallel.append((target, value))
        self._parallel_left -= 1
        if self._parallel_left == 0:
            targets, values = zip(*self._parallel)
            self._parallel = []
            self.emit(ast.Assign(targets=[ast.Tuple(elts=list(targets), ctx=ast.Store())], value=ast.Tuple(elts=list(values), ctx=ast.Load()), lineno=0), instruction)

    def emit(self, statement: ast.stmt, instruction: dis.Instruction | None = None) -> None:
        # A value still on the stack was computed before this statement, but as source it would
        # be evaluated after it: if it reads anything, the order changes (`a, b = b, a` stored
        # one name at a time). Refuse rather than reorder.
        for waiting in self.stack:
            if not isinstance(waiting, (ast.Constant, _Null, _Slot, LoopIterator)):
                raise Unsupported(instruction, "a value computed earlier is still waiting on the stack across this statement")
        self.statements.append(statement)

    def assign(self, instruction: dis.Instruction, target: ast.expr, value: Any) -> None:
        if value is NEXT_ITEM:
            self.loop_target = target
            return
        if isinstance(value, _Slot):
            group = value.group
            group.targets.append(target)
            if len(group.targets) == group.count and group.value is NEXT_ITEM:
                self.loop_target = ast.Tuple(elts=group.targets, ctx=ast.Store())
            elif len(group.targets) == group.count:
                self.emit(ast.Assign(targets=[ast.Tuple(elts=group.targets, ctx=ast.Store())], value=group.value, lineno=0), instruction)
            return
        if isinstance(value, _InPlace):
            if ast.dump(value.target) == ast.dump(_as_read(target)):
                self.emit(ast.AugAssign(target=target, op=value.op, value=value.value), instruction)
                return
            value = ast.BinOp(left=value.target, op=value.op, right=value.value)
        if not isinstance(value, ast.expr):
            raise Unsupported(instruction, "stored something that is not a value")
        self.emit(ast.Assign(targets=[target], value=value, lineno=0), instruction)

    # ---- the instructions ----------------------------------------------------------------------
    def run(self, instructions: list[dis.Instruction]) -> None:
        for instruction in instructions:
            self.step(instruction)

    def step(self, ins: dis.Instruction) -> None:  # noqa: C901  (one table of opcodes)
        op = ins.opname
        if op in _IGNORED:
            return
        if self._parallel and op not in ("STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF", "STORE_FAST_STORE_FAST"):
            raise Unsupported(ins, "a parallel assignment interrupted before all its names were stored")
        if op == "LOAD_CONST":
            if isinstance(ins.argval, CodeType):
                raise Unsupported(ins, "nested functions, lambdas and classes are not decompiled yet")
            self.stack.append(ast.Constant(value=ins.argval))
        elif op in ("LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_DEREF", "LOAD_NAME", "LOAD_GLOBAL", "LOAD_CLASSDEREF", "LOAD_FROM_DICT_OR_GLOBALS"):
            if op == "LOAD_GLOBAL" and sys.version_info >= (3, 11) and ins.arg is not None and ins.arg & 1:
                if sys.version_info >= (3, 13):
                    self.stack += [_load(ins.argval), NULL]
                else:
                    self.stack += [NULL, _load(ins.argval)]
            else:
                self.stack.append(_load(ins.argval))
        elif op == "LOAD_FAST_LOAD_FAST":
            self.stack += [_load(ins.argval[0]), _load(ins.argval[1])]
        elif op == "PUSH_NULL":
            self.stack.append(NULL)
        elif op in ("STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF"):
            self._store_name(ins, ins.argval, self.pop(ins))
        elif op == "STORE_FAST_STORE_FAST":
            first, second = ins.argval
            self._store_name(ins, first, self.pop(ins))
            self._store_name(ins, second, self.pop(ins))
        elif op in ("SWAP", "ROT_TWO"):
            depth = 2 if op == "ROT_TWO" else ins.argval
            if len(self.stack) < depth:
                raise Unsupported(ins, "the value stack is shorter than the swap")
            self.stack[-1], self.stack[-depth] = self.stack[-depth], self.stack[-1]
        elif op == "ROT_THREE":
            if len(self.stack) < 3:
                raise Unsupported(ins, "the value stack is shorter than the rotation")
            first, second, top = self.stack[-3:]
            self.stack[-3:] = [top, first, second]
        elif op == "STORE_FAST_LOAD_FAST":
            stored, loaded = ins.argval
            self.assign(ins, ast.Name(id=stored, ctx=ast.Store()), self.pop(ins))
            self.stack.append(_load(loaded))
        elif op == "LOAD_ATTR":
            owner = self.pop_value(ins)
            attribute = ast.Attribute(value=owner, attr=ins.argval, ctx=ast.Load())
            if sys.version_info >= (3, 12) and ins.arg is not None and ins.arg & 1:
                self.stack += ([attribute, NULL] if sys.version_info >= (3, 13) else [NULL, attribute])
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
        elif op == "COMPARE_OP":
            symbol = str(ins.argval)
            if symbol.startswith("bool(") and symbol.endswith(")"):
                symbol = symbol[5:-1]
            right = self.pop_value(ins)
            left = self.pop_value(ins)
            self.stack.append(ast.Compare(left=left, ops=[_COMPARE[symbol]()], comparators=[right]))
        elif op in ("IS_OP", "CONTAINS_OP"):
            right = self.pop_value(ins)
            left = self.pop_value(ins)
            negated = bool(ins.argval)
            comparison = (ast.IsNot if negated else ast.Is) if op == "IS_OP" else (ast.NotIn if negated else ast.In)
            self.stack.append(ast.Compare(left=left, ops=[comparison()], comparators=[right]))
        elif op in ("BUILD_TUPLE", "BUILD_LIST", "BUILD_SET"):
            values = self.pop_values(ins, ins.argval)
            kind = {"BUILD_TUPLE": ast.Tuple, "BUILD_LIST": ast.List, "BUILD_SET": ast.Set}[op]
            self.stack.append(kind(elts=values, ctx=ast.Load()) if kind is not ast.Set else ast.Set(elts=values))
        elif op in ("LIST_EXTEND", "SET_UPDATE"):
            value = self.pop_value(ins)
            target = self.stack[-ins.argval] if len(self.stack) >= ins.argval else None
            if not isinstance(target, (ast.List, ast.Set)) or not isinstance(value, ast.Constant) or not isinstance(value.value, (tuple, frozenset)):
                raise Unsupported(ins, "unpacking into a list or set literal")
            target.elts += [ast.Constant(value=v) for v in value.value]
        elif op == "BUILD_MAP":
            values = self.pop_values(ins, 2 * ins.argval)
            self.stack.append(ast.Dict(keys=values[0::2], values=values[1::2]))
        elif op == "BUILD_CONST_KEY_MAP":
            keys = self.pop_value(ins)
            values = self.pop_values(ins, ins.argval)
            if not isinstance(keys, ast.Constant) or not isinstance(keys.value, tuple):
                raise Unsupported(ins, "keys that are not constants")
            self.stack.append(ast.Dict(keys=[ast.Constant(value=k) for k in keys.value], values=values))
        elif op == "KW_NAMES":  # 3.11, 3.12: the keyword names of the next call
            self._kw_names = tuple(ins.argval) if isinstance(ins.argval, tuple) else tuple(self.code.co_consts[ins.arg])
        elif op in ("CALL", "CALL_FUNCTION", "CALL_METHOD", "CALL_FUNCTION_KW", "CALL_KW"):
            names: tuple[str, ...] = ()
            if op in ("CALL_FUNCTION_KW", "CALL_KW"):
                constant = self.pop_value(ins)
                if not isinstance(constant, ast.Constant) or not isinstance(constant.value, tuple):
                    raise Unsupported(ins, "keyword names that are not constants")
                names = constant.value
            elif self._kw_names:
                names, self._kw_names = self._kw_names, ()
            args = self.pop_values(ins, ins.argval)
            callable_ = self.pop(ins)
            if callable_ is NULL:
                callable_ = self.pop(ins)
            elif self.stack and self.stack[-1] is NULL:
                self.stack.pop()
            if not isinstance(callable_, ast.expr):
                raise Unsupported(ins, "calling something that is not a value")
            positional = args[: len(args) - len(names)]
            keywords = [ast.keyword(arg=name, value=value) for name, value in zip(names, args[len(args) - len(names):])]
            self.stack.append(ast.Call(func=callable_, args=positional, keywords=keywords))
        elif op == "GET_ITER":
            self.stack.append(LoopIterator(self.pop_value(ins)))
        elif op == "END_FOR":  # 3.12 pops the iterator and what FOR_ITER left; 3.13 only the latter
            for _ in range(2 if sys.version_info < (3, 13) else 1):
                if not self.stack or not isinstance(self.stack[-1], (LoopIterator, _LoopMarker)):
                    raise Unsupported(ins, "END_FOR outside a loop's exit")
                self.stack.pop()
        elif op == "UNPACK_SEQUENCE":
            value = self.pop(ins)
            if value is not NEXT_ITEM and not isinstance(value, ast.expr):
                raise Unsupported(ins, "unpacking something that is not a value")
            group = _Unpack(value, ins.argval)
            self.stack += [_Slot(group) for _ in range(ins.argval)]
        elif op in ("FORMAT_VALUE", "FORMAT_SIMPLE", "FORMAT_WITH_SPEC", "CONVERT_VALUE"):
            self._format(ins)
        elif op == "BUILD_STRING":
            parts = self.pop_values(ins, ins.argval)
            values: list[ast.expr] = []
            for part in parts:
                if isinstance(part, ast.JoinedStr):
                    values += part.values
                else:
                    values.append(part)
            self.stack.append(ast.JoinedStr(values=values))
        elif op == "POP_TOP":
            value = self.pop(ins)
            if isinstance(value, ast.expr):
                self.emit(ast.Expr(value=value), ins)
            elif isinstance(value, LoopIterator):
                pass  # leaving a for loop (break, return): its iterator goes
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
            self.stack.append(ast.FormattedValue(value=value, conversion={1: ord("s"), 2: ord("r"), 3: ord("a")}[ins.arg or 1], format_spec=None))
            return
        else:
            if op == "FORMAT_WITH_SPEC":
                spec = self.pop_value(ins)
            value = self.pop_value(ins)
            conversion = -1
            if isinstance(value, ast.FormattedValue):
                value, conversion = value.value, value.conversion
        if spec is not None and not isinstance(spec, ast.JoinedStr):
            spec = ast.JoinedStr(values=[spec])
        self.stack.append(ast.FormattedValue(value=value, conversion=conversion, format_spec=spec))


def _plain(value: ast.expr) -> bool:
    """A name or a constant (or a tuple of them): evaluating it later reads only names."""
    if isinstance(value, ast.Tuple):
        return all(_plain(v) for v in value.elts)
    return isinstance(value, (ast.Name, ast.Constant))


def _as_read(target: ast.expr) -> ast.expr:
    """The same target as an expression that reads it (load context), to compare with values."""
    return ast.parse(ast.unparse(target), mode="eval").body


def _arguments(code: CodeType) -> ast.arguments:
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
        posonlyargs=args[:positional_only], args=args[positional_only:], vararg=vararg,
        kwonlyargs=[ast.arg(arg=n) for n in names[count:count + keyword_only]], kw_defaults=[None] * keyword_only,
        kwarg=kwarg, defaults=[],
    )
