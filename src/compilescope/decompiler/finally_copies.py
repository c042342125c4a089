"""Python writes a `finally:` block more than once: in its handler (run when the try body raises)
and, again, on every other way out of the body: where it ends, before each `return`, `break`
and `continue` inside it. The source has it once.

This finds those copies in the control-flow graph and takes them out: each way out of the body
goes straight to what followed its copy (the `return`, the jump, the code after the try). The
handler is left as the one `finally:` block, which the structurer writes after the body. A copy
is matched instruction by instruction (and branch by branch) against the handler's code, so a
way out that does not run exactly the finally is never taken for one; a handler whose ways out
are not all matched is left untouched, and the structurer refuses it.
"""

from __future__ import annotations

import dis
import functools
from dataclasses import dataclass
from types import CodeType
from typing import Any, cast

import compilescope.decompiler.cfg as cfg
from compilescope.decompiler.versions import EXCEPTION_TABLE

_IGNORED = cfg.NO_EFFECT
# The same code, compiled where a name is known to be bound (the copies) or not (the handler).
_SAME_AS = {"LOAD_FAST_CHECK": "LOAD_FAST"}
_OPPOSITE = {
    a: b for x, y in (("POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE"), ("POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE")) for a, b in ((x, y), (y, x))
}


@dataclass
class Finally:
    handler: int  # the handler's block: its code, after PUSH_EXC_INFO (3.11+), is the finally
    skip: int  # instructions at the handler's start that are not the finally's (PUSH_EXC_INFO)
    end: int  # one block holding just the RERAISE where the finally's code ends (NO_END: none)
    # where the finally never ends (each way through it returns, breaks or continues): the
    # copies, which the try body's ways out still go into; writing the body stops there
    copies: frozenset[int] = frozenset()
    # of those, the copies the body enters with the value of its `return v` on the stack, which
    # the finally's own return drops: the body's way out there is `return v`
    returning: frozenset[int] = frozenset()


NO_END = -2  # (structuring.NOWHERE: the region of a finally that never ends stops nowhere)


def without_copies(graph: cfg.Graph) -> tuple[cfg.Graph, dict[int, Finally]]:
    """The graph with the copies of each finally taken out, and the finallys so read, by
    handler block."""
    found: dict[int, Finally] = {}
    # A finally inside a finally is written in the outer one's handler and in each of its
    # copies: the outer one's copies match its handler once the inner one's copies are out of
    # both, so handlers left unmatched are tried again while any is matched.
    waiting = sorted(_finally_handlers(graph))
    while waiting:
        left = []
        for handler in waiting:
            if handler not in graph.reachable:
                continue
            read = _take_out_copies(graph, handler)
            if read is None:
                left.append(handler)
                continue
            graph = cfg.redirected(graph, {})
            found[handler] = read
        if len(left) == len(waiting):
            break
        waiting = left
    return graph, found


def _real(block: cfg.Block) -> list[dis.Instruction]:
    return [i for i in block.instructions if i.opname not in _IGNORED]


def _finally_handlers(graph: cfg.Graph) -> set[int]:
    targets = {s for b in graph.blocks for s, k in b.successors if k == "exception"}
    return {index for index in targets if is_finally(graph, index)}


def is_finally(graph: cfg.Graph, index: int) -> bool:
    """Whether the handler at block `index` is a finally: not an `except` (3.11+: PUSH_EXC_INFO
    then a test of the exception, or POP_TOP for a bare `except:`; 3.10: DUP_TOP, or POP_TOPs),
    not a with's (WITH_EXCEPT_START), not Python's own cleanup around a handler."""
    real = [i.opname for i in _real(graph.blocks[index])]
    if real == ["PUSH_EXC_INFO"]:  # a try inside the finally starts at once: its first code
        instruction, _ = _next_real(graph, index, len(graph.blocks[index].instructions))
        real += [instruction.opname] if instruction is not None else []
    if EXCEPTION_TABLE:
        if (
            real[:1] != ["PUSH_EXC_INFO"]
            or len(real) < 2
            or real[1] in ("POP_TOP", "WITH_EXCEPT_START")
            or {"CHECK_EXC_MATCH", "CHECK_EG_MATCH"} & set(real)
        ):
            return False
    elif not real or real[0] in ("DUP_TOP", "WITH_EXCEPT_START") or real[:2] == ["POP_TOP", "POP_TOP"] or _ends_clause(real):
        return False
    return not cfg.is_cleanup(graph.blocks[index])


