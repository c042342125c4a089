"""A `match` statement's case patterns, read back from the code Python compiled them to.

One case's pattern is code that tests the subject and takes it apart on the stack (MATCH_CLASS,
MATCH_SEQUENCE, MATCH_MAPPING, MATCH_KEYS, GET_LEN, UNPACK_SEQUENCE, comparisons), with one
way out when it matches and one (through the pops of what it built) when it does not. It is read
here by running it on symbols, not by matching instruction sequences: every value on the stack
is the part of the subject it came from (`subject[0]`, the `x` attribute of a class pattern's
subject, a mapping's value for key `'k'`, ...), every test passed is a fact about that part and
every name stored is bound to it. Both ways of every test are followed; the ways that pass all
tests are the pattern (an or-pattern has one per alternative: a copy of the value that each
alternative tests), the others must all end at one place: where the next case starts.

Compiler details this depends on (CPython's compile.c, 3.10-3.13), each checked as it is read:
- a case that is not the last copies the subject (COPY 1 / DUP_TOP) and pops it before its body
  (after its guard); the last case's pattern consumes the subject;
- an or-pattern and an as-pattern test a copy of their value (COPY 1): an or-pattern's copies
  are the alternatives, tried in turn; the alternatives' ways on may be one block or copies of
  the same code (3.10, 3.12 copy small ones);
- the names a pattern captures stay on the stack until it has matched and are then stored;
  3.11+ reorders those stores instead of swapping (apply_static_swaps), which the symbols follow.
Nothing here guesses: a shape it does not know raises Unsupported, so the case is refused.
"""

from __future__ import annotations

import ast
import copy
import dis
from dataclasses import dataclass, field
from typing import Any, cast

import compilescope.decompiler.cfg as cfg
from compilescope.decompiler.values import Unsupported
from compilescope.decompiler.versions import ATTR_LOADS_METHOD, GLOBAL_PUSHES_NULL, MATCH_PUSHES_TEST

# opcodes that only a pattern uses: a function without them has no match worth reading as one
MATCH_OPCODES = frozenset({"MATCH_CLASS", "MATCH_SEQUENCE", "MATCH_MAPPING", "MATCH_KEYS"})

_NAME_LOADS = frozenset(
    {
        "LOAD_GLOBAL",
        "LOAD_NAME",
        "LOAD_FAST",
        "LOAD_DEREF",
        "LOAD_CLASSDEREF",
        "LOAD_FAST_CHECK",
        "LOAD_FROM_DICT_OR_GLOBALS",
        "LOAD_FROM_DICT_OR_DEREF",
    }
)
_NAME_STORES = frozenset({"STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF"})
# conditional jumps: (jumps when the value is ..., tested as "truth" or "none")
_JUMPS = {
    "POP_JUMP_IF_TRUE": (True, "truth"),
    "POP_JUMP_IF_FALSE": (False, "truth"),
    "POP_JUMP_FORWARD_IF_TRUE": (True, "truth"),
    "POP_JUMP_FORWARD_IF_FALSE": (False, "truth"),
    "POP_JUMP_IF_NONE": (True, "none"),
    "POP_JUMP_IF_NOT_NONE": (False, "none"),
    "POP_JUMP_FORWARD_IF_NONE": (True, "none"),
    "POP_JUMP_FORWARD_IF_NOT_NONE": (False, "none"),
}
_MOVES = frozenset({"NOP", "JUMP_FORWARD", "JUMP", "JUMP_NO_INTERRUPT", "EXTENDED_ARG", "CACHE"})
_PATHS_AT_MOST = 512  # ways through one case's pattern (each or-pattern multiplies them)

Key = tuple  # where a value comes from: () the subject, then steps (see _Node)


@dataclass(frozen=True)
class Position:
    """An instruction of the graph: block, index in it, and for a 3.13 superinstruction that
    stores and then loads, 1 for its load (where a guard starts)."""

    block: int
    index: int
    half: int = 0


@dataclass
class CaseRead:
    pattern: ast.pattern
    copied: bool  # the subject stays on the stack after the pattern (a case before the last)
    ends: list[Position]  # where the pattern's code ends when it matches: one per way (first: the one to write)
    fails: list[Position]  # where the code goes when it does not match (first: the one to write); none: it always matches
    tests_structure: bool  # it uses a class, sequence or mapping pattern

    @property
    def fail(self) -> Position | None:
        return self.fails[0] if self.fails else None


