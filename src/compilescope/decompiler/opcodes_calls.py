"""BlockReader's table, second part: calls, definitions (functions, classes, imports), and the
markers of exceptions, with, generators and loops that the structurer reads.

Registered into expressions.HANDLERS like opcodes.py, which imports this module; see there.
"""

from __future__ import annotations

import ast
import dis
from dataclasses import dataclass
from types import CodeType
from typing import Any, cast

from compilescope.decompiler.expressions import (
    BlockReader,
    BuildClass,
    Delegated,
    Function,
    ImportedModule,
    ImportedName,
    handles,
    load_name,
)
from compilescope.decompiler.opcodes_async import AWAITED_CALL, Awaited
from compilescope.decompiler.values import (
    CAUGHT,
    GENERATOR,
    NULL,
    PREVIOUS,
    WITH_DONE,
    ExceptionMatch,
    HandlerEnd,
    LoopIterator,
    LoopMarker,
    Unsupported,
    WithEnter,
    WithExit,
)
from compilescope.decompiler.versions import (
    END_FOR_POPS,
    MAKE_FUNCTION_FLAGS,
    NULL_ABOVE,
    PREVIOUS_EXCEPTION_ENTRIES,
    QUALNAME_PUSHED,
    RECEIVER_KEPT,
)


@dataclass
class Code:
    """LOAD_CONST of a code object, until MAKE_FUNCTION makes it a function."""

    code: CodeType


class _Locals:
    """LOAD_LOCALS (3.12+, in a class body): the namespace the next load looks in first."""


LOCALS = _Locals()


@dataclass
class _Comprehension:
    """A comprehension's own function (3.10, 3.11; generator expressions on every version),
    until it is called with its first iterable."""

    code: CodeType


_COMPREHENSIONS = ("<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>")


# ---- calls ---------------------------------------------------------------------------------------
@handles("KW_NAMES")  # 3.11, 3.12: the keyword names of the next call
def _keyword_names(reader: BlockReader, ins: dis.Instruction) -> None:
    reader._kw_names = tuple(ins.argval) if isinstance(ins.argval, tuple) else tuple(reader.code.co_consts[cast(int, ins.arg)])


@handles("CALL", "CALL_FUNCTION", "CALL_METHOD", "CALL_FUNCTION_KW", "CALL_KW")
def _call(reader: BlockReader, ins: dis.Instruction) -> None:
    op = ins.opname
    names: tuple[str, ...] = ()
    if op in ("CALL_FUNCTION_KW", "CALL_KW"):
        constant = reader.pop_value(ins)
        if not isinstance(constant, ast.Constant) or not isinstance(constant.value, tuple):
            raise Unsupported(ins, "keyword names that are not constants")
        names = constant.value
    elif reader._kw_names:
        names, reader._kw_names = reader._kw_names, ()
    if ins.argval in (0, 1) and len(reader.stack) >= 2 and isinstance(reader.stack[-2], _Comprehension) and not names:
        # a comprehension's function called with its first iterable: [f(x) for x in it]
        iterator = reader.stack.pop()
        made = reader.stack.pop()
        iterable = iterator.iterable if isinstance(iterator, LoopIterator) else reader._value(iterator, ins)
        made_comprehension = reader.nested.comprehension(made.code, iterable)
        if made.code.co_flags & 0x80:  # (an async one: its function is a coroutine the code awaits)
            setattr(made_comprehension, AWAITED_CALL, True)
        reader.stack.append(made_comprehension)
        return
    args = reader.pop_values(ins, ins.argval)
    if op in ("CALL", "CALL_KW") and NULL_ABOVE:
        # [callable, self or NULL, args...]
        bound = reader.pop(ins)
        callable_ = reader.pop(ins)
        if bound is not NULL:
            args = [reader._value(bound, ins), *args]
    elif op == "CALL":
        # 3.11, 3.12: [NULL, callable, args...] or [callable, self, args...]
        top = reader.pop(ins)
        below = reader.pop(ins)
        if below is NULL:
            callable_ = top
        else:
            callable_, args = below, [reader._value(top, ins), *args]
    else:  # 3.10: [callable, args...]; CALL_METHOD: [NULL, method, args...] as we keep it
        callable_ = reader.pop(ins)
        if reader.stack and reader.stack[-1] is NULL:
            reader.stack.pop()
    if isinstance(callable_, WithExit):  # the with's own __exit__(None, None, None)
        if len(args) != 3 or not all(isinstance(a, ast.Constant) and a.value is None for a in args):
            raise Unsupported(ins, "a with's __exit__ called another way")
        reader.stack.append(WITH_DONE)
        return
    if not isinstance(callable_, ast.expr):
        raise Unsupported(ins, "calling something that is not a value")
    positional = args[: len(args) - len(names)]
    keywords = [ast.keyword(arg=name, value=value) for name, value in zip(names, args[len(args) - len(names) :])]
    reader.stack.append(ast.Call(func=callable_, args=positional, keywords=keywords))


