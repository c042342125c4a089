"""The shape of `try: ... except* E as eg: ...` (3.11+) in the graph: its handler's chain of
clauses, read apart from a plain `except`'s because Python compiles it otherwise.

The handler (PUSH_EXC_INFO) keeps the exception and a list for what the clauses raise
(3.11: COPY 1, BUILD_LIST, SWAP 2; 3.12+: BUILD_LIST, COPY 2). Each clause tests the part of the
group left (CHECK_EG_MATCH, COPY 1, POP_JUMP_IF_NONE): the matched part is named (STORE) or
dropped (POP_TOP), the body runs, and either way the next clause tests what is left. After the
last, LIST_APPEND 1 and PREP_RERAISE_STAR (3.12+: CALL_INTRINSIC_2 1) build what goes on: None
(all handled: POP_EXCEPT, and the code after the try) or a group raised again. A raise in a
clause body goes to Python's own cleanup (LIST_APPEND 3), never written.

Only that shape is read; any other is refused (None or Unsupported), never guessed.
"""

from __future__ import annotations

import ast
import dis
from dataclasses import dataclass

import compilescope.decompiler.cfg as cfg
from compilescope.decompiler.values import Unsupported

_PREFIXES = (("COPY", "BUILD_LIST", "SWAP"), ("BUILD_LIST", "COPY"))  # 3.11, 3.12+
_TEST = ("CHECK_EG_MATCH", "COPY", "POP_JUMP_FORWARD_IF_NONE")  # (3.12+: POP_JUMP_IF_NONE)


@dataclass
class StarClause:
    kind: list[dis.Instruction]  # the code of the type it matches (an expression)
    first: int  # the block where its body starts: the STORE of its name, or a POP_TOP
    stop: int  # the block where its body ends (not its own)


@dataclass
class StarChain:
    clauses: list[StarClause]
    handled: int  # the block (POP_TOP, POP_EXCEPT, ...) where everything was handled
    handled_rest: list[dis.Instruction]  # its code after POP_EXCEPT: the way on, or a copy of it


def _real(graph: cfg.Graph, index: int) -> list[dis.Instruction]:
    return [i for i in graph.blocks[index].instructions if i.opname not in cfg.NO_EFFECT]


def _names(instructions: list[dis.Instruction]) -> list[str]:
    return [i.opname.replace("POP_JUMP_IF_NONE", "POP_JUMP_FORWARD_IF_NONE") for i in instructions]


def _successor(graph: cfg.Graph, index: int, kind: str) -> int:
    found = [s for s, k in graph.blocks[index].successors if k == kind]
    if len(found) != 1:
        raise Unsupported(graph.blocks[index].last, "an except* clause of a shape not decompiled yet")
    return found[0]


def _only(instructions: list[dis.Instruction], opname: str, arg: int) -> bool:
    return len(instructions) == 1 and instructions[0].opname == opname and instructions[0].arg == arg


def _reraise_start(real: list[dis.Instruction]) -> bool:
    """Whether code is where the clauses end: (LIST_APPEND 1,) then the group re-raised built."""
    if real[:1] and _only(real[:1], "LIST_APPEND", 1):
        real = real[1:]
    return bool(real) and (real[0].opname == "PREP_RERAISE_STAR" or _only(real[:1], "CALL_INTRINSIC_2", 1))


def chain(graph: cfg.Graph, handler: int) -> StarChain | None:
    """The except* chain of the handler at block `handler`; None where it is no except*."""
    real = _real(graph, handler)
    names = [i.opname for i in real]
    if names[:1] != ["PUSH_EXC_INFO"] or "CHECK_EG_MATCH" not in names:
        return None
    prefix = next((p for p in _PREFIXES if tuple(names[1 : 1 + len(p)]) == p), None)
    if prefix is None:
        raise Unsupported(real[0], "an except* handler of a shape not decompiled yet")
    test, index = real[1 + len(prefix) :], handler
    clauses: list[StarClause] = []
    for _ in range(len(graph.blocks)):
        if tuple(_names(test[-3:])) != _TEST or test[-2].arg != 1 or any(i.opname == "CHECK_EG_MATCH" for i in test[:-3]):
            raise Unsupported(graph.blocks[index].last, "an except* clause of a shape not decompiled yet")
        kind = test[:-3]
        first, other = _successor(graph, index, "fall"), _successor(graph, index, "jump")
        missed = _real(graph, other)  # no match: drop the None, (3.13, last: LIST_APPEND 1)
        if not missed or missed[0].opname != "POP_TOP" or len(missed) > 2 or missed[1:] and not _only(missed[1:], "LIST_APPEND", 1):
            raise Unsupported(missed[0] if missed else None, "an except* clause of a shape not decompiled yet")
        following = cfg.through_jumps(graph, _successor(graph, other, "fall"))
        clauses.append(StarClause(kind, first, following))
        index = following
        test = _real(graph, index)
        if _reraise_start(test) or missed[1:]:
            break
    else:
        raise Unsupported(None, "an except* chain that does not end")
    reraise = _real(graph, index)
    if not _reraise_start(reraise):
        raise Unsupported(reraise[0] if reraise else None, "an except* chain that does not end as Python ends it")
    if _only(reraise[:1], "LIST_APPEND", 1):
        reraise = reraise[1:]
    if [i.opname for i in reraise[1:]] != ["COPY", "POP_JUMP_FORWARD_IF_NOT_NONE"] and [i.opname for i in reraise[1:]] != [
        "COPY",
        "POP_JUMP_IF_NOT_NONE",
    ]:
        raise Unsupported(reraise[0], "an except* chain that does not end as Python ends it")
    handled = _successor(graph, index, "fall")
    raised = _real(graph, _successor(graph, index, "jump"))
    if [i.opname for i in raised] != ["SWAP", "POP_EXCEPT", "RERAISE"]:
        raise Unsupported(raised[0] if raised else None, "an except* chain that does not end as Python ends it")
    done = _real(graph, handled)
    if [i.opname for i in done] == ["POP_TOP"]:  # (3.11: the POP_EXCEPT past the handler's range)
        handled = _successor(graph, handled, "fall")
        done = done + _real(graph, handled)
    if [i.opname for i in done[:2]] != ["POP_TOP", "POP_EXCEPT"]:
        raise Unsupported(done[0] if done else None, "an except* chain that does not end as Python ends it")
    return StarChain(clauses, handled, done[2:])


