"""The Structurer's part for loops: for and while (natural loops of the graph).

Reaching the header again is `continue`; a way out that jumps past the loop is `break`; the code
between the loop's end and a break's target is its `else`. A for loop keeps its iterator on the
stack below the body's values, so the values below it (`base`) are followed through the body.
"""

from __future__ import annotations

import ast
import dis
from typing import Any, cast

import compilescope.decompiler.cfg as cfg
from compilescope.decompiler.async_for import is_async_for
from compilescope.decompiler.expressions import name_cleanup
from compilescope.decompiler.finally_copies import NO_END
from compilescope.decompiler.normalize import (
    EXIT,
    exit_call_block,
)
from compilescope.decompiler.structuring import NOWHERE, Loop, StructurerParts, stack_key
from compilescope.decompiler.values import (
    LOOP_DONE,
    NEXT_ITEM,
    LoopIterator,
    Unsupported,
)
from compilescope.decompiler.versions import HANDLER_ENTRY_DEPTH, ITERATOR_KEPT_AFTER_LOOP


class Loops(StructurerParts):
    """for and while loops, with break, continue and else."""

    def _unrepeated_body(self, header: cfg.Block) -> set[int]:
        """The body of a for loop that never goes round: the header, and the blocks only its
        body reaches, but for its ways out (returns, raises, and breaks: jumps out of them),
        as they would be if it went round."""
        start = next(s for s, k in header.successors if k == "fall")
        inside = {b for b in self.graph.reachable if self.graph.dominates(start, b)}
        body = {header.index}
        for index in inside:
            block = self.graph.blocks[index]
            ways = [s for s, k in block.successors if k != "exception"]
            if ways and not (block.last.opname in cfg.UNCONDITIONAL and ways[0] not in inside):
                body.add(index)
        return body

    def _for_loop(
        self, header: int, iterable: ast.expr, outer: Loop | None, base: list[Any], kept: int = 0
    ) -> tuple[list[ast.stmt], int, list[Any]]:
        """A for loop at `header`; `base` ends with the `kept` values the code before the loop
        left below its iterator (they are there after it too)."""
        block = self.graph.blocks[header]
        if [i.opname for i in block.instructions if i.opname not in ("EXTENDED_ARG", "NOP")] != ["FOR_ITER"]:
            raise Unsupported(block.instructions[0], "a loop header that is not FOR_ITER alone")
        body_start = next(s for s, k in block.successors if k == "fall")
        exhausted = next(s for s, k in block.successors if k == "jump")
        body = self.graph.loops[header]
        # A `break` runs its own block (outside the natural loop: it never returns to the header),
        # which pops the iterator and jumps to the code after the loop, past any `else`.
        leaving = (
            {s for b in body for s, k in self.graph.blocks[b].successors if k != "exception" and s not in body} - {exhausted} - self._chains
        )
        afters = set()
        after_loop = self._forward(exhausted, header)
        for index in leaving:
            last = self.graph.blocks[index].last
            if last.opname in cfg.TERMINATORS or self._only_ends(index, body | after_loop, body) and not self._pops_below(index, block):
                continue  # a return or raise inside the loop (`return a or b`: in a few blocks)
            falls = [s for s, k in self.graph.blocks[index].successors if k == "fall"]
            if self._returns_through_exits(index, falls):
                self._exits_returning.add(falls[0])
                continue  # (a return from inside a with around the loop, its own: never a break)
            while (
                len(falls) == 1
                and falls[0] not in body
                and not cfg.is_jump(last)
                and last.opname not in cfg.TERMINATORS
                and not self._pops_iterator(index, block)
            ):
                # a break out of an except clause (3.11+): the clause's code, then its end and
                # the break in a block of their own (its range ends before them)
                index = falls[0]
                last = self.graph.blocks[index].last
                falls = [s for s, k in self.graph.blocks[index].successors if k == "fall"]
            if last.opname in cfg.TERMINATORS or self._only_ends(index, body | after_loop, body) and not self._pops_below(index, block):
                continue
            if self._pops_iterator(index, block) and len(falls) == 1 and falls[0] not in body:
                afters.add(falls[0])  # a break that pops the iterator and falls into where it goes (3.12+)
                continue
            if not (cfg.is_jump(last) and last.opname in cfg.UNCONDITIONAL):
                # a side of an `if` that never goes round again: it breaks or returns or
                # raises, in blocks of its own (`if c: (if d: raise E); break`)
                found = self._breaks_beyond(index, body, block)
                if found is None:
                    raise Unsupported(last, "a way out of a loop that is not a break, return or raise")
                afters |= found
                continue
            target = next(s for s, k in self.graph.blocks[index].successors if k == "jump")
            through = self._depths_through(self.graph.blocks[target]) if target not in body else None
            height = self._depth_at(block.last.offset)
            if through is not None and height is not None and through[0] > height:
                # a jump to code that still has values above the iterator (a match's case body
                # after an or-pattern, where it pops what the pattern kept): its breaks go on
                found = self._breaks_beyond(target, body, block)
                if found is None:
                    raise Unsupported(last, "a way out of a loop that is not a break, return or raise")
                afters |= found
                continue
            afters.add(target)
        if len(afters) > 1:
            raise Unsupported(block.last, "a loop left for more than one place")
        after = afters.pop() if afters else None
        known = self._entry.get(after) if after is not None and kept else None
        if known is not None and len(known) >= kept and all(stack_key(a) == stack_key(b) for a, b in zip(known, base[-kept:])):
            # a way into the code after the loop from outside it (an if's other side) found the
            # values the loop keeps below its iterator on the stack; the loop's ways out find
            # them below (the region after the loop puts them back: see region)
            self._entry[cast(int, after)] = known[kept:]  # (known: after is not None)
        loop = Loop(header, body, after)
        inner = [*base, LoopIterator(iterable)]
        self._open_loops.append(header)
        try:
            statements = self.region(body_start, header, loop, inner, [NEXT_ITEM])
        finally:
            self._open_loops.pop()
        item_target = self._targets.get(header)
        if item_target is None:
            raise Unsupported(block.last, "the loop's item is not stored in a name")
        while statements and isinstance(statements[-1], ast.Continue):
            statements.pop()
        # What FOR_ITER leaves for the code after the loop: 3.12+ keeps the iterator (and a
        # value) for END_FOR to pop; 3.10/3.11 pop it themselves.
        # (an async for's END_ASYNC_FOR pops the iterator on every version)
        is_async = is_async_for(block)
        leftover = [LoopIterator(iterable), LOOP_DONE] if ITERATOR_KEPT_AFTER_LOOP and not is_async else []
        orelse: list[ast.stmt] = []
        following, extra = exhausted, leftover
        if after is not None:  # a `break` goes past the code that runs when the loop ends: `else:`
            orelse = self.region(exhausted, after, outer, base, leftover)
            following, extra = after, []
        kind = ast.AsyncFor if is_async else ast.For
        statement = kind(target=item_target, iter=iterable, body=statements or [ast.Pass()], orelse=orelse, type_comment=None, lineno=0)
        return [statement], following, extra

    def _returns_from_inside(self, exits: set[int], body: set[int]) -> set[int]:
        """The blocks of `exits` that return or raise from inside a for loop in the loop `body`
        (`while True: for x in xs: return x`): they pop its iterator on the way, so they end
        the function there, and are never the code after the outer loop."""
        inner = [self.graph.blocks[h] for h in body if h in self.graph.loops and self.graph.blocks[h].last.opname == "FOR_ITER"]
        found = set()
        for index in exits:
            block = self.graph.blocks[index]
            depth = self._depth_at(block.instructions[0].offset)
            if block.last.opname not in cfg.TERMINATORS or depth is None:
                continue
            for loop in inner:
                iterator = self._depth_at(loop.last.offset)  # (the iterator on top)
                if iterator is not None and depth >= iterator and self.graph.dominates(loop.index, index):
                    found.add(index)
        return found

    def _returns_through_exits(self, index: int, falls: list[int]) -> bool:
        """Whether block `index`, on a way out of a for loop, only pops (its iterator; 3.10: a
        with's block too) and falls into the __exit__ calls of withs around the loop, which
        return: a `return` from inside them."""
        names = {i.opname for i in self.graph.blocks[index].instructions if i.opname not in cfg.NO_EFFECT}
        if len(falls) != 1 or not names or not names <= {"POP_TOP", "POP_BLOCK"}:
            return False
        following = self.graph.blocks[falls[0]]
        return exit_call_block(following) and following.last.opname in ("RETURN_VALUE", "RETURN_CONST")

    def _ends_after_exit_calls(self, index: int, on: int) -> bool:
        """Whether block `index`, a with's __exit__ call on the way out of a loop, goes on into
        a block `on` that only returns a constant (`break` out of the with, then the `return`
        after the loop, which Python shares with a `return` of the same constant)."""
        names = [i.opname for i in self.graph.blocks[on].instructions if i.opname not in cfg.NO_EFFECT]
        return on != index and names in (["LOAD_CONST", "RETURN_VALUE"], ["RETURN_CONST"])

    def _pops_below(self, index: int, header: cfg.Block) -> bool:
        """Whether block `index` pops the for loop's iterator (at `header`) and goes on without
        returning: a break, even where the code after the loop only returns (an except clause
        around the loop still has to end there first)."""
        block = self.graph.blocks[index]
        height = self._depth_at(header.last.offset)
        through = self._depths_through(block)
        if block.last.opname in cfg.TERMINATORS or height is None or through is None:
            return False
        return through[0] >= height > through[1]

    def _depths_through(self, block: cfg.Block) -> tuple[int, int] | None:
        """The stack's depth where `block` starts, and the lowest it goes inside it or just
        after it (falling out of it); None where a depth is not known."""
        depths = [self._depth_at(i.offset) for i in block.instructions]
        if any(d is None for d in depths):
            return None
        known = cast("list[int]", depths)  # (none is None: see above)
        last = block.last
        effect = dis.stack_effect(last.opcode, last.arg if last.opcode >= dis.HAVE_ARGUMENT else None, jump=False)
        return known[0], min([*known[1:], known[-1] + effect])

    def _breaks_beyond(self, index: int, body: set[int], header: cfg.Block) -> set[int] | None:
        """Where the code that leaves a for loop's `body` at block `index` goes on after the
        loop: the targets of its breaks, found by the stack (a break is the block that pops the
        loop's iterator; code after the loop has it gone); none where every way returns or
        raises. None where a way is neither, or a depth is not known."""
        height = self._depth_at(header.last.offset)  # the iterator on top
        if height is None:
            return None

        def ways(i):
            return [s for s, k in self.graph.blocks[i].successors if k != "exception"]

        todo = [index] if index not in body else [s for s in ways(index) if s not in body]
        afters: set[int] = set()
        seen: set[int] = set()
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            block = self.graph.blocks[current]
            through = self._depths_through(block)
            if through is None or current in body or current in self._open_loops:
                return None
            if through[0] < height:
                afters.add(current)  # reached with the iterator gone: the code after the loop
                continue
            if block.last.opname in cfg.TERMINATORS:
                continue
            if through[1] < height:
                afters.update(ways(current))  # a break: it pops the iterator, then goes on
                continue
            todo += ways(current)
        return afters

    def _clause_exits(self, body: set[int], header: int) -> set[int]:
        """Where the except clauses of the trys in a loop's `body` go on when they leave it (a
        `break` in a clause that never goes round again: its blocks are outside the natural
        loop, which only reaches them through exceptions). A clause ends where the stack is
        back at the depth of its try (POP_EXCEPT dropped the exception state): what it reaches
        there, past a jump or the unbinding of `except E as e`'s name, is a way out."""
        entry = HANDLER_ENTRY_DEPTH  # what a handler's start finds above its try's stack

        def ways(i):
            return [s for s, k in self.graph.blocks[i].successors if k != "exception"]

        exits: set[int] = set()
        around = self._protectors(header)  # (the clauses of a try around the loop are not its own)
        for handler in {
            s
            for b in body
            for s, k in self.graph.blocks[b].successors
            if k == "exception" and s in self._handlers and s not in body and s not in around
        }:
            depth = self._depth_at(self.graph.blocks[handler].instructions[0].offset)
            if depth is None or handler in self._finallys or self._is_with_handler(handler):
                continue
            floor = depth - entry
            seen: set[int] = set()
            todo = [handler]
            while todo:
                current = todo.pop()
                if current in seen or current in body:
                    continue
                seen.add(current)
                block = self.graph.blocks[current]
                start = self._depth_at(block.instructions[0].offset)
                if start is None:
                    return set()
                if start <= floor:
                    real = [i for i in block.instructions if i.opname not in cfg.NO_EFFECT]
                    if (
                        name_cleanup(real)
                        and len(real) == 4
                        and real[-1].opname in cfg.UNCONDITIONAL
                        or len(real) == 1
                        and real[0].opname in cfg.UNCONDITIONAL
                    ):
                        exits.update(ways(current))  # past the jump (and the name's unbinding)
                    else:
                        exits.add(current)
                    continue
                if block.last.opname in cfg.TERMINATORS:
                    continue
                todo += ways(current)
                # (a try inside the clause: its clauses are the clause's code too)
                todo += [s for s, k in block.successors if k == "exception" and s in self._handlers]
        return exits

    def _while_loop(self, header: int, outer: Loop | None, base: list[Any]) -> tuple[list[ast.stmt], int]:
        """A loop that is not a for loop: `while True:` around its blocks, reaching the header
        again is `continue` and leaving it `break`; tidy writes `while c:` where the condition is
        tested first or last (3.11+ tests it before the loop and again at its end)."""
        block = self.graph.blocks[header]
        held = self._entry.get(header) or []
        if block.last.opname == "FOR_ITER" or any(isinstance(v, ast.expr) for v in held):
            raise Unsupported(block.instructions[0], "a loop entered with values on the stack")
        # markers (an except clause's or finally's exception state, a with's __exit__) stay
        # below the loop throughout
        base = [*base, *held]
        self._entry[header] = []
        body = self.graph.loops[header]
        exits = {s for b in body for s, k in self.graph.blocks[b].successors if k != "exception" and s not in body} - self._chains
        # and the ways out of except clauses that never go round again (outside the natural loop)
        exits |= self._clause_exits(body, header)
        exits -= self._returns_from_inside(exits, body)
        # (a break out of a with calls its __exit__ on the way, one out of a try's body runs the
        # rest of the body first: where they go is the way out, where another way out goes too)
        around = self._protectors(header)  # (trys and withs the whole loop is in)
        past = {e: self._past_exit_calls(e, body, around) for e in exits}
        exits = {on if on in exits or self._ends_after_exit_calls(e, on) else e for e, on in past.items()}
        trys = {h for b in body for h in self._protectors(b)} - around
        exits = {self._past_try_bodies(e, trys) for e in exits}
        after = None
        if exits:
            after = _common_post_dominator(exits, self.post_dominators)
        if exits and after is None:
            # 3.10+ copies a short ending (`return x`) to each way out of a loop: the copies end
            # the function where they are, so the loop's own exit is the one that continues
            ending = {e for e in exits if self.graph.blocks[e].last.opname in cfg.TERMINATORS}
            natural = {s for s, k in block.successors if k != "exception" and s in exits}
            if len(exits - ending) > 1 and len(natural) == 1:  # `raise E(x if c else y)` in a few blocks
                after_loop = body | self._forward(next(iter(natural)), header)
                # (not breaks to one place: that is the code after the loop, where it returns)
                others = exits - ending - natural
                shared = {b for e in others for o in others - {e} for b in self._forward(e) & self._forward(o)}
                ending |= {e for e in others if self._only_ends(e, after_loop | shared, set())}
            rest = exits - ending
            # a finally's code that goes on to its end re-raises there (its copies are out of the
            # graph): it leaves the loop only by raising, as a `continue` inside it may not
            rest -= {
                e
                for e in rest
                if any(f.end != NO_END and self.graph.dominates(h, e) for h, f in self._finallys.items())
                and self._only_ends(e, body, set())
            }
            # a way out past an enclosing finally (not protected by it) cannot be inside the
            # loop, in its try: it is the code after the loop, where the others return or raise
            past_finally = {e for e in exits if any(h not in self._protectors(e) for h in self._finally_bodies)}
            if len(past_finally) == 1 and all(e in ending or self._only_ends(e, body | past_finally, set()) for e in exits - past_finally):
                after = past_finally.pop()
            elif len(rest) == 1:
                after = rest.pop()
            elif len(rest) > 1 and _common_post_dominator(rest, self.post_dominators) in rest:
                after = _common_post_dominator(rest, self.post_dominators)  # a break to the loop's end
            elif not rest and len(natural) == 1:
                after = natural.pop()
            elif not rest and not natural:
                # every way out returns or raises (3.10+ copies `return x` after the loop onto a
                # break). Out of a try with a finally, the one that returns must be a break: the
                # finally ran before it (its copy is out of the graph), `return x` would read x first
                returning = [e for e in ending if self.graph.blocks[e].last.opname in ("RETURN_VALUE", "RETURN_CONST")]
                if len(returning) == 1 and any(self._protected(h) & body for h in self._finallys):
                    after = returning[0]
            else:
                # breaks that all jump to one place, which the loop's other ways out reach too
                # where they do not raise or return on their own (an `else:` that may raise;
                # `if c: raise E` reached from two tests): after the loop
                breaks = {e for e in rest if self.graph.blocks[e].last.opname in cfg.UNCONDITIONAL}
                targets = {
                    cfg.through_jumps(self.graph, next(s for s, k in self.graph.blocks[e].successors if k == "jump")) for e in breaks
                }
                target = next(iter(targets)) if len(targets) == 1 else None
                if not breaks:
                    # no break jumps: the loop's last test falls into the code after it (`else:
                    # ...; break`), the others return or raise on their own. Any of them could
                    # be written after the loop; the one whose code comes last was.
                    ends = [e for e in rest if all(self._only_ends(o, body | self._forward(e), set()) for o in rest - {e})]
                    target = max(ends, key=lambda e: max(self.graph.blocks[b].start for b in self._forward(e)), default=None)
                if target is None or not all(
                    target in self._forward(e, header) or self._only_ends(e, body | self._forward(target), set())
                    for e in rest - breaks - {target}
                ):
                    raise Unsupported(block.instructions[0], "a loop left for several places that never meet")
                after = target
        inner_finallys = {h for b in body for h in self._protectors(b) if h in self._finallys} - around
        if after is not None and self._protectors(after) & inner_finallys:
            # a way out of the loop from inside a try/finally in it (a `return v`, whose value is
            # read there, the finally's copy out of the graph): it is no break to after the loop.
            # Where it only returns (or raises), the loop has no way on: it is written in the try
            # (not where such a finally has a way out of its own, POP_EXCEPT then a `break`, say:
            # its handler is not in the loop's body, so the loop's ways out here are not all)
            leaves_finally = any(
                i.opname == "POP_EXCEPT"
                for h in inner_finallys
                for b in self.graph.reachable
                if self.graph.dominates(h, b) and not cfg.is_cleanup(self.graph.blocks[b])
                for i in self.graph.blocks[b].instructions
            )
            if not (len(exits) == 1 and not leaves_finally and self._only_ends(after, body, set())):
                raise Unsupported(block.instructions[0], "a return out of a try/finally inside a loop, read before its finally")
            after = None
        loop = Loop(header, body, after, kind="while")
        self._open_loops.append(header)
        self._held_below.append((after, held))
        try:
            statements = self.region(header, NOWHERE, loop, base, entering=True)
        finally:
            self._open_loops.pop()
            self._held_below.pop()
        while statements and isinstance(statements[-1], ast.Continue):
            statements.pop()
        entry = self._entry.get(after, []) if after is not None else []
        if after is not None and held and not (len(entry) >= len(held) and all(a is b for a, b in zip(entry, held))):
            self._entry[after] = [*held, *entry]  # what stayed below the loop is there after it too
        return [ast.While(test=ast.Constant(value=True), body=statements or [ast.Pass()], orelse=[])], (
            after if after is not None else EXIT
        )


def _common_post_dominator(nodes: set[int], post_dominators: dict[int, int]) -> int | None:
    """The first block every one of `nodes` leads to (one of them, or where their paths meet)."""

    def chain(node: int) -> list[int]:
        seen = [node]
        while node in post_dominators and post_dominators[node] != node:
            node = post_dominators[node]
            seen.append(node)
        return seen

    chains = [chain(n) for n in sorted(nodes)]
    for candidate in chains[0]:
        if candidate != EXIT and all(candidate in c for c in chains[1:]):
            return candidate
    return None
