"""The decompiler's third layer: the control-flow graph -> structured statements.

Found from the graph, never from instruction patterns:
- if / elif / else: a branch's two sides meet again at the branch block's immediate
  post-dominator (or, where a side returns, raises or goes round a loop again, at the first
  block the sides that go on both reach); conditions joined by `and`, `or` and `not`;
- for and while loops: natural loops; reaching the header again is `continue`, a way out that
  jumps past the loop is `break`, and the code between the loop's end and the break's target
  is its `else`;
- try / except / else / finally and with: the blocks a handler protects are the body, its
  except chain the clauses; a finally's copies on the body's ways out are taken out first
  (finally_copies.py), and so are the pieces Python cuts a way out into (_join);
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
import builtins
import copy
import dis
import sys
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from types import CodeType
from typing import Any, cast

from compilescope.decompiler import cfg, finally_copies, patterns
from compilescope.decompiler.expressions import (
    CAUGHT,
    HANDLER_ENTRY_310,
    LOOP_DONE,
    NEXT_ITEM,
    PREVIOUS,
    BlockReader,
    CaughtAs,
    ChainLeft,
    ExceptionMatch,
    HandlerEnd,
    LoopIterator,
    Saved,
    Temporaries,
    Unsupported,
    WithEnter,
    WithExit,
    WithTarget,
    _arguments,
    empty_display,
    name_cleanup,
)
from compilescope.decompiler.tidy import (
    conditional_assignment,
    negate,
    put_back_values,
    tidy,
)
from compilescope.decompiler.unparse import unparse

EXIT = -1  # the virtual block every return and raise leads to

# Conditional jumps: (the value that makes the jump, what it is tested as).
_CONDITIONAL = {
    "POP_JUMP_IF_TRUE": (True, "truth"),
    "POP_JUMP_IF_FALSE": (False, "truth"),
    "POP_JUMP_FORWARD_IF_TRUE": (True, "truth"),
    "POP_JUMP_FORWARD_IF_FALSE": (False, "truth"),
    "POP_JUMP_BACKWARD_IF_TRUE": (True, "truth"),
    "POP_JUMP_BACKWARD_IF_FALSE": (False, "truth"),
    "POP_JUMP_IF_NONE": (True, "none"),
    "POP_JUMP_IF_NOT_NONE": (False, "none"),
    "POP_JUMP_FORWARD_IF_NONE": (True, "none"),
    "POP_JUMP_FORWARD_IF_NOT_NONE": (False, "none"),
    "POP_JUMP_BACKWARD_IF_NONE": (True, "none"),
    "POP_JUMP_BACKWARD_IF_NOT_NONE": (False, "none"),
    # 3.10, 3.11 `a or b` / `a and b` as values: the value stays on the stack when it jumps.
    "JUMP_IF_TRUE_OR_POP": (True, "kept"),
    "JUMP_IF_FALSE_OR_POP": (False, "kept"),
}


@dataclass
class _Condition:
    test: ast.expr  # true: control goes to `when_true`
    when_true: int
    when_false: int


class Structurer:
    def __init__(self, code: CodeType) -> None:
        self.code = code
        if code.co_flags & (_CO_COROUTINE | _CO_ITERABLE_COROUTINE | _CO_ASYNC_GENERATOR):
            raise Unsupported(None, "async functions are not decompiled yet")
        graph = _chained_comparisons(_without_empty_loop_starts(_without_implicit_handlers(cfg.build(code))))
        graph, self._finallys = finally_copies.without_copies(_without_send_loops(graph))
        graph = _without_repeated_conditions(
            _joined_copied_exits(_joined_copied_endings(_joined_returns(_copies_after_exits_joined(_joined_exit_calls(graph)))))
        )
        self.graph, self._suppressed = _with_suppression_targets(_unrepeated_for_loops(_without_block_pops(graph)))
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
                if "CHECK_EXC_MATCH" not in names or block.last.opname not in _CONDITIONAL:
                    break
                chains.add(index)
                taken_when, _ = _CONDITIONAL[block.last.opname]
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
        if depth > 20 or not _exit_call_block(block):
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
        if not rest or not same or _code(rest[:-1]) != _code(same[:-1]):
            return False
        # 3.12+ copies a short ending (`return x`) to both ways: the same code is the same place
        if rest[-1].opname in cfg.TERMINATORS:
            return _code(rest[-1:]) == _code(same[-1:])
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
                real = [i.opname for i in _without_name_cleanup([i for i in block.instructions if i.opname not in cfg.NO_EFFECT])]
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
                real = _without_name_cleanup([i for i in self.graph.blocks[index].instructions if i.opname not in cfg.NO_EFFECT])
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
                reader = BlockReader(self.code, base + list(HANDLER_ENTRY_310), self.temps)
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
            if "CHECK_EXC_MATCH" in names and block.last.opname in _CONDITIONAL:
                reader = BlockReader(self.code, base + entry, self.temps)
                reader.run(instructions[: names.index("CHECK_EXC_MATCH") + 1])
                match = reader.stack[-1] if reader.stack else None
                if reader.statements or not isinstance(match, ExceptionMatch) or names.index("CHECK_EXC_MATCH") != len(names) - 2:
                    raise Unsupported(block.last, "an except clause of a shape not decompiled yet")
                taken_when, _ = _CONDITIONAL[block.last.opname]
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
        reader = BlockReader(self.code, base + entry, self.temps)
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
        taken_when, kind = _CONDITIONAL[jump.opname]
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
        return bool(block.predecessors) and set(block.predecessors) <= set(only_from) and block.last.opname in _CONDITIONAL

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
            return _same_ending(self.graph, cfg.through_jumps(self.graph, index), locals_too=True)

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
            if last.opname in _CONDITIONAL:
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
                        statements[-1:] = _inlined_comprehension(made, loop_statements)
                    except Unsupported:
                        # its element's values kept across blocks (`str(a or b)`): put back as
                        # in any body (tidy would, too late for this), then read again. What
                        # the loop's body computes is only ever read inside it.
                        put_back_values(loop_statements, self.code, self.temps, context=[made] if made is not None else [])
                        statements[-1:] = _inlined_comprehension(made, loop_statements)
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
            ways = [s for s, k in block.successors if k in ("fall", "jump")] if block.last.opname in _CONDITIONAL else []
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
            return following.index == 0 and block.last.opname in _CONDITIONAL and any(self._pops_first(w) for w in ways), case
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
        if block.last.opname not in _CONDITIONAL or (fail is not None and fail.index != 0) or (fail is None and not copied):
            return None
        instructions = block.instructions[at.index : -1]
        if at.half:
            instructions = [_second_half(instructions[0]), *instructions[1:]]
        saved = dict(self._entry)
        reader = BlockReader(self.code, list(base), self.temps)
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
            if block.last.opname in cfg.TERMINATORS or len(ways) != 1 or ways[0] in body or not _exit_call_block(block):
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
    return loaded.opname.startswith("LOAD_") and (
        compared.opname in ("COMPARE_OP", "IS_OP", "LOAD_ATTR") or compared.opname in _CONDITIONAL
    )


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


_CO_GENERATOR, _CO_COROUTINE, _CO_ITERABLE_COROUTINE, _CO_ASYNC_GENERATOR = 0x20, 0x80, 0x100, 0x200


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
            i.opname in cfg.NO_EFFECT or i.opname in cfg.UNCONDITIONAL or sys.version_info >= (3, 12) and i.opname in _CONDITIONAL
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
            _join(graph, block, following)
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


_COMPARISONS = ("COMPARE_OP", "IS_OP", "CONTAINS_OP")
_FALSE_JUMPS = ("POP_JUMP_IF_FALSE", "POP_JUMP_FORWARD_IF_FALSE", "JUMP_IF_FALSE_OR_POP")


def _chained_comparisons(graph: cfg.Graph) -> cfg.Graph:
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
                _join(graph, block, following)
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
        if sys.version_info >= (3, 11) and kept
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
    elif not kept and rest and _CONDITIONAL.get(rest[-1].opname, (None, None))[1] == "none":
        after = rest[-1:]  # `is None` last, in the jump (3.11+)
    else:
        return None
    if kept:  # the value goes on: where the false way goes with it, the last comparison's does
        same = _going_on(graph, cleanup, cleanup_real[len(drops) :]) == _going_on(graph, following, after)
    else:  # a test: the false way goes where the last comparison's false way goes
        jump = following.last
        if not after or after[-1] is not jump or jump.opname not in _CONDITIONAL or len(after) > 2:
            return None
        taken_when, _ = _CONDITIONAL[jump.opname]
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
    return ("code", _code(rest), tuple(sorted(s for s, k in block.successors if k != "exception")))


def _join(graph: cfg.Graph, block: cfg.Block, following: cfg.Block) -> None:
    """Block `following` (reached only from `block`, which falls into it) becomes the end of
    `block`; what protects either protects the whole."""
    block.instructions = block.instructions + following.instructions
    block.end = following.end
    block.successors = [
        *following.successors,
        *[(s, k) for s, k in block.successors if k == "exception" and (s, k) not in following.successors],
    ]
    for successor, _ in block.successors:  # they are now reached from this block
        after = graph.blocks[successor].predecessors
        after[:] = list(dict.fromkeys(block.index if p == following.index else p for p in after))
    following.successors = []
    following.predecessors = []


def _without_send_loops(graph: cfg.Graph) -> cfg.Graph:
    """3.11+ writes `yield from x` as a loop: SEND, YIELD_VALUE, back to SEND, until the
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
        if names[-2:] != ["GET_YIELD_FROM_ITER", "LOAD_CONST"]:
            continue  # `await` (GET_AWAITABLE) is not decompiled yet
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


