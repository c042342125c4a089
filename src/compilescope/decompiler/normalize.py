"""The decompiler's second stage: the control-flow graph made regular before it is structured.

cfg.build(code) gives the blocks as the bytecode has them. Python's compiler copies code (a
finally on each way out, a loop's test, a `return x` at each place it returns), cuts some
statements into pieces (a with's exit call, a chained comparison's links), and adds handlers of
its own (a comprehension's, a name's cleanup after `except E as e`). Each pass below undoes one
of these, on the graph alone, so that structure.py finds if/else, loops, try and with from the
graph's shape: one join point per statement, one copy of each piece of code.

PASSES lists them in the order they run; normalize(code) runs them all. Each pass takes the
graph the one before it left and returns a new one (or the same, where it changed nothing); two
also find facts the structurer needs: the finallys whose copies were taken out, and the blocks a
with's exit may jump to when it suppresses an exception.
"""

from __future__ import annotations

import dis
from collections.abc import Callable
from dataclasses import dataclass, field
from types import CodeType
from typing import Any, NamedTuple

import compilescope.decompiler.cfg as cfg
import compilescope.decompiler.finally_copies as finally_copies
from compilescope.decompiler.async_for import async_for_loops
from compilescope.decompiler.async_with import async_with_awaits_dropped
from compilescope.decompiler.cfg import CONDITIONAL, code_shape
from compilescope.decompiler.chains import chained_comparisons
from compilescope.decompiler.expressions import name_cleanup
from compilescope.decompiler.versions import JUMPS_TEST_ONLY_BOOLS

EXIT = -1  # the virtual block every return and raise leads to (as structure.py has it)


def _without_implicit_handlers(graph: cfg.Graph) -> cfg.Graph:
    """Without the handlers Python adds on its own (see _implicit_handler): they are not the
    user's `try`, and the blocks their ranges cut apart are joined again."""
    wrappers = {b.index for b in graph.blocks if _implicit_handler(b)}
    for block in graph.blocks:
        # code inside the wrapped range is still protected by what protects the wrapper (the
        # user's try or with around a 3.12+ inlined comprehension)
        outer = [
            (s, "exception")
            for w, k in block.successors
            if k == "exception" and w in wrappers
            for s in _outside_wrappers(graph, w, wrappers)
        ]
        kept = [(s, k) for s, k in block.successors if not (k == "exception" and s in wrappers)]
        block.successors = kept + [edge for edge in dict.fromkeys(outer) if edge not in kept]
    graph = cfg.redirected(graph, {})
    # A block that only jumps cannot raise (3.12+ tests only exact bools, made by TO_BOOL or a
    # comparison); 3.12+ leaves the one in an inlined comprehension's loop out of every range:
    # it belongs to the try or with around the code it jumps within.
    for block in graph.blocks:
        only_jumps = all(
            i.opname in cfg.NO_EFFECT or i.opname in cfg.UNCONDITIONAL or JUMPS_TEST_ONLY_BOOLS and i.opname in CONDITIONAL
            for i in block.instructions
        )
        if not only_jumps or any(k == "exception" for _, k in block.successors) or not block.predecessors:
            continue
        around = {frozenset(e for e in graph.blocks[p].successors if e[1] == "exception") for p in block.predecessors}
        if len(around) == 1 and next(iter(around)):
            block.successors += sorted(next(iter(around)))
    # The ranges those handlers covered split blocks that are one straight line: join them again.
    for block in graph.blocks:
        while len(block.successors) == 1 and block.successors[0][1] == "fall":
            following = graph.blocks[block.successors[0][0]]
            if following.predecessors != [block.index] or following.index in graph.loops or following.index == block.index:
                break
            if {e for e in block.successors if e[1] == "exception"} != {e for e in following.successors if e[1] == "exception"}:
                break  # a range that still starts or ends here: the user's try or with
            cfg.join_blocks(graph, block, following)
    return cfg.redirected(graph, {})


