"""The decompiler's third layer: the normalized control-flow graph -> structured statements.

Found from the graph, never from instruction patterns:
- if / elif / else: a branch's two sides meet again at the branch block's immediate
  post-dominator (or, where a side returns, raises or goes round a loop again, at the first
  block the sides that go on both reach); conditions joined by `and`, `or` and `not`;
- for and while loops: natural loops; reaching the header again is `continue`, a way out that
  jumps past the loop is `break`, and the code between the loop's end and the break's target
  is its `else`;
- try / except / else / finally and with: the blocks a handler protects are the body, its
  except chain the clauses; a finally's copies on the body's ways out are taken out first
  (finally_copies.py), and so are the pieces Python cuts a way out into (normalize.py);
- values that flow across blocks (`x = a or b`, `a if c else b`), comprehensions, class bodies
  (their own code objects, like nested functions);
- chained comparisons: a link is recognised by its instructions (the compare keeps its right
  operand: SWAP 2, COPY 2; 3.10 DUP_TOP, ROT_THREE), and joined only where the graph agrees:
  its false way drops the operand and then does what the chain's own false way does.
- match statements: where a case starts (its subject on the stack), patterns.py reads its
  pattern by running its code on symbols; the guard is a condition whose other way is where the
  pattern goes when it does not match, and the bodies meet where the code after the match is.
Code past a finally is never written inside its try. The parts, each a mixin of Structurer:
handlers.py (try/with/finally), matches.py (match), loops.py (for, while); what they share
(the state, declared with what each field holds, and the graph queries): structuring.py.
What it does not read (some shapes of nested handlers and loops) raises Unsupported,
naming the instruction: it never guesses.
"""

from __future__ import annotations

import ast
import copy
import dis
from collections.abc import Callable, Collection
from types import CodeType
from typing import Any

import compilescope.decompiler.cfg as cfg
import compilescope.decompiler.patterns as patterns
from compilescope.decompiler.cfg import CONDITIONAL
from compilescope.decompiler.comprehensions import inlined_comprehension
from compilescope.decompiler.expressions import BlockReader, empty_display
from compilescope.decompiler.handlers import Handlers
from compilescope.decompiler.loops import Loops
from compilescope.decompiler.matches import COPY_OPCODES, MATCH_OPCODES, Matches, value_case_at
from compilescope.decompiler.normalize import (
    EXIT,
    normalize,
    same_ending,
)
from compilescope.decompiler.structuring import NOWHERE, Condition, Loop, leaves, stack_key
from compilescope.decompiler.tidy import negate, put_back_values
from compilescope.decompiler.values import (
    ChainLeft,
    LoopIterator,
    NestedBodies,
    Saved,
    Temporaries,
    Unsupported,
)


