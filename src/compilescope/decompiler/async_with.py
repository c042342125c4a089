"""`async with` read as a with: a normalize.py pass (after the send loops are gone).

An async with awaits what a with only calls: `__aenter__()` after BEFORE_ASYNC_WITH, the
`__aexit__(None, None, None)` call where the body ends, and `__aexit__(*exception)` after
WITH_EXCEPT_START in its handler. Those awaits (GET_AWAITABLE, LOAD_CONST None, YIELD_FROM;
3.12+: END_SEND where the SEND loop ended) are the statement's own, never the user's: taken
out, the graph has a with's shape, which handlers.py reads (BEFORE_ASYNC_WITH's markers say
async). An await anywhere else is the user's and stays.
"""

from __future__ import annotations

import dis
from typing import cast

import compilescope.decompiler.cfg as cfg
from compilescope.decompiler.async_for import fall_successor

_AWAIT = ["GET_AWAITABLE", "LOAD_CONST", "YIELD_FROM"]
_ENTERS = frozenset(dis.opmap[name] for name in ("BEFORE_ASYNC_WITH",) if name in dis.opmap)
# the arguments of the exit call __aexit__(None, None, None): 3.10 one None copied twice, called
# with three (CALL_FUNCTION 3); 3.11+ three, called as a method with two more (CALL 2)
_EXIT_ARGUMENTS = (
    [("LOAD_CONST", None), ("DUP_TOP", None), ("DUP_TOP", None), ("CALL_FUNCTION", 3)],
    [("LOAD_CONST", None), ("LOAD_CONST", None), ("LOAD_CONST", None), ("CALL", 2)],
)


def async_with_awaits_dropped(graph: cfg.Graph) -> cfg.Graph:
    if not _ENTERS.intersection(graph.code.co_code[::2]):
        return graph  # (no async with: every await is the user's)
    replace: dict[int, int] = {}
    changed = False
    for block in graph.blocks:
        if block.index not in graph.reachable:
            continue
        at, stripped = 0, False
        while at < len(block.instructions):
            real = [(n, i) for n, i in enumerate(block.instructions) if i.opname not in cfg.NO_EFFECT and n >= at]
            found = next((k for k in range(len(real) - 2) if [i.opname for _, i in real[k : k + 3]] == _AWAIT), None)
            if found is None:
                break
            start = real[found][0]
            before = [i for i in block.instructions[:start] if i.opname not in cfg.NO_EFFECT and i.opname != "PRECALL"]
            if not (real[found + 1][1].argval is None and _with_own(before)):
                at = real[found + 2][0] + 1
                continue
            end = real[found + 2][0] + 1
            block.instructions = block.instructions[:start] + block.instructions[end:]
            changed = stripped = True
            at = start
        if stripped and _needs_join(graph, block):
            following = graph.blocks[next(s for s, k in block.successors if k == "fall")]
            if following.instructions[0].opname == "END_SEND":  # (3.12+: the await's receiver)
                nop = following.instructions[0]._replace(opname="NOP", opcode=dis.opmap["NOP"], arg=None, argval=None, argrepr="")
                following.instructions = following.instructions[1:] or [nop]  # (a block is never empty)
            if all(i.opname in cfg.NO_EFFECT for i in following.instructions) and fall_successor(following) is not None:
                replace[following.index] = cast(int, fall_successor(following))
            elif _joinable(graph, block, following):
                cfg.join_blocks(graph, block, following)
    return cfg.redirected(graph, replace) if changed else graph


def _with_own(before: list[dis.Instruction]) -> bool:
    """Whether the await after these instructions is an async with's own: after its enter,
    after its exit call (the one __aexit__(None, None, None) of each way out of its body; a
    user's call of that shape is not a with's, and the verifier would say so), or in its handler."""
    if before[-1:] and before[-1].opname in ("BEFORE_ASYNC_WITH", "WITH_EXCEPT_START"):
        return True
    return [(i.opname, i.arg if i.opname.startswith("CALL") else i.argval) for i in before[-4:]] in _EXIT_ARGUMENTS


def _needs_join(graph: cfg.Graph, block: cfg.Block) -> bool:
    """3.11+: the await ended the block (its SEND loop); the code after it is in the next one."""
    falls = [s for s, k in block.successors if k == "fall"]
    real = [i for i in block.instructions if i.opname not in cfg.NO_EFFECT]
    return (
        len(falls) == 1
        and bool(real)
        and not cfg.is_jump(block.last)
        and block.last.opname not in cfg.TERMINATORS
        and (real[-1].opname in ("BEFORE_ASYNC_WITH", "WITH_EXCEPT_START", "CALL"))
    )


def _joinable(graph: cfg.Graph, block: cfg.Block, following: cfg.Block) -> bool:
    # (the SEND loop's other ways in, a CLEANUP_THROW, are unreachable once it is gone)
    others = [p for p in following.predecessors if p != block.index and p in graph.reachable]
    handlers = {e for e in block.successors if e[1] == "exception"} == {e for e in following.successors if e[1] == "exception"}
    return not others and handlers and following.index not in graph.loops
