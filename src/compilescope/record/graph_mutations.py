"""Tensors a captured graph holds itself (get_attr: not inputs) and changes in place, for `run
--check-accuracy`'s graph check (accuracy.py), which runs the graph again eagerly on copies of
its inputs: a tensor the graph holds is no input, so it is not copied, and the eager run would
change it a second time. Dynamo holds an optimizer's parameters and state that way: a compiled
`opt.step()` is a graph of `p.lerp_(...)`, `exp_avg.mul_(...)` on get_attr tensors, and checking
it applied the update twice (seen here: AdamW's weights after one step differed from the
program's own). Such a graph is not checked.

Read from the FX graph alone: an in-place call (a method or function whose name ends in one `_`,
Python's in-place operators, `x[i] = v`) whose first argument is a held tensor or a view of one.
"""

from __future__ import annotations

import operator
from typing import Any

# (views of a held tensor share its memory: changing them in place changes it)
_VIEWS = frozenset(
    {
        "view", "view_as", "reshape", "__getitem__", "select", "narrow", "transpose", "t", "permute", "expand",
        "squeeze", "unsqueeze", "flatten", "unflatten", "as_strided", "detach", "split", "chunk", "unbind",
        "diagonal", "real", "imag", "alias", "getitem",
    }
)  # fmt: skip
_IN_PLACE_OPERATORS = frozenset(
    {operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.ifloordiv, operator.ipow, operator.setitem}
)


def held_tensors_changed(graph_module: Any) -> list[str]:
    """The names of the tensors the graph holds (get_attr) that it changes in place; [] where
    none, or where the graph cannot be read."""
    try:
        nodes = list(graph_module.graph.nodes)
    except Exception:
        return []
    held: dict[Any, str] = {}  # node: the held tensor it is (or is a view of)
    changed: list[str] = []
    for node in nodes:
        name = _name(node.target)
        if node.op == "get_attr":
            held[node] = str(node.target)
            continue
        first = node.args[0] if node.args else None
        sources = [a for a in (first if isinstance(first, (list, tuple)) else [first]) if a in held]
        if not sources:
            continue
        if _in_place(node.target, name):
            changed.extend(held[a] for a in sources)
        elif name in _VIEWS:
            held[node] = held[sources[0]]
    return list(dict.fromkeys(changed))


def _name(target: Any) -> str:
    """A call's name: "mul_" for the method, "_foreach_lerp_" for torch._foreach_lerp_,
    "add_" for aten.add_.Tensor."""
    if isinstance(target, str):
        return target
    name = getattr(target, "__name__", None) or str(target)
    packet = getattr(target, "overloadpacket", None)  # (an aten OpOverload: its op's name)
    if packet is not None:
        name = getattr(packet, "__name__", name)
    return name.rsplit(".", 1)[-1]


def _in_place(target: Any, name: str) -> bool:
    if target in _IN_PLACE_OPERATORS:
        return True
    return name.endswith("_") and not name.endswith("__")