class Structurer(Handlers, Matches, Loops):
    """The graph -> statements. The parts: Handlers (handlers.py), Matches (matches.py), Loops
    (loops.py); their shared state and graph queries: StructurerParts (structuring.py). Here:
    reading a block's instructions, conditions (and, or, not, a if c else b), and regions."""

    def __init__(self, code: CodeType, nested: NestedBodies) -> None:
        self.code = code
        self.nested = nested  # how nested functions, classes, comprehensions and lambdas are built
        if code.co_flags & _CO_ITERABLE_COROUTINE:  # (types.coroutine sets it at run time: no source makes it)
            raise Unsupported(None, "iterable coroutines are not decompiled")
        normalized = normalize(code)  # the graph made regular: normalize.PASSES, in order
        self.graph, self._finallys, self._suppressed = normalized.graph, normalized.finallys, normalized.suppressed
        for block in self.graph.blocks:
            if block.index in self.graph.reachable and block.last.opname == "FOR_ITER" and block.index not in self.graph.loops:
                self.graph.loops[block.index] = self._unrepeated_body(block)  # see _unrepeated_for_loops
        self._handlers = self._user_handlers()
        self._chains = self._except_chain_blocks()
        self._open_trys: set[int] = set()
        self._finally_bodies: list[int] = []  # the finally handlers whose try bodies are being written
        self._held_below: list[tuple[int | None, list[Any]]] = []  # while loops being written: (after, values below)
        self._handler_blocks: dict[int, set[int]] = {}
        self._current = 0  # the block being read (its values may go on to its only successor)
        self._skip: dict[int, int] = {}  # block -> instructions at its start already written (a finally's copy)
        self._protector_cache: dict[int, set[int]] = {}
        self._protected_cache: dict[int, set[int]] = {}
        self.post_dominators = _immediate_post_dominators(self.graph)
        self._targets: dict[int, ast.expr] = {}  # loop header -> what its item is stored in
        self.temps = Temporaries(code)
        self._open_loops: list[int] = []  # headers of the loops being written, outermost first
        self._exits_returning: set[int] = set()  # withs' __exit__ calls a bare return out of a for loop goes through
        # block -> the values it finds on the stack above the enclosing loops' iterators: the
        # temporaries its predecessors left them in (or the markers of a loop's item and end)
        self._entry: dict[int, list[Any]] = {}
        self._not_pure: set[tuple[Any, ...]] = set()  # blocks read and found no pure condition (see _pure_condition)
        self._depths: dict[int, int] | None = None  # stack depth before each instruction (cfg.stack_depths), when needed
        # a match statement is read where its subject is (patterns.py): only code with a
        # class, sequence or mapping pattern, or a copy compared with a value, looks for one
        opcodes = code.co_code[::2]
        self._has_match = not MATCH_OPCODES.isdisjoint(opcodes) or (
            not COPY_OPCODES.isdisjoint(opcodes)
            and any(value_case_at(block.instructions, index) for block in self.graph.blocks for index in range(len(block.instructions)))
        )
        self._match_starts: dict[tuple[int, int], tuple[bool, patterns.CaseRead | None]] = {}
        self._first_replaced: dict[int, dis.Instruction] = {}
        self._cases: dict[
            patterns.Position, patterns.CaseRead | Unsupported
        ] = {}  # see _read_case  # block -> its first instruction as read (see _region_from)

    def _reader(self, index: int, base: list[Any]) -> BlockReader:
        # (an empty display still being built is each block's own: it adds to it in place)
        entry = [copy.deepcopy(v) if empty_display(v) else v for v in self._entry.get(index, [])]
        reader = BlockReader(self.code, self.nested, base + entry, self.temps)
        # 3.10 cuts the block after POP_EXCEPT: the `e = None; del e` after it starts the next
        predecessors = self.graph.blocks[index].predecessors
        if predecessors and all(self.graph.blocks[p].last.opname == "POP_EXCEPT" for p in predecessors):
            reader._skip_name_cleanup = True
        return reader

    def _enter(self, index: int, values: list[Any], instruction: dis.Instruction | None) -> None:
        for after, held in reversed(self._held_below):
            if index == after:  # out of a while loop: what stayed below it is there after it
                values = [*held, *values]
                break
        known = self._entry.setdefault(index, values)
        if len(known) != len(values) or any(stack_key(a) != stack_key(b) for a, b in zip(known, values)):
            raise Unsupported(instruction, "a block reached with different values on the stack")

    def _names_for(self, index: int, count: int | None = None) -> list[str] | None:
        """The names the values passed to block `index` go in, when a block reaching it first
        chose them (the first `count` of them)."""
        known = self._entry.get(index)
        if known is None:
            return None
        names = [v.id for v in known if isinstance(v, ast.Name)]
        return names if count is None else names[:count]

    def _leave(self, reader: BlockReader, following: int, base: list[Any], instruction: dis.Instruction) -> None:
        """The block's values left for `following`, in the names it expects them in."""
        if following == EXIT:
            return
        if (
            self.graph.blocks[following].predecessors == [self._current]
            and following not in self._entry
            and len(reader.stack) >= len(base)
            and self._protectors(following) == self._protectors(self._current)
        ):
            # the only way into `following`: it goes on with the same values, as one straight
            # line (nothing runs between the two blocks), so they need no names
            self._entry[following] = reader.stack[len(base) :]
            return
        self._enter(following, reader.leave(len(base), instruction, self._names_for(following)), instruction)

    def _condition_of(self, index: int, reader: BlockReader, base: list[Any]) -> Condition:
        """The block's own condition, its statements already run by `reader`; the values it
        leaves on the stack are stored for both ways out."""
        block = self.graph.blocks[index]
        jump = block.last
        taken_when, kind = CONDITIONAL[jump.opname]
        fall = next((s for s, k in block.successors if k == "fall"), None)
        target = next((s for s, k in block.successors if k == "jump"), None)
        if fall is None or target is None:
            raise Unsupported(jump, "a branch without two ways out")
        if kind == "kept":  # the value goes on to `target`: test it where it is stored for it
            names = self._names_for(target)
            if names is None:
                # the values below this one go on to the fall too, where its other ways in may
                # have named them (`c[m and 'a' or 'b']`: m's test reaches 'b' with c kept)
                below = self._names_for(fall)
                names = [*below, self.temps.joined()] if below else None
            left = reader.leave(len(base), jump, names)
            value = left[-1]
            self._enter(target, left, jump)
            self._enter(fall, left[:-1], jump)
        elif kind == "none" and reader.stack and isinstance(reader.stack[-1], ChainLeft):  # `a is b is None`
            chain = reader.pop(jump).compare
            value = ast.Compare(left=chain.left, ops=[*chain.ops, ast.Is()], comparators=[*chain.comparators, ast.Constant(value=None)])
            kind = "chain"
            left = reader.leave(len(base), jump, self._names_for(target) or self._names_for(fall), tested=True)
            self._enter(target, left, jump)
            self._enter(fall, left, jump)
        else:
            value = reader.pop_value(jump)
            left = reader.leave(len(base), jump, self._names_for(target) or self._names_for(fall), tested=True)
            self._enter(target, left, jump)
            self._enter(fall, left, jump)
        test = ast.Compare(left=value, ops=[ast.Is()], comparators=[ast.Constant(value=None)]) if kind == "none" else value
        return Condition(test, target, fall) if taken_when else Condition(test, fall, target)

    def _pure_condition(self, index: int, only_from: Collection[int], base: list[Any]) -> Condition | None:
        """A block that only computes a condition, reached only from the blocks `only_from` (of
        one condition): part of an `and`/`or` (or a conditional expression) with it."""
        if not self._may_be_pure(index, only_from):
            return None
        block = self.graph.blocks[index]
        # (a block found not to be one is not read again, as long as it finds the same values)
        key = (index, len(base), tuple(stack_key(v) for v in self._entry.get(index, [])))
        if key in self._not_pure:
            return None
        reader = self._reader(index, base)
        saved = dict(self._entry)
        try:
            reader.run(block.instructions[:-1])
            if not reader.statements:
                condition = self._condition_of(index, reader, base)
                if not reader.statements:
                    return condition
        except Unsupported:
            pass
        self._entry = saved
        self._not_pure.add(key)
        return None

    def _may_be_pure(self, index: int, only_from: Collection[int]) -> bool:
        """What the graph says of a pure condition (see _pure_condition), before reading it: a
        block reached only from `only_from`, ending in a conditional jump."""
        if index < 0:
            return False
        block = self.graph.blocks[index]
        return bool(block.predecessors) and set(block.predecessors) <= set(only_from) and block.last.opname in CONDITIONAL

    def _join(self, index: int, first: Condition, base: list[Any], members: set[int] | None = None, ternaries: bool = True) -> Condition:
        """Absorb the blocks that continue this condition with `and` / `or`: a pure condition
        block on one side of this one whose other way out is shared with it; or, on both
        sides, conditions that go on to the same two places (`if (a if c else b):`).
        `members`, the blocks of the condition so far, gains those it absorbs. (A part of a
        condition is not searched for conditional expressions again: on long chains of tests
        that search grows with every level.)"""
        condition = first
        members = {index} if members is None else members
        while True:
            for side in ("when_true", "when_false"):
                saved = dict(self._entry)
                start = getattr(condition, side)
                following = self._pure_condition(start, members, base)
                own = {start}
                joined = following and _joined(condition, following, side)
                if following is not None and joined is None:
                    # with its own `and`/`or` first (`a or (b and c)`), or through jumps of its own
                    following = self._join(start, following, base, own, ternaries=False)
                    joined = _joined(condition, following, side) or _joined(condition, following, side, self._jumps_to_same)
                if joined is not None:
                    members |= own
                    condition = joined
                    break
                self._entry = saved  # not part of this condition: what reading it stored goes
            else:
                ternary = self._conditional_expression(condition, members, base) if ternaries else None
                if ternary is None:
                    return condition
                condition = ternary

    def _conditional_expression(self, condition: Condition, members: set[int], base: list[Any]) -> Condition | None:
        """`c`'s two sides as one condition `(a if c else b)`: each side a condition (with its
        own `and`/`or`) reached only from this one, both going on to the same two places.
        `members` gains their blocks."""
        if not all(self._may_be_pure(start, members) for start in (condition.when_true, condition.when_false)):
            return None  # (before reading either)
        saved = dict(self._entry)
        sides: list[Condition] = []
        blocks: set[int] = set()
        for start in (condition.when_true, condition.when_false):
            pure = self._pure_condition(start, members, base)
            if pure is None:
                self._entry = saved
                return None
            own = {start}
            sides.append(self._join(start, pure, base, own, ternaries=False))
            blocks |= own
        yes, no = sides

        def place(index):  # (past jumps; 3.10+ copies `return x`)
            return same_ending(self.graph, cfg.through_jumps(self.graph, index), locals_too=True)

        if (place(yes.when_true), place(yes.when_false)) == (place(no.when_true), place(no.when_false)):
            orelse = no.test
        elif (place(yes.when_true), place(yes.when_false)) == (place(no.when_false), place(no.when_true)):
            orelse = negate(no.test)  # (a truth value: only how it tests matters)
        else:
            self._entry = saved
            return None
        # Only where the sides share code that cannot be written twice: a block both reach
        # (one of them straight, or through the same jump). Where each side has its own
        # `break`, `continue` or copy of a return, `if c: (if a: X) elif b: X` is as exact,
        # and closer to what was written.
        pairs = (
            [(yes.when_true, no.when_true), (yes.when_false, no.when_false)]
            if orelse is no.test
            else [(yes.when_true, no.when_false), (yes.when_false, no.when_true)]
        )
        if not any(self._shared_code(first, second) for first, second in pairs):
            self._entry = saved
            return None
        members |= blocks
        ways = [cfg.through_jumps(self.graph, yes.when_true), cfg.through_jumps(self.graph, yes.when_false)]
        return Condition(ast.IfExp(test=condition.test, body=yes.test, orelse=orelse), *ways)

    def _jumps_to_same(self, first: int, second: int) -> int | None:
        """Where two blocks go, where one of them only jumps on to the other or both jump on
        to one place; None otherwise."""
        place = cfg.through_jumps(self.graph, first)
        if place != cfg.through_jumps(self.graph, second):
            return None
        # what the blocks passed over were to find on the stack, the place finds
        saved = dict(self._entry)
        try:
            for block in (first, second):
                if block != place and block in self._entry:
                    self._enter(place, self._entry[block], None)
        except Unsupported:
            self._entry = saved
            return None
        return place

    def _shared_code(self, first: int, second: int) -> bool:
        real = cfg.through_jumps(self.graph, first)
        return (
            real == cfg.through_jumps(self.graph, second) and (first == second or real in (first, second)) and real not in self.graph.loops
        )

    # ---- regions ---------------------------------------------------------------------------------
    def region(
        self,
        start: int,
        stop: int,
        loop: Loop | None = None,
        base: list[Any] | None = None,
        first: list[Any] | None = None,
        entering: bool = False,
    ) -> list[ast.stmt]:
        """The statements from block `start` up to block `stop`. Inside a loop, reaching its
        header is `continue` and reaching the block after it is `break`. `base` is what stays on
        the stack throughout (the iterators of enclosing for loops); `first` what the first block
        finds above it (the loop's next item)."""
        base = base or []
        statements: list[ast.stmt] = []
        node = start
        if first is not None:
            self._entry[start] = list(first)
        # entering: `start` is the header of `loop`, run as the loop's first block (not `continue`)
        visited: set[int] = set()
        while node not in (stop, EXIT):
            if loop is not None and node == loop.header and not entering:
                statements.append(ast.Continue())  # (`while True: pass` is one block, jumping to itself)
                break
            if node in visited:  # every way around is a loop, found above: never go in circles
                raise Unsupported(self.graph.blocks[node].instructions[0], "control flow that comes back here outside a loop")
            visited.add(node)
            entering = False
            if loop is not None and node == loop.after:
                statements.append(ast.Break())
                break
            if any(node in self._finallys[h].copies for h in self._finally_bodies if h in self._finallys):
                # the copy of a finally that never ends: written once, as the finally
                self._return_before_copy(node, statements)
                break
            self._check_inside_finallys(node)
            starting = self._protectors(node) - self._open_trys
            if starting:
                # the outermost try not yet open starts here: it holds the others
                outermost = max(starting, key=lambda h: len(self._protected(h)))
                try_statements, node = self._try(node, outermost, loop, base, stop)
                statements += try_statements
                if node == NOWHERE:
                    break
                continue
            block = self.graph.blocks[node]
            self._current = node
            for guard, kind in block.successors:
                # every handler protecting code written here is a try being written, or one of
                # Python's own cleanups: any other (a finally, a with we do not read) is refused
                if kind == "exception" and guard not in self._open_trys and not cfg.is_cleanup(self.graph.blocks[guard]):
                    raise Unsupported(block.instructions[0], "exception handling of a kind not decompiled yet (try/finally or with)")
            reader = self._reader(node, base)
            last = block.last
            if node in self._open_loops and not (loop is not None and loop.header == node):
                raise Unsupported(block.instructions[0], "a jump from an inner loop to the start of an outer one")
            if node in self.graph.loops and not (loop is not None and loop.header == node):
                loop_statements, node = self._while_loop(node, loop, base)
                statements += loop_statements
                continue
            skip = self._skip.get(node, 0)
            instructions = block.instructions[skip:]
            if node in self._first_replaced:
                instructions = [self._first_replaced[node], *instructions[1:]]
            match_at = self._match_start(node, skip) if self._has_match else None
            if match_at is not None:
                reader.run(instructions[: match_at - skip])
                self._note_target(reader, loop)
                match_statements, node = self._match(node, match_at, reader, loop, base, stop)
                statements += match_statements
                if node == NOWHERE:
                    break
                continue
            if last.opname in CONDITIONAL:
                reader.run(instructions[:-1])
                self._note_target(reader, loop)
                first_case = self._guard_first(node, reader, base) if self._has_match and len(reader.stack) == len(base) + 2 else None
                if first_case is not None:
                    match_statements, node = self._match(node, len(block.instructions) - 1, reader, loop, base, stop, first_case)
                    statements += match_statements
                    if node == NOWHERE:
                        break
                    continue
                condition = self._condition_of(node, reader, base)
                statements += reader.statements
                condition = self._join(node, condition, base)
                merge = self._merge(node, [condition.when_true, condition.when_false], loop, stop)
                then_body = self.region(condition.when_true, merge, loop, base)
                else_body = self.region(condition.when_false, merge, loop, base)
                statements += _if(condition.test, then_body, else_body)
                node = merge
                if node == NOWHERE:
                    break
                continue
            if cfg.is_jump(last):
                if last.opname not in cfg.UNCONDITIONAL:
                    raise Unsupported(last, "a conditional jump of a kind not decompiled yet")
                reader.run(instructions[:-1])
                self._note_target(reader, loop)
                node = next(s for s, k in block.successors if k == "jump")
                if loop is not None and node not in loop.body and reader.stack == base[:-1]:
                    statements += reader.statements  # a break: the loop's iterator is gone
                    if loop.kind == "for" and node != loop.after and node in self._loop_ends(loop):
                        statements.append(ast.Break())  # (to where the loop ends: it has no else)
                        break
                    self._entry.setdefault(node, [])
                    continue
                self._leave(reader, node, base, last)
                statements += reader.statements
                continue
            reader.run(instructions)
            self._note_target(reader, loop)
            if last.opname in cfg.TERMINATORS:
                statements += reader.statements
                node = EXIT
                continue
            node = next((s for s, k in block.successors if k == "fall"), EXIT)
            if (
                loop is not None
                and loop.kind == "for"
                and reader.stack == base[:-1]
                and (node == loop.after or node in self._loop_ends(loop))
            ):
                statements += reader.statements  # a break that falls where it goes: its iterator is gone
                if node != loop.after:  # where the loop ends (3.10, 3.11: no else, the iterator popped)
                    statements.append(ast.Break())
                    break
                self._entry.setdefault(node, [])
                continue
            kept_count = _kept_below(reader.stack, base) if loop is not None and node not in loop.body and node != loop.after else None
            if (
                kept_count is None
                and loop is not None
                and loop.kind == "for"
                and reader.stack == base[:-1]
                and node in self._exits_returning
            ):
                kept_count = len(reader.stack)  # a bare return out of the loop, through withs' __exit__ (loops.py)
            if kept_count is not None:
                # a return out of the loop (through a with's __exit__, or ending an except
                # clause): what stayed below the loop (its iterator, the clause's exception
                # state) is gone, the value goes on to code outside it, read with what is left
                statements += reader.statements
                statements += self.region(node, stop, None, base[:kept_count], first=reader.stack[kept_count:])
                break
            iterates = node in self.graph.loops and self.graph.blocks[node].last.opname == "FOR_ITER"
            if len(reader.stack) > len(base) and iterates and isinstance(reader.stack[-1], ast.expr):
                # FOR_ITER over a value that already is an iterator (a comprehension's `.0`):
                # iter() of an iterator is itself, so `for x in it` does the same
                reader.stack[-1] = LoopIterator(reader.stack[-1])
            if len(reader.stack) > len(base) and isinstance(reader.stack[-1], LoopIterator) and node in self.graph.loops:
                # values below the iterator stay on the stack through the loop: they go in
                # temporaries first (they were computed before the iterable)
                iterator = reader.stack.pop()
                kept = reader.leave(len(base), last, self._names_for(node, len(reader.stack) - len(base)))
                statements += reader.statements
                loop_statements, node, extra = self._for_loop(node, iterator.iterable, loop, base + kept, len(kept))
                if any(isinstance(v, Saved) for v in kept):  # 3.12+: an inlined comprehension
                    made = statements[-1] if statements else None
                    try:
                        statements[-1:] = inlined_comprehension(made, loop_statements)
                    except Unsupported:
                        # its element's values kept across blocks (`str(a or b)`): put back as
                        # in any body (tidy would, too late for this), then read again. What
                        # the loop's body computes is only ever read inside it.
                        put_back_values(loop_statements, self.code, self.temps, context=[made] if made is not None else [])
                        statements[-1:] = inlined_comprehension(made, loop_statements)
                else:
                    statements += loop_statements
                self._entry[node] = kept + extra
                continue
            self._leave(reader, node, base, last)
            statements += reader.statements
        return statements

    def _merge(self, node: int, sides: list[int], loop: Loop | None, stop: int) -> int:
        """Where the ways that part at block `node` (starting at blocks `sides`) meet again."""
        merge = self.post_dominators.get(node, EXIT)
        if merge == EXIT and loop is None:  # one side may return or raise: where the others meet
            merge = self._first_common(sides, loop)
            if merge == EXIT:  # a side that raises inside a try whose clause goes on
                merge = self._first_common(sides, loop, handled=self._handlers - self._protectors(node))
        if loop is not None and (merge not in loop.body or merge == loop.header):
            # a side that goes round again later (`if a: ...; if b: continue`) meets the
            # other where both go on in this turn of the loop; else (one side is the
            # `continue` itself, or both leave the body) each side is written to its end
            found = EXIT if loop.header in [cfg.through_jumps(self.graph, side) for side in sides] else self._first_common(sides, loop)
            merge = found if found != EXIT else NOWHERE
        if (
            stop not in (NOWHERE, EXIT)
            and merge != stop
            and (merge in (NOWHERE, EXIT) or self._reaches(stop, merge) or self._leaves_before(sides, stop, merge, loop))
        ):
            # the sides meet only past the end of this region (a try or with body whose
            # other ways out leave), or one leaves it before they meet (3.10 shares
            # one return between returns): each side ends where the region does
            merge = stop
        return merge

    def _return_before_copy(self, copy: int, statements: list[ast.stmt]) -> None:
        """The body's `return v` where it goes into the copy of a finally that never ends with v
        on the stack (the copy's own return drops it): finally_copies found which copies do."""
        held = self._entry.get(copy, [])
        if any(copy in self._finallys[h].returning for h in self._finally_bodies if h in self._finallys):
            if len(held) != 1 or not isinstance(held[0], ast.expr):
                raise Unsupported(self.graph.blocks[copy].instructions[0], "a return's value into a finally that never ends, not read")
            statements.append(ast.Return(value=held[0]))
        elif held:
            raise Unsupported(self.graph.blocks[copy].instructions[0], "values left on the stack for a finally that never ends")

    def _note_target(self, reader: BlockReader, loop: Loop | None) -> None:
        if reader.loop_target is not None and loop is not None:
            self._targets[loop.header] = reader.loop_target


