"""Inductor's graphs before and after its groups of passes (pre-grad, joint, post-grad): the
records torch writes of each (session/passes.py lists them), into Compile.passes."""

from __future__ import annotations

import re

from compilescope.session.passes import PassGraph, PassStage, PassStageName, settle
from compilescope.session.records.state import BuildState, Handler
from compilescope.trace.reader import Record

# An ATen (or prims, higher-order...) call as a graph prints it: "= torch.ops.aten.mm.default("
_TORCH_OP = re.compile(r"= torch\.ops\.(?P<op>[\w.]+)\(")


def pass_graph(stage: PassStageName, code: str, record: str) -> PassGraph:
    """A graph's code and its operations: the pre-grad graph calls torch's functions (read as
    Dynamo's graph is), the joint and post-grad graphs call torch.ops."""
    if stage == "pre-grad":
        from compilescope.session.graphs import parse_dynamo_graph  # (where first used: see dynamo.py)

        return PassGraph(code=code, ops=parse_dynamo_graph(code).ops, record=record)
    return PassGraph(code=code, ops=[m.group("op") for m in _TORCH_OP.finditer(code)], record=record)


def _read(state: BuildState, record: Record, stage: PassStageName, side: str) -> None:
    item = state.pending(record)
    if item is None:
        return
    if not isinstance(record.payload, str) or not record.payload.strip():
        state.skip(f"line {record.line}: {record.kind!r} has no graph: left unknown")
        return
    passes = item.compile.passes
    graph = pass_graph(stage, record.payload, record.kind)
    if side == "before":
        # a graph before its passes begins a group (post-grad: one per graph Inductor compiles)
        passes.append(PassStage(stage=stage, before=graph))
        return
    # a graph after them ends the latest group of that stage still open; none open: its graph
    # before is not in the trace (an older torch, or a graph the FX graph cache had)
    open_ = [s for s in passes if s.stage == stage and s.after is None]
    found = open_[-1] if open_ else None
    if found is None:
        found = PassStage(stage=stage)
        passes.append(found)
    found.after = graph
    settle(found)


def _handler(stage: PassStageName, side: str) -> Handler:
    def handler(state: BuildState, record: Record) -> None:
        _read(state, record, stage, side)

    return handler


HANDLERS: dict[str, Handler] = {
    "before_pre_grad_graph": _handler("pre-grad", "before"),
    "inductor_pre_grad_graph": _handler("pre-grad", "before"),  # (older torch's name for it)
    "after_pre_grad_graph": _handler("pre-grad", "after"),
    "before_joint_graph": _handler("joint", "before"),
    "aot_joint_graph": _handler("joint", "before"),  # a training graph: its joint passes print no graph after
    "after_joint_graph": _handler("joint", "after"),
    "before_post_grad_graph": _handler("post-grad", "before"),
    "inductor_post_grad_graph": _handler("post-grad", "after"),
    "after_post_grad_graph": _handler("post-grad", "after"),  # (the name some torch versions gave it)
}
