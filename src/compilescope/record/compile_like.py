"""Compile a decompiled function's source into a code object that can run in Dynamo's place.

Dynamo runs its transformed code in a frame made from the original function's frame, copying
the values by position, not by name (torch/csrc/dynamo/eval_frame.c, dynamo_eval_custom_code_impl):
the arguments (the first co_argcount + co_kwonlyargcount + *args + **kwargs slots), then the
cell and free variables, counted from the end. convert_frame.py checks the same three things
of the code a bytecode hook returns (argument names, co_freevars, co_cellvars). So the code we
return must have exactly the reference's arguments, in order, and its cells and free variables;
its other locals are free (nothing is copied into them).

A function written at the top of a file compiles with no free variables (its names become
globals) and only the cells its own body needs. The file stays as the decompiler wrote it, so
that what the reader sees is what runs; the compiler is given its syntax tree with two changes
that keep every line number:

- where the reference has free variables, the function is put inside an enclosing function
  that assigns them, so the compiler makes them free variables (LOAD_DEREF), as depyf does;
- where it has cells, an `if False:` block at the end of the body assigns them and a nested
  function reads them: never run (the compiler drops the block), but the symbol table sees it.

Then the result is checked against the reference and against the code it replaces: arguments,
cells, free variables and flags (Dynamo's contract), the global and attribute names its
instructions use (the same), and the constants (none that Dynamo's code lacks). Any difference: the reason, and Dynamo's own
code runs. Stdlib only.
"""

from __future__ import annotations

import ast
import dis
import inspect
from types import CodeType
from typing import Any

# Instructions that act on a list, set or dict the code built itself, which source writes as
# a method call of that object.
_AS_METHOD = {"LIST_EXTEND": "extend", "LIST_APPEND": "append", "SET_UPDATE": "update", "SET_ADD": "add", "DICT_UPDATE": "update"}
_STORES = frozenset({"STORE_GLOBAL", "DELETE_GLOBAL", "STORE_ATTR", "DELETE_ATTR"})
_CLOSURE = "__compilescope_closure"
_CELLS = "__compilescope_cells"
# flags that change how a frame is made or what calling it returns
_KIND_FLAGS = (
    inspect.CO_VARARGS
    | inspect.CO_VARKEYWORDS
    | inspect.CO_GENERATOR
    | inspect.CO_COROUTINE
    | inspect.CO_ASYNC_GENERATOR
    | inspect.CO_ITERABLE_COROUTINE
)