def drop_own_ends(graph: cfg.Graph, clause: StarClause, reached: set[int]) -> None:
    """3.13 ends the last clause's body (each of its ends: it copies them) with LIST_APPEND 1,
    which the other clauses leave to the re-raise's block: taken out of the graph, so that the
    body is read to the re-raise's block as the others to the next test. `reached` is the
    blocks the body goes on to."""
    for index in reached - {clause.stop}:
        block = graph.blocks[index]
        real = _real(graph, index)
        jumps = 0
        while jumps < len(real) and real[-1 - jumps].opname in cfg.UNCONDITIONAL:
            jumps += 1
        at = len(real) - 1 - jumps
        ways = [cfg.through_jumps(graph, s) for s, k in block.successors if k != "exception"]
        if at >= 0 and _only(real[at : at + 1], "LIST_APPEND", 1) and ways == [clause.stop]:
            block.instructions = [i for i in block.instructions if i is not real[at]]


def _unbound(real: list[dis.Instruction]) -> list[dis.Instruction]:
    """The code past `name = None; del name`, Python's own end of `except* E as name`."""
    if (
        len(real) >= 3
        and real[0].opname == "LOAD_CONST"
        and real[0].argval is None
        and real[1].opname == "STORE_FAST"
        and real[2].opname == "DELETE_FAST"
        and real[1].argval == real[2].argval
    ):
        return real[3:]
    return real


def clause_cleanups(graph: cfg.Graph, reached: set[int]) -> set[int]:
    """The handlers of Python's own around an except* clause's body, whose blocks are `reached`."""
    return {s for b in reached for s, k in graph.blocks[b].successors if k == "exception" and is_clause_cleanup(graph, s)}


def is_clause_cleanup(graph: cfg.Graph, index: int) -> bool:
    """Whether the handler at block `index` is Python's own around an except* clause's body:
    (unbind the name,) keep what the body raised (LIST_APPEND 3), and on to the next test."""
    real = _unbound(_real(graph, index))
    if real and real[-1].opname in cfg.UNCONDITIONAL:
        real = real[:-1]
    return (
        len(real) in (2, 3)
        and _only(real[:1], "LIST_APPEND", 3)
        and real[1].opname == "POP_TOP"
        and (len(real) == 2 or _only(real[2:], "LIST_APPEND", 1))
    )


def handled_way_on(graph: cfg.Graph, star: StarChain, after: int | None, copied: bool) -> int | None:
    """Where the handled way goes on past its POP_EXCEPT: on past a jump, or (3.12+ copies a
    short ending there) `after`, where the body goes on, when `copied` says its code is that;
    None where it ends in code of its own (a return or raise, no jump)."""
    rest = star.handled_rest
    if not rest or len(rest) == 1 and rest[0].opname in cfg.UNCONDITIONAL:
        ways = [s for s, k in graph.blocks[star.handled].successors if k != "exception"]
        if len(ways) == 1:
            return cfg.through_jumps(graph, ways[0])
    elif rest[-1].opname in cfg.TERMINATORS and not any(cfg.is_jump(i) for i in rest):
        return after if after is not None and copied else None
    raise Unsupported(rest[0] if rest else None, "an except* whose handled way goes on in code not decompiled yet")


def _unbinds(statements: list[ast.stmt], name: str) -> bool:
    """Whether statements are `name = None; del name`."""

    def named(targets: list[ast.expr]) -> bool:
        return len(targets) == 1 and isinstance(targets[0], ast.Name) and targets[0].id == name

    return (
        len(statements) == 2
        and isinstance(statements[0], ast.Assign)
        and named(statements[0].targets)
        and isinstance(statements[0].value, ast.Constant)
        and statements[0].value.value is None
        and isinstance(statements[1], ast.Delete)
        and named(statements[1].targets)
    )


def drop_unbinds(statements: list[ast.stmt], name: str) -> None:
    """Python's own end of `except* E as name` (`name = None; del name`) where the clause's
    body ends: after its last statement, or (3.13 copies it) at the end of each of an `if`'s sides."""
    if _unbinds(statements[-2:], name):
        del statements[-2:]
    elif statements and isinstance(statements[-1], ast.If):
        for side in (statements[-1].body, statements[-1].orelse):
            drop_unbinds(side, name)
        if not statements[-1].body:
            statements[-1].body.append(ast.Pass())
