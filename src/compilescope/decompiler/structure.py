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
Code past a finally is never written inside its try. What it does not read (async, some shapes
of nested handlers and loops) raises Unsupported, naming the instruction: it never guesses.
"""

from __future__ import annotations

import ast
import copy
import dis
import sys
from collections.abc import Callable, Collection
from dataclasses import dataclass
from types import CodeType
from typing import Any, cast

from compilescope.decompiler import cfg, finally_copies, patterns
from compilescope.decompiler.comprehensions import inlined_comprehension
from compilescope.decompiler.expressions import BlockReader, empty_display, name_cleanup
from compilescope.decompiler.normalize import (
    CANNOT_RAISE,
    CONDITIONAL,
    EXIT,
    code_shape,
    exit_call_block,
    normalize,
    same_ending,
    without_name_cleanup,
)
from compilescope.decompiler.tidy import negate, put_back_values
from compilescope.decompiler.values import (
    CAUGHT,
    HANDLER_ENTRY_310,
    LOOP_DONE,
    NEXT_ITEM,
    PREVIOUS,
    CaughtAs,
    ChainLeft,
    ExceptionMatch,
    HandlerEnd,
    LoopIterator,
    NestedBodies,
    Saved,
    Temporaries,
    Unsupported,
    WithEnter,
    WithExit,
    WithTarget,
)


@dataclass
class _Condition:
    test: ast.expr  # true: control goes to `when_true`
    when_true: int
    when_false: int


class Structurer:
    def __init__(self, code: CodeType, nested: NestedBodies) -> None:
        self.code = code
        self.nested = nested  # how nested functions, classes, comprehensions and lambdas are built
        if code.co_flags & (_CO_COROUTINE | _CO_ITERABLE_COROUTINE | _CO_ASYNC_GENERATOR):
            raise Unsupported(None, "async functions are not decompiled yet")
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
        # block -> the values it finds on the stack above the enclosing loops' iterators: the
        # temporaries its predecessors left them in (or the markers of a loop's item and end)
        self._entry: dict[int, list[Any]] = {}
        self._not_pure: set[tuple[Any, ...]] = set()  # blocks read and found no pure condition (see _pure_condition)
        self._depths: dict[int, int] | None = None  # stack depth before each instruction (cfg.stack_depths), when needed
        # a match statement is read where its subject is (patterns.py): only code with a
        # class, sequence or mapping pattern, or a copy compared with a value, looks for one
        opcodes = code.co_code[::2]
        self._has_match = not _MATCH_OPCODES.isdisjoint(opcodes) or (
            not _COPY_OPCODES.isdisjoint(opcodes)
            and any(_value_case_at(block.instructions, index) for block in self.graph.blocks for index in range(len(block.instructions)))
        )
        self._match_starts: dict[tuple[int, int], tuple[bool, patterns.CaseRead | None]] = {}
        self._first_replaced: dict[int, dis.Instruction] = {}
        self._cases: dict[
            patterns.Position, patterns.CaseRead | Unsupported
        ] = {}  # see _read_case  # block -> its first instruction as read (see _region_from)

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

    # ---- try / except ----------------------------------------------------------------------------
    def _user_handlers(self) -> set[int]:
        """The handlers of the user's `try: ... except` (3.11+: they start with PUSH_EXC_INFO and
        test the exception with CHECK_EXC_MATCH, or catch everything). Any other handler (a
        `finally`, a `with`, 3.10's SETUP_* blocks) is refused where it is reached."""
        handlers: set[int] = set()
        targets = {s for b in self.graph.blocks for s, k in b.successors if k == "exception"}
        for index in targets:
            block = self.graph.blocks[index]
            real = [i.opname for i in block.instructions if i.opname not in cfg.NO_EFFECT]
            if real[:1] == ["PUSH_EXC_INFO"]:
                handlers.add(index)
            elif sys.version_info < (3, 11) and (
                real[:1] == ["DUP_TOP"]
                and real[-1:] == ["JUMP_IF_NOT_EXC_MATCH"]
                or real[:3] == ["POP_TOP"] * 3
                or real[:1] == ["WITH_EXCEPT_START"]
            ):
                handlers.add(index)  # 3.10: `except E` tests, a bare `except:` drops the exception, a with's exit
        return handlers | set(self._finallys)  # a finally, its copies taken out (finally_copies)

    @staticmethod
    def _handler_entry() -> list[Any]:
        return list(HANDLER_ENTRY_310) if sys.version_info < (3, 11) else [CAUGHT]

    def _except_chain_blocks(self) -> set[int]:
        """The blocks of the handlers' `except` tests and their final re-raise: no user code,
        and no way out of a loop."""
        chains: set[int] = set()
        for handler in self._handlers:
            index = handler
            for _ in range(len(self.graph.blocks)):
                block = self.graph.blocks[index]
                names = [i.opname for i in block.instructions if i.opname not in cfg.NO_EFFECT]
                if names[:1] == ["RERAISE"]:
                    chains.add(index)
                    break
                if block.last.opname == "JUMP_IF_NOT_EXC_MATCH":  # 3.10
                    chains.add(index)
                    index = next(s for s, k in block.successors if k == "jump")
                    continue
                if "CHECK_EXC_MATCH" not in names or block.last.opname not in CONDITIONAL:
                    break
                chains.add(index)
                taken_when, _ = CONDITIONAL[block.last.opname]
                index = next(s for s, k in block.successors if k == ("fall" if taken_when else "jump"))
        return chains

    def _protectors(self, index: int) -> set[int]:
        """The user handlers whose `try` holds block `index`: its own handler, and, through the
        cleanup handler Python puts around every handler's code, the handlers of enclosing trys."""
        cached = self._protector_cache.get(index)
        if cached is not None:
            return cached
        found: set[int] = set()
        seen: set[int] = set()
        todo = [s for s, k in self.graph.blocks[index].successors if k == "exception"]
        while todo:
            handler = todo.pop()
            if handler in seen:
                continue
            seen.add(handler)
            if handler in self._handlers:
                found.add(handler)
                # an enclosing try protects this handler's code too: through its cleanup
                todo += [s for s, k in self.graph.blocks[handler].successors if k == "exception"]
            else:
                todo += [s for s, k in self.graph.blocks[handler].successors if k == "exception"]
        self._protector_cache[index] = found
        return found

    def _protected(self, handler: int) -> set[int]:
        cached = self._protected_cache.get(handler)
        if cached is None:
            cached = {
                b.index
                for b in self.graph.blocks
                if b.index in self.graph.reachable
                and b.index not in self._handlers
                and handler in self._protectors(b.index)
                and not self._inside_handler(b.index, handler)
            }
            self._protected_cache[handler] = cached
        return cached

    def _inside_handler(self, index: int, handler: int) -> bool:
        """Whether block `index` is the handler's own code (reached from it, not from the body)."""
        return index in self._handler_code(handler)

    def _handler_code(self, handler: int) -> set[int]:
        """The handler's own blocks: those only reached through it (it dominates them)."""
        cached = self._handler_blocks.get(handler)
        if cached is None:
            cached = {b for b in self.graph.reachable if self.graph.dominates(handler, b)}
            self._handler_blocks[handler] = cached
        return cached

    def _finally(self, start: int, handler: int, loop: _Loop | None, base: list[Any], after: int | None) -> tuple[list[ast.stmt], int]:
        """`try: ... finally: F`: its copies on the body's ways out are gone from the graph
        (finally_copies), so the body is written as is, and F once, from its handler."""
        read = self._finallys.get(handler)
        if read is None:
            raise Unsupported(
                self.graph.blocks[handler].instructions[0], "a finally whose copies on the ways out of its try are not all found"
            )
        outside = list(self._entry.get(start, []))  # below the handler's values, as in _try
        self._open_trys.add(handler)
        self._finally_bodies.append(handler)
        try:
            body = self.region(start, after if after is not None else _NOWHERE, loop, base)
        finally:
            self._open_trys.discard(handler)
            self._finally_bodies.pop()
        entry = [PREVIOUS, CAUGHT] if sys.version_info >= (3, 11) else list(HANDLER_ENTRY_310)
        self._skip[handler] = read.skip
        # a break or continue inside the finally is its loop's (else the code it writes is the
        # finally's own, not the loop's body: the handler's blocks never go round)
        leaves = loop is not None and bool(self._forward(handler) - self._handler_code(handler))
        finalbody = self.region(handler, read.end, loop if leaves else None, base, first=[*outside, *entry])
        statement = ast.Try(body=body or [ast.Pass()], handlers=[], orelse=[], finalbody=finalbody or [ast.Pass()])
        return [statement], (after if after is not None else EXIT)

    def _check_inside_finallys(self, node: int) -> None:
        """Code written inside a try/finally's body is code its finally protects: code past it
        (after the finally ran) reached while writing the body would be read before the finally
        instead. Only a return of what needs no reading (a constant, the value on the stack,
        perhaps through the __exit__ of a with around the try) is the same either way; the rest
        is refused, never written in the wrong place."""
        outside = [h for h in self._finally_bodies if h not in self._protectors(node)]
        if outside and not (
            _safe_return(self.graph, node, loads=0)
            or self._leaves_after_exit(node, set(), reads=False)
            or cfg.through_jumps(self.graph, node, nops=True) != node
        ):
            raise Unsupported(self.graph.blocks[node].instructions[0], "code after a finally reached inside its try")

    def _is_with_handler(self, handler: int) -> bool:
        names = [i.opname for i in self.graph.blocks[handler].instructions if i.opname not in cfg.NO_EFFECT]
        return names[:2] == ["PUSH_EXC_INFO", "WITH_EXCEPT_START"] or names[:1] == ["WITH_EXCEPT_START"]

    def _leaves_after_exit(self, index: int, special: set[int | None], depth: int = 0, reads: bool = True) -> bool:
        """A block that only calls a with's __exit__ on the way to `continue`/`break` or
        `return` (through more such blocks, one per enclosing with): the with's way of leaving
        its body there, which the body is written with. Without `reads`, not one that reads a
        local after __exit__ ran (3.12+ copies `return x` after the with there): where a
        finally runs first, that is code after the finally too."""
        block = self.graph.blocks[index]
        successors = {s for s, k in block.successors if k != "exception"}
        if depth > 20 or not exit_call_block(block):
            return False
        calls = [at for at, i in enumerate(block.instructions) if i.opname in ("CALL", "CALL_FUNCTION")]
        if not reads and any(i.opname == "LOAD_FAST" for i in block.instructions[calls[-1] :]):
            return False
        if block.last.opname in cfg.TERMINATORS:
            return True
        # (then perhaps ending an except clause around the with on the way to the return)
        return bool(successors) and all(
            s in special or self._leaves_after_exit(s, special, depth + 1, reads) or _safe_return(self.graph, s, loads=0)
            for s in successors
        )

    def _with(self, start: int, handler: int, loop: _Loop | None, base: list[Any], after: int | None) -> tuple[list[ast.stmt], int]:
        """`with m as x:` (3.11+): BEFORE_WITH left __exit__ and __enter__()'s result for the
        protected body; the handler (WITH_EXCEPT_START) is the with's own, and so is the
        __exit__(None, None, None) call where the body ends: neither is written."""
        entry = self._entry.get(start, [])
        if len(entry) < 2 or not isinstance(entry[-1], WithEnter) or not isinstance(entry[-2], WithExit):
            raise Unsupported(self.graph.blocks[start].instructions[0], "a with body entered without its context manager")
        manager = entry[-2]
        outside = entry[:-2]
        self._entry[start] = [entry[-1]]
        self._open_trys.add(handler)
        try:
            body = self.region(start, after if after is not None else _NOWHERE, loop, [*base, *outside, manager])
        finally:
            self._open_trys.discard(handler)
        target = None
        if body and isinstance(body[0], WithTarget):
            target = body.pop(0).target  # type: ignore[attr-defined]
        else:
            raise Unsupported(self.graph.blocks[start].instructions[0], "a with body that does not start with its target")
        # Where an exception __exit__ suppresses goes on: the statement after the with. Where the
        # body ends, its way on must go there too, past the __exit__(None, None, None) call.
        suppressed = self._suppressed.get(handler)
        if after is not None:
            if suppressed is None or not self._exit_then(after, suppressed):
                raise Unsupported(
                    self.graph.blocks[handler].instructions[0], "a with whose suppressed exceptions go on elsewhere than its end"
                )
            known = self._entry.get(after)
            self._entry[after] = [*outside, manager, *(known or [])]
        elif suppressed is not None:
            self._entry.setdefault(suppressed, list(outside))
        statement = ast.With(
            items=[ast.withitem(context_expr=manager.manager, optional_vars=target)], body=body or [ast.Pass()], type_comment=None
        )
        return [statement], (after if after is not None else suppressed if suppressed is not None else EXIT)

    def _exit_then(self, index: int, suppressed: int) -> bool:
        """Whether block `index` calls __exit__(None, None, None) and goes on as the suppressed
        exceptions do: into block `suppressed`, or into the same code."""
        instructions = [i for i in self.graph.blocks[index].instructions if i.opname not in cfg.NO_EFFECT]
        at = 0
        while at < len(instructions) and (
            instructions[at].opname in ("POP_BLOCK", "DUP_TOP", "PRECALL", "CALL", "CALL_FUNCTION", "SWAP", "ROT_TWO")
            or instructions[at].opname == "LOAD_CONST"
            and instructions[at].argval is None
        ):
            at += 1
        if at == 0 or at >= len(instructions) or instructions[at].opname != "POP_TOP":
            return False
        # the code after the call (3.10: past the POP_BLOCK of a try around the with, which the
        # suppressed way pops too), and its block
        rest, holder = [i for i in instructions[at + 1 :] if i.opname != "POP_BLOCK"], index
        same = [i for i in self.graph.blocks[suppressed].instructions if i.opname not in cfg.NO_EFFECT]
        if not rest or len(rest) == 1 and rest[0].opname in cfg.UNCONDITIONAL:
            following = next((s for s, k in self.graph.blocks[index].successors if k != "exception"), None)
            if following is None:
                return False
            following = cfg.through_jumps(self.graph, following)
            if following == cfg.through_jumps(self.graph, suppressed):
                return True
            rest, holder = [i for i in self.graph.blocks[following].instructions if i.opname not in cfg.NO_EFFECT], following
        if not rest or not same or code_shape(rest[:-1]) != code_shape(same[:-1]):
            return False
        # 3.12+ copies a short ending (`return x`) to both ways: the same code is the same place
        if rest[-1].opname in cfg.TERMINATORS:
            return code_shape(rest[-1:]) == code_shape(same[-1:])
        # ... and so is the same code then a jump to one place (3.13 ends an except clause
        # around the with in two copies, one jumping back with JUMP_BACKWARD, one _NO_INTERRUPT)
        if rest[-1].opname not in cfg.UNCONDITIONAL or same[-1].opname not in cfg.UNCONDITIONAL:
            return False
        targets = [next((s for s, k in self.graph.blocks[b].successors if k == "jump"), None) for b in (holder, suppressed)]
        return None not in targets and len({cfg.through_jumps(self.graph, t) for t in targets}) == 1  # type: ignore[arg-type]

    def _try(self, start: int, handler: int, loop: _Loop | None, base: list[Any], stop: int) -> tuple[list[ast.stmt], int]:
        """`try:` from its first protected block: the body is the blocks the handler protects,
        up to where they all go on; the handler is a chain of `except` clauses. `stop` is where
        the region holding the try ends: clauses that go on past a body that never does stop
        there too (the code after an enclosing finally is not theirs)."""
        protected = self._protected(handler)
        if start not in protected:
            raise Unsupported(self.graph.blocks[start].instructions[0], "a try entered in the middle")
        special = {EXIT} | ({loop.header, loop.after} if loop is not None else set())
        if loop is not None and loop.kind == "for":  # a break where the loop has no else
            special |= self._loop_ends(loop)
        # a with's own handler code is not written: where it goes (on after the with, when
        # __exit__ suppressed the exception) is not a way out of the body
        with_code = {b for h in self._handlers if self._is_with_handler(h) for b in self._handler_code(h)}
        exits = {s for b in protected - with_code for s, k in self.graph.blocks[b].successors if k != "exception" and s not in protected}
        exits = {e for e in exits if not cfg.only_nops_into(self.graph, e, protected)}
        exits = {e for e in exits if cfg.through_jumps(self.graph, e) not in special}  # continue, break
        # 3.11+ copies a short `return x` to each way out: returning a local inside the try
        # instead of just after it cannot raise, so those copies stay where they are. After a
        # finally's copy only a bare return is: `return x` there reads x after the finally ran.
        finally_handler = handler in self._finallys or finally_copies.is_finally(self.graph, handler)
        # (nor past the copy of an enclosing finally: the code there is after that finally too)
        finallys = {h for h in self._protectors(start) if h in self._finallys}
        exits = {
            e
            for e in exits
            if not _safe_return(self.graph, e, loads=0 if finally_handler else 1, inside=lambda b: finallys <= self._protectors(b))
        }
        # a `continue`/`break`/`return` out of a with runs __exit__ in a block of its own
        # (a local read after __exit__ is read after this finally, or an enclosing one it is
        # past, too: not the body's)
        leaving = {
            e
            for e in exits
            if self._leaves_after_exit(
                e, special, reads=not finally_handler and all(h in self._protectors(e) for h in self._finally_bodies)
            )
        }
        exits -= leaving
        suppressed = self._suppressed.get(handler)
        if not exits and suppressed is not None:
            # a with that ends where its loop goes on: its end is where the body falls out
            ends = [e for e in leaving if self._exit_then(e, suppressed)]
            exits = set(ends[:1]) if len(ends) == 1 else exits
        if len(exits) > 1 and not self._is_with_handler(handler) and len({cfg.through_jumps(self.graph, e, nops=True) for e in exits}) == 1:
            # ways out that only jump (or do nothing) on to one place (3.13: the end of an inner
            # except clause, which the outer handler no longer protects, then a jump past the
            # finally's copy; the NOP of an `if`'s empty side)
            exits = {cfg.through_jumps(self.graph, next(iter(exits)), nops=True)}
        if len(exits) > 1:
            raise Unsupported(self.graph.blocks[start].instructions[0], "a try body left for several places")
        after = exits.pop() if exits else None
        if after is not None and not self._is_with_handler(handler):
            after = cfg.through_jumps(self.graph, after)  # past a jump out of the try's range
        if self._is_with_handler(handler):
            return self._with(start, handler, loop, base, after)
        if finally_handler:
            return self._finally(start, handler, loop, base, after)
        self._open_trys.add(handler)
        try:
            body = self.region(start, after if after is not None else _NOWHERE, loop, base)
        finally:
            self._open_trys.discard(handler)
        # what the stack holds where the try starts (inside an except clause: its exception
        # state) stays below the handler's own values
        outside = list(self._entry.get(start, []))
        clauses = self._except_clauses(handler, [*base, *outside])
        # Where the clauses go on: the first block on the way on from the body's end that every
        # clause reaches too. Code between the body's end and there is the `else:`.
        merge = None
        if after is not None:
            chains = [self._post_dominator_chain(self.post_dominators.get(first, EXIT)) for _, first in clauses]
            on = self._post_dominator_chain(after)
            # (not a clause that breaks or continues first: it goes on only by going round)
            going_round = [chain for chain in chains if _reaches_first(chain, special - {EXIT}, set(on))]
            if going_round and len(going_round) < len(chains):
                chains = [chain for chain in chains if chain not in going_round]
            merge = next((n for n in on if all(n in chain for chain in chains)), None)
            # a raise or return on some way: where the ways that go on meet; so too where they
            # meet only at the loop's start or end (a clause that may `continue` or `break`),
            # but meet before it
            round_only = (
                loop is not None
                and after != loop.header
                and (merge == loop.header or loop.kind == "for" and merge in self._loop_ends(loop))
            )
            if merge is None or round_only:
                ahead = self._forward(after) - ({loop.header, loop.after} if loop is not None else set())
                going_on = [first for _, first in clauses if self._forward(first) & ahead]  # (not by going round)
                found = self._first_common([after, *going_on], loop)
                merge = found if found != EXIT else (None if merge is None else merge)
            if merge in (None, after) or (loop is not None and merge not in loop.body):
                # an `else:` that returns, raises, breaks or continues, never meeting the code
                # where the clauses go on: that code is after the try (not a copy of a finally
                # around it: the way a return goes)
                clauses_on = self._clauses_go_on(clauses, special)
                # (loop is not None where merge is not in (None, after): see the test above)
                if (
                    clauses_on is not None
                    and (merge in (None, after) or clauses_on in cast(_Loop, loop).body)
                    and self._protectors(clauses_on) == self._protectors(after)
                    and not (self._forward(after) & self._forward(clauses_on))
                    and self._ends_alone(after)
                ):
                    merge = clauses_on
                # clauses that end in a copy of code the `else:` goes on to (3.12+ copies a
                # short `return f(x)` after the try onto their ends): that code is after it
                copied = self._copied_after_clauses(clauses, after)
                if copied is not None:
                    merge = copied
        if merge is not None and merge != after:
            orelse = self.region(cast(int, after), merge, loop, base)  # (merge is only found where after is not None)
            following = merge
        else:
            orelse, following = [], after if after is not None else stop
        # An `else:` that only goes round its loop again (or breaks), sharing no code with the
        # clauses, while they go on into code of their own (3.12+ copies the `return` after a
        # loop onto a break in a clause): the else is written to its `continue`, and the
        # clauses' code after the try, where only they reach it.
        goes_round = False
        if loop is not None and after is not None and after not in (loop.header, loop.after) and merge in (None, after, loop.header):
            header_and_after = {loop.header, loop.after}
            reached = self._forward(after, avoid=loop.after) - header_and_after
            clause_code = {b for _, first in clauses for b in self._forward(first, avoid=loop.after)}
            goes_round = (
                stop not in reached
                and not (reached & clause_code)
                and all(
                    self.graph.blocks[b].last.opname in cfg.TERMINATORS
                    for b in reached
                    if not [s for s, k in self.graph.blocks[b].successors if k != "exception"]
                )
            )
        if goes_round:
            # (the else's `continue` written: the code after the try is not its own)
            orelse, following = self.region(cast(int, after), stop, loop, base), stop  # (goes_round: after is not None)
            if stop == loop.header and (not orelse or not _leaves(orelse)):  # type: ignore[union-attr]
                orelse.append(ast.Continue())  # (region ends there without it)
        handlers: list[ast.ExceptHandler] = []
        tails: list[list[ast.stmt]] = []
        open_ended: list[int] = []
        for kind, first in clauses:
            entry = self._handler_entry() if sys.version_info < (3, 11) else (list(PREVIOUS_AND_CAUGHT) if kind is not None else [CAUGHT])
            statements = self.region(first, following, loop, base, first=[*outside, *entry])
            name = None
            if statements and isinstance(statements[0], CaughtAs):
                name = statements.pop(0).name  # type: ignore[attr-defined]
            # POP_EXCEPT ends the clause: what comes after it runs after the try statement
            ends = [i for i, st in enumerate(statements) if isinstance(st, HandlerEnd)]
            tail: list[ast.stmt] = []
            if ends:
                statements, tail = statements[: ends[0]], statements[ends[0] + 1 :]
            _drop_handler_ends(statements)
            if tail and not _leaves_plainly(tail):
                tails.append(tail)
            elif not tail and not (statements and _leaves(statements)):
                open_ended.append(len(handlers))  # reaches `following` where it ends
            else:
                # `return y` of a local: the same inside the clause or after it (and after the
                # ends of the clauses around it: a return inside leaves them too)
                statements += [st for st in tail if not isinstance(st, HandlerEnd)]
            handlers.append(ast.ExceptHandler(type=kind, name=name, body=statements or [ast.Pass()]))
        after_try: list[ast.stmt] = []
        if tails:
            # clauses that go on into more code: only when the body never does, and it is the
            # same code for each, is it written once after the try
            if any(_dump(t) != _dump(tails[0]) for t in tails):
                raise Unsupported(self.graph.blocks[handler].instructions[0], "except clauses that go on into different code")
            if following not in (_NOWHERE, EXIT) and after is not None and not goes_round:
                # a copy of the code after the try (3.10+ copies a short `return g` or `raise`
                # into each way out): the clauses go on there, as the body does
                if not _leaves(tails[0]) or _dump(tails[0]) != _dump(self._ending(following, base)):
                    raise Unsupported(self.graph.blocks[handler].instructions[0], "except clauses that go on into different code")
            else:
                after_try = tails[0]
                # a clause that ends where the try's region does, reaching no code of its own:
                # the code written after the try is not where it goes. Where the region ends
                # at its loop's start or end, it goes there: `continue`, `break`.
                for at in open_ended:
                    if loop is not None and following in (loop.header, loop.after):
                        clause = handlers[at]
                        clause.body = [st for st in clause.body if not isinstance(st, ast.Pass)] + [
                            ast.Continue() if following == loop.header else ast.Break()
                        ]
                    else:
                        raise Unsupported(self.graph.blocks[handler].instructions[0], "except clauses that go on into different code")
        statement = ast.Try(body=body or [ast.Pass()], handlers=handlers, orelse=orelse, finalbody=[])
        return [statement, *after_try], (following if following != _NOWHERE else EXIT)

    def _pops_iterator(self, index: int, header: cfg.Block | None = None) -> bool:
        """Whether block `index` ends in a POP_TOP of a value from before it (a break's pop of
        the loop's iterator), not of one it computed (a call's result), nor the exception an
        except clause starts by popping."""
        block = self.graph.blocks[index]
        if block.last.opname != "POP_TOP" or self._pops_caught(index):
            return False
        if self._has_match and header is not None:
            # a match's cases pop what their patterns kept above the iterator (read from the
            # depths, which only code with a match pays for)
            depth, height = self._depth_at(block.last.offset), self._depth_at(header.last.offset)
            if depth is not None and height is not None and depth > height:
                return False
        depth = lowest = 0
        for instruction in block.instructions[:-1]:
            try:
                depth += dis.stack_effect(
                    instruction.opcode, instruction.arg if instruction.opcode >= dis.HAVE_ARGUMENT else None, jump=False
                )
            except ValueError:
                return False
            lowest = min(lowest, depth)
        return depth <= lowest  # (above the lowest point, the top was pushed here)

    def _pops_caught(self, index: int) -> bool:
        """Whether block `index` is only an except clause's start (3.11+): the POP_TOP of the
        exception its type matched, in a block of its own where the clause's range starts."""
        block = self.graph.blocks[index]
        real = [i.opname for i in block.instructions if i.opname not in cfg.NO_EFFECT]
        return (
            real == ["POP_TOP"]
            and len(block.predecessors) == 1
            and any(i.opname == "CHECK_EXC_MATCH" for i in self.graph.blocks[block.predecessors[0]].instructions)
        )

    def _clauses_go_on(self, clauses: list[tuple[ast.expr | None, int]], special: set[int | None]) -> int | None:
        """The one block where the except clauses go on after their ends (POP_EXCEPT, then a
        jump or a fall), the clauses that return, raise, break or continue (to `special`) aside;
        None where there is not one (an end that goes on within its block, or a try in a
        clause: its own ends too)."""
        targets = set()
        for _, first in clauses:
            for index in self._forward(first):
                block = self.graph.blocks[index]
                real = [i.opname for i in without_name_cleanup([i for i in block.instructions if i.opname not in cfg.NO_EFFECT])]
                if "POP_EXCEPT" not in real or real[-1] in cfg.TERMINATORS:
                    continue  # (a return or raise that ends the clause)
                if not (real[-1] == "POP_EXCEPT" or real[-2:-1] == ["POP_EXCEPT"] and real[-1] in cfg.UNCONDITIONAL):
                    return None  # (the clause's end, then only a jump)
                ways = [s for s, k in block.successors if k != "exception"]
                if len(ways) != 1:
                    return None
                targets.add(cfg.through_jumps(self.graph, ways[0]))
        targets -= special
        return targets.pop() if len(targets) == 1 else None

    def _copied_after_clauses(self, clauses: list[tuple[ast.expr | None, int]], after: int) -> int | None:
        """The block after `after` (one that only returns or raises) of which every except
        clause's end (POP_EXCEPT, then code that returns or raises) is a copy; None where a
        clause goes on otherwise, or there is no one such block."""
        copies = set()
        for _, first in clauses:
            for index in self._forward(first):
                real = without_name_cleanup([i for i in self.graph.blocks[index].instructions if i.opname not in cfg.NO_EFFECT])
                ends = [at for at, i in enumerate(real) if i.opname == "POP_EXCEPT"]
                if not ends:
                    continue
                rest = real[ends[-1] + 1 :]
                if not rest or rest[-1].opname not in cfg.TERMINATORS or any(cfg.is_jump(i) for i in rest) or cfg.takes_from_stack(rest):
                    return None  # (a clause that goes on elsewhere, or ends in its own return)
                copies.add(_code_at(rest))
        if len(copies) != 1:
            return None
        code = copies.pop()  # (with its lines: a copy keeps the line of the code it copies)
        found = [
            b
            for b in self._forward(after) - {after}
            if self.graph.blocks[b].last.opname in cfg.TERMINATORS
            and _code_at([i for i in self.graph.blocks[b].instructions if i.opname not in cfg.NO_EFFECT]) == code
        ]
        return found[0] if len(found) == 1 else None

    def _ends_alone(self, start: int) -> bool:
        """Whether every way on from block `start` returns or raises."""
        return all(
            self.graph.blocks[b].last.opname in cfg.TERMINATORS
            for b in self._forward(start)
            if not [s for s, k in self.graph.blocks[b].successors if k != "exception"]
        )

    def _ending(self, index: int, base: list[Any]) -> list[ast.stmt]:
        """What block `index` does, where it is one block that ends the function with no value
        left for it on the stack; nothing where it is more than that, or not read."""
        block = self.graph.blocks[index]
        if (
            any(isinstance(v, ast.expr) for v in self._entry.get(index, []))
            or block.last.opname not in cfg.TERMINATORS
            or any(cfg.is_jump(i) for i in block.instructions)
        ):
            return []
        reader = self._reader(index, list(base))
        try:
            reader.run(block.instructions)
        except Unsupported:
            return []
        return reader.statements

    def _post_dominator_chain(self, node: int) -> list[int]:
        chain = []
        while node != EXIT and node not in chain:
            chain.append(node)
            node = self.post_dominators.get(node, EXIT)
        return chain

    def _except_clauses(self, handler: int, base: list[Any]) -> list[tuple[ast.expr | None, int]]:
        """(the exception type, or None for a bare `except:`, the clause's first block)."""
        clauses: list[tuple[ast.expr | None, int]] = []
        index, entry = handler, [CAUGHT]
        for _ in range(len(self.graph.blocks)):
            block = self.graph.blocks[index]
            instructions = [i for i in block.instructions if i.opname not in cfg.NO_EFFECT]
            if block.last.opname == "JUMP_IF_NOT_EXC_MATCH":  # 3.10: DUP_TOP, the type, the test
                reader = BlockReader(self.code, self.nested, base + list(HANDLER_ENTRY_310), self.temps)
                reader.run(instructions[:-1])
                kind = reader.stack[-1] if reader.stack else None
                if (
                    reader.statements
                    or instructions[0].opname != "DUP_TOP"
                    or not isinstance(kind, ast.expr)
                    or len(reader.stack) != len(base) + len(HANDLER_ENTRY_310) + 2
                ):
                    raise Unsupported(block.last, "an except clause of a shape not decompiled yet")
                clauses.append((kind, next(s for s, k in block.successors if k == "fall")))
                index = next(s for s, k in block.successors if k == "jump")
                continue
            if index == handler:
                if instructions[:1] and instructions[0].opname == "PUSH_EXC_INFO":
                    instructions = instructions[1:]
                entry = list(PREVIOUS_AND_CAUGHT)
            if [i.opname for i in instructions[:1]] == ["RERAISE"]:
                return clauses  # no clause matched: the exception goes on
            names = [i.opname for i in instructions]
            if "CHECK_EXC_MATCH" in names and block.last.opname in CONDITIONAL:
                reader = BlockReader(self.code, self.nested, base + entry, self.temps)
                reader.run(instructions[: names.index("CHECK_EXC_MATCH") + 1])
                match = reader.stack[-1] if reader.stack else None
                if reader.statements or not isinstance(match, ExceptionMatch) or names.index("CHECK_EXC_MATCH") != len(names) - 2:
                    raise Unsupported(block.last, "an except clause of a shape not decompiled yet")
                taken_when, _ = CONDITIONAL[block.last.opname]
                fall = next(s for s, k in block.successors if k == "fall")
                jump = next(s for s, k in block.successors if k == "jump")
                matched, other = (jump, fall) if taken_when else (fall, jump)
                clauses.append((match.type, matched))
                index, entry = other, list(PREVIOUS_AND_CAUGHT)
                continue
            # a bare `except:` catches the rest; it starts in the handler's own block after
            # PUSH_EXC_INFO, which the clause runs again from the start
            clauses.append((None, index))
            return clauses
        raise Unsupported(None, "an except chain that does not end")

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
        if len(known) != len(values) or any(_name(a) != _name(b) for a, b in zip(known, values)):
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

    def _condition_of(self, index: int, reader: BlockReader, base: list[Any]) -> _Condition:
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
        return _Condition(test, target, fall) if taken_when else _Condition(test, fall, target)

    def _pure_condition(self, index: int, only_from: Collection[int], base: list[Any]) -> _Condition | None:
        """A block that only computes a condition, reached only from the blocks `only_from` (of
        one condition): part of an `and`/`or` (or a conditional expression) with it."""
        if not self._may_be_pure(index, only_from):
            return None
        block = self.graph.blocks[index]
        # (a block found not to be one is not read again, as long as it finds the same values)
        key = (index, len(base), tuple(_name(v) for v in self._entry.get(index, [])))
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

    def _join(self, index: int, first: _Condition, base: list[Any], members: set[int] | None = None, ternaries: bool = True) -> _Condition:
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

    def _conditional_expression(self, condition: _Condition, members: set[int], base: list[Any]) -> _Condition | None:
        """`c`'s two sides as one condition `(a if c else b)`: each side a condition (with its
        own `and`/`or`) reached only from this one, both going on to the same two places.
        `members` gains their blocks."""
        if not all(self._may_be_pure(start, members) for start in (condition.when_true, condition.when_false)):
            return None  # (before reading either)
        saved = dict(self._entry)
        sides: list[_Condition] = []
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
        return _Condition(ast.IfExp(test=condition.test, body=yes.test, orelse=orelse), *ways)

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
        loop: _Loop | None = None,
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
            self._check_inside_finallys(node)
            starting = self._protectors(node) - self._open_trys
            if starting:
                # the outermost try not yet open starts here: it holds the others
                outermost = max(starting, key=lambda h: len(self._protected(h)))
                try_statements, node = self._try(node, outermost, loop, base, stop)
                statements += try_statements
                if node == _NOWHERE:
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
                if node == _NOWHERE:
                    break
                continue
            if last.opname in CONDITIONAL:
                reader.run(instructions[:-1])
                self._note_target(reader, loop)
                first_case = self._guard_first(node, reader, base) if self._has_match and len(reader.stack) == len(base) + 2 else None
                if first_case is not None:
                    match_statements, node = self._match(node, len(block.instructions) - 1, reader, loop, base, stop, first_case)
                    statements += match_statements
                    if node == _NOWHERE:
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
                if node == _NOWHERE:
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

    def _merge(self, node: int, sides: list[int], loop: _Loop | None, stop: int) -> int:
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
            merge = found if found != EXIT else _NOWHERE
        if (
            stop not in (_NOWHERE, EXIT)
            and merge != stop
            and (merge in (_NOWHERE, EXIT) or self._reaches(stop, merge) or self._leaves_before(sides, stop, merge, loop))
        ):
            # the sides meet only past the end of this region (a try or with body whose
            # other ways out leave), or one leaves it before they meet (3.10 shares
            # one return between returns): each side ends where the region does
            merge = stop
        return merge

    # ---- match -----------------------------------------------------------------------------------
    def _match_start(self, node: int, skip: int) -> int | None:
        """Where in block `node` (from its instruction `skip`) a match statement's first case
        starts, its subject on the stack (see _starts_cases)."""
        instructions = self.graph.blocks[node].instructions
        inside = skip  # candidates before this are inside a case read from an earlier one
        for index in range(skip, len(instructions)):
            ins = instructions[index]
            if index < inside or not (
                ins.opname in ("MATCH_SEQUENCE", "MATCH_MAPPING") or patterns.copies_top(ins) or _class_pattern_at(instructions, index)
            ):
                continue
            key = (node, index)
            if key not in self._match_starts:
                self._match_starts[key] = self._starts_cases(patterns.Position(node, index))
            starts, case = self._match_starts[key]
            if starts:
                return index
            if case is not None:  # a case of a value alone: what it holds starts none
                inside = min([end.index for end in case.ends if end.block == node] or [len(instructions)])
        return None

    def _read_case(self, position: patterns.Position) -> patterns.CaseRead:
        """patterns.read_case, once per place (finding a match reads the cases its writing reads)."""
        if position not in self._cases:
            try:
                self._cases[position] = patterns.read_case(self.graph, position)
            except Unsupported as error:
                self._cases[position] = error
        read = self._cases[position]
        if isinstance(read, Unsupported):
            raise read
        return read

    def _starts_cases(self, position: patterns.Position) -> tuple[bool, patterns.CaseRead | None]:
        """Whether a case starts at `position` that tests a class, a sequence or a mapping, or
        that copies the subject for a case after it, or whose or-pattern or as-pattern copies
        it (one case of a value alone is an `if`); and the case read there."""
        try:
            case = self._read_case(position)
        except Unsupported:
            return False, None
        if case.tests_structure:
            return True, case
        if not case.copied:
            return bool(case.fails) and patterns.copies_top(self.graph.blocks[position.block].instructions[position.index]), case
        following = case.fail
        if following is None:  # it always matches: its guard's other way is the next case
            block = self.graph.blocks[case.ends[0].block]
            ways = [s for s, k in block.successors if k in ("fall", "jump")] if block.last.opname in CONDITIONAL else []
            others = [w for w in ways if not self._pops_first(w)]
            if len(ways) != 2 or len(others) != 1:
                return False, case
            following = patterns.Position(others[0], 0)
        try:
            self._read_case(following)
        except Unsupported:
            # `case _ if guard:` after it is only its guard (see _match): a condition one of
            # whose ways pops the subject
            block = self.graph.blocks[following.block]
            ways = [s for s, k in block.successors if k in ("fall", "jump")]
            return following.index == 0 and block.last.opname in CONDITIONAL and any(self._pops_first(w) for w in ways), case
        return True, case

    def _guard_first(
        self, node: int, reader: BlockReader, base: list[Any]
    ) -> tuple[ast.expr, tuple[ast.pattern, ast.expr | None, patterns.Position], patterns.Position] | None:
        """A match whose first case is `case _ if guard:` (the guard is all its code: see
        _match), from block `node` whose condition `reader` has computed above the subject: the
        subject, that case, and where the next case starts. None where it is no such match:
        one way of the condition pops the subject, the other starts a case that tests a class,
        a sequence or a mapping, or copies the subject for cases after it."""
        ways = [s for s, k in self.graph.blocks[node].successors if k in ("fall", "jump")]
        if len(ways) != 2 or not isinstance(reader.stack[-2], ast.expr):
            return None
        pops = [w for w in ways if self._pops_first(w)]
        others = [w for w in ways if w not in pops]
        if len(others) != 1 or not self._starts_cases(patterns.Position(others[0], 0))[0]:
            return None
        subject = reader.stack[-2]
        reader.stack[-2] = _MATCH_SUBJECT
        saved = dict(self._entry)
        try:
            condition = self._join(
                node, self._condition_of(node, reader, [*base, _MATCH_SUBJECT]), [*base, _MATCH_SUBJECT], ternaries=False
            )
        except Unsupported:
            self._entry = saved
            reader.stack[-2] = subject
            return None
        sides = [condition.when_true, condition.when_false]
        if others[0] not in sides or reader.statements[len(reader.statements) :]:
            self._entry = saved
            reader.stack[-2] = subject
            return None
        body = next(side for side in sides if side != others[0])
        if not self._pops_first(body):
            self._entry = saved
            reader.stack[-2] = subject
            return None
        test = condition.test if body == condition.when_true else negate(condition.test)
        return subject, (ast.MatchAs(pattern=None, name=None), test, patterns.Position(body, 1)), patterns.Position(others[0], 0)

    def _match(
        self,
        node: int,
        index: int,
        reader: BlockReader,
        loop: _Loop | None,
        base: list[Any],
        stop: int,
        first_case: tuple[ast.expr, tuple[ast.pattern, ast.expr | None, patterns.Position], patterns.Position] | None = None,
    ) -> tuple[list[ast.stmt], int]:
        """The match statement whose subject is on top of `reader`'s stack, its first case
        starting at instruction `index` of block `node` (or `first_case`: the subject, a first
        case that is only a guard, and where the next starts; see _guard_first); and where the
        code goes on after it."""
        first = self.graph.blocks[node].instructions[index]
        cases: list[tuple[ast.pattern, ast.expr | None, patterns.Position]] = []
        if first_case is None:
            subject = reader.pop_value(first)
            position = patterns.Position(node, index)
        else:
            subject, case_read, position = first_case
            cases.append(case_read)
            if reader.stack[len(base) :] == [_MATCH_SUBJECT]:
                reader.stack.pop()  # (what stood for the subject while its guard was read)
        if len(reader.stack) != len(base):
            raise Unsupported(first, "a match statement with values kept below its subject")
        statements = list(reader.statements)
        guard: ast.expr | None
        fail: patterns.Position | None
        default: patterns.Position | None
        while True:
            try:
                case = self._read_case(position)
            except Unsupported:
                if not cases:
                    raise
                # `case _ if guard:` before other cases: Python leaves out the copy of the
                # subject and its pop (the wildcard), so the guard is all there is, the subject
                # below it; its body pops the subject
                read = self._guard(position, [*base, _MATCH_SUBJECT], None, copied=True)
                if read is None or position.half:
                    raise
                guard, when_true, fail = read
                cases.append((ast.MatchAs(pattern=None, name=None), guard, patterns.Position(when_true, 1)))
                position = fail
                continue
            self._check_same_ways(case.ends)
            self._check_same_ways(case.fails)
            end = case.ends[0]
            if case.copied:  # the subject stays for the cases after this one: popped before the body
                if not end.half and self.graph.blocks[end.block].instructions[end.index].opname == "POP_TOP":
                    guard, body, fail = None, self._following(end), case.fail
                else:
                    read = self._guard(end, [*base, _MATCH_SUBJECT], case.fail, copied=True)
                    if read is None:
                        raise Unsupported(first, "a case whose guard is not read")
                    guard, when_true, fail = read
                    body = patterns.Position(when_true, 1)
                if fail is None:
                    raise Unsupported(first, "a case that always matches before others")
                cases.append((case.pattern, guard, body))
                position = fail
                continue
            # the last case: what is left when it fails is the default (`case _:`), or the
            # code after the match. A condition at its start with that for its other way is
            # its guard (where a guard and an `if` in the body do the same, the guard is written).
            read = self._guard(end, base, case.fail, copied=False)
            if read is not None:
                guard, when_true, default = read
                cases.append((case.pattern, guard, patterns.Position(when_true, 0)))
            else:
                cases.append((case.pattern, None, end))
                default = case.fail
            break
        starts = [body for _, _, body in cases] + ([default] if default is not None else [])
        sides = [start.block for start in starts]
        merge = self._merge(node, sides, loop, stop)
        inside = {
            start.block for start in starts if self._block_start(start).index or start.half
        }  # (a body that starts inside a block goes on in it)
        if merge in (EXIT, _NOWHERE, stop):
            merge = self._cases_meet(sides, loop, merge, stop, inside)
        if merge in inside:
            raise Unsupported(first, "a match whose cases meet inside one's code")
        written = [
            ast.match_case(pattern=pattern, guard=guard, body=self._region_from(body, merge, loop, base) or [ast.Pass()])
            for pattern, guard, body in cases
        ]
        after: list[ast.stmt] = []
        if default is not None and self._block_start(default) != patterns.Position(merge, 0):
            rest = self._region_from(default, merge, loop, base)
            if merge in (EXIT, _NOWHERE) and all(case.body and _leaves(case.body) for case in written):
                after = rest  # every case leaves: what follows the match is no case of it
            else:
                written.append(ast.match_case(pattern=ast.MatchAs(pattern=None, name=None), guard=None, body=rest or [ast.Pass()]))
        statements.append(ast.Match(subject=subject, cases=_joined_cases(written)))
        return statements + after, merge

    def _cases_meet(self, sides: list[int], loop: _Loop | None, merge: int, stop: int, inside: set[int]) -> int:
        """Where the cases that go on after a match meet, where the others leave (return,
        raise, break or continue) and never get there: the first block before the region's
        end (`stop`) that two cases reach and every other case reaches or never comes near.
        `merge` where there is none."""
        forwards = {side: self._forward(side) for side in sides}
        going_round = set(self._open_loops) | ({loop.header} if loop is not None else set())
        beyond = self._forward(stop) if stop not in (EXIT, _NOWHERE) and stop not in going_round else set()
        for candidate in sorted(set().union(*forwards.values()), key=lambda index: self.graph.blocks[index].start):
            if (
                candidate in going_round
                or candidate in beyond
                or candidate in inside
                or candidate < 0
                or (loop is not None and candidate not in loop.body)
            ):
                continue
            reaching = [side for side in sides if candidate in forwards[side]]
            if len(reaching) < 2:
                continue
            after = self._forward(candidate) - going_round
            if (
                all(candidate in forwards[side] or not (forwards[side] & after) for side in sides)
                and self._first_common(reaching, loop) == candidate
            ):
                return candidate
        return merge

    def _pops_first(self, index: int) -> bool:
        """Whether block `index` starts by popping (a case's body pops the subject it was copied for)."""
        return self.graph.blocks[index].instructions[0].opname == "POP_TOP"

    def _following(self, at: patterns.Position) -> patterns.Position:
        after = patterns.following(self.graph, at)
        if after is None:
            raise Unsupported(self.graph.blocks[at.block].last, "a case without its body")
        return after

    def _guard(
        self, at: patterns.Position, base: list[Any], fail: patterns.Position | None, copied: bool
    ) -> tuple[ast.expr, int, patterns.Position] | None:
        """A case's guard, from `at` (its pattern matched): a condition with one way to the
        case's body and the other to `fail` (where the pattern goes when it does not match,
        where known); the body of a copied case is the way that pops the subject. None where
        there is none: the code at `at` computes more than a condition, or its ways are not
        those (the last case's body may start with an `if`; where the pattern always
        matches, the two cannot be told apart and the `if` is written)."""
        block = self.graph.blocks[at.block]
        fail = self._block_start(fail) if fail is not None else None
        if block.last.opname not in CONDITIONAL or (fail is not None and fail.index != 0) or (fail is None and not copied):
            return None
        instructions = block.instructions[at.index : -1]
        if at.half:
            instructions = [_second_half(instructions[0]), *instructions[1:]]
        saved = dict(self._entry)
        reader = BlockReader(self.code, self.nested, list(base), self.temps)
        self._current = at.block
        try:
            reader.run(instructions)
            if reader.statements:
                raise Unsupported(block.last, "statements before a condition")
            condition = self._condition_of(at.block, reader, base)
            condition = self._join(at.block, condition, base, ternaries=False)
            if reader.statements:
                raise Unsupported(block.last, "statements in a condition")
        except Unsupported:
            self._entry = saved
            return None
        sides = [condition.when_true, condition.when_false]
        if fail is None:
            bodies = [side for side in sides if self._pops_first(side)]
            if len(bodies) == 2:
                # the next case pops the subject too (`case _ if g:` last before the default):
                # Python writes a case's body right after its guard, the next case after it
                bodies = [min(bodies, key=lambda side: self.graph.blocks[side].start)]
        else:
            bodies = [side for side in sides if side != fail.block]
        if copied and not all(self._pops_first(side) for side in bodies):
            bodies = []
        other = [side for side in sides if side not in bodies]
        if len(bodies) != 1 or len(other) != 1 or (fail is not None and other[0] != fail.block):
            self._entry = saved
            return None
        test = condition.test if bodies[0] == condition.when_true else negate(condition.test)
        return test, bodies[0], patterns.Position(other[0], 0)

    def _block_start(self, at: patterns.Position) -> patterns.Position:
        """The place, as the start of its block where only NOPs (kept for a line) come before."""
        if at.index and not at.half and all(i.opname in cfg.NO_EFFECT for i in self.graph.blocks[at.block].instructions[: at.index]):
            return patterns.Position(at.block, 0)
        return at

    def _region_from(self, at: patterns.Position, stop: int, loop: _Loop | None, base: list[Any]) -> list[ast.stmt]:
        """The statements from instruction `at` (a block, or the rest of one) to block `stop`."""
        at = self._block_start(at)
        if at.index == 0 and not at.half:
            return self.region(at.block, stop, loop, base)
        if at.block in self._skip:
            raise Unsupported(self.graph.blocks[at.block].instructions[0], "a case's body inside another's code")
        self._skip[at.block] = at.index
        if at.half:  # it starts with the load of a 3.13 STORE_FAST_LOAD_FAST whose store is the pattern's
            self._first_replaced[at.block] = _second_half(self.graph.blocks[at.block].instructions[at.index])
        try:
            return self.region(at.block, stop, loop, base)
        finally:
            del self._skip[at.block]
            self._first_replaced.pop(at.block, None)

    def _check_same_ways(self, ends: list[patterns.Position]) -> None:
        """An or-pattern's alternatives go on to one place, or (3.10, 3.12 copy small blocks)
        to copies of the same code; so do a pattern's failures: the first is written, the
        others must be the same."""
        for other in ends[1:]:
            if not _same_code(self.graph, ends[0], other):
                raise Unsupported(self.graph.blocks[other.block].instructions[other.index], "a pattern whose ways go on to different code")

    def _for_loop(
        self, header: int, iterable: ast.expr, outer: _Loop | None, base: list[Any], kept: int = 0
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
        if known is not None and len(known) >= kept and all(_name(a) == _name(b) for a, b in zip(known, base[-kept:])):
            # a way into the code after the loop from outside it (an if's other side) found the
            # values the loop keeps below its iterator on the stack; the loop's ways out find
            # them below (the region after the loop puts them back: see region)
            self._entry[cast(int, after)] = known[kept:]  # (known: after is not None)
        loop = _Loop(header, body, after)
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
        leftover = [LoopIterator(iterable), LOOP_DONE] if sys.version_info >= (3, 12) else []
        orelse: list[ast.stmt] = []
        following, extra = exhausted, leftover
        if after is not None:  # a `break` goes past the code that runs when the loop ends: `else:`
            orelse = self.region(exhausted, after, outer, base, leftover)
            following, extra = after, []
        statement = ast.For(target=item_target, iter=iterable, body=statements or [ast.Pass()], orelse=orelse, type_comment=None, lineno=0)
        return [statement], following, extra

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

    def _depth_at(self, offset: int) -> int | None:
        """How many values are on the stack before the instruction at `offset` (cfg.stack_depths,
        found once, when first asked)."""
        if self._depths is None:
            self._depths = cfg.stack_depths(self.code)
        return self._depths.get(offset)

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
        entry = 6 if sys.version_info < (3, 11) else 1  # what a handler's start finds above its try's stack

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

    def _while_loop(self, header: int, outer: _Loop | None, base: list[Any]) -> tuple[list[ast.stmt], int]:
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
        # (a break out of a with calls its __exit__ on the way, one out of a try's body runs the
        # rest of the body first: where they go is the way out, where another way out goes too)
        around = self._protectors(header)  # (trys and withs the whole loop is in)
        past = {e: self._past_exit_calls(e, body, around) for e in exits}
        exits = {on if on in exits else e for e, on in past.items()}
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
        loop = _Loop(header, body, after, kind="while")
        self._open_loops.append(header)
        self._held_below.append((after, held))
        try:
            statements = self.region(header, _NOWHERE, loop, base, entering=True)
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

    def _loop_ends(self, loop: _Loop) -> set[int]:
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

    def _first_common(self, starts: list[int], loop: _Loop | None, handled: Collection[int] = ()) -> int:
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

    def _leaves_before(self, sides: list[int], stop: int, merge: int, loop: _Loop | None) -> bool:
        """Whether a side of a branch reaches the end of the region (`stop`) before the sides
        meet (a `continue` or `break` to the loop's ends is no leaving)."""
        if loop is not None and stop in (loop.header, loop.after):
            return False
        return any(stop in self._forward(side, avoid=merge) for side in sides)

    def _reaches(self, start: int, target: int) -> bool:
        """Whether control goes from block `start` on to block `target`, within one turn of the
        loops being written (not around through their headers)."""
        return start not in self._open_loops and target in self._forward(start)

    def _note_target(self, reader: BlockReader, loop: _Loop | None) -> None:
        if reader.loop_target is not None and loop is not None:
            self._targets[loop.header] = reader.loop_target


_MATCH_OPCODES = frozenset(dis.opmap[name] for name in patterns.MATCH_OPCODES if name in dis.opmap)
_COPY_OPCODES = frozenset(dis.opmap[name] for name in ("COPY", "DUP_TOP") if name in dis.opmap)


class _MatchSubject:
    """A match statement's subject, below a guard's values while the guard is read (a guard
    never reads it: reading it fails)."""


_MATCH_SUBJECT = _MatchSubject()


def _joined_cases(cases: list[ast.match_case]) -> list[ast.match_case]:
    """Cases in a row with the same body, no guard and no names, as one or-pattern: a last
    case's or-pattern is read as one case per alternative (its copies of the subject read as
    the copies cases make), and either way matches the same."""
    joined: list[ast.match_case] = []
    for case in cases:
        previous = joined[-1] if joined else None
        if (
            previous is not None
            and previous.guard is None
            and case.guard is None
            and not _binds(previous.pattern)
            and not _binds(case.pattern)
            and not patterns.is_wildcard(case.pattern)
            and _dump(previous.body) == _dump(case.body)
        ):
            alternatives = previous.pattern.patterns if isinstance(previous.pattern, ast.MatchOr) else [previous.pattern]
            previous.pattern = ast.MatchOr(
                patterns=[*alternatives, *(case.pattern.patterns if isinstance(case.pattern, ast.MatchOr) else [case.pattern])]
            )
            continue
        joined.append(case)
    return joined


def _binds(pattern: ast.pattern) -> bool:
    """Whether the pattern stores any name (a capture, `as`, `*rest`, `**rest`)."""
    for node in ast.walk(pattern):
        if (isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name is not None) or (
            isinstance(node, ast.MatchMapping) and node.rest is not None
        ):
            return True
    return False


def _second_half(instruction: dis.Instruction) -> dis.Instruction:
    """The load of a 3.13 STORE_FAST_LOAD_FAST, as an instruction of its own."""
    name = instruction.argval[1]
    return instruction._replace(opname="LOAD_FAST", opcode=dis.opmap["LOAD_FAST"], argval=name, argrepr=name)


def _value_case_at(instructions: list[dis.Instruction], index: int) -> bool:
    """Whether a case of values may start at instruction `index`: the subject copied and
    compared with a value (`COPY 1; LOAD_CONST 1; COMPARE_OP ==`), or with None, True, False."""
    ins = instructions[index]
    if not patterns.copies_top(ins) or index + 2 >= len(instructions):
        return False
    loaded, compared = instructions[index + 1], instructions[index + 2]
    return loaded.opname.startswith("LOAD_") and (compared.opname in ("COMPARE_OP", "IS_OP", "LOAD_ATTR") or compared.opname in CONDITIONAL)


def _class_pattern_at(instructions: list[dis.Instruction], index: int) -> bool:
    """Whether a class pattern's class (a name, a dotted name) is loaded from instruction `index`."""
    if not instructions[index].opname.startswith("LOAD_") or instructions[index].opname in ("LOAD_ATTR", "LOAD_CONST"):
        return False
    after = index + 1
    while after < len(instructions) and instructions[after].opname == "LOAD_ATTR":
        after += 1
    return (
        after + 1 < len(instructions)
        and instructions[after].opname == "LOAD_CONST"
        and isinstance(instructions[after].argval, tuple)
        and instructions[after + 1].opname == "MATCH_CLASS"
    )


def _same_code(graph: cfg.Graph, first: patterns.Position, second: patterns.Position, depth: int = 0) -> bool:
    """Whether the code from two places does the same, instruction by instruction (jumps to
    the same code count as the same), up to where they meet or end."""
    if depth > 20:
        return False
    for _ in range(500):
        if first == second:
            return True
        one, other = (graph.blocks[p.block].instructions[p.index] for p in (first, second))
        if (
            one.opname != other.opname
            or (not cfg.is_jump(one) and (one.arg != other.arg or one.argval != other.argval))
            or first.half != second.half
        ):
            return False
        if one.opname in cfg.TERMINATORS:
            return True
        if cfg.is_jump(one):
            targets = [patterns.Position(next(s for s, k in graph.blocks[p.block].successors if k == "jump"), 0) for p in (first, second)]
            if one.opname in cfg.UNCONDITIONAL:
                first, second = targets
                continue
            if not _same_code(graph, targets[0], targets[1], depth + 1):
                return False
        ways = [patterns.following(graph, p) for p in (first, second)]
        if ways[0] is None or ways[1] is None:
            return False
        first, second = cast("list[patterns.Position]", ways)  # (neither is None: see above)
    return False


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


def _name(value: Any) -> Any:
    if empty_display(value):  # (each way in brings its own: they are alike)
        return type(value)
    return value.id if isinstance(value, ast.Name) else value


_NOWHERE = -2  # a merge point outside the loop body: the region ends where its paths leave


@dataclass
class _Loop:
    header: int
    body: set[int]
    after: int | None  # where `break` goes, when it goes past the loop's else
    kind: str = "for"


_CO_COROUTINE, _CO_ITERABLE_COROUTINE, _CO_ASYNC_GENERATOR = 0x80, 0x100, 0x200


def _code_at(instructions: list[dis.Instruction]) -> tuple[tuple[str, str, int | None], ...]:
    """What instructions do, and on which lines (3.10 marks only where a line starts)."""
    done, line = [], None
    for i in instructions:
        positions = getattr(i, "positions", None)
        line = positions.lineno if positions is not None else (i.starts_line or line)
        if i.opname not in cfg.NO_EFFECT:
            done.append((i.opname, repr(i.argval), line))
    return tuple(done)


PREVIOUS_AND_CAUGHT = (PREVIOUS, CAUGHT)


def _drop_handler_ends(statements: list[ast.stmt]) -> None:
    """POP_EXCEPT before a break, continue or return inside a clause: leaving it does the same."""
    statements[:] = [st for st in statements if not isinstance(st, HandlerEnd)]
    for st in statements:
        for field in ("body", "orelse"):
            inner = getattr(st, field, None)
            if isinstance(inner, list) and inner:
                _drop_handler_ends(inner)
                if not inner and field == "body":
                    inner.append(ast.Pass())


def _returns_local(statement: ast.stmt) -> bool:
    """Leaving the clause this way after its end or just before it is the same: a jump, or a
    return of a local or a constant (nothing that could see the exception being handled)."""
    if isinstance(statement, (ast.Break, ast.Continue)):
        return True
    return isinstance(statement, ast.Return) and (
        statement.value is None
        or isinstance(statement.value, (ast.Name, ast.Constant))
        or (isinstance(statement.value, ast.Tuple) and all(isinstance(e, (ast.Name, ast.Constant)) for e in statement.value.elts))
    )


def _leaves_plainly(tail: list[ast.stmt]) -> bool:
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
    return moves and _returns_local(tail[-1])


def _safe_return(graph: cfg.Graph, index: int, loads: int, inside: Callable[[int], bool] = lambda index: True) -> bool:
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


def _joined(first: _Condition, second: _Condition, side: str, same: Callable[[int, int], int | None] | None = None) -> _Condition | None:
    """`first` and then `second` (reached from first's `side`) as one condition, or None.
    `same`, where given, finds two targets the same place (the place, or None)."""
    if same is not None:  # each side's own jump to one place (3.12+ `continue`s): one target
        for mine in ("when_true", "when_false"):
            for theirs in ("when_true", "when_false"):
                if mine != side:
                    place = same(getattr(first, mine), getattr(second, theirs))
                    if place is not None and getattr(first, mine) != getattr(second, theirs):
                        first = _Condition(first.test, *(place if m == mine else getattr(first, m) for m in ("when_true", "when_false")))
                        second = _Condition(
                            second.test, *(place if t == theirs else getattr(second, t) for t in ("when_true", "when_false"))
                        )
    if side == "when_true":
        if second.when_false == first.when_false:  # a and b
            return _Condition(_bool(ast.And, first.test, second.test), second.when_true, first.when_false)
        if second.when_true == first.when_false:  # not a or b
            return _Condition(_bool(ast.Or, negate(first.test), second.test), second.when_true, second.when_false)
        return None
    if second.when_true == first.when_true:  # a or b
        return _Condition(_bool(ast.Or, first.test, second.test), first.when_true, second.when_false)
    if second.when_false == first.when_true:  # not a and b
        return _Condition(_bool(ast.And, negate(first.test), second.test), second.when_true, second.when_false)
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
        and _leaves(orelse)
        and (
            len(orelse) < len(body)
            or (len(orelse) == len(body) and isinstance(orelse[-1], ast.Raise) and not isinstance(body[-1], ast.Raise))
        )
    ):
        return [ast.If(test=negate(test), body=orelse, orelse=[]), *body]
    if body and _leaves(body):
        return [ast.If(test=test, body=body, orelse=[]), *orelse]
    if not body:
        return [ast.If(test=negate(test), body=orelse, orelse=[])] if orelse else [ast.If(test=test, body=[ast.Pass()], orelse=[])]
    return [ast.If(test=test, body=body, orelse=orelse)]


def _reaches_first(chain: list[int], these: set[int | None], those: set[int]) -> bool:
    """Whether `chain` meets one of `these` before any of `those`."""
    return next((n in these for n in chain if n in these or n in those), False)


def _dump(statements: list[ast.stmt]) -> str:
    return ast.dump(ast.Module(body=statements, type_ignores=[]))


def _leaves(statements: list[ast.stmt]) -> bool:
    return isinstance(statements[-1], (ast.Return, ast.Raise, ast.Break, ast.Continue))


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