def _ends_clause(names: list[str]) -> bool:
    """3.10: whether code ends an except clause (POP_EXCEPT), other than where a `return`,
    `break` or `continue` inside a finally drops the exception it was running for (_DROPS)."""
    for at, name in enumerate(names):
        if name == "POP_EXCEPT" and not any(
            names[:at][-len(drop) + 1 :] == drop[:-1] for drop in (_DROPS[(False, False)], _DROPS[(False, True)])
        ):
            return True
    return False


def _protected(graph: cfg.Graph, handler: int) -> set[int]:
    """The blocks the handler's try holds: those whose exceptions reach it, directly or through
    the handlers (and their cleanups) of trys nested inside it."""
    reaching: dict[int, bool] = {}

    def reaches(index: int, seen: frozenset[int]) -> bool:
        if index in reaching:
            return reaching[index]
        result = False
        for successor, kind in graph.blocks[index].successors:
            if kind == "exception" and (successor == handler or successor not in seen and reaches(successor, seen | {successor})):
                result = True
                break
        reaching[index] = result
        return result

    return {b.index for b in graph.blocks if b.index in graph.reachable and b.index != handler and reaches(b.index, frozenset({b.index}))}


def _take_out_copies(graph: cfg.Graph, handler: int) -> Finally | None:
    block = graph.blocks[handler]
    skip = 1 if EXCEPTION_TABLE else 0
    real = [n for n, i in enumerate(block.instructions) if i.opname not in _IGNORED]
    protected = _protected(graph, handler)
    handler_code = {b for b in graph.reachable if graph.dominates(handler, b)}
    exits = [
        (p, n, s)
        for p in sorted(protected - handler_code)
        for n, (s, k) in enumerate(graph.blocks[p].successors)
        if k != "exception" and s not in protected and not cfg.only_nops_into(graph, s, protected)
    ]
    if not exits or not real:
        return None
    # (the finally's code starts in the next block where a try inside it starts at once)
    first = real[skip] if len(real) > skip else len(block.instructions)
    start = (handler, first)
    # where each way out goes once its copy has run: (block, instruction index)
    continuations: dict[tuple[int, int], dis.Instruction] = {}
    ends: list[dis.Instruction] = []
    # what re-raises out of the finally (its cleanup, 3.11+): a RERAISE there is the finally's
    # end; any other is a try's inside the finally, the same in the copy
    cleanup = {s for s, k in block.successors if k == "exception"}
    inner_handlers = {s for b in handler_code for s, k in graph.blocks[b].successors if k == "exception" and s in handler_code} - cleanup
    copies: set[int] = set()
    returning: set[int] = set()
    for source, _, target in exits:
        if (target, 0) in continuations or target in copies:
            continue
        # the handlers around the whole try protect the copy too (and the finally's cleanup):
        # they are not the copy's own
        around = {s for s, k in graph.blocks[source].successors if k == "exception"} | {handler} | cleanup
        around |= {s for c in cleanup for s, k in graph.blocks[c].successors if k == "exception"}
        pending = _finds_return_value(graph, handler, handler_code, target)
        matched, after = _match(graph, start, (target, 0), ends, _Nested(cleanup, handler_code, around, inner_handlers, pending))
        if not matched:
            return None
        if after is None:
            copies.add(target)  # the copy never ends: the way out is the whole finally
            if pending:
                returning.add(target)
        else:
            continuations[(target, 0)] = after
    if copies:
        # a finally that never ends (a `return`, `break` or `continue` on each way through
        # it): each copy is left whole, the body written up to it. Only where every copy is
        # one and the body leaves nothing on the stack for it, but for the value of a `return`
        # in the body, which the copy's returns drop (then the body's way out is that return)
        if continuations or ends or not _nothing_pending(graph, handler, copies - returning):
            return None
        return Finally(handler=handler, skip=(first if skip else 0), end=NO_END, copies=frozenset(copies), returning=frozenset(returning))
    # the finally's ends (its RERAISEs) become one block, so the finally is the region up to it
    end = _one_end(graph, ends)
    # cut each copy's continuation into a block of its own, and send the way out there
    new_target = {
        target: cfg.through_jumps(graph, _block_starting(graph, instruction)) for (target, _), instruction in continuations.items()
    }
    for target, on in new_target.items():
        if on in protected:
            # (3.11+: `while True:` starts with a NOP outside the try, which the jump back
            # goes to: the way out goes there, round the loop, not into the try)
            header = [p for p in graph.blocks[on].predecessors if p not in protected and not _real(graph.blocks[p])]
            if len(header) == 1 and cfg.through_jumps(graph, header[0], nops=True) == on and header[0] in graph.loops:
                new_target[target] = header[0]
    if any(target in protected for target in new_target.values()):
        # a way out that goes on back into the try: the try is a loop's body, its start the
        # loop's (`while True: try: ... finally: ...`); taken out, the copy would leave a loop
        # inside the try, its finally run once instead of each time round
        return None
    # ways out that go on with the same code to a return (3.10 copies `return x` after each
    # copy of the finally) go on to one of them: in the source they are the code after the try
    same: dict[Any, int] = {}
    depths: dict[int, int] | None = None
    for target, instruction in ((t, i) for (t, _), i in continuations.items()):
        ending = _ending(graph, instruction)
        block = graph.blocks[new_target[target]]
        if ending is None or _ending(graph, block.instructions[0]) != ending:
            continue
        # (code that takes from the stack only where it returns out of an except clause around
        # the try, `ROT_FOUR; POP_EXCEPT` in 3.10, at the same depth in each copy: what is
        # below may differ anywhere else, a with's __exit__ say)
        below: int | None = None
        if cfg.takes_from_stack(block.instructions):
            moves = {name for name, _ in ending if not name.startswith("LOAD_") and name not in cfg.TERMINATORS}
            if "POP_EXCEPT" not in moves or not moves <= {"ROT_TWO", "ROT_FOUR", "SWAP", "POP_EXCEPT", "POP_TOP"}:
                continue
            depths = depths if depths is not None else cfg.stack_depths(graph.code)
            below = depths.get(block.instructions[0].offset)
            if below is None:
                continue
        new_target[target] = same.setdefault((tuple(ending), cfg.handlers(graph.blocks[new_target[target]]), below), new_target[target])
    for source, position, target in exits:
        successor, kind = graph.blocks[source].successors[position]
        graph.blocks[source].successors[position] = (new_target[target], kind)
    return Finally(handler=handler, skip=(first if skip else 0), end=end)


