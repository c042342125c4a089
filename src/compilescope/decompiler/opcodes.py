"""BlockReader's table of opcodes: what each instruction of a block does to the value stack.

Each handler is registered with `handles` into expressions.HANDLERS, the table BlockReader.step
looks an instruction up in; an opcode not there is refused ("not decompiled yet"), so adding one
is a visible change (tests/unit/test_decompiler_opcodes.py lists them per Python). The handlers
are the reader's own steps, kept apart from its stack machinery: they use its private state
(`reader._walrus`) as its methods do. Where what an opcode does depends on more than its name (a
store that names an assignment expression, a swap that is a tuple assignment), its handler makes
the tests in that order. Where the versions differ, a named constant says how.

This module: names, the stack, attributes and subscripts, operators and comparisons, displays,
unpacking, f-strings, and the statements a value ends in. opcodes_calls.py: calls, definitions,
imports, exceptions, with, generators and loops.
"""

from __future__ import annotations

import ast
import dis
from types import CodeType
from typing import Any, cast

from compilescope.decompiler.expressions import (
    HANDLERS,
    IGNORED,
    NAME_STORES,
    NOT_YET,
    BlockReader,
    ImportedModule,
    ImportedName,
    InPlace,
    Slot,
    Unpack,
    handles,
    load_name,
    plain_value,
)
from compilescope.decompiler.opcodes_async import async_gen_wrap
from compilescope.decompiler.opcodes_calls import Code
from compilescope.decompiler.values import (
    CAUGHT,
    EXCEPTION_TYPE,
    GENERATOR,
    NEXT_ITEM,
    NULL,
    TRACEBACK,
    WITH_DONE,
    ChainLeft,
    LoopIterator,
    Saved,
    Unsupported,
    WithEnter,
    WithTarget,
    cell_of,
)
from compilescope.decompiler.versions import ATTR_LOADS_METHOD, CELL_LOADED_BY_LOAD_FAST, GLOBAL_PUSHES_NULL, NULL_ABOVE

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
# Python 3.10 names each operator in the opcode (BINARY_ADD, INPLACE_ADD); 3.11+ has BINARY_OP.
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


def handled_opcodes() -> frozenset[str]:
    """Every opcode name the table has a handler for, this Python's or not (3.10's BINARY_ADD is
    in it on 3.13 too: it never comes), and CHAIN_COMPARE and YIELD_FROM, which normalize.py writes."""
    return frozenset(HANDLERS)


def ignored_opcodes() -> frozenset[str]:
    """The opcodes BlockReader.step passes over: no effect on the values of straight-line code."""
    return IGNORED


def _writable(value: Any) -> bool:
    """A constant that `ast.unparse` writes as a literal giving the same value."""
    if value is None or value is Ellipsis or isinstance(value, (bool, int, str, bytes)):
        return True
    if isinstance(value, (float, complex)):
        return all(part == part for part in (value.real, value.imag))  # not NaN (inf unparses as 1e309)
    if isinstance(value, (tuple, frozenset)):
        return all(_writable(v) for v in value)
    return False


def _push_with_null(reader: BlockReader, value: ast.expr) -> None:
    """A callable loaded with the NULL of its call, on the side this Python keeps it."""
    reader.stack += [value, NULL] if NULL_ABOVE else [NULL, value]


# ---- names ---------------------------------------------------------------------------------------
@handles("LOAD_CONST")
def _load_const(reader: BlockReader, ins: dis.Instruction) -> None:
    if isinstance(ins.argval, CodeType):
        reader.stack.append(Code(ins.argval))
        return
    if _writable(ins.argval):
        reader.stack.append(ast.Constant(value=ins.argval))
    else:  # an object put in the code (Dynamo does: torch.device(...)): named, not guessed
        reader.stack.append(load_name(reader.temps.constant(cast(int, ins.arg), ins.argval)))  # (LOAD_CONST has an arg)


