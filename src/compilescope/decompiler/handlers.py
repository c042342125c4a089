"""The Structurer's part for exceptions: try / except / else / finally and with.

The blocks a handler protects are the try's body; its except chain gives the clauses (each a
test of the exception, then a body); a finally's copies on the body's ways out were taken out
before (finally_copies.py), so the finally is written once; a with is a handler whose body calls
`__exit__` on the ways out. Code past a finally is never written inside its try.
"""

from __future__ import annotations

import ast
import dis
from typing import Any, cast

import compilescope.decompiler.cfg as cfg
import compilescope.decompiler.except_star as except_star
import compilescope.decompiler.finally_copies as finally_copies
from compilescope.decompiler.cfg import CONDITIONAL, code_shape
from compilescope.decompiler.expressions import BlockReader
from compilescope.decompiler.handler_exits import drop_handler_ends, leaves_plainly, safe_return
from compilescope.decompiler.normalize import (
    EXIT,
    exit_call_block,
    without_name_cleanup,
)
from compilescope.decompiler.structuring import NOWHERE, Loop, StructurerParts, dump, leaves
from compilescope.decompiler.values import (
    CAUGHT,
    HANDLER_ENTRY_310,
    PREVIOUS,
    CaughtAs,
    ExceptionMatch,
    HandlerEnd,
    Unsupported,
    WithEnter,
    WithExit,
    WithTarget,
)
from compilescope.decompiler.versions import EXCEPTION_TABLE