def _outside_wrappers(graph: cfg.Graph, wrapper: int, wrappers: set[int]) -> list[int]:
    """The handlers that protect a wrapper's code, through the wrappers of the comprehensions
    it is inside (a comprehension in a comprehension in a try)."""
    found: list[int]
    found, todo, seen = [], [wrapper], set()
    while todo:
        handler = todo.pop(0)
        for s, k in graph.blocks[handler].successors:
            if k == "exception" and s not in seen:
                seen.add(s)
                (todo if s in wrappers else found).append(s)
    return found


def _without_empty_loop_starts(graph: cfg.Graph) -> cfg.Graph:
    """Without loop headers that do nothing (`while 1:`'s NOP, kept for its line): `continue`
    jumps to the NOP, the end of the body past it, which reads as two loops, one inside the
    other. Every way into the NOP goes to the block it falls into instead (the entry stays
    where the function starts)."""
    replace = {}
    for header in graph.loops:
        block = graph.blocks[header]
        on = cfg.passes_through(block)
        if (
            on is not None and on != header and cfg.handlers(block) == cfg.handlers(graph.blocks[on])
        ):  # not a `try:`'s NOP, before its range
            replace[header] = on
    return cfg.redirected(graph, replace) if replace else graph


def _without_send_loops(graph: cfg.Graph) -> cfg.Graph:
    """3.11+ writes `yield from x` (and `await x`) as a loop: SEND, YIELD_VALUE, back to SEND, until the
    delegated iterator is done (3.12+ with a CLEANUP_THROW handler). It is one expression: the
    block before the loop gets one YIELD_FROM (3.10's own instruction for it) and goes on
    where the loop ends."""
    changed = False
    for block in graph.blocks:
        real = [i for i in block.instructions if i.opname not in cfg.NO_EFFECT]
        if not real or real[0].opname != "SEND" or block.index not in graph.reachable:
            continue
        done = next((s for s, k in block.successors if k == "jump"), None)
        before = [p for p in block.predecessors if graph.blocks[p].start < block.start]
        if done is None or len(before) != 1:
            continue
        entry = graph.blocks[before[0]]
        names = [i.opname for i in entry.instructions if i.opname not in cfg.NO_EFFECT]
        if names[-1:] != ["LOAD_CONST"] or names[-2:-1] not in (["GET_YIELD_FROM_ITER"], ["GET_AWAITABLE"], ["GET_ANEXT"]):
            continue  # (yield from, await, and an async for's await of its next item)
        entry.instructions = [
            *entry.instructions,
            real[0]._replace(opname="YIELD_FROM", opcode=dis.opmap["NOP"], arg=None, argval=None, argrepr=""),
        ]
        entry.successors = [(done if s == block.index else s, k) for s, k in entry.successors]
        changed = True
    return cfg.redirected(graph, {}) if changed else graph


# What a block that only calls a with's __exit__ on the way out may do (3.10-3.13).
_EXIT_CALL = frozenset(
    {
        "LOAD_CONST",
        "PRECALL",
        "CALL",
        "CALL_FUNCTION",
        "DUP_TOP",
        "POP_BLOCK",
        "POP_TOP",
        "NOP",
        "CACHE",
        "SWAP",
        "ROT_TWO",
        "ROT_FOUR",
        "LOAD_FAST",
        "RETURN_VALUE",
        "RETURN_CONST",
        "JUMP_BACKWARD",
        "JUMP_FORWARD",
        "JUMP_ABSOLUTE",
        "JUMP",
        "JUMP_BACKWARD_NO_INTERRUPT",
    }
)


def exit_call_block(block: cfg.Block) -> bool:
    """A block that only calls withs' __exit__(None, None, None) on the way out (and returns,
    jumps or pops): every call in it has three Nones (3.10: one, copied twice) just before it.
    Any other call must not be moved into a with's body."""
    instructions = block.instructions
    ending = next((at for at, i in enumerate(instructions) if i.opname == "POP_EXCEPT"), None)
    if ending is not None:  # on the way out of an except clause around the withs (joined)
        if not _cannot_raise(instructions[ending:]):
            return False
        instructions = instructions[:ending]
    names = {i.opname for i in instructions if i.opname not in cfg.NO_EFFECT}  # (EXTENDED_ARG: a long jump on)
    if not names & {"CALL", "CALL_FUNCTION"} or not names <= _EXIT_CALL:
        return False
    real = [i for i in instructions if i.opname not in cfg.NO_EFFECT and i.opname != "PRECALL"]
    for at, instruction in enumerate(real):
        if instruction.opname in ("CALL", "CALL_FUNCTION"):
            before = [(i.opname, i.argval) for i in real[max(0, at - 3) : at]]
            if before not in ([("LOAD_CONST", None)] * 3, [("LOAD_CONST", None), ("DUP_TOP", None), ("DUP_TOP", None)]):
                return False
    return True