@handles("LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_DEREF", "LOAD_NAME", "LOAD_GLOBAL", "LOAD_CLASSDEREF", "LOAD_FROM_DICT_OR_GLOBALS")
def _load_name(reader: BlockReader, ins: dis.Instruction) -> None:
    if ins.opname == "LOAD_GLOBAL" and GLOBAL_PUSHES_NULL and ins.arg is not None and ins.arg & 1:
        _push_with_null(reader, load_name(ins.argval))
    elif ins.opname == "LOAD_FAST" and CELL_LOADED_BY_LOAD_FAST and ins.argval in (*reader.code.co_cellvars, *reader.code.co_freevars):
        reader.stack.append(cell_of(ins.argval))  # (3.13 compiles LOAD_CLOSURE to this)
    else:
        reader.stack.append(load_name(ins.argval))


@handles("LOAD_FAST_LOAD_FAST")
def _load_fast_load_fast(reader: BlockReader, ins: dis.Instruction) -> None:
    reader.stack += [load_name(ins.argval[0]), load_name(ins.argval[1])]


@handles("LOAD_CLOSURE")  # the cell of a variable a nested function reads
def _load_closure(reader: BlockReader, ins: dis.Instruction) -> None:
    reader.stack.append(cell_of(ins.argval))


@handles("LOAD_FAST_AND_CLEAR")
def _load_fast_and_clear(reader: BlockReader, ins: dis.Instruction) -> None:
    reader.stack.append(Saved(ins.argval))


@handles("PUSH_NULL")
def _push_null(reader: BlockReader, ins: dis.Instruction) -> None:
    reader.stack.append(NULL)


@handles(*NAME_STORES)
def _store_name(reader: BlockReader, ins: dis.Instruction) -> None:
    if reader._walrus:
        reader._walrus = False
        reader.stack.append(ast.NamedExpr(target=ast.Name(id=ins.argval, ctx=ast.Store()), value=reader.pop_value(ins)))
    else:
        reader._store_name(ins, ins.argval, reader.pop(ins))


@handles("STORE_FAST_LOAD_FAST")
def _store_fast_load_fast(reader: BlockReader, ins: dis.Instruction) -> None:
    if reader._walrus:
        reader._walrus = False
        stored, loaded = ins.argval
        reader.stack += [ast.NamedExpr(target=ast.Name(id=stored, ctx=ast.Store()), value=reader.pop_value(ins)), load_name(loaded)]
    else:
        stored, loaded = ins.argval
        reader.assign(ins, ast.Name(id=stored, ctx=ast.Store()), reader.pop(ins))
        reader.stack.append(load_name(loaded))


@handles("STORE_FAST_STORE_FAST")
def _store_fast_store_fast(reader: BlockReader, ins: dis.Instruction) -> None:
    first, second = ins.argval
    value, other = reader.pop(ins), reader.pop(ins)
    if (
        isinstance(value, ast.expr)
        and isinstance(other, ast.expr)
        and plain_value(value)
        and plain_value(other)
        and ast.dump(value) != ast.dump(other)
    ):
        # `a, b = x, y` on 3.13: one instruction stores both names, the last first
        targets: list[ast.expr] = [ast.Name(id=second, ctx=ast.Store()), ast.Name(id=first, ctx=ast.Store())]
        reader.emit(
            ast.Assign(targets=[ast.Tuple(elts=targets, ctx=ast.Store())], value=ast.Tuple(elts=[other, value], ctx=ast.Load()), lineno=0),
            ins,
        )
    else:
        reader.stack.append(other)
        if not reader._stored_in_turn(ins, [first, second], value):
            reader._store_name(ins, first, value)
            reader._store_name(ins, second, reader.pop(ins))


@handles("DELETE_FAST", "DELETE_NAME", "DELETE_GLOBAL", "DELETE_DEREF")
def _delete_name(reader: BlockReader, ins: dis.Instruction) -> None:
    reader.emit(ast.Delete(targets=[ast.Name(id=ins.argval, ctx=ast.Del())]), ins)


# ---- the stack -----------------------------------------------------------------------------------
@handles("SWAP", "ROT_TWO")
def _swap(reader: BlockReader, ins: dis.Instruction) -> None:
    if reader._tuple_assignment(ins):
        return
    depth = 2 if ins.opname == "ROT_TWO" else ins.argval
    if len(reader.stack) < depth:
        raise Unsupported(ins, "the value stack is shorter than the swap")
    reader._spill_for_swap(depth, ins)
    reader.stack[-1], reader.stack[-depth] = reader.stack[-depth], reader.stack[-1]