def _kept_below(stack: list[Any], base: list[Any]) -> int | None:
    """How many of the values below a loop (`base`: enclosing iterators, an except clause's
    exception state) are still on the stack, where the rest are gone from it and values lie
    above them (a return's value); None where all are there, or a value above is not one."""
    kept = 0
    while kept < min(len(stack), len(base)) and stack[kept] is base[kept]:
        kept += 1
    rest = stack[kept:]
    if kept == len(base) or not rest or any(v is b for v in rest for b in base) or not all(isinstance(v, ast.expr) for v in rest):
        return None
    return kept


_CO_ITERABLE_COROUTINE = 0x100


def _joined(first: Condition, second: Condition, side: str, same: Callable[[int, int], int | None] | None = None) -> Condition | None:
    """`first` and then `second` (reached from first's `side`) as one condition, or None.
    `same`, where given, finds two targets the same place (the place, or None)."""
    if same is not None:  # each side's own jump to one place (3.12+ `continue`s): one target
        for mine in ("when_true", "when_false"):
            for theirs in ("when_true", "when_false"):
                if mine != side:
                    place = same(getattr(first, mine), getattr(second, theirs))
                    if place is not None and getattr(first, mine) != getattr(second, theirs):
                        first = Condition(first.test, *(place if m == mine else getattr(first, m) for m in ("when_true", "when_false")))
                        second = Condition(
                            second.test, *(place if t == theirs else getattr(second, t) for t in ("when_true", "when_false"))
                        )
    if side == "when_true":
        if second.when_false == first.when_false:  # a and b
            return Condition(_bool(ast.And, first.test, second.test), second.when_true, first.when_false)
        if second.when_true == first.when_false:  # not a or b
            return Condition(_bool(ast.Or, negate(first.test), second.test), second.when_true, second.when_false)
        return None
    if second.when_true == first.when_true:  # a or b
        return Condition(_bool(ast.Or, first.test, second.test), first.when_true, second.when_false)
    if second.when_false == first.when_true:  # not a and b
        return Condition(_bool(ast.And, negate(first.test), second.test), second.when_true, second.when_false)
    return None