def _with_suppression_targets(graph: cfg.Graph) -> tuple[cfg.Graph, dict[int, int]]:
    """For each with's handler, the block where an exception its __exit__ suppressed goes on
    (the code after the with), cut into a block of its own where it shares one with the
    handler's pops."""
    found: dict[int, int] = {}
    changed = False
    targets = {s for b in graph.blocks for s, k in b.successors if k == "exception"}
    for handler in sorted(targets):
        block = graph.blocks[handler]
        names = [i.opname for i in block.instructions if i.opname not in cfg.NO_EFFECT]
        if "WITH_EXCEPT_START" not in names[:2] or block.last.opname not in CONDITIONAL or not CONDITIONAL[block.last.opname][0]:
            continue
        suppress = graph.blocks[next(s for s, k in block.successors if k == "jump")]
        at = 0
        popped_exception = False
        for _ in range(len(graph.blocks)):  # the pops: the exception, its state, __exit__ (3.10: and the block)
            while at < len(suppress.instructions) and suppress.instructions[at].opname in (
                "POP_TOP",
                "POP_EXCEPT",
                "POP_BLOCK",
                *cfg.NO_EFFECT,
            ):
                if suppress.instructions[at].opname == "POP_EXCEPT":
                    if popped_exception:
                        break  # the end of an except clause around the with: after it
                    popped_exception = True
                at += 1
            if at < len(suppress.instructions):
                break
            following = next((s for s, k in suppress.successors if k == "fall"), None)
            if following is None or graph.blocks[following].predecessors != [suppress.index]:
                break
            suppress, at = graph.blocks[following], 0
        if not popped_exception:
            continue
        if at >= len(suppress.instructions):
            following = next((s for s, k in suppress.successors if k != "exception"), None)
            if following is not None:
                found[handler] = cfg.through_jumps(graph, following)
            continue
        if suppress.instructions[at].opname in cfg.UNCONDITIONAL:
            found[handler] = cfg.through_jumps(graph, next(s for s, k in suppress.successors if k == "jump"))
            continue
        found[handler] = cfg.split(graph, suppress, at) if at else suppress.index
        changed = True
    return (cfg.redirected(graph, {}) if changed else graph), found


def _joined_exit_calls(graph: cfg.Graph) -> cfg.Graph:
    """A return, break or continue out of nested withs calls each one's __exit__ in turn, in
    blocks cut apart by the withs' ranges: joined, they read as the one way out they are."""
    # the next with's __exit__, or the end of an except clause around the withs on the way to
    # a return (cut apart by the clause's ranges, but one way out)
    return _joined_falls(graph, exit_call_block, lambda following: exit_call_block(following) or _cannot_raise(following.instructions))


def _joined_returns(graph: cfg.Graph) -> cfg.Graph:
    """A return whose value was computed in the block before it, cut from it by a range's end
    (an except clause's, or a finally's copy taken out between) and perhaps ending an except
    clause on the way: it cannot raise, so it is the end of that block, where the values it
    takes (from below the loop's iterator, the clause's exception state) are all known."""

    def returns(following: cfg.Block) -> bool:
        real = [i for i in following.instructions if i.opname not in cfg.NO_EFFECT]
        if not (real and _cannot_raise(following.instructions) and cfg.takes_from_stack(following.instructions)):
            return False
        if real[-1].opname in ("RETURN_VALUE", "RETURN_CONST"):
            return True
        # (the end of an except clause, cut from the return by a finally's copy taken out)
        ways = [(s, k) for s, k in following.successors if k != "exception"]
        return (
            len(ways) == 1
            and ways[0][1] == "fall"
            and graph.blocks[ways[0][0]].predecessors == [following.index]
            and returns(graph.blocks[ways[0][0]])
        )

    return _joined_falls(graph, lambda block: block.index in graph.reachable, returns)