@handles("ROT_THREE", "ROT_FOUR", "ROT_N")  # 3.10: the top goes `depth` down
def _rotate(reader: BlockReader, ins: dis.Instruction) -> None:
    if ins.opname == "ROT_THREE" and reader._tuple_assignment(ins):
        return
    depth = {"ROT_THREE": 3, "ROT_FOUR": 4}.get(ins.opname) or ins.argval
    if len(reader.stack) < depth:
        raise Unsupported(ins, "the value stack is shorter than the rotation")
    if sum(not reader._settled(v) for v in reader.stack[-depth:]) > 1:
        reader.spill(len(reader.stack), instruction=ins)
    reader.stack.insert(len(reader.stack) - depth, reader.stack.pop())


@handles("COPY", "DUP_TOP")
def _copy(reader: BlockReader, ins: dis.Instruction) -> None:
    if (ins.argval or 1) == 1 and reader._named_expression_follows():
        reader._walrus = True  # the store that follows names the value where it stays: `(x := v)`
    elif ins.opname == "COPY":
        reader._copy(ins.argval, ins)
    else:
        reader._copy(1, ins)


@handles("DUP_TOP_TWO")
def _dup_top_two(reader: BlockReader, ins: dis.Instruction) -> None:
    reader._copy(2, ins)
    reader._copy(2, ins)


# ---- attributes and subscripts -------------------------------------------------------------------
@handles("LOAD_ATTR")
def _load_attr(reader: BlockReader, ins: dis.Instruction) -> None:
    owner = reader.pop_value(ins)
    attribute = ast.Attribute(value=owner, attr=ins.argval, ctx=ast.Load())
    if ATTR_LOADS_METHOD and ins.arg is not None and ins.arg & 1:
        _push_with_null(reader, attribute)
    else:
        reader.stack.append(attribute)


@handles("LOAD_SUPER_ATTR")  # 3.12+: [super, class, self] -> super().attr
def _load_super_attr(reader: BlockReader, ins: dis.Instruction) -> None:
    owner_self = reader.pop_value(ins)
    owner_class = reader.pop_value(ins)
    function = reader.pop_value(ins)
    explicit = bool((ins.arg or 0) & 2)  # super(C, self) as written; else super()
    call = ast.Call(func=function, args=[owner_class, owner_self] if explicit else [], keywords=[])
    attribute = ast.Attribute(value=call, attr=ins.argval, ctx=ast.Load())
    if (ins.arg or 0) & 1:
        _push_with_null(reader, attribute)
    else:
        reader.stack.append(attribute)


@handles("LOAD_METHOD")  # 3.10, 3.11
def _load_method(reader: BlockReader, ins: dis.Instruction) -> None:
    owner = reader.pop_value(ins)
    reader.stack += [NULL, ast.Attribute(value=owner, attr=ins.argval, ctx=ast.Load())]


@handles("STORE_ATTR")
def _store_attr(reader: BlockReader, ins: dis.Instruction) -> None:
    owner = reader.pop_value(ins)
    reader.assign(ins, ast.Attribute(value=owner, attr=ins.argval, ctx=ast.Store()), reader.pop(ins))


@handles("DELETE_ATTR")
def _delete_attr(reader: BlockReader, ins: dis.Instruction) -> None:
    owner = reader.pop_value(ins)
    reader.emit(ast.Delete(targets=[ast.Attribute(value=owner, attr=ins.argval, ctx=ast.Del())]), ins)


@handles("BINARY_SUBSCR")
def _binary_subscr(reader: BlockReader, ins: dis.Instruction) -> None:
    key = reader.pop_value(ins)
    container = reader.pop_value(ins)
    reader.stack.append(ast.Subscript(value=container, slice=key, ctx=ast.Load()))


@handles("STORE_SUBSCR")
def _store_subscr(reader: BlockReader, ins: dis.Instruction) -> None:
    key = reader.pop_value(ins)
    container = reader.pop_value(ins)
    reader.assign(ins, ast.Subscript(value=container, slice=key, ctx=ast.Store()), reader.pop(ins))


@handles("DELETE_SUBSCR")
def _delete_subscr(reader: BlockReader, ins: dis.Instruction) -> None:
    key = reader.pop_value(ins)
    container = reader.pop_value(ins)
    reader.emit(ast.Delete(targets=[ast.Subscript(value=container, slice=key, ctx=ast.Del())]), ins)


