"""BlockReader's table, third part: what `async def` adds (registered like opcodes_calls.py,
which imports this module).

`await e` is GET_AWAITABLE of e, then a YIELD_FROM of it (3.10's own instruction; 3.11+'s SEND
loop, which normalize.py turns into one). The awaits of an async with's `__aenter__()` and
`__aexit__()` are the statement's own: async_with.py takes them out of the graph first. The
awaited call of a 3.10/3.11 async comprehension's function is the comprehension's own too.
`async for` is read as a for loop (async_for.py); GET_AITER marks its iterator async.
"""

from __future__ import annotations

import ast
import dis
from dataclasses import dataclass

from compilescope.decompiler.expressions import BlockReader, Delegated, handles
from compilescope.decompiler.values import LoopIterator, Unsupported, WithEnter, WithExit

# a comprehension's node whose call the code awaits (3.10, 3.11: an async comprehension's
# function is a coroutine): the await is the comprehension's own
AWAITED_CALL = "compilescope_awaited_call"


@dataclass
class Awaited(Delegated):
    """GET_AWAITABLE of `value`: what YIELD_FROM waits for, the value of `await value`. (An
    async with's own awaits are gone from the graph by then: see async_with.py.)"""

    def result(self) -> ast.expr:
        if getattr(self.value, AWAITED_CALL, False):
            setattr(self.value, AWAITED_CALL, False)
            return self.value
        return ast.Await(value=self.value)


@handles("GET_AWAITABLE")
def _get_awaitable(reader: BlockReader, ins: dis.Instruction) -> None:
    reader.stack.append(Awaited(reader.pop_value(ins)))


@handles("BEFORE_ASYNC_WITH")  # [manager] -> [__aexit__, __aenter__()] (3.10: SETUP_ASYNC_WITH later)
def _before_async_with(reader: BlockReader, ins: dis.Instruction) -> None:
    manager = reader.pop_value(ins)
    reader.stack += [WithExit(manager, is_async=True), WithEnter(manager)]


@handles("SETUP_ASYNC_WITH")  # 3.10: only its handler, which the graph has
def _setup_async_with(reader: BlockReader, ins: dis.Instruction) -> None:
    if not reader.stack or not isinstance(reader.stack[-1], WithEnter):
        raise Unsupported(ins, "SETUP_ASYNC_WITH without its __aenter__()")


@handles("GET_AITER")
def _get_aiter(reader: BlockReader, ins: dis.Instruction) -> None:
    reader.stack.append(LoopIterator(reader.pop_value(ins), is_async=True))


@handles("ASYNC_GEN_WRAP")  # 3.11: the value an async generator yields, wrapped for its caller
def _async_gen_wrap(reader: BlockReader, ins: dis.Instruction) -> None:
    async_gen_wrap(reader, ins)


def async_gen_wrap(reader: BlockReader, ins: dis.Instruction) -> None:
    """The yield that follows is the `yield` of an async generator (the code's flags say so):
    the wrap is Python's, the value is the user's."""
    if not reader.code.co_flags & 0x200:
        raise Unsupported(ins, "ASYNC_GEN_WRAP outside an async generator")