@dataclass
class _Nested:
    """How to tell the handlers of a try inside the finally (matched, the handler's against the
    copy's) from the finally's own cleanup and the handlers around the whole try."""

    cleanup: set[int]  # the finally's cleanup (3.11+): a RERAISE under it ends the finally
    handler_code: set[int]  # the blocks of the finally's handler
    around: set[int]  # what protects the way out the copy is on
    inner_handlers: set[int]  # the handlers of trys inside the finally (in the handler's code)
    pending: bool = False  # the copy finds the body's `return v` value on the stack (_PENDING)


def _match(
    graph: cfg.Graph, handler_at: tuple[int, int], copy_at: tuple[int, int], ends: list[dis.Instruction], nested: _Nested
) -> tuple[bool, dis.Instruction | None]:
    """Walk the handler's code and the copy together, from their starts, along every branch
    (and into the handlers of a try inside the finally, the handler's and the copy's side by
    side). Where the handler re-raises (the finally's end), the copy goes on with its own code:
    that place, which must be the same on every branch. (False, None) if they differ
    anywhere; (True, None) where the finally never ends."""
    continuation: dis.Instruction | None = None
    todo = [(handler_at, copy_at)]
    seen = set()
    while todo:
        pair = todo.pop()
        if pair in seen:
            continue
        seen.add(pair)
        (h_block, h_at), (c_block, c_at) = pair
        h_ins, h_next = _next_real(graph, h_block, h_at)
        c_ins, c_next = _next_real(graph, c_block, c_at)
        if h_ins is None:
            return False, None
        if h_next == c_next:
            continue  # both jumped on to the same code (a `break` out of the finally): one way
        h_inner = {
            s for s, k in graph.blocks[h_next[0]].successors if k == "exception" and s in nested.handler_code and s not in nested.cleanup
        }
        # (not the cleanup around an except clause inside the finally: it re-raises that one;
        # 3.10 has none: there a re-raise inside a nested handler's code is the finally's end
        # only once the clause has ended, with POP_EXCEPT)
        ends_here = h_ins.opname == "RERAISE" and not h_inner and not cfg.is_cleanup(graph.blocks[h_next[0]])
        if ends_here and not EXCEPTION_TABLE:
            ends_here = _clause_ended(graph, h_next, nested.inner_handlers)
        if not ends_here:
            c_inner = (
                {s for s, k in graph.blocks[c_next[0]].successors if k == "exception" and s not in nested.around}
                if c_ins is not None
                else set()
            )
            if len(h_inner) > 1 or len(h_inner) != len(c_inner):
                return False, None
            todo += [((h, 0), (c, 0)) for h, c in zip(h_inner, c_inner)]
        if h_ins.opname == "RERAISE" and not ends_here:  # a try's inside the finally
            if c_ins is None or c_ins.opname != "RERAISE" or not _same_argument(h_ins, c_ins):
                return False, None
            continue
        if ends_here:  # the finally ends here: the copy's own code goes on
            ends.append(h_ins)
            if c_ins is None:
                return False, None
            if continuation is not None and continuation is not c_ins:
                # Python may copy a short ending (`return x`) into each branch of the copy
                first, other = _ending(graph, continuation), _ending(graph, c_ins)
                if first is None or first != other:
                    return False, None
            continuation = continuation or c_ins
            continue
        dropped = None
        if c_ins is not None and _drops_exception(graph, c_next) is None:  # (where both drop one, it is the finally's own code)
            # (from under a return's value, whatever the copy does next: inside a loop, the
            # iterator below is popped after the drop, `SWAP 2; POP_TOP`, in the copy too)
            dropped = _drops_exception(graph, h_next) or _drops_exception(graph, h_next, under_value=True)
        if dropped is not None:
            # a `return`, `break` or `continue` inside the finally: its handler first drops the
            # exception it was running for (and the exception state); the copies have none.
            # A copy run for the body's `return v` drops v instead, from under the finally's
            # return value (_PENDING), where it found one more value than the try did; before
            # a `return <constant>`, `break` or `continue` inside the finally, at once
            pending = None
            if nested.pending:
                under_value = _drops_exception(graph, h_next) is None
                pending = _drops(graph, c_next, _PENDING[EXCEPTION_TABLE] if under_value else ["POP_TOP"])
                if pending is None:
                    return False, None
            todo.append((dropped, pending or c_next))
            continue
        if c_ins is not None and _OPPOSITE.get(h_ins.opname) == c_ins.opname:
            # the same test, its ways swapped (3.12+ lays the copy out the other way round)
            h_succ, c_succ = _edges(graph, h_next[0]), _edges(graph, c_next[0])
            if set(h_succ) != {"fall", "jump"} or set(c_succ) != {"fall", "jump"}:
                return False, None
            todo += [((h_succ["fall"], 0), (c_succ["jump"], 0)), ((h_succ["jump"], 0), (c_succ["fall"], 0))]
            continue
        if c_ins is not None and _SAME_AS.get(h_ins.opname, h_ins.opname) != _SAME_AS.get(c_ins.opname, c_ins.opname):
            # 3.13 joins two loads (or stores) into one instruction in one copy but not in
            # the other (the handler's first load is checked): the same code, in parts
            paired = _paired(graph, h_next, c_next)
            if paired is None:
                return False, None
            todo.append(paired)
            continue
        if c_ins is None:
            return False, None
        if cfg.is_jump(h_ins) or h_ins.opname in cfg.TERMINATORS:
            if h_ins.opname in cfg.TERMINATORS:
                if h_ins.argval != c_ins.argval:
                    return False, None
                continue  # a `return` in the finally: the copy returns too (rare; same code)
            h_succ = _edges(graph, h_next[0])
            c_succ = _edges(graph, c_next[0])
            if set(h_succ) != set(c_succ):
                return False, None
            todo += [((h_succ[k], 0), (c_succ[k], 0)) for k in h_succ]
            continue
        # (3.10: where a try inside the finally starts, its handler is the handler's or the
        # copy's own, paired above where the protected code starts)
        if h_ins.opname not in cfg.SETUP_HANDLER and not _same_argument(h_ins, c_ins):
            return False, None
        todo.append((_after(h_next), _after(c_next)))
    return True, continuation