@handles("BUILD_SLICE")
def _build_slice(reader: BlockReader, ins: dis.Instruction) -> None:
    parts = reader.pop_values(ins, ins.argval)
    reader.stack.append(ast.Slice(*[None if isinstance(p, ast.Constant) and p.value is None else p for p in parts]))


@handles("BINARY_SLICE")  # 3.12+
def _binary_slice(reader: BlockReader, ins: dis.Instruction) -> None:
    stop = reader.pop_value(ins)
    start = reader.pop_value(ins)
    container = reader.pop_value(ins)
    bounds = [None if isinstance(p, ast.Constant) and p.value is None else p for p in (start, stop)]
    reader.stack.append(ast.Subscript(value=container, slice=ast.Slice(*bounds), ctx=ast.Load()))


@handles("STORE_SLICE")  # 3.12+
def _store_slice(reader: BlockReader, ins: dis.Instruction) -> None:
    stop = reader.pop_value(ins)
    start = reader.pop_value(ins)
    container = reader.pop_value(ins)
    bounds = [None if isinstance(p, ast.Constant) and p.value is None else p for p in (start, stop)]
    reader.assign(ins, ast.Subscript(value=container, slice=ast.Slice(*bounds), ctx=ast.Store()), reader.pop(ins))


# ---- operators and comparisons -------------------------------------------------------------------
@handles("BINARY_OP", *(f"{kind}_{name}" for kind in ("BINARY", "INPLACE") for name in _BINARY_310))
def _binary_op(reader: BlockReader, ins: dis.Instruction) -> None:
    op = ins.opname
    symbol = ins.argrepr if op == "BINARY_OP" else _BINARY_310[op.split("_", 1)[1]]
    inplace = symbol.endswith("=") or op.startswith("INPLACE_")
    operator = _BINARY.get(symbol.rstrip("="))
    if operator is None:
        raise Unsupported(ins, f"operator {symbol!r}")
    right = reader.pop_value(ins)
    left = reader.pop_value(ins)
    reader.stack.append(InPlace(operator(), left, right) if inplace else ast.BinOp(left=left, op=operator(), right=right))


@handles(*_UNARY)
def _unary(reader: BlockReader, ins: dis.Instruction) -> None:
    reader.stack.append(ast.UnaryOp(op=_UNARY[ins.opname](), operand=reader.pop_value(ins)))


@handles("CALL_INTRINSIC_1")  # 3.12+: what had opcodes of its own (UNARY_POSITIVE, LIST_TO_TUPLE)
def _call_intrinsic_1(reader: BlockReader, ins: dis.Instruction) -> None:
    if ins.argrepr == "INTRINSIC_UNARY_POSITIVE":
        reader.stack.append(ast.UnaryOp(op=ast.UAdd(), operand=reader.pop_value(ins)))
    elif ins.argrepr == "INTRINSIC_LIST_TO_TUPLE":
        _list_to_tuple(reader, ins)
    elif ins.argrepr == "INTRINSIC_ASYNC_GEN_WRAP":
        async_gen_wrap(reader, ins)
    else:
        raise Unsupported(ins, NOT_YET)


@handles("COMPARE_OP", "IS_OP", "CONTAINS_OP", "CHAIN_COMPARE")
def _compare(reader: BlockReader, ins: dis.Instruction) -> None:
    right = reader.pop_value(ins)
    left = reader.pop(ins)
    if isinstance(left, ChainLeft):  # the next comparison of a chain: `a < b < c`
        compare = ast.Compare(
            left=left.compare.left, ops=[*left.compare.ops, _comparison(ins)], comparators=[*left.compare.comparators, right]
        )
    elif isinstance(left, ast.expr):
        compare = ast.Compare(left=left, ops=[_comparison(ins)], comparators=[right])
    else:
        raise Unsupported(ins, f"expected a value on the stack, found {type(left).__name__}")
    reader.stack.append(ChainLeft(compare) if ins.opname == "CHAIN_COMPARE" else compare)


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


# ---- displays and unpacking ----------------------------------------------------------------------
@handles("BUILD_TUPLE", "BUILD_LIST", "BUILD_SET")
def _build_sequence(reader: BlockReader, ins: dis.Instruction) -> None:
    values = reader.pop_values(ins, ins.argval)
    kind = {"BUILD_TUPLE": ast.Tuple, "BUILD_LIST": ast.List, "BUILD_SET": ast.Set}[ins.opname]
    reader.stack.append(kind(elts=values, ctx=ast.Load()) if kind is not ast.Set else ast.Set(elts=values))


