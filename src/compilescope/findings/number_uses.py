"""How a Python number passed to a compiled function is used, where that decides the fix for a
recompile on its value ("pass it as a tensor" works only for a number the code computes with):
- torch made it symbolic, then had to specialize it back (the trace's `specialization` decision,
  torch's guard on its exact value): its code needs the number itself (`for _ in range(n)`, a
  loop unrolled per count). Neither a tensor nor dynamic=True can help (checked on
  tests/traces/programs/number_uses.py with dynamic=True: a version per value still);
- it is a size or a dimension of a tensor operation (`x.view(shape)`, `x.sum(dim)`): a tensor
  cannot be one, while dynamic=True makes a size symbolic from the first call (no recompile).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from compilescope.findings.arguments import local_of
from compilescope.session.model import Compile, DynamicShape

# tensor operations (functions and methods) whose arguments are sizes or dimensions, not values
_SIZED = frozenset(
    {
        "view", "reshape", "expand", "repeat", "tile", "new_zeros", "new_ones", "new_empty", "new_full",
        "zeros", "ones", "empty", "full", "rand", "randn", "randint", "arange", "narrow", "unflatten",
        "flatten", "split", "chunk", "permute", "transpose", "movedim", "unsqueeze", "squeeze", "roll",
        "topk", "select", "sum", "mean", "amax", "amin", "softmax", "log_softmax", "cumsum", "argmax",
        "argmin", "cat", "stack", "interpolate", "pad", "size",
    }
)  # fmt: skip


def decisions_on(subject: str, compiles: Sequence[Compile]) -> list[DynamicShape]:
    """torch's dynamic-shape decisions about the number passed as `subject` ("shape[0]" for
    the source "L['shape'][0]")."""
    return [d for c in compiles for d in c.dynamic if d.source and local_of(d.source) == subject]


def specialized(subject: str, compiles: Sequence[Compile]) -> DynamicShape | None:
    """Where torch made the number symbolic and then specialized it back to its value: the
    decision (its code and line say what needed the value), or None."""
    return next((d for d in decisions_on(subject, compiles) if d.kind == "specialization"), None)


def used_as_size(code: str | None, subject: str) -> str | None:
    """The call in `code` (a guard's line) that takes the number as a size or a dimension
    ("`x.view(shape)`"), or None. The number is matched as written (`shape[0]`), or as the
    sequence it is an element of (`shape`)."""
    try:
        tree = ast.parse((code or "").strip())
    except SyntaxError:
        return None
    wanted = {subject, subject.split("[", 1)[0]}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        callee = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id if isinstance(node.func, ast.Name) else None
        if callee not in _SIZED:
            continue
        arguments = [*node.args, *(k.value for k in node.keywords)]
        if any(ast.unparse(a.value if isinstance(a, ast.Starred) else a) in wanted for a in arguments):
            return f"`{ast.unparse(node)}`"
    return None
