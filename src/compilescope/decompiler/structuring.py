"""What the Structurer's parts share (see structure.py for the whole): the state they read and
write, declared once with what each field holds; the graph queries every part asks (what a block
reaches going forward, where paths meet, where a loop ends); the loop being written (Loop) and
a branch's condition (Condition); and small helpers on statements.

The parts are mixins of one class, Structurer(Handlers, Matches, Loops), each in its own module
(handlers.py: try/with/finally; matches.py: match; loops.py: for and while). Each inherits
StructurerParts, so a part can call what another part writes; those methods are declared here
and raise NotImplementedError if a part is ever used alone.
"""

from __future__ import annotations

import ast
import dis
from collections.abc import Collection
from dataclasses import dataclass
from types import CodeType
from typing import Any

import compilescope.decompiler.cfg as cfg
import compilescope.decompiler.finally_copies as finally_copies
import compilescope.decompiler.patterns as patterns
from compilescope.decompiler.expressions import BlockReader, empty_display
from compilescope.decompiler.normalize import (
    EXIT,
    exit_call_block,
)
from compilescope.decompiler.values import (
    NestedBodies,
    Temporaries,
    Unsupported,
)


@dataclass
class Condition:
    """A branch read so far: its test, and the blocks control goes to either way."""

    test: ast.expr  # true: control goes to `when_true`
    when_true: int
    when_false: int