def _exit_call_block(block: cfg.Block) -> bool:
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
        if "WITH_EXCEPT_START" not in names[:2] or block.last.opname not in _CONDITIONAL or not _CONDITIONAL[block.last.opname][0]:
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
    return _joined_falls(graph, _exit_call_block, lambda following: _exit_call_block(following) or _cannot_raise(following.instructions))


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
            _join(graph, block, following)
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
            and _exit_call_block(block)
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
        if graph.blocks[index].last.opname in ("SETUP_WITH", "BEFORE_WITH"):
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
        code = tuple(("JUMP", argument) if name in cfg.UNCONDITIONAL else (name, argument) for name, argument in _code(block.instructions))
        key = (code, tuple(sorted(s for s, k in block.successors)))
        if key in first:
            replace[index] = first[key]
        else:
            first[key] = index


def _code(instructions: list[dis.Instruction]) -> tuple[tuple[str, str], ...]:
    """What instructions do, wherever they are: names and arguments, without those that do
    nothing."""
    return tuple((i.opname, repr(i.argval)) for i in instructions if i.opname not in cfg.NO_EFFECT)


def _code_at(instructions: list[dis.Instruction]) -> tuple[tuple[str, str, int | None], ...]:
    """What instructions do, and on which lines (3.10 marks only where a line starts)."""
    done, line = [], None
    for i in instructions:
        positions = getattr(i, "positions", None)
        line = positions.lineno if positions is not None else (i.starts_line or line)
        if i.opname not in cfg.NO_EFFECT:
            done.append((i.opname, repr(i.argval), line))
    return tuple(done)


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
            returning.setdefault((_code(block.instructions), cfg.handlers(block)), []).append(block.index)
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
        if not _exit_call_block(head) or not _returns_alone(rest):
            continue
        # the code after the loop the break leaves: where the loop's other ways out go
        loops = [body for body in graph.loops.values() if set(block.predecessors) & body]
        if not loops:
            continue
        body = min(loops, key=len)
        ways_out = {cfg.through_jumps(graph, s) for b in body for s, k in graph.blocks[b].successors if k != "exception" and s not in body}
        originals = [o for o in returning.get((_code(rest.instructions), cfg.handlers(block)), []) if o != block.index and o in ways_out]
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