# ---- symbols on the stack ------------------------------------------------------------------------
@dataclass(frozen=True)
class _Value:  # a part of the subject
    key: Key


@dataclass(frozen=True)
class _Expr:  # a value the code loads: a class, a constant, a key, a dotted name
    node: ast.expr


@dataclass(frozen=True)
class _Test:  # the truth of a test about a part
    key: Key
    kind: str  # "sequence", "mapping", "length", "value", "singleton", "class", "keys"
    data: Any


@dataclass(frozen=True)
class _Length:
    key: Key
    minus: int | None = None  # len(x) - minus


@dataclass(frozen=True)
class _Found:  # MATCH_CLASS's tuple of attributes / MATCH_KEYS's tuple of values, or None
    key: Key
    kind: str  # "class" or "keys"
    data: Any
    names: tuple[Key, ...]  # the parts each item is

    def test(self) -> _Test:
        """The test a found tuple passed (it is not None)."""
        return _Test(self.key, self.kind, self.data)


@dataclass(frozen=True)
class _EmptyDict:
    pass


@dataclass
class _Node:
    """What the passed tests say of one part: its kind of pattern and the parts it takes apart."""

    facts: dict[str, Any] = field(default_factory=dict)
    names: list[str] = field(default_factory=list)


@dataclass
class _Path:
    stack: list[Any]
    at: Position
    nodes: dict[Key, _Node] = field(default_factory=dict)
    failed_at: Key | None = None  # the part whose test failed last on this way
    dead: set[Key] = field(default_factory=set)  # the or-pattern alternatives tried and left on this way
    last_passed: bool | None = None  # the last test's outcome (None: no test yet)
    uses_structure: bool = False
    ended: bool = False

    def node(self, key: Key) -> _Node:
        return self.nodes.setdefault(key, _Node())


# ---- walking the graph ---------------------------------------------------------------------------
def following(graph: cfg.Graph, at: Position) -> Position | None:
    """The instruction after `at`: the next in its block, or the first of the block it falls
    into; None where it does not fall through."""
    block = graph.blocks[at.block]
    if at.index + 1 < len(block.instructions):
        return Position(at.block, at.index + 1)
    fall = next((s for s, k in block.successors if k == "fall"), None)
    return None if fall is None else Position(fall, 0)


def copies_top(instruction: dis.Instruction) -> bool:
    """COPY 1 (3.10: DUP_TOP): how a case copies the subject, and an or-pattern or as-pattern its value."""
    return instruction.opname == "DUP_TOP" or (instruction.opname == "COPY" and instruction.arg == 1)


class _Walker:
    def __init__(self, graph: cfg.Graph) -> None:
        self.graph = graph

    def instruction(self, at: Position) -> dis.Instruction:
        return self.graph.blocks[at.block].instructions[at.index]

    def next(self, at: Position) -> Position:
        after = following(self.graph, at)
        if after is None:
            raise Unsupported(self.graph.blocks[at.block].last, "a pattern whose code ends here")
        return after

    def jump_target(self, at: Position) -> Position:
        block = self.graph.blocks[at.block]
        target = next((s for s, k in block.successors if k == "jump"), None)
        if target is None or at.index != len(block.instructions) - 1:
            raise Unsupported(block.instructions[at.index], "a jump in a pattern without its target")
        if self.graph.blocks[target].start <= block.start:
            raise Unsupported(block.instructions[at.index], "a pattern's code that goes back")
        return Position(target, 0)

    def settled(self, at: Position) -> Position:
        """Past the instructions that do nothing, and the jumps (a pattern's code only jumps forward)."""
        for _ in range(10_000):
            if at.half:
                return at
            ins = self.instruction(at)
            if ins.opname not in _MOVES:
                return at
            at = self.jump_target(at) if cfg.is_jump(ins) else self.next(at)
        raise Unsupported(None, "a pattern's code that goes round")