@handles("BUILD_MAP")
def _build_map(reader: BlockReader, ins: dis.Instruction) -> None:
    values = reader.pop_values(ins, 2 * ins.argval)
    reader.stack.append(ast.Dict(keys=cast("list[ast.expr | None]", values[0::2]), values=values[1::2]))


@handles("BUILD_CONST_KEY_MAP")
def _build_const_key_map(reader: BlockReader, ins: dis.Instruction) -> None:
    keys = reader.pop_value(ins)
    values = reader.pop_values(ins, ins.argval)
    if not isinstance(keys, ast.Constant) or not isinstance(keys.value, tuple):
        raise Unsupported(ins, "keys that are not constants")
    reader.stack.append(ast.Dict(keys=[ast.Constant(value=k) for k in keys.value], values=values))


@handles("LIST_TO_TUPLE")
def _list_to_tuple(reader: BlockReader, ins: dis.Instruction) -> None:
    value = reader.pop_value(ins)
    reader.stack.append(
        ast.Tuple(elts=value.elts if isinstance(value, ast.List) else [ast.Starred(value=value, ctx=ast.Load())], ctx=ast.Load())
    )


@handles("LIST_APPEND", "SET_ADD", "LIST_EXTEND", "SET_UPDATE", "DICT_UPDATE", "DICT_MERGE", "MAP_ADD")
def _add_to_container(reader: BlockReader, ins: dis.Instruction) -> None:
    """LIST_APPEND and friends: onto a literal still being built, a new element (`[*a, b]`,
    `{**d}`); onto a container already in a variable, the method that does the same."""
    op = ins.opname
    if op == "MAP_ADD":
        value = reader.pop_value(ins)
        key = reader.pop_value(ins)
    else:
        value = reader.pop_value(ins)
    depth = ins.argval if op != "MAP_ADD" else ins.argval
    if len(reader.stack) < depth:
        raise Unsupported(ins, "the value stack is shorter than the container's place")
    target = reader.stack[-depth]
    literal = isinstance(target, (ast.List, ast.Set, ast.Dict)) and all(
        reader._settled(v) for v in reader.stack[len(reader.stack) - depth + 1 :]
    )
    if op == "DICT_MERGE" and not (literal and isinstance(target, ast.Dict)):
        raise Unsupported(ins, "keyword arguments merged into something that is not a literal")
    if not literal:
        # Added to an object already made (or values computed after the literal wait above
        # it): store it, then call the method that does what the instruction does.
        reader.spill(len(reader.stack) - depth + 1, instruction=ins)
        target = reader.stack[-depth]
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
            reader.emit(ast.Assign(targets=[ast.Subscript(value=target, slice=key, ctx=ast.Store())], value=value, lineno=0), ins)
            return
        if method is not None:
            reader.emit(
                ast.Expr(value=ast.Call(func=ast.Attribute(value=target, attr=method, ctx=ast.Load()), args=[value], keywords=[])), ins
            )
            return
    raise Unsupported(ins, f"{op} onto something that is not a container being built")


@handles("UNPACK_SEQUENCE", "UNPACK_EX")
def _unpack(reader: BlockReader, ins: dis.Instruction) -> None:
    value = reader.pop(ins)
    # (__enter__()'s result too: `with m as (x, y):`, its target made when the slots are filled)
    if value is not NEXT_ITEM and not isinstance(value, (ast.expr, Slot, WithEnter)):
        raise Unsupported(ins, "unpacking something that is not a value")
    if ins.opname == "UNPACK_SEQUENCE":
        group = Unpack(value, ins.arg or 0)
    else:  # the names before the starred one, and after it
        before, after = (ins.arg or 0) & 0xFF, (ins.arg or 0) >> 8
        group = Unpack(value, before + 1 + after, star=before)
    reader.stack += [Slot(group) for _ in range(group.count)]


