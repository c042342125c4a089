"""`async for` read as a for loop: a normalize.py pass (after the send loops are gone).

Python writes `async for x in it:` as a loop whose header awaits the iterator's next item
(GET_ANEXT, LOAD_CONST None, YIELD_FROM; 3.11+ a SEND loop, which normalize.py already made one
YIELD_FROM, and 3.12+'s END_SEND after it), inside a handler whose END_ASYNC_FOR ends the loop
when that await raises StopAsyncIteration (3.10: SETUP_FINALLY before the header, POP_BLOCK
after it). That is exactly FOR_ITER: the item, or a jump to where the loop ends with the
iterator gone. The header becomes one FOR_ITER marked ASYNC_FOR, jumping to the code after
END_ASYNC_FOR, and the handler edge goes: the structurer reads the rest as any for loop.
"""

from __future__ import annotations

import dis
from typing import cast

import compilescope.decompiler.cfg as cfg

ASYNC_FOR = "async for"  # the argrepr of the FOR_ITER this pass writes for an async loop's header


def is_async_for(block: cfg.Block) -> bool:
    """Whether the block is an async for loop's header (as this pass wrote it)."""
    return block.last.opname == "FOR_ITER" and block.last.argrepr == ASYNC_FOR


def async_for_loops(graph: cfg.Graph) -> cfg.Graph:
    replace: dict[int, int] = {}
    changed = False
    for block in list(graph.blocks):
        real = [i for i in block.instructions if i.opname not in cfg.NO_EFFECT]
        names = [i.opname for i in real]
        if names[:3] != ["GET_ANEXT", "LOAD_CONST", "YIELD_FROM"] or names[3:] not in ([], ["POP_BLOCK"]):
            continue
        ending = [s for s, k in block.successors if k == "exception" and _ends_async_for(graph.blocks[s])]
        following = [s for s, k in block.successors if k == "fall"]
        if block.index not in graph.reachable or len(ending) != 1 or len(following) != 1:
            continue  # (never a shape this pass does not know: the reader refuses END_ASYNC_FOR)
        handler = graph.blocks[ending[0]]
        after = cfg.split(graph, handler, 1) if len(handler.instructions) > 1 else fall_successor(handler)
        if after is None:
            continue
        body = graph.blocks[following[0]]
        if [i.opname for i in body.instructions[:1]] == ["END_SEND"]:  # (3.12+: the await's receiver, inside the handler's range)
            body.successors = [(s, k) for s, k in body.successors if s != handler.index]
            if len(body.instructions) > 1:
                body.instructions = body.instructions[1:]
                body.start = body.instructions[0].offset
            elif fall_successor(body) is not None:
                replace[body.index] = cast(int, fall_successor(body))
                following = [replace[body.index]]
            else:
                continue
        header = real[0]._replace(opname="FOR_ITER", opcode=dis.opmap["FOR_ITER"], argrepr=ASYNC_FOR, argval=graph.blocks[after].start)
        block.instructions = [header]
        # (the header is held by the handlers around the loop: where END_ASYNC_FOR's own
        # exceptions go, as its range named only the innermost)
        block.successors = [(following[0], "fall"), (after, "jump")] + [(s, k) for s, k in handler.successors if k == "exception"]
        # 3.10: the loop starts at the SETUP_FINALLY of this handler, alone in a block
        for p in block.predecessors:
            before = graph.blocks[p]
            setup = [i for i in before.instructions if i.opname not in cfg.NO_EFFECT]
            if (
                [i.opname for i in setup] == ["SETUP_FINALLY"]
                and setup[0].argval == handler.start
                and before.successors[:1] == [(block.index, "fall")]
            ):
                replace[p] = block.index
        changed = True
    return cfg.redirected(graph, replace) if changed else graph


def _ends_async_for(block: cfg.Block) -> bool:
    real = [i for i in block.instructions if i.opname not in cfg.NO_EFFECT]
    return bool(real) and real[0].opname == "END_ASYNC_FOR"


def fall_successor(block: cfg.Block) -> int | None:
    """The block this one falls into, if any."""
    return next((s for s, k in block.successors if k == "fall"), None)