# ---- one case --------------------------------------------------------------------------------------
def read_case(graph: cfg.Graph, start: Position) -> CaseRead:
    """The case whose code starts at `start`, the subject on top of the stack."""
    walker = _Walker(graph)
    first = walker.instruction(walker.settled(start))
    errors: list[Unsupported] = []
    # A case before the last starts with a copy of the subject; so may the last one (an
    # or-pattern or as-pattern copies its value): read it as copied first, then as consuming.
    # (A case after a copied one may start by popping the subject: the last case before the
    # default, `case _ if guard:`; read so only where neither reading above fits.)
    copies = copies_top(first)
    for copied, strict in ((True, True), (False, True), (True, False)) if copies else ((False, True),):
        try:
            return _read(walker, start, copied, strict)
        except Unsupported as error:
            errors.append(error)
    raise errors[0]  # (the reading as copied is the one that fits most cases)


def _read(walker: _Walker, start: Position, copied: bool, strict: bool = True) -> CaseRead:
    floor = 1 if copied else 0  # what stays of the subject when the pattern is done
    path = _Path(stack=[_Value(())], at=start)
    if copied:  # the copy is the subject itself: its tests are the pattern's
        at = walker.settled(start)
        path.stack.append(_Value(()))
        path.at = walker.next(at)
    done: list[_Path] = []
    failed: list[_Path] = []
    waiting = [path]
    seen: set[Any] = set()
    while waiting:
        path = waiting.pop()
        # ways that failed at different tests of one alternative all go on to the next one
        # alike (what they learnt of the alternative left no longer counts): read it once
        signature = _signature(path)
        if signature in seen:
            continue
        seen.add(signature)
        if len(done) + len(failed) + len(waiting) > _PATHS_AT_MOST:
            raise Unsupported(None, "a pattern with too many ways through it")
        for way in _run(walker, path, floor, strict):
            if not way.ended:
                waiting.append(way)
            elif way.last_passed is False:
                failed.append(way)
            else:
                done.append(way)
    if not done:
        raise Unsupported(walker.instruction(start), "a pattern that never matches")

    def order(at):
        return (walker.graph.blocks[at.block].start, at.index, at.half)

    # (3.10 and 3.12 copy small blocks: the code after a match may be reached at several copies)
    fails = sorted({way.at for way in failed}, key=order, reverse=True)
    done.sort(key=lambda way: order(way.at))
    pattern = _Builder(done).pattern(())
    return CaseRead(pattern, copied, list(dict.fromkeys(way.at for way in done)), fails, any(way.uses_structure for way in done))


def _signature(path: _Path) -> Any:
    """What a way's going on depends on: where it is, its stack, its alternatives left, and
    what it learnt of the parts it still matches."""

    def alive(key):
        return not any(key[: len(dead)] == dead for dead in path.dead)

    learnt = tuple(sorted((key, repr(_dumped(node.facts)), tuple(node.names)) for key, node in path.nodes.items() if alive(key)))
    return (path.at, repr(_dumped(path.stack)), frozenset(path.dead), path.last_passed, path.failed_at, learnt)


def _run(walker: _Walker, path: _Path, floor: int, strict: bool = True) -> list[_Path]:
    """Run one way through the pattern until it ends (its stack back at `floor`: `ended`) or
    forks at a test (both ways returned)."""
    steps = 0
    while True:
        steps += 1
        if steps > 10_000:
            raise Unsupported(None, "a pattern's code that goes round")
        path.at = walker.settled(path.at)
        if len(path.stack) == floor:
            ins = walker.instruction(path.at)
            stores = ins.opname in _NAME_STORES or ins.opname.startswith("STORE_FAST_")
            if floor == 1 and not path.at.half and (ins.opname == "POP_TOP" and strict if path.last_passed is False else stores):
                # the subject itself stored or popped: this is the last case, whose pattern
                # starts with a copy for an as-pattern or or-pattern (read it so)
                raise Unsupported(ins, "the subject consumed by a case read as copying it")
            path.ended = True  # matched (the guard or the body follows), or not (the next case follows)
            return [path]
        if len(path.stack) < floor:
            raise Unsupported(walker.instruction(path.at), "a pattern that pops below its subject")
        ins = walker.instruction(path.at)
        if path.last_passed is False and ins.opname != "POP_TOP":
            # after a failed test only pops, to the next alternative of an or-pattern: a copy
            # of the value the failed one was a copy of, which is left
            value = path.stack[-1] if path.stack else None
            if not copies_top(ins) or not isinstance(value, _Value):
                raise Unsupported(ins, "a failed pattern test that does not go to the next case")
            failed, parent = path.failed_at or (), value.key
            if not (failed[: len(parent)] == parent and len(failed) > len(parent) and failed[len(parent)][0] == "copy"):
                raise Unsupported(ins, "an or-pattern's alternative that is no copy of its value")
            path.dead.add(failed[: len(parent) + 1])
            path.last_passed = path.failed_at = None
        try:
            if ins.opname in _JUMPS:
                return _fork(walker, path, ins)
            _step(path, ins)
        except IndexError:  # (below the subject: what the pattern's code is not)
            raise Unsupported(ins, "a pattern that takes more from the stack than its subject") from None
        if path.at.half == 0 and ins.opname == "STORE_FAST_LOAD_FAST":
            path.at = Position(path.at.block, path.at.index, 1)  # its load starts the guard
            continue
        path.at = walker.next(path.at)