@handles("CALL_FUNCTION_EX")
def _call_with_unpacking(reader: BlockReader, ins: dis.Instruction) -> None:
    """`f(*args, **kwargs)`: CALL_FUNCTION_EX with the positional arguments as one sequence
    and, when its flag is set, the keywords as one mapping."""
    kwargs = reader.pop_value(ins) if (ins.arg or 0) & 1 else None
    args = reader.pop_value(ins)
    callable_ = reader.pop(ins)
    if callable_ is NULL:  # 3.13: NULL above the callable
        callable_ = reader.pop(ins)
    elif reader.stack and reader.stack[-1] is NULL:  # 3.11, 3.12: NULL below it
        reader.stack.pop()
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
    reader.stack.append(ast.Call(func=callable_, args=positional, keywords=keywords))


# ---- functions and classes -----------------------------------------------------------------------
@handles("MAKE_FUNCTION")
def _make_function(reader: BlockReader, ins: dis.Instruction) -> None:
    if QUALNAME_PUSHED:
        reader.pop(ins)  # the qualified name
    code = reader.pop(ins)
    if not isinstance(code, Code):
        raise Unsupported(ins, "MAKE_FUNCTION of something that is not a code object")
    function: Any = _function(reader, code.code, ins)
    flags = (ins.arg or 0) if MAKE_FUNCTION_FLAGS else 0
    for flag in (0x08, 0x04, 0x02, 0x01):  # pushed in the reverse order
        if flags & flag:
            function = _with_attribute(function, flag, reader.pop(ins), ins)
    reader.stack.append(function)


@handles("SET_FUNCTION_ATTRIBUTE")  # 3.13: [value, function]
def _set_function_attribute(reader: BlockReader, ins: dis.Instruction) -> None:
    function = reader.pop(ins)
    value = reader.pop(ins)
    reader.stack.append(_with_attribute(function, ins.arg or 0, value, ins))


def _function(reader: BlockReader, code: CodeType, ins: dis.Instruction) -> Any:
    if code.co_flags & 0x100:  # (types.coroutine sets it at run time: no source makes it)
        raise Unsupported(ins, "iterable coroutines are not decompiled")
    if code.co_name in _COMPREHENSIONS:
        return _Comprehension(code)
    if code.co_name == "<lambda>":  # an expression: it can go anywhere a value goes
        return reader.nested.lambda_of(code)
    return Function(code, [], {})


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
        if not isinstance(function, Function) or not all(isinstance(n, ast.Constant) and isinstance(n.value, str) for n in names):
            raise Unsupported(ins, "annotations of something that is not a nested function")
        function.annotations = {n.value: v for n, v in zip(names, items[1::2])}
        return function
    if not isinstance(function, (Function, ast.Lambda)):
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


@handles("LOAD_BUILD_CLASS")
def _load_build_class(reader: BlockReader, ins: dis.Instruction) -> None:
    reader.stack.append(BuildClass())


@handles("LOAD_LOCALS")
def _load_locals(reader: BlockReader, ins: dis.Instruction) -> None:
    reader.stack.append(LOCALS)


@handles("LOAD_FROM_DICT_OR_DEREF")  # 3.12+: a class body reads a name of the function around it
def _load_from_dict_or_deref(reader: BlockReader, ins: dis.Instruction) -> None:
    if reader.pop(ins) is not LOCALS:
        raise Unsupported(ins, "LOAD_FROM_DICT_OR_DEREF without the class body's namespace")
    reader.stack.append(load_name(ins.argval))


@handles("SETUP_ANNOTATIONS")  # a class body's `__annotations__`: its `x: T` store into it
def _setup_annotations(reader: BlockReader, ins: dis.Instruction) -> None:
    pass


# ---- imports -------------------------------------------------------------------------------------
@handles("IMPORT_NAME")
def _import_name(reader: BlockReader, ins: dis.Instruction) -> None:
    fromlist = reader.pop_value(ins)
    level = reader.pop_value(ins)
    if not isinstance(fromlist, ast.Constant) or not isinstance(level, ast.Constant):
        raise Unsupported(ins, "an import whose level or names are not constants")
    # (constants of IMPORT_NAME: a tuple of names or None, and an int)
    imported = tuple(cast("tuple[str, ...]", fromlist.value)) if fromlist.value is not None else None
    if imported == ("*",):
        raise Unsupported(ins, "import *")
    reader.stack.append(ImportedModule(str(ins.argval), int(cast(int, level.value)), imported))


@handles("IMPORT_FROM")
def _import_from(reader: BlockReader, ins: dis.Instruction) -> None:
    source = reader.stack[-1] if reader.stack else None
    if isinstance(source, ImportedName) and source.source.fromlist is None:
        # import a.b.c as d: b of a.b.c, then c of that (the module below is dropped)
        reader.stack.append(ImportedName(source.source, f"{source.name}.{ins.argval}"))
    elif not isinstance(source, ImportedModule):
        raise Unsupported(ins, "IMPORT_FROM without the module below it")
    else:
        reader.stack.append(ImportedName(source, str(ins.argval)))