# How a handler drops the exception it runs for (and then its state) before a way out of a
# finally; `under_value`: from under the value a `return` inside it returns
_DROPS = {
    (False, False): ["POP_TOP", "POP_TOP", "POP_TOP", "POP_EXCEPT"],
    (True, False): ["POP_TOP", "POP_EXCEPT"],
    (False, True): ["ROT_FOUR", "POP_TOP", "POP_TOP", "POP_TOP", "ROT_FOUR", "POP_EXCEPT"],
    (True, True): ["SWAP", "POP_TOP", "SWAP", "POP_EXCEPT"],
}


# How a copy run for the body's `return v` drops v from under the finally's own return value
_PENDING = {False: ["ROT_TWO", "POP_TOP"], True: ["SWAP", "POP_TOP"]}


def _nothing_pending(graph: cfg.Graph, handler: int, copies: set[int]) -> bool:
    """Whether each copy starts with the stack as the try found it (the handler's exception
    state aside): nothing the body computed waits there for a way out the finally drops."""
    return all(_above_try(graph, handler, c) == 0 for c in copies)


def _finds_return_value(graph: cfg.Graph, handler: int, handler_code: set[int], copy: int) -> bool:
    """Whether the copy starts with one value more than the try found: the value of the body's
    `return v`, which Python computes before the finally runs."""
    if not any(i.opname == "POP_EXCEPT" for b in handler_code for i in graph.blocks[b].instructions):
        return False  # (no way out of the finally, which drops its exception first: nothing drops it either)
    return _above_try(graph, handler, copy) == 1


