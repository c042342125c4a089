"""The decompiler's third layer: the control-flow graph -> structured statements.

So far: if / elif / else, with conditions joined by `and`, `or` and `not`, and early returns,
found from the graph (a branch's two sides meet again at the branch block's immediate
post-dominator), never from instruction patterns. Loops, try, with, and values that flow across
blocks (`x = a or b`, `a if c else b`) raise Unsupported for now, naming where.
"""

from __future__ import annotations

import ast
import dis
import sys
from dataclasses import dataclass
from types import CodeType

from compilescope.decompile import cfg
from compilescope.decompile.expressions import BlockReader, Unsupported, _arguments

EXIT = -1  # the virtual block every return and raise leads to

# Conditional jumps: (the value that makes the jump, what it is tested as).
_CONDITIONAL = {
    "POP_JUMP_IF_TRUE": (True, "truth"), "POP_JUMP_IF_FALSE": (False, "truth"),
    "POP_JUMP_FORWARD_IF_TRUE": (True, "truth"), "POP_JUMP_FORWARD_IF_FALSE": (False, "truth"),
    "POP_JUMP_BACKWARD_IF_TRUE": (True, "truth"), "POP_JUMP_BACKWARD_IF_FALSE": (False, "truth"),
    "POP_JUMP_IF_NONE": (True, "none"), "POP_JUMP_IF_NOT_NONE": (False, "none"),
    "POP_JUMP_FORWARD_IF_NONE": (True, "none"), "POP_JUMP_FORWARD_IF_NOT_NONE": (False, "none"),
    "POP_JUMP_BACKWARD_IF_NONE": (True, "none"), "POP_JUMP_BACKWARD_IF_NOT_NONE": (False, "none"),
}


@dataclass
class _Condition:
    test: ast.expr  # true: control goes to `when_true`
    when_true: int
    when_false: int


class Structurer:
    def __init__(self, code: CodeType) -> None:
        self.code = code
        self.graph = cfg.build(code)
        if self.graph.loops:
            raise Unsupported(None, "loops are not decompiled yet")
        if any(kind == "exception" for block in self.graph.blocks for _, kind in block.successors):
            raise Unsupported(None, "try, with and other exception handling are not decompiled yet")
        self.post_dominators = _immediate_post_dominators(self.graph)

    # ---- conditions ------------------------------------------------------------------------------
    def _condition_of(self, index: int, reader: BlockReader) -> _Condition:
        """The block's own condition, its statements already run by `reader`."""
        block = self.graph.blocks[index]
        jump = block.last
        taken_when, kind = _CONDITIONAL[jump.opname]
        value = reader.pop_value(jump)
        if reader.stack:
            raise Unsupported(jump, "a value flows past this branch (a conditional expression or `x = a or b`)")
        fall = next((s for s, k in block.successors if k == "fall"), None)
        target = next((s for s, k in block.successors if k == "jump"), None)
        if fall is None or target is None:
            raise Unsupported(jump, "a branch without two ways out")
        test = ast.Compare(left=value, ops=[ast.Is()], comparators=[ast.Constant(value=None)]) if kind == "none" else value
        return _Condition(test, target, fall) if taken_when else _Condition(test, fall, target)

    def _pure_condition(self, index: int, only_from: int) -> _Condition | None:
        """A block that only computes a condition, reached only from `only_from`: part of an
        `and`/`or` with that block's condition."""
        block = self.graph.blocks[index]
        if block.predecessors != [only_from] or block.last.opname not in _CONDITIONAL:
            return None
        reader = BlockReader(self.code)
        try:
            reader.run(block.instructions[:-1])
            if reader.statements:
                return None
            return self._condition_of(index, reader)
        except Unsupported:
            return None

    def _join(self, index: int, first: _Condition) -> _Condition:
        """Absorb the blocks that continue this condition with `and` / `or`: a pure condition
        block on one side of this one whose other way out is shared with it."""
        condition = first
        while True:
            for side in ("when_true", "when_false"):
                following = self._pure_condition(getattr(condition, side), index)
                joined = following and _joined(condition, following, side)
                if joined is not None:
                    index = getattr(condition, side)
                    condition = joined
                    break
            else:
                return condition

    # ---- regions ---------------------------------------------------------------------------------
    def region(self, start: int, stop: int) -> list[ast.stmt]:
        statements: list[ast.stmt] = []
        node = start
        while node not in (stop, EXIT):
            block = self.graph.blocks[node]
            reader = BlockReader(self.code)
            last = block.last
            if last.opname in _CONDITIONAL:
                reader.run(block.instructions[:-1])
                statements += reader.statements
                condition = self._join(node, self._condition_of(node, reader))
                merge = self.post_dominators.get(node, EXIT)
                then_body = self.region(condition.when_true, merge)
                else_body = self.region(condition.when_false, merge)
                statements += _if(condition.test, then_body, else_body)
                node = merge
                continue
            if cfg.is_jump(last):
                if last.opname not in cfg.UNCONDITIONAL:
                    raise Unsupported(last, "a conditional jump of a kind not decompiled yet")
                reader.run(block.instructions[:-1])
                self._check_empty(reader, last)
                statements += reader.statements
                node = next(s for s, k in block.successors if k == "jump")
                continue
            reader.run(block.instructions)
            self._check_empty(reader, last)
            statements += reader.statements
            if last.opname in cfg.TERMINATORS:
                node = EXIT
            else:
                node = next((s for s, k in block.successors if k == "fall"), EXIT)
        return statements

    @staticmethod
    def _check_empty(reader: BlockReader, instruction: dis.Instruction) -> None:
        if reader.stack:
            raise Unsupported(instruction, "a value flows from this block into the next")