def _joined_falls(graph: cfg.Graph, starts: Callable[[cfg.Block], bool], joins: Callable[[cfg.Block], bool]) -> cfg.Graph:
    """Each block `starts` accepts, joined (_join) with the blocks it falls into one after
    another while each is reached only from it, starts no loop, and `joins` accepts it."""
    changed = False
    for block in graph.blocks:
        while starts(block) and [k for _, k in block.successors if k != "exception"] == ["fall"]:
            following = graph.blocks[next(s for s, k in block.successors if k == "fall")]
            if following.predecessors != [block.index] or following.index in graph.loops or not joins(following):
                break
            cfg.join_blocks(graph, block, following)
            changed = True
    return cfg.redirected(graph, {}) if changed else graph


def _joined_copied_endings(graph: cfg.Graph) -> cfg.Graph:
    """Python copies the code that ends an except clause and then the function (POP_EXCEPT,
    `return None`) onto each way that reaches it: the clause's end and the end of a try inside
    it. Blocks that do so with the same code under the same handlers do the same thing wherever
    they are: one block, reached from every way, is where those ways meet in the source.
    (Values they expect on the stack must still agree: the structurer checks that where it
    enters the block.)"""
    endings = []
    with_endings: dict[int, list[int]] = {}
    for block in graph.blocks:
        ways = [k for _, k in block.successors if k != "exception"]
        returns = block.last.opname in ("RETURN_VALUE", "RETURN_CONST") and not ways
        # (3.12+ copies a clause's end that jumps on too: onto a for loop's break and its end)
        jumps = block.last.opname in cfg.UNCONDITIONAL and ways == ["jump"]
        if block.index not in graph.reachable or not (returns or jumps or ways == ["fall"]):
            continue
        real = [i for i in block.instructions if i.opname not in cfg.NO_EFFECT]
        if not real:
            continue
        # other returns are copied too, but there the source has copies as well
        # (`return a if b else c`); a value computed before is returned where it was
        if real[0].opname == "POP_EXCEPT" and not cfg.takes_from_stack(real[1:]) and (returns or jumps):
            endings.append(block.index)
        elif (
            (returns or ways == ["fall"])
            and exit_call_block(block)
            and real[0].opname == "LOAD_CONST"
            and not cfg.takes_from_stack(real[real.index(next(i for i in real if i.opname in ("CALL", "CALL_FUNCTION"))) + 2 :])
        ):
            # 3.10 copies a with's end (__exit__, then the code after the with up to its
            # return or on to where it goes) onto a break out of a loop in it, and onto each
            # side of an if that ends it: one place, as with the clause's end (the same
            # with's: another with's end is another place)
            entered = _entered_with(graph, block.index)
            if entered is not None:
                with_endings.setdefault(entered, []).append(block.index)
    replace: dict[int, int] = {}
    for group in [endings, *with_endings.values()]:
        _send_to_first_same(graph, group, replace)
    return cfg.redirected(graph, replace) if replace else graph


def _entered_with(graph: cfg.Graph, index: int) -> int | None:
    """The nearest block above block `index` (a dominator) that enters a with."""
    while index in graph.dominators and graph.dominators[index] != index:
        index = graph.dominators[index]
        if graph.blocks[index].last.opname in ("SETUP_WITH", "BEFORE_WITH", "SETUP_ASYNC_WITH", "BEFORE_ASYNC_WITH"):
            return index
    return None


