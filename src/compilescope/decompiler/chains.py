"""The graph pass that joins a chained comparison's blocks (normalize.PASSES: "chained comparisons
joined"): `a < b < c` is one test again, with a CHAIN_COMPARE where each link was, so that the
structurer reads it as written rather than as nested ifs.
"""

from __future__ import annotations

import dis
from typing import Any

import compilescope.decompiler.cfg as cfg
from compilescope.decompiler.cfg import CONDITIONAL, code_shape
from compilescope.decompiler.versions import SWAP_AND_COPY

_COMPARISONS = ("COMPARE_OP", "IS_OP", "CONTAINS_OP")


_FALSE_JUMPS = ("POP_JUMP_IF_FALSE", "POP_JUMP_FORWARD_IF_FALSE", "JUMP_IF_FALSE_OR_POP")


def chained_comparisons(graph: cfg.Graph) -> cfg.Graph:
    """`a < b < c` compares `a < b`, keeping b (SWAP 2, COPY 2; 3.10: DUP_TOP, ROT_THREE),
    and jumps when false to a block that drops b and goes on as the chain's false result would;
    else compares `b < c` in the next block. Each such link, whose two ways agree, becomes one
    CHAIN_COMPARE joining the two blocks: the reader writes the chain as one comparison."""
    changed, joined = True, []
    while changed:  # a chain's last link first: the one before it then ends the same way
        changed = False
        for block in graph.blocks:
            link = _chain_link(graph, block)
            if link is not None:
                following, keep, at, pops = link
                cfg.join_blocks(graph, block, following)
                # the keeping of the operand, the jump and what went with it are gone; the
                # comparison is now a link
                compare = block.instructions[at]
                block.instructions[keep : at + 1 + pops] = [compare._replace(opname="CHAIN_COMPARE")]
                joined.append(block)
                changed = True
    # the jump over the false way's block (gone now) to what comes next: straight there
    replace = {}
    for block in joined:
        for successor, kind in block.successors:
            jumper = graph.blocks[successor]
            if (
                kind == "fall"
                and jumper.predecessors == [block.index]
                and [i.opname for i in jumper.instructions if i.opname not in cfg.NO_EFFECT] in (["JUMP_FORWARD"], ["JUMP"])
            ):
                replace[successor] = next(s for s, k in jumper.successors if k == "jump")
    return cfg.redirected(graph, replace) if joined else graph


def _chain_link(graph: cfg.Graph, block: cfg.Block) -> tuple[cfg.Block, int, int, int] | None:
    """(the block the link's chain goes on in, the index in `block` of the instructions that
    keep the right operand (SWAP 2, COPY 2) and of the comparison, how many instructions after
    it belong to the link: a kept copy, TO_BOOL, the jump, and the next block's POP_TOP of the
    copy) when `block` ends with a link that can be joined."""
    if block.index not in graph.reachable or block.last.opname not in _FALSE_JUMPS:
        return None
    real = [at for at, i in enumerate(block.instructions) if i.opname not in cfg.NO_EFFECT]
    names = [block.instructions[at].opname for at in real]
    tail = names[-2::-1]  # backwards from before the jump
    skipped = 0
    while tail and tail[0] in ("TO_BOOL", "COPY") and (tail[0] == "TO_BOOL" or block.instructions[real[-2 - skipped]].arg == 1):
        tail, skipped = tail[1:], skipped + 1
    kept_copy = "COPY" in names[len(names) - 1 - skipped : -1]
    if len(tail) < 3 or tail[0] not in _COMPARISONS or (tail[2], tail[1]) not in (("SWAP", "COPY"), ("DUP_TOP", "ROT_THREE")):
        return None
    at = real[-2 - skipped]
    swap, copy = block.instructions[real[-4 - skipped]], block.instructions[real[-3 - skipped]]
    if swap.opname == "SWAP" and (swap.arg != 2 or copy.arg != 2):
        return None
    kept = kept_copy or block.last.opname == "JUMP_IF_FALSE_OR_POP"
    ways = {k: s for s, k in block.successors if k != "exception"}
    following, cleanup = graph.blocks[ways["fall"]], graph.blocks[ways["jump"]]
    if following.predecessors != [block.index] or following.index in graph.loops:
        return None
    if not (cfg.handlers(block) == cfg.handlers(following) == cfg.handlers(cleanup)):
        return None
    # the false way drops the kept operand (and, keeping the result, puts it back on top)
    cleanup_real = [i for i in cleanup.instructions if i.opname not in cfg.NO_EFFECT]
    drops = (
        [("SWAP", 2), ("POP_TOP", None)]
        if SWAP_AND_COPY and kept
        else [("ROT_TWO", None), ("POP_TOP", None)]
        if kept
        else [("POP_TOP", None)]
    )
    if [(i.opname, i.arg if i.opname == "SWAP" else None) for i in cleanup_real[: len(drops)]] != drops:
        return None
    rest = [i for i in following.instructions if i.opname not in cfg.NO_EFFECT]
    pops = 0
    if kept_copy:  # 3.12+: the next block drops the copy kept for the value
        if not rest or rest[0].opname != "POP_TOP":
            return None
        pops = 1
        rest = rest[1:]
    final = [n for n, i in enumerate(rest) if i.opname in _COMPARISONS]
    if _chain_link(graph, following) is not None:
        return None  # (a later link is joined first)
    if final:
        after = rest[final[-1] + 1 :]
    elif not kept and rest and CONDITIONAL.get(rest[-1].opname, (None, None))[1] == "none":
        after = rest[-1:]  # `is None` last, in the jump (3.11+)
    else:
        return None
    if kept:  # the value goes on: where the false way goes with it, the last comparison's does
        same = _going_on(graph, cleanup, cleanup_real[len(drops) :]) == _going_on(graph, following, after)
    else:  # a test: the false way goes where the last comparison's false way goes
        jump = following.last
        if not after or after[-1] is not jump or jump.opname not in CONDITIONAL or len(after) > 2:
            return None
        taken_when, _ = CONDITIONAL[jump.opname]
        ways_on = {k: s for s, k in following.successors if k != "exception"}
        false_way = graph.blocks[ways_on["fall" if taken_when else "jump"]]
        # (that block itself, or a copy of its code)
        same = _going_on(graph, cleanup, cleanup_real[len(drops) :]) in (
            ("block", cfg.through_jumps(graph, false_way.index, nops=True)),
            _going_on(graph, false_way, [i for i in false_way.instructions if i.opname not in cfg.NO_EFFECT]),
        )
    if not same:
        return None
    # instructions removed after the comparison: the link's own, to the end of the block, and
    # the next block's POP_TOP (counted in the joined block, where it follows them)
    own = len(block.instructions) - at - 1
    return (
        following,
        real[-4 - skipped],
        at,
        own + (following.instructions.index(next(i for i in following.instructions if i.opname == "POP_TOP")) + 1 if pops else 0),
    )


def _going_on(graph: cfg.Graph, block: cfg.Block, rest: list[dis.Instruction]) -> Any:
    """What a block does from `rest` (its last instructions) on: the block it goes on to where
    that is all it does (falls or jumps), else that code and where it goes after."""
    if not rest or (len(rest) == 1 and rest[0].opname in cfg.UNCONDITIONAL):
        ways = [s for s, k in block.successors if k != "exception"]
        return ("block", cfg.through_jumps(graph, ways[0], nops=True)) if len(ways) == 1 else None
    return ("code", code_shape(rest), tuple(sorted(s for s, k in block.successors if k != "exception")))