PREVIOUS_AND_CAUGHT = (PREVIOUS, CAUGHT)


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
    if block.index not in graph.reachable or block.last.opname not in _CONDITIONAL:
        return None
    taken_when, kind = _CONDITIONAL[block.last.opname]
    fall = next((s for s, k in block.successors if k == "fall"), None)
    jump = next((s for s, k in block.successors if k == "jump"), None)
    if fall is None or jump is None or kind == "kept":
        return None
    when_true, when_false = (jump, fall) if taken_when else (fall, jump)
    when_true, when_false = (_same_ending(graph, cfg.through_jumps(graph, side)) for side in (when_true, when_false))
    body = _code(block.instructions[:-1])
    exceptions = tuple(sorted(s for s, k in block.successors if k == "exception"))
    return body, (kind, when_true, when_false, exceptions)


def _same_ending(graph: cfg.Graph, index: int, locals_too: bool = False) -> Any:
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
        return _code(real)
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


# Instructions that cannot raise (POP_TOP may run a __del__, whose exceptions Python never
# raises): moving them into a try changes nothing.
_CANNOT_RAISE = frozenset(
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
    real = _without_name_cleanup([i for i in instructions if i.opname not in cfg.NO_EFFECT])
    return bool(real) and all(i.opname in _CANNOT_RAISE for i in real)


def _without_name_cleanup(real: list[dis.Instruction]) -> list[dis.Instruction]:
    """The instructions without the `e = None; del e` by which `except E as e` unbinds e just
    after its POP_EXCEPT."""
    for at in range(1, len(real)):
        if real[at - 1].opname == "POP_EXCEPT" and name_cleanup(real[at : at + 3]):
            return real[:at] + real[at + 3 :]
    return real


def _safe_return(graph: cfg.Graph, index: int, loads: int, inside: Callable[[int], bool] = lambda index: True) -> bool:
    """Code that only returns: a value already on the stack, a constant, or (at most `loads`) a
    local known to be bound, read in blocks `inside` holds (not past an enclosing finally's
    copy, which may change it), perhaps ending an except clause on the way. It cannot raise, so
    it is the same inside the try as after it."""
    allowed, loads = loads, 0
    for _ in range(len(graph.blocks)):
        block = graph.blocks[index]
        names = [i.opname for i in _without_name_cleanup([i for i in block.instructions if i.opname not in cfg.NO_EFFECT])]
        read = sum(n in ("LOAD_FAST", "LOAD_FAST_LOAD_FAST") for n in names)
        if read and not inside(index):
            return False
        loads += read
        if loads > allowed or any(
            n not in _CANNOT_RAISE and n not in ("LOAD_FAST", "LOAD_FAST_LOAD_FAST") and n not in cfg.UNCONDITIONAL for n in names
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


def function_source(code: CodeType, defaults: tuple[Any, ...] | None = None, kwdefaults: dict[str, Any] | None = None) -> str:
    """Source for a function: `def f(...): ...`, with its default values (see _add_defaults).
    Raises Unsupported where it cannot say."""
    function, temps = function_def(code)
    notes = _add_defaults(function.args, defaults, kwdefaults)
    text = unparse(ast.fix_missing_locations(ast.Module(body=[function], type_ignores=[]))) + "\n"
    # objects in the code that no literal writes: named, shown here
    notes += [
        f"# {name} is the code's constant {_short_repr(value)} (an object no literal writes)" for name, value in temps.constants.items()
    ]
    if notes:
        text = "\n".join(notes) + "\n" + text
    return text


def function_def(code: CodeType) -> tuple[ast.FunctionDef, Temporaries]:
    """The function as an `ast.FunctionDef` (no defaults: they are not in the code), and the
    temporaries it uses."""
    structurer = Structurer(code)
    body = tidy(structurer.region(0, EXIT), code, structurer.temps) or [ast.Pass()]
    # The `return None` Python adds at the end of a function is not the user's (nor its copies
    # at the end of each way into the end).
    _drop_final_returns(body)
    # A generator whose yields are all unreachable is still a generator: say so, as Python does.
    if code.co_flags & _CO_GENERATOR and not any(isinstance(n, (ast.Yield, ast.YieldFrom)) for s in body for n in ast.walk(s)):
        body = [*body, ast.If(test=ast.Constant(value=False), body=[ast.Expr(value=ast.Yield(value=None))], orelse=[])]
    # A free variable the function assigns is the enclosing function's: `nonlocal`.
    rebound = sorted(
        {i.argval for i in dis.get_instructions(code) if i.opname in ("STORE_DEREF", "DELETE_DEREF") and i.argval in code.co_freevars}
    )
    if rebound:
        body = [ast.Nonlocal(names=rebound), *body]
    # (no type_params here, which typeshed requires: 3.10 and 3.11 have none; set below on 3.12+)
    function = ast.FunctionDef(
        name=function_name(code), args=_arguments(code), body=body, decorator_list=[], returns=None, type_comment=None, lineno=1
    )  # type: ignore[call-overload]
    if sys.version_info >= (3, 12):
        function.type_params = []
    return function, structurer.temps


def nested_function(code: CodeType) -> ast.FunctionDef:
    """A function defined inside the one being decompiled (its body, decompiled the same way)."""
    function, temps = function_def(code)
    if temps.constants:
        raise Unsupported(None, f"{code.co_name} holds constants no literal writes")
    return function


def class_body(code: CodeType) -> list[ast.stmt]:
    """The statements of a class body (its own code object, run once to fill the namespace),
    without what Python adds: `__module__ = __name__`, `__qualname__ = ...`, 3.13's
    `__firstlineno__` and `__static_attributes__`, the `__class__` cell it returns for methods
    that use `super()`. `__annotations__['x'] = T` after `x = v` is `x: T = v`."""
    function, temps = function_def(code)
    if temps.constants:
        raise Unsupported(None, f"class {code.co_name} holds constants no literal writes")
    body = [st for st in function.body if not (isinstance(st, ast.Pass) and len(function.body) == 1)]
    added = {"__module__", "__qualname__", "__firstlineno__", "__static_attributes__", "__classcell__"}
    if body and isinstance(body[-1], ast.Return) and isinstance(body[-1].value, ast.Name):
        returned = body[-1].value.id  # the __class__ cell, perhaps through a temporary
        copied = [st for st in body if _assigned_name(st) == returned and isinstance(st.value, ast.Name) and st.value.id == "__class__"]  # type: ignore[attr-defined]
        if returned == "__class__" or (returned.startswith("__") and len(copied) == 1):
            body = [st for st in body[:-1] if not any(st is c for c in copied)]
    body = [st for st in body if _assigned_name(st) not in added]
    first = body[0] if body else None
    if (
        first is not None
        and _assigned_name(first) == "__doc__"
        and isinstance(first.value, ast.Constant)  # type: ignore[attr-defined]  # (an assignment: it has a value)
        and isinstance(first.value.value, str)  # type: ignore[attr-defined]
    ):
        body[0] = ast.Expr(value=first.value)  # type: ignore[attr-defined]  # the docstring
    if any(isinstance(n, ast.Return) for st in body for n in _own_nodes(st)):
        raise Unsupported(None, f"class {code.co_name}: a return in its body")
    return _annotated(body) or [ast.Pass()]


def _assigned_name(statement: ast.stmt) -> str | None:
    """The name `name = value` assigns; None for any other statement."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
        return statement.targets[0].id
    return None


def _own_nodes(statement: ast.stmt) -> Iterator[ast.AST]:
    """The nodes of a statement, not those of the functions and classes it defines."""
    todo: list[ast.AST] = [statement]
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.Lambda)):
            todo += list(ast.iter_child_nodes(node))


def _annotated(body: list[ast.stmt]) -> list[ast.stmt]:
    """`x = v; __annotations__['x'] = T` -> `x: T = v`; alone, `x: T`."""
    out: list[ast.stmt] = []
    for statement in body:
        target = statement.targets[0] if isinstance(statement, ast.Assign) and len(statement.targets) == 1 else None
        if (
            isinstance(target, ast.Subscript)
            and isinstance(target.value, ast.Name)
            and target.value.id == "__annotations__"
            and isinstance(target.slice, ast.Constant)
            and isinstance(target.slice.value, str)
        ):
            name = target.slice.value
            value = None
            if out and _assigned_name(out[-1]) == name:
                value = out.pop().value  # type: ignore[attr-defined]
            out.append(ast.AnnAssign(target=ast.Name(id=name, ctx=ast.Store()), annotation=statement.value, value=value, simple=1))  # type: ignore[attr-defined]
            continue
        out.append(statement)
    return out


def _inlined_comprehension(made: ast.stmt | None, loop: list[ast.stmt]) -> list[ast.stmt]:
    """3.12+ runs a comprehension in the function's own frame: `T = []` (the empty list the
    loop fills, in its temporary), then the loop. As written: `T = [e for x in it ...]`. Values
    computed before it (`sum` in `sum([...])`) are stored with it: `S, T = sum, []`."""
    kinds = {ast.List: "<listcomp>", ast.Set: "<setcomp>", ast.Dict: "<dictcomp>"}
    if (
        isinstance(made, ast.Assign)
        and len(made.targets) == 1
        and isinstance(made.targets[0], ast.Tuple)
        and isinstance(made.value, ast.Tuple)
        and len(made.targets[0].elts) == len(made.value.elts) > 1
    ):
        before = [ast.Assign(targets=[t], value=v, lineno=0) for t, v in zip(made.targets[0].elts[:-1], made.value.elts[:-1])]
        last = ast.Assign(targets=[made.targets[0].elts[-1]], value=made.value.elts[-1], lineno=0)
        return [*before, *_inlined_comprehension(last, loop)]
    if not (
        isinstance(made, ast.Assign)
        and len(made.targets) == 1
        and isinstance(made.targets[0], ast.Name)
        and type(made.value) in kinds
        and len(loop) == 1
        and isinstance(loop[0], ast.For)
    ):
        raise Unsupported(None, "an inlined comprehension of a shape not decompiled yet")
    empty = made.value
    if (isinstance(empty, ast.Dict) and empty.keys) or (not isinstance(empty, ast.Dict) and empty.elts):  # type: ignore[attr-defined]
        raise Unsupported(None, "an inlined comprehension of a shape not decompiled yet")
    kind = kinds[type(empty)]
    result = made.targets[0].id
    return [ast.Assign(targets=made.targets, value=_comprehension_of(kind, loop[0], result, None), lineno=0)]


def _comprehension_of(kind: str, statement: ast.stmt | None, result: str | None, iterable: ast.expr | None) -> ast.expr:
    """The comprehension a loop (or loops) that only adds to `result` writes; `iterable`
    replaces the first `for`'s when given (a comprehension's own function iterates `.0`)."""
    generators: list[ast.comprehension] = []
    while True:
        if isinstance(statement, ast.For) and not statement.orelse and len(statement.body) >= 1:
            generators.append(ast.comprehension(target=statement.target, iter=statement.iter, ifs=[], is_async=0))
            body = list(statement.body)
        elif isinstance(statement, ast.If) and generators and not statement.orelse:
            generators[-1].ifs.append(statement.test)
            body = list(statement.body)
        else:
            break
        # `if not c: continue` then the rest is `if c` around the rest
        while (
            len(body) > 1
            and isinstance(body[0], ast.If)
            and not body[0].orelse
            and len(body[0].body) == 1
            and isinstance(body[0].body[0], ast.Continue)
        ):
            generators[-1].ifs.append(negate(body[0].test))
            body = body[1:]
        body = _element_inlined(body, result)
        if len(body) != 1:
            raise Unsupported(None, f"a {kind} of a shape not decompiled yet")
        statement = body[0]
    element = _element(kind, statement, result)
    if not generators or element is None:
        raise Unsupported(None, f"a {kind} of a shape not decompiled yet")
    if result is not None and any(isinstance(n, ast.Name) and n.id == result for g in generators for n in ast.walk(g)):
        raise Unsupported(None, f"a {kind} that reads what it builds")
    if any(isinstance(n, ast.Name) and n.id == result for e in element for n in ast.walk(e)):
        raise Unsupported(None, f"a {kind} that reads what it builds")
    if iterable is not None:
        if not (isinstance(generators[0].iter, ast.Name) and generators[0].iter.id == ".0"):
            raise Unsupported(None, f"a {kind} of a shape not decompiled yet")
        generators[0].iter = iterable
    if kind == "<listcomp>":
        return ast.ListComp(elt=element[0], generators=generators)
    if kind == "<setcomp>":
        return ast.SetComp(elt=element[0], generators=generators)
    if kind == "<dictcomp>":
        return ast.DictComp(key=element[0], value=element[1], generators=generators)
    return ast.GeneratorExp(elt=element[0], generators=generators)


def _element_inlined(body: list[ast.stmt], result: str | None) -> list[ast.stmt]:
    """`T = a if c else b` (or, 3.12+, still as `if c: T = a else: T = b`) then `R.append(T)`
    or `yield T`: the element computed in branches and kept in a temporary, added just after.
    The same as `R.append(a if c else b)`: R is the comprehension's own new list, looking up
    its method runs no code."""
    if len(body) == 3:
        return _dict_element_inlined(body, result)
    if len(body) != 2:
        return body
    first, element = body
    first = conditional_assignment(first, lambda name: name.startswith("__")) or first
    if not (isinstance(first, ast.Assign) and len(first.targets) == 1 and isinstance(first.targets[0], ast.Name)):
        return body
    name = first.targets[0].id
    if not name.startswith("__") or name == result or not isinstance(element, ast.Expr):
        return body
    uses = [n for n in ast.walk(element) if isinstance(n, ast.Name) and n.id == name]
    call = element.value
    if isinstance(call, ast.Yield) and len(uses) == 1 and call.value is uses[0]:
        return [ast.Expr(value=ast.Yield(value=first.value))]
    adds = (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and isinstance(call.func.value, ast.Name)
        and call.func.value.id == result
    )
    added = cast(ast.Call, call)  # (a call wherever `adds` holds)
    if adds and len(uses) == 1 and len(added.args) == 1 and added.args[0] is uses[0]:
        return [ast.Expr(value=ast.Call(func=added.func, args=[first.value], keywords=[]))]
    return body


def _dict_element_inlined(body: list[ast.stmt], result: str | None) -> list[ast.stmt]:
    """3.12+ `{k: a if c else b for ...}`: the key kept in a temporary, each branch storing
    (key, value) in two more, then `R[K] = V`. As `R[k] = a if c else b`, the form of a
    dict comprehension's step (it computes the key first, as the comprehension does)."""
    first, branch, step = body

    def temp(node):
        return isinstance(node, ast.Name) and node.id.startswith("__") and node.id != result

    if not (
        isinstance(first, ast.Assign)
        and len(first.targets) == 1
        and temp(first.targets[0])
        and isinstance(branch, ast.If)
        and len(branch.body) == 1
        and len(branch.orelse) == 1
    ):
        return body
    key = first.targets[0].id  # type: ignore[attr-defined]
    values = []
    names = None
    for side in (branch.body[0], branch.orelse[0]):
        if not (
            isinstance(side, ast.Assign)
            and len(side.targets) == 1
            and isinstance(side.targets[0], ast.Tuple)
            and isinstance(side.value, ast.Tuple)
            and len(side.targets[0].elts) == len(side.value.elts) == 2
        ):
            return body
        targets = side.targets[0].elts
        if not all(temp(t) for t in targets) or not (isinstance(side.value.elts[0], ast.Name) and side.value.elts[0].id == key):
            return body
        if names not in (None, [t.id for t in targets]):  # type: ignore[attr-defined]
            return body
        names = [t.id for t in targets]  # type: ignore[attr-defined]
        values.append(side.value.elts[1])
    if not (names and isinstance(step, ast.Assign) and len(step.targets) == 1 and isinstance(step.targets[0], ast.Subscript)):
        return body
    target = step.targets[0]
    if not (
        isinstance(target.value, ast.Name)
        and target.value.id == result
        and isinstance(target.slice, ast.Name)
        and target.slice.id == names[0]
        and isinstance(step.value, ast.Name)
        and step.value.id == names[1]
    ):
        return body
    used = [n.id for part in (branch.test, *values) for n in ast.walk(part) if isinstance(n, ast.Name)]
    if key in used or names[0] in used or names[1] in used:
        return body
    value = ast.IfExp(test=branch.test, body=values[0], orelse=values[1])
    return [ast.Assign(targets=[ast.Subscript(value=target.value, slice=first.value, ctx=ast.Store())], value=value, lineno=0)]


