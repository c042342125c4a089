"""The Structurer's part for match statements.

A match is read where its subject is on the stack (patterns.py reads each case's pattern by
running its code on symbols); a guard is a condition whose other way is where the pattern goes
when it does not match; the cases' bodies meet where the code after the match is.
"""

from __future__ import annotations

import ast
import dis
from typing import Any, cast

import compilescope.decompiler.cfg as cfg
import compilescope.decompiler.patterns as patterns
from compilescope.decompiler.cfg import CONDITIONAL
from compilescope.decompiler.expressions import BlockReader
from compilescope.decompiler.normalize import (
    EXIT,
)
from compilescope.decompiler.structuring import NOWHERE, Loop, StructurerParts, dump, leaves
from compilescope.decompiler.tidy import negate
from compilescope.decompiler.values import (
    Unsupported,
)


class Matches(StructurerParts):
    """match statements: cases, patterns (patterns.py) and guards."""

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
        loop: Loop | None,
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
        if merge in (EXIT, NOWHERE, stop):
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
            if merge in (EXIT, NOWHERE) and all(case.body and leaves(case.body) for case in written):
                after = rest  # every case leaves: what follows the match is no case of it
            else:
                written.append(ast.match_case(pattern=ast.MatchAs(pattern=None, name=None), guard=None, body=rest or [ast.Pass()]))
        statements.append(ast.Match(subject=subject, cases=_joined_cases(written)))
        return statements + after, merge

    def _cases_meet(self, sides: list[int], loop: Loop | None, merge: int, stop: int, inside: set[int]) -> int:
        """Where the cases that go on after a match meet, where the others leave (return,
        raise, break or continue) and never get there: the first block before the region's
        end (`stop`) that two cases reach and every other case reaches or never comes near.
        `merge` where there is none."""
        forwards = {side: self._forward(side) for side in sides}
        going_round = set(self._open_loops) | ({loop.header} if loop is not None else set())
        beyond = self._forward(stop) if stop not in (EXIT, NOWHERE) and stop not in going_round else set()
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

    def _region_from(self, at: patterns.Position, stop: int, loop: Loop | None, base: list[Any]) -> list[ast.stmt]:
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


MATCH_OPCODES = frozenset(dis.opmap[name] for name in patterns.MATCH_OPCODES if name in dis.opmap)


COPY_OPCODES = frozenset(dis.opmap[name] for name in ("COPY", "DUP_TOP") if name in dis.opmap)


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
            and dump(previous.body) == dump(case.body)
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


def value_case_at(instructions: list[dis.Instruction], index: int) -> bool:
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