# ---- f-strings -----------------------------------------------------------------------------------
@handles("FORMAT_VALUE", "FORMAT_SIMPLE", "FORMAT_WITH_SPEC", "CONVERT_VALUE")
def _format(reader: BlockReader, ins: dis.Instruction) -> None:
    op = ins.opname
    spec = None
    if op == "FORMAT_VALUE":  # 3.10-3.12: flags = conversion | 4 when a spec is on the stack
        flags = ins.arg or 0
        if flags & 4:
            spec = reader.pop_value(ins)
        conversion = {0: -1, 1: ord("s"), 2: ord("r"), 3: ord("a")}[flags & 3]
        value = reader.pop_value(ins)
    elif op == "CONVERT_VALUE":  # 3.13: marks the value; FORMAT_* follows
        value = reader.pop_value(ins)
        reader.stack.append(
            ast.FormattedValue(value=value, conversion={1: ord("s"), 2: ord("r"), 3: ord("a")}[ins.arg or 1], format_spec=None)
        )
        return
    else:
        if op == "FORMAT_WITH_SPEC":
            spec = reader.pop_value(ins)
        value = reader.pop_value(ins)
        conversion = -1
        if isinstance(value, ast.FormattedValue):
            formatted = value  # (mypy checks a tuple assignment item by item: `value.conversion` would be read as rebound)
            value, conversion = formatted.value, formatted.conversion
    if spec is not None and not isinstance(spec, ast.JoinedStr):
        spec = ast.JoinedStr(values=[spec])
    # an f-string of its own (f"{x}", a str); BUILD_STRING joins the parts of a longer one
    reader.stack.append(ast.JoinedStr(values=[ast.FormattedValue(value=value, conversion=conversion, format_spec=spec)]))


@handles("BUILD_STRING")
def _build_string(reader: BlockReader, ins: dis.Instruction) -> None:
    parts = reader.pop_values(ins, ins.argval)
    values = []
    for part in parts:
        if isinstance(part, ast.JoinedStr):
            values += part.values
        elif isinstance(part, ast.FormattedValue) or (isinstance(part, ast.Constant) and isinstance(part.value, str)):
            values.append(part)
        else:  # a str kept in a temporary: f"{s}" is s
            kept = ast.FormattedValue(value=part, conversion=-1, format_spec=None)
            kept.compilescope_joined = True  # type: ignore[attr-defined]  # (joined, never formatted: tidy)
            values.append(kept)
    reader.stack.append(ast.JoinedStr(values=values))


# ---- statements ----------------------------------------------------------------------------------
@handles("POP_TOP")
def _pop_top(reader: BlockReader, ins: dis.Instruction) -> None:
    value = reader.pop(ins)
    if isinstance(value, Slot):
        reader._fill(value, reader._overwritten_name(ins), ins)
    elif isinstance(value, ast.Constant) or (isinstance(value, ast.Name) and reader.temps.owns(value.id)):
        pass  # dropping a constant or a copy already stored has no effect
    elif isinstance(value, ast.expr):
        reader.emit(ast.Expr(value=value), ins)
    elif isinstance(value, LoopIterator):
        pass  # leaving a for loop (break, return): its iterator goes
    elif value is GENERATOR or isinstance(value, ImportedModule) or value in (CAUGHT, WITH_DONE, TRACEBACK, EXCEPTION_TYPE):
        pass  # a generator's start; a module whose names were imported; `except E:`; a with's end
    elif isinstance(value, ImportedName) and value.source.fromlist is None:
        pass  # the module between, in `import a.b.c as d`
    elif isinstance(value, WithEnter):  # `with m:` without `as`
        reader.statements.append(WithTarget(None))
    elif value is not NULL:
        raise Unsupported(ins, "discarded a value under construction")


@handles("RAISE_VARARGS")
def _raise(reader: BlockReader, ins: dis.Instruction) -> None:
    parts = reader.pop_values(ins, ins.argval)
    reader.emit(ast.Raise(exc=parts[0] if parts else None, cause=parts[1] if len(parts) > 1 else None), ins)


@handles("RETURN_VALUE")
def _return_value(reader: BlockReader, ins: dis.Instruction) -> None:
    reader.emit(ast.Return(value=reader.pop_value(ins)), ins)


@handles("RETURN_CONST")
def _return_const(reader: BlockReader, ins: dis.Instruction) -> None:
    reader.emit(ast.Return(value=ast.Constant(value=ins.argval)), ins)