def _send_to_first_same(graph: cfg.Graph, indexes: list[int], replace: dict[int, int]) -> None:
    """Each block of `indexes` (not already in `replace`) with the same code under the same
    handlers as an earlier one goes, in `replace`, to the first of them."""
    first: dict[Any, int] = {}
    for index in indexes:
        if index in replace:
            continue
        block = graph.blocks[index]
        # (3.13 jumps back with JUMP_BACKWARD on one copy, JUMP_BACKWARD_NO_INTERRUPT on another)
        code = tuple(
            ("JUMP", argument) if name in cfg.UNCONDITIONAL else (name, argument) for name, argument in code_shape(block.instructions)
        )
        key = (code, tuple(sorted(s for s, k in block.successors)))
        if key in first:
            replace[index] = first[key]
        else:
            first[key] = index


def _without_block_pops(graph: cfg.Graph) -> cfg.Graph:
    """3.10 ends a try's or with's range with POP_BLOCK, in a block of its own where the range
    ends on a way that goes on elsewhere: it cannot raise and changes no value, so the ways into
    it go straight on to where it goes."""
    replace: dict[int, int] = {}
    for block in graph.blocks:
        real = [i.opname for i in block.instructions if i.opname not in cfg.NO_EFFECT]
        following = [s for s, k in block.successors if k != "exception"]
        if real == ["POP_BLOCK"] and len(following) == 1 and following[0] != block.index and block.index != 0:
            replace[block.index] = following[0]
    for source in list(replace):  # through chains of them
        for _ in range(len(replace)):
            if replace[source] not in replace:
                break
            replace[source] = replace[replace[source]]
    return cfg.redirected(graph, replace) if replace else graph


def _copies_after_exits_joined(graph: cfg.Graph) -> cfg.Graph:
    """3.12+ copies the code after a loop (`return x`) onto a `break` out of a with in it,
    after the with's __exit__(None, None, None), in one block. Where the code after the call is
    the same as a block that only returns (under the same handlers) where the loop's other ways
    out go, the call's block is cut after the call and goes on there: the break, and the code
    after the loop, each once."""
    returning: dict[Any, list[int]] = {}
    for block in graph.blocks:
        if block.index in graph.reachable and _returns_alone(block):
            returning.setdefault((code_shape(block.instructions), cfg.handlers(block)), []).append(block.index)
    if not returning:
        return graph
    replace: dict[int, int] = {}
    for block in list(graph.blocks):
        if block.index not in graph.reachable or block.last.opname not in ("RETURN_VALUE", "RETURN_CONST"):
            continue
        calls = [at for at, i in enumerate(block.instructions) if i.opname in ("CALL", "CALL_FUNCTION")]
        cut = calls[-1] + 2 if calls else 0
        if not cut or cut >= len(block.instructions) or block.instructions[cut - 1].opname != "POP_TOP":
            continue
        head = cfg.Block(index=block.index, start=block.start, instructions=block.instructions[:cut])
        rest = cfg.Block(
            index=block.index, start=block.instructions[cut].offset, instructions=block.instructions[cut:], successors=block.successors
        )
        if not exit_call_block(head) or not _returns_alone(rest):
            continue
        # the code after the loop the break leaves: where the loop's other ways out go
        loops = [body for body in graph.loops.values() if set(block.predecessors) & body]
        if not loops:
            continue
        body = min(loops, key=len)
        ways_out = {cfg.through_jumps(graph, s) for b in body for s, k in graph.blocks[b].successors if k != "exception" and s not in body}
        originals = [
            o for o in returning.get((code_shape(rest.instructions), cfg.handlers(block)), []) if o != block.index and o in ways_out
        ]
        if len(originals) == 1:
            replace[cfg.split(graph, block, cut)] = originals[0]
    return cfg.redirected(graph, replace) if replace else graph


def _returns_alone(block: cfg.Block) -> bool:
    """A block that returns, takes nothing from the stack, and jumps nowhere."""
    real = [i for i in block.instructions if i.opname not in cfg.NO_EFFECT]
    return (
        bool(real)
        and real[-1].opname in ("RETURN_VALUE", "RETURN_CONST")
        and not any(cfg.is_jump(i) for i in real)
        and all(k == "exception" for _, k in block.successors)
        and not cfg.takes_from_stack(block.instructions)
    )