def _above_try(graph: cfg.Graph, handler: int, copy: int) -> int | None:
    """How many values more than the try found are on the stack where the copy starts."""
    depths = _stack_depths(graph.code)
    at_handler = depths.get(graph.blocks[handler].instructions[0].offset)
    at_copy = depths.get(graph.blocks[copy].instructions[0].offset)
    if at_handler is None or at_copy is None:
        return None
    at_try = at_handler - (1 if EXCEPTION_TABLE else 6)  # (the exception; 3.10: it and the one before, 3 values each)
    return at_copy - at_try


@functools.lru_cache(maxsize=4)
def _stack_depths(code: CodeType) -> dict[int, int]:
    return cfg.stack_depths(code)  # (asked for each way out of each finally of the code)


def _drops_exception(graph: cfg.Graph, place: tuple[int, int], under_value: bool = False) -> tuple[int, int] | None:
    """Where the handler's code at `place` drops the exception and then its state (see _DROPS),
    the place just past that; None where it does not."""
    return _drops(graph, place, _DROPS[(EXCEPTION_TABLE, under_value)])


def _drops(graph: cfg.Graph, place: tuple[int, int], names: list[str]) -> tuple[int, int] | None:
    """The place just past the instructions `names` (each SWAP a `SWAP 2`) from `place`; None
    where the code there is not those."""
    for name in names:
        instruction, at = _next_real(graph, *place)
        if instruction is None or instruction.opname != name or name == "SWAP" and instruction.arg != 2:
            return None
        place = _after(at)
    return place


# 3.13's superinstructions, as the two they do
_PARTS = {
    "LOAD_FAST_LOAD_FAST": ("LOAD_FAST", "LOAD_FAST"),
    "STORE_FAST_STORE_FAST": ("STORE_FAST", "STORE_FAST"),
    "STORE_FAST_LOAD_FAST": ("STORE_FAST", "LOAD_FAST"),
}


def _parts(instruction: dis.Instruction) -> list[tuple[str, Any]] | None:
    """What an instruction does, as plain loads and stores; None for any other."""
    name = _SAME_AS.get(instruction.opname, instruction.opname)
    if name in _PARTS and isinstance(instruction.argval, tuple) and len(instruction.argval) == 2:
        return list(zip(_PARTS[name], instruction.argval))
    if name in ("LOAD_FAST", "STORE_FAST"):
        return [(name, instruction.argval)]
    return None