class StructurerParts:
    """The state and the graph queries of the Structurer's parts (see the module's docstring)."""

    # The state every part reads and writes, set by Structurer.__init__ (structure.py).
    code: CodeType
    nested: NestedBodies  # how nested functions, classes, comprehensions and lambdas are built
    graph: cfg.Graph  # the normalized control-flow graph (normalize.PASSES, in order)
    post_dominators: dict[int, int]  # block -> its immediate post-dominator
    temps: Temporaries  # the names chosen for values the stack holds across statements
    _finallys: dict[int, finally_copies.Finally]  # handler block -> its finally (normalize.py)
    _suppressed: dict[int, int]  # a with's handler -> where a suppressed exception goes on
    _handlers: set[int]  # the user's handlers (not a with's or a finally's)
    _chains: set[int]  # blocks of except chains: a clause's test and what leads to the next
    _open_trys: set[int]  # the handlers whose try bodies are being written
    _finally_bodies: list[int]  # the finally handlers whose try bodies are being written
    _held_below: list[tuple[int | None, list[Any]]]  # while loops being written: (after, values below)
    _handler_blocks: dict[int, set[int]]  # handler -> its blocks (cache)
    _current: int  # the block being read (its values may go on to its only successor)
    _skip: dict[int, int]  # block -> instructions at its start already written (a finally's copy)
    _protector_cache: dict[int, set[int]]
    _protected_cache: dict[int, set[int]]
    _targets: dict[int, ast.expr]  # loop header -> what its item is stored in
    _open_loops: list[int]  # headers of the loops being written, outermost first
    _exits_returning: set[int]  # withs' __exit__ calls a bare return out of a for loop goes through
    # block -> the values it finds on the stack above the enclosing loops' iterators: the
    # temporaries its predecessors left them in (or the markers of a loop's item and end)
    _entry: dict[int, list[Any]]
    _not_pure: set[tuple[Any, ...]]  # blocks read and found no pure condition (see _pure_condition)
    _depths: dict[int, int] | None  # stack depth before each instruction (cfg.stack_depths), when needed
    _has_match: bool  # only code with a class, sequence or mapping pattern, or a value case, looks for a match
    _match_starts: dict[tuple[int, int], tuple[bool, patterns.CaseRead | None]]
    _first_replaced: dict[int, dis.Instruction]  # block -> its first instruction as read (see _region_from)
    _cases: dict[patterns.Position, patterns.CaseRead | Unsupported]  # see _read_case

    def _depth_at(self, offset: int) -> int | None:
        """How many values are on the stack before the instruction at `offset` (cfg.stack_depths,
        found once, when first asked)."""
        if self._depths is None:
            self._depths = cfg.stack_depths(self.code)
        return self._depths.get(offset)

    def _past_try_bodies(self, index: int, trys: set[int]) -> int:
        """Where block `index` goes on past the blocks of a try body it lies in, where the try
        (its handler in `trys`) protects code of the loop: the rest of the body, on its one way,
        to the first block outside the try; `index` itself where there is no such way."""
        start = index
        for _ in range(20):
            if not (self._protectors(index) & trys):
                return index
            ways = [s for s, k in self.graph.blocks[index].successors if k != "exception"]
            if len(ways) != 1 or ways[0] in self.graph.loops:
                break
            index = ways[0]
        return start

    def _past_exit_calls(self, index: int, body: set[int], around: set[int]) -> int:
        """Where block `index` goes past blocks that only call the __exit__ of withs inside the
        loop `body` (not of those `around` it) on their way out of it."""
        for _ in range(20):
            block = self.graph.blocks[index]
            ways = [s for s, k in block.successors if k != "exception"]
            if block.last.opname in cfg.TERMINATORS or len(ways) != 1 or ways[0] in body or not exit_call_block(block):
                break
            withs = {h for p in block.predecessors for h in self._protectors(p) if self._is_with_handler(h)}
            if not withs or withs & around:
                break
            index = ways[0]
        return index

    def _forward(self, start: int, header: int | None = None, avoid: int | None = None, handled: Collection[int] = ()) -> set[int]:
        """The blocks control can go on to from block `start` (itself included), in this turn
        of the loops being written (and of the loop at `header`): not on past their headers,
        nor past block `avoid`."""
        seen, todo = {start}, [start]
        while todo:
            index = todo.pop()
            if index != start and (index in self._open_loops or index == header) or index == avoid:
                continue
            for successor, kind in self.graph.blocks[index].successors:
                if (kind != "exception" or successor in handled) and successor not in seen:
                    seen.add(successor)
                    todo.append(successor)
        return seen

    def _loop_ends(self, loop: Loop) -> set[int]:
        """Where a for loop goes when its iterator is exhausted (3.12+: and past its END_FOR,
        where a break that pops the iterator itself goes)."""
        ends = {s for s, k in self.graph.blocks[loop.header].successors if k == "jump"}
        for end in list(ends):
            block = self.graph.blocks[end]
            if [i.opname for i in block.instructions if i.opname not in cfg.NO_EFFECT] in (["END_FOR"], ["END_FOR", "POP_TOP"]):
                ends |= {s for s, k in block.successors if k == "fall"}
        return ends

    def _only_ends(self, start: int, avoid: set[int], body: set[int]) -> bool:
        """Whether block `start` is one place's own way to return or raise: one way in (or
        several, all from a for loop's `body`: the tests of one `and`), and every way on from
        it ends the function, meeting none of `avoid`. (Code that several breaks reach is the
        code after the loop, even where it ends in a return: a for loop's breaks pop its
        iterator in blocks of their own, outside its body; a while loop's jump from its body.)"""
        reached = self._forward(start)
        if reached & set(self._open_loops):
            return False  # (it goes round an enclosing loop again: a `continue` of that loop)
        predecessors = self.graph.blocks[start].predecessors
        return (
            (len(predecessors) == 1 or all(p in body for p in predecessors))
            and not (reached & avoid)
            and all(
                self.graph.blocks[b].last.opname in cfg.TERMINATORS
                for b in reached
                if not [s for s, k in self.graph.blocks[b].successors if k != "exception"]
            )
        )

    def _first_common(self, starts: list[int], loop: Loop | None, handled: Collection[int] = ()) -> int:
        """The block where the sides of a branch (or a try's ways on) meet again when some of
        their ways return or raise instead (so no block post-dominates them): the one block
        they all reach that comes before every other they all reach; EXIT if there is none.
        A raise goes on into the handlers of `handled` (of trys inside the sides)."""
        common = set.intersection(*(self._forward(start, handled=handled) for start in starts))
        if loop is not None:
            common = (common & loop.body) - {loop.header}
        # first: no way into it from another common block, but for a loop's own back edges
        firsts = [c for c in common if not any(p in common and not self.graph.dominates(c, p) for p in self.graph.blocks[c].predecessors)]
        if len(firsts) > 1:
            # a return both reach (3.10 shares one RETURN_VALUE between returns) is not where
            # they go on: that is the first block that leads on to more
            firsts = [c for c in firsts if self._forward(c) & common != {c}]
        return firsts[0] if len(firsts) == 1 else EXIT

    def _leaves_before(self, sides: list[int], stop: int, merge: int, loop: Loop | None) -> bool:
        """Whether a side of a branch reaches the end of the region (`stop`) before the sides
        meet (a `continue` or `break` to the loop's ends is no leaving)."""
        if loop is not None and stop in (loop.header, loop.after):
            return False
        return any(stop in self._forward(side, avoid=merge) for side in sides)

    def _reaches(self, start: int, target: int) -> bool:
        """Whether control goes from block `start` on to block `target`, within one turn of the
        loops being written (not around through their headers)."""
        return start not in self._open_loops and target in self._forward(start)

    # Written by other parts (declared for the parts that call them; never run from here):
    def _protectors(self, index: int) -> set[int]:
        raise NotImplementedError

    def _protected(self, handler: int) -> set[int]:
        raise NotImplementedError

    def _is_with_handler(self, handler: int) -> bool:
        raise NotImplementedError

    def _pops_iterator(self, index: int, header: cfg.Block | None = None) -> bool:
        raise NotImplementedError

    def _reader(self, index: int, base: list[Any]) -> BlockReader:
        raise NotImplementedError

    def _condition_of(self, index: int, reader: BlockReader, base: list[Any]) -> Condition:
        raise NotImplementedError

    def _join(self, index: int, first: Condition, base: list[Any], members: set[int] | None = None, ternaries: bool = True) -> Condition:
        raise NotImplementedError

    def region(
        self,
        start: int,
        stop: int,
        loop: Loop | None = None,
        base: list[Any] | None = None,
        first: list[Any] | None = None,
        entering: bool = False,
    ) -> list[ast.stmt]:
        raise NotImplementedError

    def _merge(self, node: int, sides: list[int], loop: Loop | None, stop: int) -> int:
        raise NotImplementedError


def stack_key(value: Any) -> Any:
    if empty_display(value):  # (each way in brings its own: they are alike)
        return type(value)
    return value.id if isinstance(value, ast.Name) else value


NOWHERE = -2  # a merge point outside the loop body: the region ends where its paths leave


@dataclass
class Loop:
    """A loop being written: its header, its body's blocks, and where `break` goes."""

    header: int
    body: set[int]
    after: int | None  # where `break` goes, when it goes past the loop's else
    kind: str = "for"


def dump(statements: list[ast.stmt]) -> str:
    return ast.dump(ast.Module(body=statements, type_ignores=[]))


def leaves(statements: list[ast.stmt]) -> bool:
    return isinstance(statements[-1], (ast.Return, ast.Raise, ast.Break, ast.Continue))