def _joined_copied_exits(graph: cfg.Graph) -> cfg.Graph:
    """3.12+ copies the short code after a try (`n = 0; return None`) onto each of the try
    body's ways out. Copies that end the function with the same code, take nothing from the
    stack and leave the same try's body (blocks its handler protects reach them) are the one
    place after the try in the source: every way goes to the first."""
    protected_by: dict[int, set[int]] = {}
    for block in graph.blocks:
        for successor, kind in block.successors:
            if kind == "exception":
                protected_by.setdefault(successor, set()).add(block.index)
    replace: dict[int, int] = {}
    for body in protected_by.values():
        exits = sorted({s for b in body for s, k in graph.blocks[b].successors if k != "exception" and s not in body})
        _send_to_first_same(graph, [e for e in exits if e not in replace and _returns_alone(graph.blocks[e])], replace)
    return cfg.redirected(graph, replace) if replace else graph


def _unrepeated_for_loops(graph: cfg.Graph) -> cfg.Graph:
    """A for loop whose body never goes round (it always returns, raises or breaks) has no back
    edge, so nothing cut its FOR_ITER from the code before it: cut it, as every loop's header
    is. (It is a loop of its header alone, left on every way from its body.)"""
    changed = False
    for block in list(graph.blocks):
        real = [i for i, instruction in enumerate(block.instructions) if instruction.opname not in cfg.NO_EFFECT]
        if block.index in graph.reachable and block.last.opname == "FOR_ITER" and len(real) > 1:
            cfg.split(graph, block, real[-1])
            changed = True
    return cfg.redirected(graph, {}) if changed else graph


def _implicit_handler(block: cfg.Block) -> bool:
    """A handler Python adds that is not the user's `try`: a generator's StopIteration guard
    (3.12+), and an inlined comprehension's cleanup, which puts its saved variables back before
    re-raising (3.12+: the comprehension's own scope does that in the source)."""
    real = [i for i in block.instructions if i.opname not in cfg.NO_EFFECT]
    if real[:1] and (real[0].opname, real[0].argrepr) == ("CALL_INTRINSIC_1", "INTRINSIC_STOPITERATION_ERROR"):
        return True
    return len(real) > 1 and real[-1].opname == "RERAISE" and all(i.opname in ("SWAP", "POP_TOP", "STORE_FAST") for i in real[:-1])


def _without_repeated_conditions(graph: cfg.Graph) -> cfg.Graph:
    """`while c:` tests c before the loop and again at its end (3.10+), where the test ends the
    loop body's last block. Where a block ends with exactly the code of an earlier block that
    only tests a condition, branching to the same places, running that block instead is exactly
    the same: the later block is cut before its copy and continues into the first test. So a
    `continue` (a jump to the first test) and the loop's back edge form one loop, as written.
    Merging only part of a test of several blocks (`while (a if c else b)`) can make a cycle
    that is no loop (entered in two places): then the graph is kept as it was."""
    original = _copied(graph)
    merges = 0
    for _ in range(len(graph.blocks)):  # a merge can make two more tests alike: until none is
        merged = _merge_repeated_conditions(graph)
        if merged is None:
            break
        graph, merges = merged, merges + 1
    # (Python's own graphs have no such cycle: cfg_check asserts it; only a merge can make one)
    return graph if merges == 0 or cfg.reducible(graph) else cfg.redirected(original, {})


def _copied(graph: cfg.Graph) -> cfg.Graph:
    blocks = [
        cfg.Block(
            index=b.index,
            start=b.start,
            instructions=list(b.instructions),
            end=b.end,
            successors=list(b.successors),
            predecessors=list(b.predecessors),
        )
        for b in graph.blocks
    ]
    return cfg.Graph(
        code=graph.code, blocks=blocks, dominators=dict(graph.dominators), loops={h: set(body) for h, body in graph.loops.items()}
    )