def comprehension(code: CodeType, iterable: ast.expr) -> ast.expr:
    """A list/set/dict comprehension or generator expression from its own code object (3.10,
    3.11; generator expressions on every version), called with the first `for`'s iterable."""
    kind = code.co_name
    body = nested_function(code).body
    named = {
        n.target.id
        for n in ast.walk(ast.Module(body=body, type_ignores=[]))
        if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name)
    }
    while body and isinstance(body[0], ast.Nonlocal) and set(body[0].names) <= named:
        body = body[1:]  # `(d := e)` in a comprehension binds d in the function around it: its own `nonlocal`
    if body and _returns_none(body[-1]):
        body = body[:-1]
    result = None
    if kind in ("<listcomp>", "<setcomp>", "<dictcomp>"):
        if len(body) != 3 or not isinstance(body[0], ast.Assign) or not isinstance(body[2], ast.Return):
            raise Unsupported(None, f"a {kind} of a shape not decompiled yet")
        made = body[0].targets[0]
        if not (isinstance(made, ast.Name) and isinstance(body[2].value, ast.Name) and body[2].value.id == made.id):
            raise Unsupported(None, f"a {kind} of a shape not decompiled yet")
        result, body = made.id, body[1:2]
    if len(body) != 1:
        raise Unsupported(None, f"a {kind} of a shape not decompiled yet")
    return _comprehension_of(kind, body[0], result, iterable)