def _fork(walker: _Walker, path: _Path, ins: dis.Instruction) -> list[_Path]:
    jumps_when, kind = _JUMPS[ins.opname]
    tested = path.stack.pop()
    # for each way: whether the test passed on it, and the fact it gives
    if kind == "truth" and isinstance(tested, _Test):
        passed_if_jumps = jumps_when
    elif kind == "none" and isinstance(tested, _Found):
        passed_if_jumps = not jumps_when  # None: the class or the keys did not match
    elif kind == "none" and isinstance(tested, _Value):
        tested = _Test(tested.key, "singleton", None)
        passed_if_jumps = jumps_when
    else:
        raise Unsupported(ins, "a jump in a pattern on something that is no pattern test")
    ways = []
    for jumps in (True, False):
        way = copy.deepcopy(path) if jumps else path
        way.at = walker.jump_target(way.at) if jumps else walker.next(way.at)
        passed = passed_if_jumps == jumps
        key = tested.key
        if passed:
            _learn(way, tested if isinstance(tested, _Test) else tested.test(), ins)
            way.last_passed = True
        else:
            way.failed_at = key
            way.last_passed = False
        ways.append(way)
    return ways


def _learn(path: _Path, test: _Test, ins: dis.Instruction) -> None:
    node = path.node(test.key)
    facts = node.facts
    if test.kind in ("class", "keys", "sequence", "mapping"):
        path.uses_structure = True
    if test.kind in facts and _dumped(facts[test.kind]) != _dumped(test.data):
        raise Unsupported(ins, "two tests of one kind on one part of a pattern")
    facts[test.kind] = test.data


