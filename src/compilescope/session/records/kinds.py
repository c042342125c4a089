"""Which record kinds build a Session, and which family reads each: the one table, KINDS.

Each record family's module (dynamo.py, aot.py, inductor.py, distributed.py, times.py,
calls.py, program.py) names the kinds it reads in its HANDLERS; KINDS is all of them, each
kind claimed by one family (two that claim one kind fail at import). A record of a kind that
is not here (torch writes many more, and will write others) is passed over: nothing is
learned from it, and nothing is guessed.
"""

from __future__ import annotations

from compilescope.session.records.aot import HANDLERS as AOT
from compilescope.session.records.calls import HANDLERS as CALLS
from compilescope.session.records.distributed import HANDLERS as DISTRIBUTED
from compilescope.session.records.dynamo import HANDLERS as DYNAMO
from compilescope.session.records.inductor import HANDLERS as INDUCTOR
from compilescope.session.records.program import HANDLERS as PROGRAM
from compilescope.session.records.state import BuildState, Handler
from compilescope.session.records.times import HANDLERS as TIMES
from compilescope.session.records.values import short
from compilescope.trace.reader import Record

FAMILIES: dict[str, dict[str, Handler]] = {
    "dynamo": DYNAMO,
    "aot": AOT,
    "inductor": INDUCTOR,
    "distributed": DISTRIBUTED,
    "times": TIMES,
    "calls": CALLS,
    "program": PROGRAM,
}


def merged(families: dict[str, dict[str, Handler]]) -> dict[str, Handler]:
    """The families' handlers in one table, refusing a kind that two of them claim."""
    kinds: dict[str, Handler] = {}
    claimed: dict[str, str] = {}
    for family, handlers in families.items():
        for kind, handler in handlers.items():
            if kind in claimed:
                raise ValueError(f"record kind {kind!r} is read by two families: {claimed[kind]} and {family}")
            claimed[kind] = family
            kinds[kind] = handler
    return kinds


KINDS: dict[str, Handler] = merged(FAMILIES)


def add(state: BuildState, record: Record) -> None:
    """Read one record into the state, by its kind (one lookup in KINDS: this runs per record)."""
    if record.rank is not None and state.session.rank is None:
        state.session.rank = record.rank
    if state.session.started is None:
        state.session.started = record.written
    handler = KINDS.get(record.kind)
    if handler is not None:
        try:
            handler(state, record)
        except Exception as error:  # a record in a shape we do not know: say so, go on
            state.skip(f"line {record.line}: could not read {short(record.kind)!r} ({type(error).__name__}: {short(str(error))})")
