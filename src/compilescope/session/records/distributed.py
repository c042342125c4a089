"""The records of a distributed job's compiles: the pieces DDP's optimizer split a graph into
at its buckets (optimize_ddp_split_child), and the collectives Inductor scheduled in each graph
(inductor_collective_schedule). A job writes one trace per rank: each is its own Session."""

from __future__ import annotations

from compilescope.session.records.state import BuildState, Handler
from compilescope.session.records.values import text_of, unknown
from compilescope.trace.reader import Record, json_value

# (the parser of graphs, session/graphs.py, is imported where first used: see dynamo.py)


def on_optimize_ddp_split_child(state: BuildState, record: Record) -> None:
    item = state.pending(record)
    name = record.metadata.get("name") if isinstance(record.metadata, dict) else None
    if item and record.payload is not None:
        from compilescope.session.graphs import parse_ddp_piece

        item.compile.ddp_pieces.append(parse_ddp_piece(text_of(name) or "?", record.payload))


def on_inductor_collective_schedule(state: BuildState, record: Record) -> None:
    item = state.pending(record)
    if item and record.payload is not None:
        schedule = json_value(record.payload)
        if not isinstance(schedule, list):
            state.wrong_type(record, "payload", schedule, "a list")
            return
        # one record per graph Inductor compiled (a forward, its backward): in order
        item.compile.collectives = (item.compile.collectives or []) + [unknown(text_of(op)) for op in schedule]


HANDLERS: dict[str, Handler] = {
    "optimize_ddp_split_child": on_optimize_ddp_split_child,
    "inductor_collective_schedule": on_inductor_collective_schedule,
}