def _step(path: _Path, ins: dis.Instruction) -> None:  # noqa: C901  (one table of opcodes)
    stack = path.stack
    op = ins.opname
    if op in ("COPY", "DUP_TOP"):
        depth = 1 if op == "DUP_TOP" else ins.arg
        assert depth is not None
        value = stack[-depth]
        if depth == 1 and isinstance(value, _Value):
            # a copy that is tested apart from its value: an or-pattern's alternative (or an
            # as-pattern's, or a copy to take an item from): each copy is a part of its own
            value = _Value(value.key + (("copy", ins.offset),))
            path.node(value.key)
        stack.append(value)
    elif op == "SWAP":
        assert ins.arg is not None
        stack[-1], stack[-ins.arg] = stack[-ins.arg], stack[-1]
    elif op in ("ROT_TWO", "ROT_THREE", "ROT_FOUR", "ROT_N"):
        count = {"ROT_TWO": 2, "ROT_THREE": 3, "ROT_FOUR": 4}.get(op, ins.arg)
        assert count is not None
        stack[-count:] = [stack[-1], *stack[-count:-1]]
    elif op == "POP_TOP":
        stack.pop()
    elif op in _NAME_STORES or op in ("STORE_FAST_STORE_FAST", "STORE_FAST_LOAD_FAST"):
        if op == "STORE_FAST_LOAD_FAST" and path.at.half:
            raise Unsupported(ins, "a guard inside a pattern")
        names = list(ins.argval) if op == "STORE_FAST_STORE_FAST" else [ins.argval[0] if op == "STORE_FAST_LOAD_FAST" else ins.argval]
        for name in names:
            value = stack.pop()
            if not isinstance(value, _Value):
                raise Unsupported(ins, "a pattern storing something that is no part of its subject")
            path.node(value.key).names.append(name)
    elif op == "LOAD_CONST":
        stack.append(_Expr(_constant(ins.argval)))
    elif op in _NAME_LOADS:
        if op == "LOAD_GLOBAL" and GLOBAL_PUSHES_NULL and cast(int, ins.arg) & 1:  # (LOAD_GLOBAL has an arg)
            raise Unsupported(ins, "a call in a pattern")
        stack.append(_Expr(ast.Name(id=ins.argval, ctx=ast.Load())))
    elif op == "LOAD_FAST_LOAD_FAST":
        stack.extend(_Expr(ast.Name(id=name, ctx=ast.Load())) for name in ins.argval)
    elif op == "LOAD_ATTR":
        if ATTR_LOADS_METHOD and cast(int, ins.arg) & 1:  # (LOAD_ATTR has an arg)
            raise Unsupported(ins, "a method loaded in a pattern")
        owner = stack.pop()
        if not isinstance(owner, _Expr):
            raise Unsupported(ins, "an attribute of a part of the subject in a pattern")
        stack.append(_Expr(ast.Attribute(value=owner.node, attr=ins.argval, ctx=ast.Load())))
    elif op == "BUILD_TUPLE":
        assert ins.arg is not None
        items = [stack.pop() for _ in range(ins.arg)][::-1]
        if not all(isinstance(item, _Expr) for item in items):
            raise Unsupported(ins, "a tuple of parts of the subject in a pattern")
        stack.append(_Expr(ast.Tuple(elts=[item.node for item in items], ctx=ast.Load())))
    elif op in ("MATCH_SEQUENCE", "MATCH_MAPPING"):
        value = _part(stack[-1], ins)
        stack.append(_Test(value.key, "sequence" if op == "MATCH_SEQUENCE" else "mapping", True))
    elif op == "GET_LEN":
        stack.append(_Length(_part(stack[-1], ins).key))
    elif op == "COMPARE_OP":
        right, left = stack.pop(), stack.pop()
        operator = ins.argval.removeprefix("bool(").removesuffix(")") if isinstance(ins.argval, str) else ins.argrepr
        if (
            isinstance(left, _Length)
            and left.minus is None
            and isinstance(right, _Expr)
            and isinstance(right.node, ast.Constant)
            and type(right.node.value) is int
            and operator in ("==", ">=")
        ):
            stack.append(_Test(left.key, "length", (operator, right.node.value)))
        elif isinstance(left, _Value) and isinstance(right, _Expr) and operator == "==":
            stack.append(_Test(left.key, "value", right.node))
        else:
            raise Unsupported(ins, "a comparison in a pattern that is no pattern's")
    elif op == "IS_OP":
        right, left = stack.pop(), stack.pop()
        if (
            ins.arg != 0
            or not isinstance(left, _Value)
            or not isinstance(right, _Expr)
            or not isinstance(right.node, ast.Constant)
            or right.node.value not in (None, True, False)
            or type(right.node.value) not in (type(None), bool)
        ):
            raise Unsupported(ins, "an `is` in a pattern that is no pattern's")
        stack.append(_Test(left.key, "singleton", right.node.value))
    elif op == "TO_BOOL":
        if not isinstance(stack[-1], _Test):
            raise Unsupported(ins, "a truth test in a pattern on no pattern test")
    elif op == "MATCH_CLASS":
        names, cls = stack.pop(), stack.pop()
        value = _part(stack.pop(), ins)
        if (
            not isinstance(names, _Expr)
            or not isinstance(names.node, ast.Constant)
            or not isinstance(names.node.value, tuple)
            or not isinstance(cls, _Expr)
        ):
            raise Unsupported(ins, "a class pattern of a shape not decompiled yet")
        keywords = names.node.value
        data = (cls.node, ins.arg, keywords)
        assert ins.arg is not None
        parts = tuple(value.key + (("arg", j),) for j in range(ins.arg)) + tuple(value.key + (("attr", k),) for k in keywords)
        stack.append(_Found(value.key, "class", data, parts))
        if MATCH_PUSHES_TEST:  # 3.10: and True or False
            stack.append(stack[-1].test())
    elif op == "MATCH_KEYS":
        keys = stack[-1]
        value = _part(stack[-2], ins)
        if not isinstance(keys, _Expr) or not isinstance(keys.node, (ast.Tuple, ast.Constant)):
            raise Unsupported(ins, "a mapping pattern's keys of a shape not decompiled yet")
        elements = _elements(keys.node)
        parts = tuple(value.key + (("key", j),) for j in range(len(elements)))
        stack.append(_Found(value.key, "keys", elements, parts))
        if MATCH_PUSHES_TEST:
            stack.append(stack[-1].test())
    elif op == "UNPACK_SEQUENCE":
        value = stack.pop()
        count = ins.arg
        if isinstance(value, _Found):
            if len(value.names) != count:
                raise Unsupported(ins, "a pattern unpacking a different number of parts")
            _learn(path, value.test(), ins)
            stack.extend(_Value(k) for k in reversed(value.names))
        elif isinstance(value, _Value):
            facts = path.node(value.key).facts
            if facts.get("length") != ("==", count):
                raise Unsupported(ins, "a sequence pattern unpacked without its length tested")
            facts["items"] = (count, 0)
            assert count is not None
            stack.extend(_Value(value.key + (("item", j),)) for j in reversed(range(count)))
        elif isinstance(value, _Expr) and isinstance(
            value.node, (ast.Tuple, ast.Constant)
        ):  # a mapping's keys, to delete them from its rest
            elements = _elements(value.node)
            if len(elements) != count:
                raise Unsupported(ins, "a pattern unpacking a different number of keys")
            stack.extend(_Expr(e) for e in reversed(elements))
        else:
            raise Unsupported(ins, "a pattern unpacking something that is no part of its subject")
    elif op == "UNPACK_EX":
        value = _part(stack.pop(), ins)
        assert ins.arg is not None
        before, after = ins.arg & 0xFF, ins.arg >> 8
        facts = path.node(value.key).facts
        if facts.get("length", (">=", 0)) != (">=", before + after):  # ([*rest] tests no length)
            raise Unsupported(ins, "a starred sequence pattern unpacked without its length tested")
        facts["items"] = (before, after)
        item_parts = (
            [value.key + (("item", j),) for j in range(before)]
            + [value.key + (("star",),)]
            + [value.key + (("item", -after + j),) for j in range(after)]
        )
        stack.extend(_Value(k) for k in reversed(item_parts))
    elif op in ("BINARY_SUBSCR",) or (op == "BINARY_OP" and ins.argrepr == "[]"):
        index, container = stack.pop(), stack.pop()
        if (
            isinstance(container, _Found)
            and isinstance(index, _Expr)
            and isinstance(index.node, ast.Constant)
            and type(index.node.value) is int
            and 0 <= index.node.value < len(container.names)
        ):
            stack.append(_Value(container.names[index.node.value]))  # 3.10 takes the parts by index
            _learn(path, container.test(), ins)
        elif (
            isinstance(container, _Value)
            and _copied(container.key)
            and isinstance(index, _Expr)
            and isinstance(index.node, ast.Constant)
            and type(index.node.value) is int
            and index.node.value >= 0
        ):
            stack.append(_Value(container.key[:-1] + (("item", index.node.value),)))
        elif (
            isinstance(container, _Value)
            and _copied(container.key)
            and isinstance(index, _Length)
            and index.minus
            and index.key == container.key
        ):
            stack.append(_Value(container.key[:-1] + (("item", -index.minus),)))
        else:
            raise Unsupported(ins, "an item taken in a pattern that is no pattern's")
    elif op in ("BINARY_SUBTRACT",) or (op == "BINARY_OP" and ins.argrepr == "-"):
        right, left = stack.pop(), stack.pop()
        if not (
            isinstance(left, _Length)
            and left.minus is None
            and isinstance(right, _Expr)
            and isinstance(right.node, ast.Constant)
            and type(right.node.value) is int
        ):
            raise Unsupported(ins, "a subtraction in a pattern that is no pattern's")
        stack.append(_Length(left.key, right.node.value))
    elif op == "BUILD_MAP" and ins.arg == 0:
        stack.append(_EmptyDict())
    elif op == "DICT_UPDATE":
        source = _part(stack.pop(), ins)
        assert ins.arg is not None
        if not isinstance(stack[-ins.arg], _EmptyDict):
            raise Unsupported(ins, "a dict built in a pattern that is no mapping's rest")
        stack[-ins.arg] = _Value(source.key + (("rest",),))
    elif op == "COPY_DICT_WITHOUT_KEYS":  # 3.10: the subject and its keys -> the subject and the rest
        keys = stack.pop()
        source = _part(stack[-1], ins)
        if not isinstance(keys, _Expr):
            raise Unsupported(ins, "a mapping's rest without its keys")
        stack.append(_Value(source.key + (("rest",),)))
    elif op == "DELETE_SUBSCR":
        key, container = stack.pop(), stack.pop()
        if not (isinstance(container, _Value) and container.key[-1:] == (("rest",),) and isinstance(key, _Expr)):
            raise Unsupported(ins, "a deletion in a pattern that is no mapping rest's")
    else:
        raise Unsupported(ins, "an instruction in a pattern not decompiled yet")