def _merge_repeated_conditions(graph: cfg.Graph) -> cfg.Graph | None:
    """One pass: the first pair of conditional blocks that end with the same test (same code,
    same ways out) share one block for it; the graph analysed again, or None if no pair."""
    shapes = {b.index: _test_shape(b, graph) for b in graph.blocks}
    for later in graph.blocks:
        shape = shapes[later.index]
        if shape is None:
            continue
        for earlier in graph.blocks[: later.index]:
            other = shapes[earlier.index]
            if other is None or other[1] != shape[1]:
                continue
            length = _common_suffix(other[0], shape[0])
            while length > 0:
                cut_early = _instruction_index(earlier, len(other[0]) - length)
                cut_late = _instruction_index(later, len(shape[0]) - length)
                # the test reads no value from before it; whether both ways reach it with the
                # same values on the stack is checked where the structurer enters it
                if _stack_depth(earlier.instructions[cut_early:]) is not None:
                    break
                length -= 1
            if length == 0:
                continue
            test = cfg.split(graph, earlier, cut_early) if cut_early else earlier.index
            if cut_late == 0:
                return cfg.redirected(graph, {later.index: test})
            later.instructions = later.instructions[:cut_late]
            later.end = later.instructions[-1].offset + 2
            later.successors = [(test, "fall"), *[(s, k) for s, k in later.successors if k == "exception"]]
            return cfg.redirected(graph, {})
    return None


def _common_suffix(first: tuple[Any, ...], second: tuple[Any, ...]) -> int:
    length = 0
    while length < min(len(first), len(second)) and first[-1 - length] == second[-1 - length]:
        length += 1
    return length


def _test_shape(block: cfg.Block, graph: cfg.Graph) -> tuple[tuple[Any, ...], tuple[Any, ...]] | None:
    if block.index not in graph.reachable or block.last.opname not in CONDITIONAL:
        return None
    taken_when, kind = CONDITIONAL[block.last.opname]
    fall = next((s for s, k in block.successors if k == "fall"), None)
    jump = next((s for s, k in block.successors if k == "jump"), None)
    if fall is None or jump is None or kind == "kept":
        return None
    when_true, when_false = (jump, fall) if taken_when else (fall, jump)
    when_true, when_false = (same_ending(graph, cfg.through_jumps(graph, side)) for side in (when_true, when_false))
    body = code_shape(block.instructions[:-1])
    exceptions = tuple(sorted(s for s, k in block.successors if k == "exception"))
    return body, (kind, when_true, when_false, exceptions)


def same_ending(graph: cfg.Graph, index: int, locals_too: bool = False) -> Any:
    """A block, or, where it only returns a constant (`return None`, which 3.10+ copies to each
    way out of a loop) or with `locals_too` a local, what it does: copies of it are the same
    place."""
    block = graph.blocks[index]
    real = [i for i in block.instructions if i.opname not in cfg.NO_EFFECT]
    loads = ("LOAD_CONST", "LOAD_FAST") if locals_too else ("LOAD_CONST",)
    if (
        len(real) <= 2
        and real
        and real[-1].opname in ("RETURN_VALUE", "RETURN_CONST")
        and all(i.opname in (*loads, "RETURN_VALUE", "RETURN_CONST") for i in real)
    ):
        return code_shape(real)
    return index


def _instruction_index(block: cfg.Block, counted: int) -> int:
    """The index in the block of its `counted`-th instruction that does something."""
    seen = 0
    for index, instruction in enumerate(block.instructions):
        if instruction.opname in cfg.NO_EFFECT:
            continue
        if seen == counted:
            return index
        seen += 1
    return len(block.instructions)


def _stack_depth(instructions: list[dis.Instruction]) -> int | None:
    """The stack depth after `instructions` run from an empty stack; None if it is not known."""
    depth = 0
    for instruction in instructions:
        try:
            depth += dis.stack_effect(instruction.opcode, instruction.arg if instruction.opcode >= dis.HAVE_ARGUMENT else None, jump=False)
        except ValueError:
            return None
        if depth < 0:
            return None
    return depth