def _paired(graph: cfg.Graph, handler_at: tuple[int, int], copy_at: tuple[int, int]) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """From two places whose instructions differ: the places just past them where both did
    the same loads and stores, one side in a superinstruction, the other in two (the next in
    its block); None where they do not."""
    places = [handler_at, copy_at]
    done = [_parts(graph.blocks[index].instructions[at]) for index, at in places]
    if done[0] is None or done[1] is None:
        return None
    if len(done[0]) != len(done[1]):
        shorter = 0 if len(done[0]) < len(done[1]) else 1
        index, at = places[shorter]
        following = _parts(graph.blocks[index].instructions[at + 1]) if at + 1 < len(graph.blocks[index].instructions) else None
        if following is None:
            return None
        done[shorter] = cast("list[tuple[str, Any]]", done[shorter]) + following  # (not None: checked above)
        places[shorter] = (index, at + 1)
    if done[0] != done[1]:
        return None
    return _after(places[0]), _after(places[1])


def _clause_ended(graph: cfg.Graph, place: tuple[int, int], handlers: set[int]) -> bool:
    """3.10: whether code at `place` is outside the handlers of trys inside the finally, or
    after the POP_EXCEPT that ends one's clause (on the way from the handler, which dominates
    it)."""
    index, at = place
    inside = [h for h in handlers if graph.dominates(h, index)]
    if not inside:
        return True
    handler = max(inside, key=lambda h: sum(graph.dominates(o, h) for o in inside))  # the innermost
    for _ in range(len(graph.blocks)):
        if any(i.opname == "POP_EXCEPT" for i in graph.blocks[index].instructions[:at]):
            return True
        if index == handler:
            return False
        index = graph.dominators[index]
        at = len(graph.blocks[index].instructions)
    return False


def _ending(graph: cfg.Graph, instruction: dis.Instruction) -> list[tuple[str, str]] | None:
    """The straight code from `instruction` to a return or raise, or None if it branches first."""
    for block in graph.blocks:
        if any(held is instruction for held in block.instructions):
            break
    else:
        return None
    at = next(n for n, held in enumerate(block.instructions) if held is instruction)
    code = []
    for _ in range(len(graph.blocks)):
        for held in block.instructions[at:]:
            if held.opname in _IGNORED:
                continue
            if cfg.is_jump(held):
                return None
            code.append((held.opname, repr(held.argval)))
            if held.opname in cfg.TERMINATORS:
                return code
        following = next((s for s, k in block.successors if k == "fall"), None)
        if following is None:
            return None
        block, at = graph.blocks[following], 0
    return None


def _next_real(graph: cfg.Graph, index: int, at: int) -> tuple[dis.Instruction | None, tuple[int, int]]:
    """The next instruction that does something from (block, index), falling into the next
    block where one ends and following jumps that always jump; and where it is."""
    for _ in range(len(graph.blocks) + 1):
        instructions = graph.blocks[index].instructions
        while at < len(instructions) and instructions[at].opname in _IGNORED:
            at += 1
        if at < len(instructions) and instructions[at].opname not in cfg.UNCONDITIONAL:
            return instructions[at], (index, at)
        # the end of a block, or a jump: where the code is laid out, not what it does
        following = next((s for s, k in graph.blocks[index].successors if k == ("fall" if at >= len(instructions) else "jump")), None)
        if following is None:
            return None, (index, at)
        index, at = following, 0
    return None, (index, at)


def _after(place: tuple[int, int]) -> tuple[int, int]:
    return place[0], place[1] + 1


def _edges(graph: cfg.Graph, index: int) -> dict[str, int]:
    return {k: s for s, k in graph.blocks[index].successors if k != "exception"}


def _same_argument(first: dis.Instruction, second: dis.Instruction) -> bool:
    a, b = first.argval, second.argval
    if type(a) is not type(b):
        return False
    try:
        return bool(a == b) or a is b
    except Exception:
        return a is b


def _one_end(graph: cfg.Graph, ends: list[dis.Instruction]) -> int:
    """One block that only re-raises, where every end of the finally goes."""
    first, *rest = dict.fromkeys(_block_starting(graph, end) for end in ends)
    for other in rest:
        for block in graph.blocks:
            block.successors = [(first if s == other else s, k) for s, k in block.successors]
    return first


def _block_starting(graph: cfg.Graph, instruction: dis.Instruction) -> int:
    """The block that starts with `instruction` (where the instructions before it do nothing),
    cutting the block that holds it in two if need be."""
    for block in graph.blocks:
        for at, held in enumerate(block.instructions):
            if held is instruction:
                if all(i.opname in _IGNORED for i in block.instructions[:at]):
                    return block.index
                return cfg.split(graph, block, at)
    raise ValueError(f"no block holds {instruction.opname} at offset {instruction.offset}")
