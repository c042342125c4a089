"""Ways out of a try body or an except clause that are the same inside it and after it: a
return of a value already on the stack, a constant or a bound local, a break or continue, and the
POP_EXCEPT ends of a clause before them (handlers.py writes such an ending where the source had it).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

import compilescope.decompiler.cfg as cfg
from compilescope.decompiler.normalize import CANNOT_RAISE, without_name_cleanup
from compilescope.decompiler.values import HandlerEnd


def drop_handler_ends(statements: list[ast.stmt]) -> None:
    """POP_EXCEPT before a break, continue or return inside a clause: leaving it does the same."""
    statements[:] = [st for st in statements if not isinstance(st, HandlerEnd)]
    for st in statements:
        for field in ("body", "orelse"):
            inner = getattr(st, field, None)
            if isinstance(inner, list) and inner:
                drop_handler_ends(inner)
                if not inner and field == "body":
                    inner.append(ast.Pass())


def returns_local(statement: ast.stmt) -> bool:
    """Leaving the clause this way after its end or just before it is the same: a jump, or a
    return of a local or a constant (nothing that could see the exception being handled)."""
    if isinstance(statement, (ast.Break, ast.Continue)):
        return True
    return isinstance(statement, ast.Return) and (
        statement.value is None
        or isinstance(statement.value, (ast.Name, ast.Constant))
        or (isinstance(statement.value, ast.Tuple) and all(isinstance(e, (ast.Name, ast.Constant)) for e in statement.value.elts))
    )


def leaves_plainly(tail: list[ast.stmt]) -> bool:
    """Code after a clause's end that only returns (or breaks, continues) with a local or a
    constant, perhaps passed through a temporary first: the same inside the clause."""
    plain = (ast.Name, ast.Constant)
    moves = all(
        isinstance(st, HandlerEnd)
        or isinstance(st, ast.Assign)
        and len(st.targets) == 1
        and isinstance(st.targets[0], ast.Name)
        and isinstance(st.value, plain)
        for st in tail[:-1]
    )
    return moves and returns_local(tail[-1])


def safe_return(graph: cfg.Graph, index: int, loads: int, inside: Callable[[int], bool] = lambda index: True) -> bool:
    """Code that only returns: a value already on the stack, a constant, or (at most `loads`) a
    local known to be bound, read in blocks `inside` holds (not past an enclosing finally's
    copy, which may change it), perhaps ending an except clause on the way. It cannot raise, so
    it is the same inside the try as after it."""
    allowed, loads = loads, 0
    for _ in range(len(graph.blocks)):
        block = graph.blocks[index]
        names = [i.opname for i in without_name_cleanup([i for i in block.instructions if i.opname not in cfg.NO_EFFECT])]
        read = sum(n in ("LOAD_FAST", "LOAD_FAST_LOAD_FAST") for n in names)
        if read and not inside(index):
            return False
        loads += read
        if loads > allowed or any(
            n not in CANNOT_RAISE and n not in ("LOAD_FAST", "LOAD_FAST_LOAD_FAST") and n not in cfg.UNCONDITIONAL for n in names
        ):
            return False
        if names and names[-1] in ("RETURN_VALUE", "RETURN_CONST"):
            return True
        following = [s for s, k in block.successors if k != "exception"]
        if len(following) != 1:
            return False
        index = following[0]
    return False