def _if(test: ast.expr, body: list[ast.stmt], orelse: list[ast.stmt]) -> list[ast.stmt]:
    """`if` as a person writes it: a side that always leaves (return, raise) needs no `else`, and a
    short one that leaves goes first as a guard (`if not items: return None`; where both raise,
    the order stays: decompiling the output again gives it again), and statements both
    sides end with (Python 3.11+ copies a `return y` into each) are written once, after."""
    common = 0
    while common < min(len(body), len(orelse)) and ast.dump(body[-1 - common]) == ast.dump(orelse[-1 - common]):
        common += 1
    if common:
        tail = body[len(body) - common :]
        return [*_if(test, body[: len(body) - common], orelse[: len(orelse) - common]), *tail]
    if (
        orelse
        and leaves(orelse)
        and (
            len(orelse) < len(body)
            or (len(orelse) == len(body) and isinstance(orelse[-1], ast.Raise) and not isinstance(body[-1], ast.Raise))
        )
    ):
        return [ast.If(test=negate(test), body=orelse, orelse=[]), *body]
    if body and leaves(body):
        return [ast.If(test=test, body=body, orelse=[]), *orelse]
    if not body:
        return [ast.If(test=negate(test), body=orelse, orelse=[])] if orelse else [ast.If(test=test, body=[ast.Pass()], orelse=[])]
    return [ast.If(test=test, body=body, orelse=orelse)]


def _bool(kind: type, left: ast.expr, right: ast.expr) -> ast.expr:
    # Flatten `a and b and c` into one BoolOp, as it was written.
    if isinstance(left, ast.BoolOp) and isinstance(left.op, kind):
        return ast.BoolOp(op=kind(), values=[*left.values, right])
    return ast.BoolOp(op=kind(), values=[left, right])


def _immediate_post_dominators(graph: cfg.Graph) -> dict[int, int]:
    """Each block's immediate post-dominator (EXIT when its ways out meet only at the end): the
    dominators of the reversed graph of the reachable blocks, entered from EXIT."""
    reachable = sorted(graph.reachable)
    forward = {n: [s for s, k in graph.blocks[n].successors if k != "exception" and s in graph.reachable] for n in reachable}
    reverse: dict[int, list[int]] = {EXIT: [n for n in reachable if not forward[n]], **{n: [] for n in reachable}}
    for node in reachable:
        for following in forward[node]:
            reverse[following].append(node)
    return cfg.immediate_dominators(EXIT, reverse)