# Instructions that cannot raise (POP_TOP may run a __del__, whose exceptions Python never
# raises): moving them into a try changes nothing.
CANNOT_RAISE = frozenset(
    {
        "NOP",
        "CACHE",
        "EXTENDED_ARG",
        "SWAP",
        "COPY",
        "POP_TOP",
        "ROT_TWO",
        "ROT_THREE",
        "ROT_FOUR",
        "DUP_TOP",
        "POP_EXCEPT",
        "POP_BLOCK",
        "LOAD_CONST",
        "RETURN_VALUE",
        "RETURN_CONST",
    }
)


def _cannot_raise(instructions: list[dis.Instruction]) -> bool:
    """Only stack moves, the end of an except clause (and its `e = None; del e`), constants
    and returns."""
    real = without_name_cleanup([i for i in instructions if i.opname not in cfg.NO_EFFECT])
    return bool(real) and all(i.opname in CANNOT_RAISE for i in real)


def without_name_cleanup(real: list[dis.Instruction]) -> list[dis.Instruction]:
    """The instructions without the `e = None; del e` by which `except E as e` unbinds e just
    after its POP_EXCEPT."""
    for at in range(1, len(real)):
        if real[at - 1].opname == "POP_EXCEPT" and name_cleanup(real[at : at + 3]):
            return real[:at] + real[at + 3 :]
    return real


@dataclass
class Normalized:
    """The graph once every pass has run, and what two of them found on the way."""

    graph: cfg.Graph
    finallys: dict[int, finally_copies.Finally] = field(default_factory=dict)  # handler block -> its finally
    suppressed: dict[int, int] = field(default_factory=dict)  # see _with_suppression_targets


class Pass(NamedTuple):
    name: str  # what it does, in a few words (the stage dump shows it)
    run: Callable[[cfg.Graph, Normalized], cfg.Graph]


def _plain(transform: Callable[[cfg.Graph], cfg.Graph]) -> Callable[[cfg.Graph, Normalized], cfg.Graph]:
    return lambda graph, _facts: transform(graph)


def _finally_copies_taken_out(graph: cfg.Graph, facts: Normalized) -> cfg.Graph:
    graph, facts.finallys = finally_copies.without_copies(graph)
    return graph


def _suppression_targets_found(graph: cfg.Graph, facts: Normalized) -> cfg.Graph:
    graph, facts.suppressed = _with_suppression_targets(graph)
    return graph


# In the order they run: a later pass relies on what the earlier ones did (the finally copies are
# found only once the send loops are gone; the copied endings are joined only once the exit calls
# and returns are).
PASSES: tuple[Pass, ...] = (
    Pass("implicit handlers dropped", _plain(_without_implicit_handlers)),
    Pass("empty loop starts dropped", _plain(_without_empty_loop_starts)),
    Pass("chained comparisons joined", _plain(chained_comparisons)),
    Pass("send loops dropped", _plain(_without_send_loops)),
    Pass("async for loops read as for loops", _plain(async_for_loops)),
    Pass("async with awaits dropped", _plain(async_with_awaits_dropped)),
    Pass("finally copies taken out", _finally_copies_taken_out),
    Pass("with exit calls joined", _plain(_joined_exit_calls)),
    Pass("copies after exits joined", _plain(_copies_after_exits_joined)),
    Pass("returns joined", _plain(_joined_returns)),
    Pass("copied endings joined", _plain(_joined_copied_endings)),
    Pass("copied exits joined", _plain(_joined_copied_exits)),
    Pass("repeated conditions merged", _plain(_without_repeated_conditions)),
    Pass("block pops dropped", _plain(_without_block_pops)),
    Pass("for loops unrepeated", _plain(_unrepeated_for_loops)),
    Pass("with suppression targets found", _suppression_targets_found),
)


def normalize(code: CodeType, stop_after: str | None = None, seen: Callable[[str, cfg.Graph], None] | None = None) -> Normalized:
    """The graph of `code` with every pass run (up to `stop_after`, a pass's name, where given);
    `seen(name, graph)` is told each pass's result (the stage dump)."""
    facts = Normalized(cfg.build(code))
    if seen is not None:
        seen("cfg", facts.graph)
    for step in PASSES:
        facts.graph = step.run(facts.graph, facts)
        if seen is not None:
            seen(step.name, facts.graph)
        if step.name == stop_after:
            break
    return facts