def compile_like(source: str, filename: str, replaced: CodeType, reference: CodeType) -> CodeType | str:
    """The code of the one function `source` defines at its top level, compiled from `filename`
    so that its lines are that file's, named as `replaced` (the code Dynamo made) and fit to run
    in its place for a frame of `reference` (the code Dynamo compiled). A string saying why not
    where it cannot."""
    try:
        tree = ast.parse(source, filename)
    except SyntaxError as error:
        return f"the source does not compile ({error.msg}, line {error.lineno})"
    functions = [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if len(functions) != 1:
        return f"the source defines {len(functions)} functions at its top level, not one"
    function = functions[0]
    if function.decorator_list:
        return "the decompiled function has decorators"
    if reference.co_cellvars:
        function.body.append(_cells_block(reference.co_cellvars, function.body[-1]))
    if reference.co_freevars:
        tree.body[tree.body.index(function)] = _enclosed(function, reference.co_freevars)
    try:
        module = compile(ast.fix_missing_locations(tree), filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, TypeError) as error:
        return f"the source does not compile ({type(error).__name__}: {error})"
    found = _find(module, function.name, function.lineno)
    if found is None:
        return "the compiled function was not found in the file's code"
    code = found.replace(co_name=replaced.co_name)
    if hasattr(code, "co_qualname"):  # (3.11+)
        code = code.replace(co_qualname=replaced.co_qualname)
    why = differences(code, replaced, reference)
    return why if why is not None else code


def differences(code: CodeType, replaced: CodeType, reference: CodeType) -> str | None:
    """Why `code` may not run in place of `replaced` (Dynamo's code for a frame of `reference`),
    or None: the frame contract first, then what the code uses."""
    count = _argument_count(reference)
    if code.co_varnames[:count] != reference.co_varnames[:count] or _argument_count(code) != count:
        return f"its arguments {code.co_varnames[: _argument_count(code)]} are not {reference.co_varnames[:count]}"
    for what in ("co_argcount", "co_posonlyargcount", "co_kwonlyargcount"):
        if getattr(code, what) != getattr(reference, what):
            return f"its {what} is {getattr(code, what)}, not {getattr(reference, what)}"
    if code.co_flags & _KIND_FLAGS != replaced.co_flags & _KIND_FLAGS:
        return f"its flags {code.co_flags:#x} differ from Dynamo's {replaced.co_flags:#x}"
    for what in ("co_freevars", "co_cellvars"):
        if getattr(code, what) != getattr(reference, what):
            return f"its {what} {getattr(code, what)} are not {getattr(reference, what)}"
    ours, theirs = used_names(code), used_names(replaced)
    # (the decompiler writes LIST_EXTEND on a list it built as `.extend(...)`: the same call)
    written_as_methods = {_AS_METHOD[op] for op in _opnames(replaced) if op in _AS_METHOD}
    # (and a cell Dynamo passes as a value, LOAD_CLOSURE k, as `(lambda: k).__closure__[0]`)
    cells_as_values = _loads_cells(replaced)
    if not theirs <= ours or not ours - theirs <= written_as_methods | ({"__closure__"} if cells_as_values else set()):
        extra, missing = sorted(ours - theirs), sorted(theirs - ours)
        return "the names it uses differ from Dynamo's code" + _listed(" (only in ours: ", extra) + _listed(" (only in Dynamo's: ", missing)
    if scope_uses(code) != scope_uses(replaced):
        extra, missing = sorted(scope_uses(code) - scope_uses(replaced)), sorted(scope_uses(replaced) - scope_uses(code))
        return (
            "it reaches cells, free variables or globals differently"
            + _listed(" (only in ours: ", extra)
            + _listed(" (only in Dynamo's: ", missing)
        )
    # (Dynamo's may use more: indexes and slices of the lists it builds only to pass the stack
    # to a resume function, which the decompiler writes as the lists they make)
    extra = sorted(used_constants(code) - used_constants(replaced))
    if cells_as_values:  # (its index, and on 3.10 the lambda's qualified name)
        extra = [c for c in extra if c != "int 0" and not (c.startswith("str '") and c.endswith(".<lambda>'"))]
    if extra:
        return "it uses constants Dynamo's code does not" + _listed(" (", extra)
    return None


def used_names(code: CodeType) -> set[str]:
    """The global, attribute and imported names the instructions use, in nested code too."""
    found: set[str] = set()
    for item in _codes(code):
        for instruction in dis.get_instructions(item):
            if instruction.opcode in dis.hasname and isinstance(instruction.argval, str):
                found.add(instruction.argval)
    return found


def scope_uses(code: CodeType) -> set[str]:
    """How the code (not its nested functions) reaches each cell and free variable, and which
    globals and attributes it stores or deletes: "LOAD_CLOSURE k" (the cell itself, to make a
    closure) is not "LOAD_DEREF k" (its value), which source cannot tell apart by name."""
    cells = {*code.co_cellvars, *code.co_freevars}
    found: set[str] = set()
    for instruction in dis.get_instructions(code):
        name = instruction.argval
        if (instruction.opcode in dis.hasfree or instruction.opcode in dis.haslocal) and name in cells:
            found.add(f"{instruction.opname} {name}")
        elif instruction.opname in _STORES:
            found.add(f"{instruction.opname} {name}")
    return found


def _loads_cells(code: CodeType) -> bool:
    """Whether the code loads a cell itself (LOAD_CLOSURE; on 3.13, LOAD_FAST of a cell's slot)."""
    cells = {*code.co_cellvars, *code.co_freevars}
    return any(
        i.opname == "LOAD_CLOSURE" or (i.opname == "LOAD_FAST" and i.argval in cells)
        for item in _codes(code)
        for i in dis.get_instructions(item)
    )


def _opnames(code: CodeType) -> set[str]:
    return {instruction.opname for item in _codes(code) for instruction in dis.get_instructions(item)}


def used_constants(code: CodeType) -> set[str]:
    """The constants the instructions load (tuples opened up, None left out: a compiler adds
    a `return None` of its own), as type and repr, in nested code too."""
    found: set[str] = set()
    for item in _codes(code):
        for instruction in dis.get_instructions(item):
            if instruction.opcode in dis.hasconst:
                _add_constant(found, instruction.argval)
    return found


def _add_constant(found: set[str], value: object) -> None:
    if value is None or isinstance(value, CodeType):
        return
    if isinstance(value, (tuple, frozenset)):
        for item in value:
            _add_constant(found, item)
        return
    found.add(f"{type(value).__name__} {value!r}")


def _codes(code: CodeType) -> list[CodeType]:
    found = [code]
    for constant in code.co_consts:
        if isinstance(constant, CodeType):
            found.extend(_codes(constant))
    return found


def _argument_count(code: CodeType) -> int:
    return (
        code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    )


def _find(code: CodeType, name: str, lineno: int) -> CodeType | None:
    for constant in code.co_consts:
        if isinstance(constant, CodeType):
            if constant.co_name == name and constant.co_firstlineno == lineno:
                return constant
            if constant.co_name == _CLOSURE:
                return _find(constant, name, lineno)
    return None


def _cells_block(names: tuple[str, ...], last: ast.stmt) -> ast.If:
    """`if False:` assigning each cell and reading it from a nested function, on the body's
    last line (never run: the compiler drops it, after its symbol table has seen it)."""
    line = last.end_lineno or last.lineno
    reads = ast.Return(value=ast.Tuple(elts=[ast.Name(id=n, ctx=ast.Load()) for n in names], ctx=ast.Load()))
    block = ast.If(test=ast.Constant(False), body=[_assigned(names), _function(_CELLS, [reads])], orelse=[])
    return _placed(block, line, line)


def _enclosed(function: ast.FunctionDef | ast.AsyncFunctionDef, names: tuple[str, ...]) -> ast.FunctionDef:
    """The function inside one that assigns `names` (so that they are its free variables), on
    the function's own first line."""
    assigned = _placed(_assigned(names), function.lineno, function.lineno)
    enclosing = _function(_CLOSURE, [assigned, function])
    enclosing.lineno, enclosing.end_lineno = function.lineno, function.end_lineno or function.lineno
    enclosing.col_offset = enclosing.end_col_offset = 0
    return enclosing


def _assigned(names: tuple[str, ...]) -> ast.Assign:
    return ast.Assign(targets=[ast.Name(id=n, ctx=ast.Store()) for n in names], value=ast.Constant(None))


def _placed(node: ast.AST, line: int, end: int) -> Any:
    """`node`, and every node in it without a place, placed on lines `line` to `end`."""
    for item in ast.walk(node):
        if "lineno" in item._attributes and getattr(item, "lineno", None) is None:
            item.lineno, item.end_lineno, item.col_offset, item.end_col_offset = line, end, 0, 0  # type: ignore[attr-defined]
    return node


def _function(name: str, body: list[ast.stmt]) -> ast.FunctionDef:
    arguments = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    node = ast.FunctionDef(name=name, args=arguments, body=body, decorator_list=[], returns=None, type_comment=None)  # type: ignore[call-overload]
    if hasattr(ast, "TypeVar"):  # 3.12+: a FunctionDef has type_params
        node.type_params = []
    return node


def _listed(before: str, items: list[str], most: int = 5) -> str:
    if not items:
        return ""
    more = f", and {len(items) - most} more" if len(items) > most else ""
    return before + ", ".join(items[:most]) + more + ")"
