"""The `global` and `nonlocal` declarations a decompiled body needs, read from its bytecode.

A declaration leaves no instruction of its own: it only changes which instruction a name's
store, delete or load compiles to. So it is read back from those instructions:

- `global X`: the code stores or deletes X as a global (STORE_GLOBAL, DELETE_GLOBAL); or it
  loads X as a global (LOAD_GLOBAL) where a function around it binds X, so that without the
  declaration X would be that function's variable.
- `nonlocal X`: the code stores or deletes X (STORE_DEREF, DELETE_DEREF) and X is one of its
  free variables (a variable of a function around it, not a cell of its own).

A comprehension's own code (every comprehension before 3.12, generator expressions on every
version) cannot declare anything, but an assignment expression in it (`(t := t + x)`) binds
in the scope around it: what its code stores counts as the enclosing body's (3.12+ inlines the
other comprehensions, whose stores are the function's own instructions already). Nor can a
lambda: a global it loads where a function around binds the name is declared in the body the
lambda is in, as the source must have done.
"""

from __future__ import annotations

import ast
import dis
from contextvars import ContextVar
from types import CodeType

COMPREHENSIONS = ("<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>")
_CO_OPTIMIZED = 0x1  # a function's code (a class body's and a module's have it not)

# The functions being decompiled around the code now read, outermost first (function_def sets it).
ENCLOSING: ContextVar[tuple[CodeType, ...]] = ContextVar("ENCLOSING", default=())


def declarations(code: CodeType) -> list[ast.stmt]:
    """`global ...` then `nonlocal ...` for the body of `code` (none: an empty list)."""
    own = {*code.co_varnames, *code.co_cellvars, *code.co_freevars}
    bound_around = {
        name
        for outer in ENCLOSING.get()
        if outer.co_flags & _CO_OPTIMIZED
        for name in (*outer.co_varnames, *outer.co_cellvars, *outer.co_freevars)
    }
    globals_: set[str] = set()
    nonlocals: set[str] = set()
    for owner, instruction, binds_here in _instructions(code, True):
        name = instruction.argval
        if not isinstance(name, str):
            continue
        if instruction.opname in ("STORE_GLOBAL", "DELETE_GLOBAL") and binds_here:
            globals_.add(name)
        elif instruction.opname == "LOAD_GLOBAL" and name in bound_around and name not in own:
            # (3.12+: a name in co_varnames that is loaded as a global is an inlined comprehension's own)
            globals_.add(name)
        elif (
            instruction.opname in ("STORE_DEREF", "DELETE_DEREF") and binds_here and name in owner.co_freevars and name in code.co_freevars
        ):
            nonlocals.add(name)
    out: list[ast.stmt] = []
    if globals_:
        out.append(ast.Global(names=sorted(globals_)))
    if nonlocals:
        out.append(ast.Nonlocal(names=sorted(nonlocals)))
    return out


def _instructions(code: CodeType, binds_here: bool) -> list[tuple[CodeType, dis.Instruction, bool]]:
    """The instructions of `code`, each with the code it is in and whether its stores bind in
    the scope asked about; then those of the comprehensions in it, whose assignment expressions
    bind there, and of the lambdas, which cannot declare: a global they load is declared
    around them (a `global` reaches the functions inside that do not bind the name)."""
    found = [(code, instruction, binds_here) for instruction in dis.get_instructions(code)]
    for const in code.co_consts:
        if isinstance(const, CodeType) and (const.co_name in COMPREHENSIONS or const.co_name == "<lambda>"):
            found += _instructions(const, binds_here and const.co_name != "<lambda>")
    return found


def is_declaration(statement: ast.stmt) -> bool:
    return isinstance(statement, (ast.Global, ast.Nonlocal))