def _joined(first: _Condition, second: _Condition, side: str) -> _Condition | None:
    """`first` and then `second` (reached from first's `side`) as one condition, or None."""
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
    short one that leaves goes first as a guard (`if not items: return None`), and statements both
    sides end with (Python 3.11+ copies a `return y` into each) are written once, after."""
    common = 0
    while common < min(len(body), len(orelse)) and ast.dump(body[-1 - common]) == ast.dump(orelse[-1 - common]):
        common += 1
    if common:
        tail = body[len(body) - common:]
        return [*_if(test, body[: len(body) - common], orelse[: len(orelse) - common]), *tail]
    if orelse and _leaves(orelse) and len(orelse) < len(body):
        return [ast.If(test=negate(test), body=orelse, orelse=[]), *body]
    if body and _leaves(body):
        return [ast.If(test=test, body=body, orelse=[]), *orelse]
    if not body:
        return [ast.If(test=negate(test), body=orelse, orelse=[])] if orelse else [ast.If(test=test, body=[ast.Pass()], orelse=[])]
    return [ast.If(test=test, body=body, orelse=orelse)]


def _leaves(statements: list[ast.stmt]) -> bool:
    return isinstance(statements[-1], (ast.Return, ast.Raise))


def negate(test: ast.expr) -> ast.expr:
    """`not test`, written plainly where that means exactly the same: `not not x` is x only as a
    truth value, which is how a condition is used; `is`/`in` have exact opposites."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    opposite = {ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in opposite:
        return ast.Compare(left=test.left, ops=[opposite[type(test.ops[0])]()], comparators=test.comparators)
    return ast.UnaryOp(op=ast.Not(), operand=test)


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


def function_source(code: CodeType) -> str:
    """Source for a function: `def f(...): ...`. Raises Unsupported where it cannot say."""
    structurer = Structurer(code)
    body = structurer.region(0, EXIT) or [ast.Pass()]
    # The `return None` Python adds at the end of a function is not the user's.
    if len(body) > 1 and _returns_none(body[-1]):
        body = body[:-1]
    function = ast.FunctionDef(name=code.co_name, args=_arguments(code), body=body, decorator_list=[], returns=None, type_comment=None, lineno=1)
    if sys.version_info >= (3, 12):
        function.type_params = []
    return ast.unparse(ast.fix_missing_locations(ast.Module(body=[function], type_ignores=[])))


def _returns_none(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Return) and isinstance(statement.value, ast.Constant) and statement.value.value is None