# ---- with and exceptions -------------------------------------------------------------------------
@handles("BEFORE_WITH", "SETUP_WITH")  # 3.11+ / 3.10 (its handler is in the graph)
def _with(reader: BlockReader, ins: dis.Instruction) -> None:
    manager = reader.pop_value(ins)
    reader.stack += [WithExit(manager), WithEnter(manager)]


@handles("PUSH_EXC_INFO")  # [exc] -> [previous exc, exc]
def _push_exc_info(reader: BlockReader, ins: dis.Instruction) -> None:
    caught = reader.pop(ins)
    if caught is not CAUGHT:
        raise Unsupported(ins, "PUSH_EXC_INFO outside an exception handler's start")
    reader.stack += [PREVIOUS, CAUGHT]


@handles("CHECK_EXC_MATCH")  # [exc, type] -> [exc, matches]
def _check_exc_match(reader: BlockReader, ins: dis.Instruction) -> None:
    matched = reader.pop_value(ins)
    if not reader.stack or reader.stack[-1] is not CAUGHT:
        raise Unsupported(ins, "CHECK_EXC_MATCH without the exception below it")
    reader.stack.append(ExceptionMatch(matched))


@handles("POP_EXCEPT")
def _pop_except(reader: BlockReader, ins: dis.Instruction) -> None:
    for _ in range(PREVIOUS_EXCEPTION_ENTRIES):
        if not reader.stack or reader.stack[-1] is not PREVIOUS:
            raise Unsupported(ins, "POP_EXCEPT without the exception handled before")
        reader.stack.pop()
    reader._skip_name_cleanup = True
    # values computed inside the clause (`return f(e)` computes f(e) before the clause
    # ends) are evaluated there: into temporaries before the end is marked
    reader.spill(len(reader.stack), instruction=ins)
    reader.statements.append(HandlerEnd())


@handles("LOAD_ASSERTION_ERROR")
def _load_assertion_error(reader: BlockReader, ins: dis.Instruction) -> None:
    error = ast.Name(id="AssertionError", ctx=ast.Load())
    error.compilescope_assert = True  # type: ignore[attr-defined]  # tidy writes `assert`
    reader.stack.append(error)


# ---- generators and loops ------------------------------------------------------------------------
@handles("GEN_START")  # 3.10: a generator's start; nothing of the user's
def _gen_start(reader: BlockReader, ins: dis.Instruction) -> None:
    pass


@handles("RETURN_GENERATOR")
def _return_generator(reader: BlockReader, ins: dis.Instruction) -> None:
    reader.stack.append(GENERATOR)


@handles("GET_YIELD_FROM_ITER")
def _get_yield_from_iter(reader: BlockReader, ins: dis.Instruction) -> None:
    reader.stack.append(Delegated(reader.pop_value(ins)))


@handles("YIELD_FROM")  # [delegated, None] -> its result (3.12+: above the receiver END_SEND drops)
def _yield_from(reader: BlockReader, ins: dis.Instruction) -> None:
    # (3.11+ has no YIELD_FROM: normalize.py writes one for the SEND loop that does it)
    sent = reader.pop(ins)
    delegated = reader.pop(ins)
    if not isinstance(delegated, Delegated) or not (isinstance(sent, ast.Constant) and sent.value is None):
        raise Unsupported(ins, "yield from of a shape not decompiled yet")
    if RECEIVER_KEPT:
        reader.stack.append(delegated)
    reader.stack.append(delegated.result() if isinstance(delegated, Awaited) else ast.YieldFrom(value=delegated.value))


@handles("END_SEND")
def _end_send(reader: BlockReader, ins: dis.Instruction) -> None:
    value = reader.pop(ins)
    if not isinstance(reader.pop(ins), Delegated):
        raise Unsupported(ins, "END_SEND without its yield from")
    reader.stack.append(value)


@handles("YIELD_VALUE")
def _yield_value(reader: BlockReader, ins: dis.Instruction) -> None:
    reader.stack.append(ast.Yield(value=reader.pop_value(ins)))


@handles("GET_ITER")
def _get_iter(reader: BlockReader, ins: dis.Instruction) -> None:
    reader.stack.append(LoopIterator(reader.pop_value(ins)))


@handles("END_FOR")  # 3.12 pops the iterator and what FOR_ITER left; 3.13 only the latter
def _end_for(reader: BlockReader, ins: dis.Instruction) -> None:
    for _ in range(END_FOR_POPS):
        if not reader.stack or not isinstance(reader.stack[-1], (LoopIterator, LoopMarker)):
            raise Unsupported(ins, "END_FOR outside a loop's exit")
        reader.stack.pop()
