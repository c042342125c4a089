"""AOT Autograd's records: the forward, backward and inference graphs it made of each graph
Dynamo captured (aot_forward_graph, aot_backward_graph, aot_inference_graph)."""

from __future__ import annotations

from compilescope.session.records.state import BuildState, Handler
from compilescope.trace.reader import Record

# (the parser of graphs, session/graphs.py, is imported where first used: see dynamo.py)


def _aot(state: BuildState, record: Record, which: str) -> None:
    item = state.pending(record)
    if item and record.payload is not None:
        from compilescope.session.graphs import parse_aot_graph

        setattr(item.compile.aot, which, parse_aot_graph(record.payload))


def on_aot_forward_graph(state: BuildState, record: Record) -> None:
    _aot(state, record, "forward")


def on_aot_backward_graph(state: BuildState, record: Record) -> None:
    _aot(state, record, "backward")


def on_aot_inference_graph(state: BuildState, record: Record) -> None:
    _aot(state, record, "inference")


HANDLERS: dict[str, Handler] = {
    "aot_forward_graph": on_aot_forward_graph,
    "aot_backward_graph": on_aot_backward_graph,
    "aot_inference_graph": on_aot_inference_graph,
}