def _elements(keys: ast.expr) -> tuple[ast.expr, ...]:
    """A mapping pattern's keys: a tuple of constants, or of values built (`BUILD_TUPLE`)."""
    return tuple(keys.elts) if isinstance(keys, ast.Tuple) else tuple(_constant(v) for v in keys.value)  # type: ignore[attr-defined]


def _part(value: Any, ins: dis.Instruction) -> _Value:
    if not isinstance(value, _Value):
        raise Unsupported(ins, "a pattern test on something that is no part of its subject")
    return value


def _copied(key: Key) -> bool:
    """Whether a value is a copy: a sequence pattern takes each item it needs by index from a
    copy of the sequence (COPY 1, then BINARY_SUBSCR), and the item is the sequence's."""
    return bool(key) and key[-1][0] == "copy"


def _constant(value: Any) -> ast.expr:
    """A literal as a pattern writes it (a negative number or a complex one is folded)."""
    if isinstance(value, complex):
        imaginary = ast.Constant(value=complex(0, abs(value.imag)))
        if value.real == 0 and str(value.real)[0] != "-":
            return ast.UnaryOp(op=ast.USub(), operand=imaginary) if str(value.imag)[0] == "-" else imaginary
        return ast.BinOp(
            left=_constant(int(value.real) if value.real == int(value.real) else value.real),
            op=ast.Sub() if str(value.imag)[0] == "-" else ast.Add(),
            right=imaginary,
        )
    if isinstance(value, (int, float)) and not isinstance(value, bool) and str(value)[0] == "-":
        return ast.UnaryOp(op=ast.USub(), operand=ast.Constant(value=-value))
    return ast.Constant(value=value)