def _element(kind: str, statement: ast.stmt | None, result: str | None) -> tuple[ast.expr, ...] | None:
    """What one step of the comprehension adds: `result.append(e)`, `.add(e)`, `result[k] = v`,
    `yield e`."""
    if kind == "<genexpr>":
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Yield) and statement.value.value is not None:
            return (statement.value.value,)
        return None
    if kind == "<dictcomp>":
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Subscript):
            target = statement.targets[0]
            if isinstance(target.value, ast.Name) and target.value.id == result:
                return (target.slice, statement.value)
        return None
    method = "append" if kind == "<listcomp>" else "add"
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        if (
            isinstance(call.func, ast.Attribute)
            and call.func.attr == method
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id == result
            and len(call.args) == 1
            and not call.keywords
        ):
            return (call.args[0],)
    return None


def lambda_of(code: CodeType) -> ast.expr:
    """`lambda args: e`: the body must be one expression (a conditional one comes back as
    `if c: return a` then `return b`)."""
    function = nested_function(code)
    body = function.body
    if (
        len(body) == 2
        and isinstance(body[0], ast.If)
        and not body[0].orelse
        and len(body[0].body) == 1
        and isinstance(body[0].body[0], ast.Return)
        and isinstance(body[1], ast.Return)
    ):
        # (a lambda's returns all have values: `return None` too)
        body = [
            ast.Return(value=ast.IfExp(test=body[0].test, body=cast(ast.expr, body[0].body[0].value), orelse=cast(ast.expr, body[1].value)))
        ]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        raise Unsupported(None, "a lambda whose body is not one expression")
    return ast.Lambda(args=function.args, body=body[0].value)