class Handlers(StructurerParts):
    """try / except / else / finally and with, read from the graph's handlers."""

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
            elif not EXCEPTION_TABLE and (
                real[:1] == ["DUP_TOP"]
                and real[-1:] == ["JUMP_IF_NOT_EXC_MATCH"]
                or real[:3] == ["POP_TOP"] * 3
                or real[:1] == ["WITH_EXCEPT_START"]
            ):
                handlers.add(index)  # 3.10: `except E` tests, a bare `except:` drops the exception, a with's exit
        return handlers | set(self._finallys)  # a finally, its copies taken out (finally_copies)

    @staticmethod
    def _handler_entry() -> list[Any]:
        return list(HANDLER_ENTRY_310) if not EXCEPTION_TABLE else [CAUGHT]

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

    def _finally(self, start: int, handler: int, loop: Loop | None, base: list[Any], after: int | None) -> tuple[list[ast.stmt], int]:
        """`try: ... finally: F`: its copies on the body's ways out are gone from the graph
        (finally_copies), so the body is written as is, and F once, from its handler."""
        read = self._finallys.get(handler)
        if read is None:
            raise Unsupported(
                self.graph.blocks[handler].instructions[0], "a finally whose copies on the ways out of its try are not all found"
            )
        firsts = {id(self.graph.blocks[c].instructions[0]): c for c in read.copies}
        if any(id(i) in firsts and firsts[id(i)] != b for b in self.graph.reachable for i in self.graph.blocks[b].instructions):
            # (a copy joined onto the body's end by a later pass: it would be written inside the try)
            raise Unsupported(self.graph.blocks[handler].instructions[0], "a copy of a finally that never ends, joined into its try")
        outside = list(self._entry.get(start, []))  # below the handler's values, as in _try
        self._open_trys.add(handler)
        self._finally_bodies.append(handler)
        try:
            body = self.region(start, after if after is not None else NOWHERE, loop, base)
        finally:
            self._open_trys.discard(handler)
            self._finally_bodies.pop()
        entry = [PREVIOUS, CAUGHT] if EXCEPTION_TABLE else list(HANDLER_ENTRY_310)
        self._skip[handler] = read.skip
        # a break or continue inside the finally is its loop's (else the code it writes is the
        # finally's own, not the loop's body: the handler's blocks never go round)
        leaves = loop is not None and bool(self._forward(handler) - self._handler_code(handler))
        finalbody = self.region(handler, read.end, loop if leaves else None, base, first=[*outside, *entry])
        # (a return, break or continue inside the finally first drops the exception it ran for,
        # POP_EXCEPT: the source's way out does that itself; `T = v` then `return T` is tidied)
        drop_handler_ends(finalbody)
        statement = ast.Try(body=body or [ast.Pass()], handlers=[], orelse=[], finalbody=finalbody or [ast.Pass()])
        if read.copies and after is not None:  # (the body goes on past a finally that never ends: not read)
            raise Unsupported(self.graph.blocks[handler].instructions[0], "code after a finally that never ends")
        return [statement], (after if after is not None else EXIT)

    def _after_block_pop(self, index: int, start: int) -> bool:
        """3.10: a `return x` reached only past the try's POP_BLOCK, with nothing more on the
        stack than where the try starts, is after the try (one inside it reads x first, then
        pops the block: `LOAD_FAST x; POP_BLOCK; RETURN_VALUE`)."""
        if EXCEPTION_TABLE:
            return False
        block = self.graph.blocks[index]
        into = [self.graph.blocks[p] for p in block.predecessors]
        depth, height = self._depth_at(block.instructions[0].offset), self._depth_at(self.graph.blocks[start].instructions[0].offset)
        return bool(into) and all(p.last.opname == "POP_BLOCK" for p in into) and depth is not None and depth == height

    def _check_inside_finallys(self, node: int) -> None:
        """Code written inside a try/finally's body is code its finally protects: code past it
        (after the finally ran) reached while writing the body would be read before the finally
        instead. Only a return of what needs no reading (a constant, the value on the stack,
        perhaps through the __exit__ of a with around the try) is the same either way; the rest
        is refused, never written in the wrong place."""
        outside = [h for h in self._finally_bodies if h not in self._protectors(node)]
        if outside and not (
            safe_return(self.graph, node, loads=0)
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
            s in special or self._leaves_after_exit(s, special, depth + 1, reads) or safe_return(self.graph, s, loads=0) for s in successors
        )

    def _with(self, start: int, handler: int, loop: Loop | None, base: list[Any], after: int | None) -> tuple[list[ast.stmt], int]:
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
            body = self.region(start, after if after is not None else NOWHERE, loop, [*base, *outside, manager])
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
        kind = ast.AsyncWith if manager.is_async else ast.With
        statement = kind(
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
        # (3.12+ checks a local read where __exit__ suppressed: it may be unbound there only)
        if not rest or not same or code_shape(rest[:-1], checked=False) != code_shape(same[:-1], checked=False):
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

    def _try(self, start: int, handler: int, loop: Loop | None, base: list[Any], stop: int) -> tuple[list[ast.stmt], int]:
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
        # (not for an except*: its handled way goes on to the same code, which is written once
        # after it, where a local not bound raises outside the try, as it does there)
        star = except_star.chain(self.graph, handler)
        exits = {
            e
            for e in exits
            if star is not None
            or not safe_return(self.graph, e, loads=0 if finally_handler else 1, inside=lambda b: finallys <= self._protectors(b))
            or not finallys
            and not finally_handler
            and self._after_block_pop(e, start)
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
        read = self._finallys.get(handler)
        if read is not None and read.copies:
            exits -= read.copies  # (a finally that never ends: the body stops at its copies)
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
        if star is not None:
            return self._except_star(start, handler, star, loop, base, after)
        if finally_handler:
            return self._finally(start, handler, loop, base, after)
        body = self._try_body(start, handler, loop, base, after)
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
                    and (merge in (None, after) or clauses_on in cast(Loop, loop).body)
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
            if stop == loop.header and (not orelse or not leaves(orelse)):  # type: ignore[union-attr]
                orelse.append(ast.Continue())  # (region ends there without it)
        handlers: list[ast.ExceptHandler] = []
        tails: list[list[ast.stmt]] = []
        open_ended: list[int] = []
        for kind, first in clauses:
            entry = self._handler_entry() if not EXCEPTION_TABLE else (list(PREVIOUS_AND_CAUGHT) if kind is not None else [CAUGHT])
            statements = self.region(first, following, loop, base, first=[*outside, *entry])
            name = None
            if statements and isinstance(statements[0], CaughtAs):
                name = statements.pop(0).name  # type: ignore[attr-defined]
            # POP_EXCEPT ends the clause: what comes after it runs after the try statement
            ends = [i for i, st in enumerate(statements) if isinstance(st, HandlerEnd)]
            tail: list[ast.stmt] = []
            if ends:
                statements, tail = statements[: ends[0]], statements[ends[0] + 1 :]
            drop_handler_ends(statements)
            if tail and not leaves_plainly(tail):
                tails.append(tail)
            elif not tail and not (statements and leaves(statements)):
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
            if any(dump(t) != dump(tails[0]) for t in tails):
                raise Unsupported(self.graph.blocks[handler].instructions[0], "except clauses that go on into different code")
            if following not in (NOWHERE, EXIT) and after is not None and not goes_round:
                # a copy of the code after the try (3.10+ copies a short `return g` or `raise`
                # into each way out): the clauses go on there, as the body does
                if not leaves(tails[0]) or dump(tails[0]) != dump(self._ending(following, base)):
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
        return [statement, *after_try], (following if following != NOWHERE else EXIT)

    def _try_body(self, start: int, handler: int, loop: Loop | None, base: list[Any], after: int | None) -> list[ast.stmt]:
        """The statements of a try's body, the try open while they are written."""
        self._open_trys.add(handler)
        try:
            return self.region(start, after if after is not None else NOWHERE, loop, base)
        finally:
            self._open_trys.discard(handler)

    def _except_star(
        self, start: int, handler: int, star: except_star.StarChain, loop: Loop | None, base: list[Any], after: int | None
    ) -> tuple[list[ast.stmt], int]:
        """`try: ... except* E as eg: ...` (3.11+): the body as a try's; each clause's body
        from its first block to where the next clause's test starts (no clause body can break,
        continue or return); an `else:` from the body's end to where the handled way goes on."""
        where = self.graph.blocks[handler].instructions[0]
        body = self._try_body(start, handler, loop, base, after)
        outside = list(self._entry.get(start, []))
        rest = star.handled_rest
        copied = after is not None and _code_at(rest) == _code_at(
            [i for i in self.graph.blocks[after].instructions if i.opname not in cfg.NO_EFFECT]
        )
        on = except_star.handled_way_on(self.graph, star, after, copied)
        tail: list[ast.stmt] = []
        if on is None:
            # the handled way ends in code of its own (3.12+ copies a short ending there): the
            # code after the try, where the body never goes on or goes on through an `else:`
            # that ends alone (read only outside loops and other statements' stack values)
            if outside or loop is not None:
                raise Unsupported(where, "an except* whose handled way goes on in code not decompiled yet")
            reader = BlockReader(self.code, self.nested, list(base), self.temps)
            reader.run(rest)
            tail = reader.statements
            orelse = self.region(after, NOWHERE, loop, base) if after is not None else []
            if after is not None and not (orelse and leaves(orelse)):
                raise Unsupported(where, "an except* whose else goes on elsewhere than its clauses")
            following = EXIT
        elif after is None or on == after:
            orelse, following = [], on if after is None else after
        elif on in self._forward(after):
            orelse, following = self.region(after, on, loop, base), on
        else:  # (an `else:` that never reaches where the clauses go on: it must end alone)
            orelse, following = self.region(after, NOWHERE, loop, base), on
            if not (orelse and leaves(orelse)):
                raise Unsupported(where, "an except* whose else goes on elsewhere than its clauses")
        handlers: list[ast.ExceptHandler] = []
        for clause in star.clauses:
            reader = BlockReader(self.code, self.nested, list(base), self.temps)
            reader.run(clause.kind)
            kind = reader.stack[-1] if reader.stack else None
            if reader.statements or not isinstance(kind, ast.expr) or len(reader.stack) != len(base) + 1:
                raise Unsupported(where, "an except* clause of a shape not decompiled yet")
            reached = self._forward(clause.first, avoid=clause.stop)
            except_star.drop_own_ends(self.graph, clause, reached)
            # Python's own handler around the body keeps what it raises: no try of the user's
            cleanups = except_star.clause_cleanups(self.graph, reached) - self._open_trys
            self._open_trys |= cleanups
            try:
                statements = self.region(clause.first, clause.stop, None, base, first=[*outside, PREVIOUS, CAUGHT, CAUGHT, CAUGHT, CAUGHT])
            finally:
                self._open_trys -= cleanups
            name = None
            if statements and isinstance(statements[0], CaughtAs):
                name = statements.pop(0).name  # type: ignore[attr-defined]
            if name is not None:
                except_star.drop_unbinds(statements, name)
            if any(isinstance(st, (HandlerEnd, CaughtAs)) for st in ast.walk(ast.Module(body=statements, type_ignores=[]))):
                raise Unsupported(where, "an except* clause of a shape not decompiled yet")
            handlers.append(ast.ExceptHandler(type=kind, name=name, body=statements or [ast.Pass()]))
        statement = ast.TryStar(body=body or [ast.Pass()], handlers=handlers, orelse=orelse, finalbody=[])
        return [statement, *tail], following

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


def _reaches_first(chain: list[int], these: set[int | None], those: set[int]) -> bool:
    """Whether `chain` meets one of `these` before any of `those`."""
    return next((n in these for n in chain if n in these or n in those), False)