# ---- the pattern, from the ways that match -------------------------------------------------------
class _Builder:
    def __init__(self, ways: list[_Path]) -> None:
        self.ways = ways

    @staticmethod
    def _alive(way: _Path, key: Key) -> bool:
        """Whether the part is one this way looked at and matched: not in an or-pattern's
        alternative that was tried and left."""
        if key not in way.nodes and not any(k[: len(key)] == key for k in way.nodes):
            return False
        return not any(key[: len(dead)] == dead for dead in way.dead)

    def _children(self, key: Key) -> set[Any]:
        steps: set[Any] = set()
        for way in self.ways:
            for k in way.nodes:
                if len(k) > len(key) and k[: len(key)] == key and self._alive(way, k[: len(key) + 1]):
                    steps.add(k[len(key)])
        return steps

    def _facts(self, key: Key) -> tuple[dict[str, Any], list[str]]:
        facts: dict[str, Any] = {}
        names: list[str] = []
        for way in self.ways:
            node = way.nodes.get(key)
            if node is None or not self._alive(way, key):
                continue
            for name, fact in node.facts.items():
                if name in facts and _dumped(facts[name]) != _dumped(fact):
                    raise Unsupported(None, "a pattern whose ways test one part differently")
                facts[name] = fact
            for name in node.names:
                if name not in names:
                    names.append(name)
        return facts, names

    def pattern(self, key: Key) -> ast.pattern:
        facts, names = self._facts(key)
        steps = self._children(key)
        copies = sorted(s for s in steps if s[0] == "copy")
        # copies of this part that match on every way that reaches it are the part itself
        # (an as-pattern's, or one to take an item from); those that match on some ways only
        # are an or-pattern's alternatives
        reach = [way for way in self.ways if self._alive(way, key)]
        always = [s for s in copies if all(self._alive(way, key + (s,)) for way in reach)]
        alternatives = [s for s in copies if s not in always]
        structure = self._structure(key, facts, steps)
        for step in always:
            inner = self.pattern(key + (step,))
            if is_wildcard(inner):
                continue
            if structure is not None:
                raise Unsupported(None, "a part tested both directly and through a copy")
            structure = inner
        if alternatives:
            if structure is not None:
                raise Unsupported(None, "an or-pattern beside other tests of its part")
            structure = ast.MatchOr(patterns=[self.pattern(key + (step,)) for step in alternatives])
        if len(names) > 1:
            raise Unsupported(None, "one part of a pattern stored in two names")
        if names:
            return ast.MatchAs(pattern=structure, name=names[0])
        return structure if structure is not None else ast.MatchAs(pattern=None, name=None)

    def _structure(self, key: Key, facts: dict[str, Any], steps: set[Any]) -> ast.pattern | None:
        def item(*step):
            return self.pattern(key + (step,))

        if "class" in facts:
            cls, count, keywords = facts["class"]
            return ast.MatchClass(
                cls=cls,
                patterns=[item("arg", j) for j in range(count)],
                kwd_attrs=list(keywords),
                kwd_patterns=[item("attr", k) for k in keywords],
            )
        if "sequence" in facts:
            length = facts.get("length")
            if length is None:
                return ast.MatchSequence(patterns=[ast.MatchStar(name=self._name(key + (("star",),)))])
            op, count = length
            if op == "==":
                return ast.MatchSequence(patterns=[item("item", j) for j in range(count)])
            before, after = facts.get("items") or _split(steps, count)
            return ast.MatchSequence(
                patterns=[
                    *(item("item", j) for j in range(before)),
                    ast.MatchStar(name=self._name(key + (("star",),))),
                    *(item("item", -after + j) for j in range(after)),
                ]
            )
        if "mapping" in facts:
            elements = facts.get("keys", ())
            return ast.MatchMapping(
                keys=list(elements), patterns=[item("key", j) for j in range(len(elements))], rest=self._name(key + (("rest",),))
            )
        if "value" in facts:
            return ast.MatchValue(value=facts["value"])
        if "singleton" in facts:
            return ast.MatchSingleton(value=facts["singleton"])
        return None

    def _name(self, key: Key) -> str | None:
        """The name a part (a star's list, a mapping's rest) is stored in, if any."""
        names = self._facts(key)[1]
        return names[0] if names else None