def _short_repr(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    text = " ".join(text.split())
    return text if len(text) <= 120 else text[:117] + "..."


def function_name(code: CodeType) -> str:
    """The code's name as a Python identifier (`<lambda>` -> `_lambda_`)."""
    name = code.co_name
    return name if name.isidentifier() else "_" + "".join(c if c.isalnum() or c == "_" else "_" for c in name).strip("_") + "_"


def _add_defaults(arguments: ast.arguments, defaults: tuple[Any, ...] | None, kwdefaults: dict[str, Any] | None) -> list[str]:
    """The defaults (they live on the function object, not in its code), written as literals or
    builtins' names where they are one; any other object is written as a name `__default_P`,
    and a note for each says what it is. Returns the notes."""
    notes: list[str] = []

    def node(parameter: str, value: Any) -> ast.expr:
        if _literal(value):
            return _literal_node(value)
        name = getattr(value, "__name__", None)
        if isinstance(name, str) and getattr(builtins, name, None) is value:
            return ast.Name(id=name, ctx=ast.Load())
        notes.append(f"# __default_{parameter} is the default {_short_repr(value)} (an object no literal writes)")
        return ast.Name(id=f"__default_{parameter}", ctx=ast.Load())

    positional = [*arguments.posonlyargs, *arguments.args]
    if defaults and len(defaults) <= len(positional):
        arguments.defaults = [node(p.arg, v) for p, v in zip(positional[len(positional) - len(defaults) :], defaults)]
    if kwdefaults:
        arguments.kw_defaults = [node(a.arg, kwdefaults[a.arg]) if a.arg in kwdefaults else None for a in arguments.kwonlyargs]
    return notes


def _literal_node(value: Any) -> ast.expr:
    return ast.parse(repr(value), mode="eval").body if isinstance(value, tuple) else ast.Constant(value=value)


def _literal(value: Any) -> bool:
    """A value whose repr is itself: written as the default, it makes the same value."""
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return not (isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))))
    if isinstance(value, tuple):
        return all(_literal(v) for v in value)
    return False


def _drop_final_returns(body: list[ast.stmt]) -> None:
    """Take out each `return None` after which the function ends anyway: the last statement,
    and the last of each way through an if, with or try that is the last statement. (Not a
    try body's with an `else:` (it would run), a finally's (it would swallow an exception), or
    a loop's (it leaves the loop).)"""
    if not body:
        return
    last = body[-1]
    if _returns_none(last):
        if len(body) > 1:
            del body[-1]
            _drop_final_returns(body)
        return
    inner: list[list[ast.stmt]] = []
    if isinstance(last, ast.If):
        inner = [last.body, last.orelse]
    elif isinstance(last, (ast.With, ast.AsyncWith)):
        inner = [last.body]
    elif isinstance(last, ast.Try):
        inner = [h.body for h in last.handlers] + ([last.orelse] if last.orelse else [last.body])
    elif isinstance(last, ast.Match):
        inner = [case.body for case in last.cases]
    for statements in inner:
        _drop_final_returns(statements)


def _returns_none(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Return) and isinstance(statement.value, ast.Constant) and statement.value.value is None