def _split(steps: set[Any], count: int) -> tuple[int, int]:
    """Items before and after the `*_` of a sequence pattern, from the items taken (those not
    taken are `_`: either split of them matches the same)."""
    taken = [s[1] for s in steps if s[0] == "item"]
    before = max([j + 1 for j in taken if j >= 0], default=0)
    after = max([-j for j in taken if j < 0], default=0)
    if before + after > count:
        raise Unsupported(None, "a sequence pattern's items beyond its length")
    return count - after, after


def is_wildcard(pattern: ast.pattern) -> bool:
    """`_`: a pattern that matches anything and binds nothing."""
    return isinstance(pattern, ast.MatchAs) and pattern.pattern is None and pattern.name is None


def _dumped(value: Any) -> Any:
    if isinstance(value, ast.AST):
        return ast.dump(value)
    if isinstance(value, tuple):
        return tuple(_dumped(v) for v in value)
    if isinstance(value, list):
        return [_dumped(v) for v in value]
    if isinstance(value, dict):
        return {k: _dumped(v) for k, v in value.items()}
    if isinstance(value, (_Value, _Expr, _Test, _Length, _Found, _EmptyDict)):
        return (type(value).__name__, *(_dumped(getattr(value, f)) for f in value.__dataclass_fields__))
    return value
