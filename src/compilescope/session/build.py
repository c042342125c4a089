"""Build a Session from structured-trace records (no torch): the entry points.

The records are read by family, one module each under session/records/: Dynamo's frames,
graphs, guards, graph breaks and dynamic shapes (dynamo.py), AOT Autograd's graphs (aot.py),
Inductor's code and kernels (inductor.py), a distributed job's DDP pieces and collectives
(distributed.py), compile times, caches and timing events (times.py), the calls of compiled
code (calls.py) and compilescope's own records of the run (program.py), into the state being
built (state.py). records/kinds.py holds the one table of which family reads which kind;
records/finish.py puts it all in place when the last record has been read.

A trace may come from elsewhere: every value is checked for its type before it is used (a value
of the wrong type is left unknown, and said in `Session.skipped`), a record that cannot be read
is skipped with its reason, and records are built as they are read, one at a time, so that a
trace of any length takes the memory of the Session it describes, not of the file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from compilescope.session.model import Session
from compilescope.session.records.finish import finish
from compilescope.session.records.kinds import KINDS, PASSED_OVER, add
from compilescope.session.records.state import BuildState
from compilescope.trace.reader import Record, TraceLog, iter_file_records, iter_records, open_trace_bytes, trace_files


@dataclass
class TraceRead:
    """A Session built from one trace file, and how much of the file was records."""

    session: Session
    records: int  # records read (interned strings included)
    lines: int


def load_trace(path: str | Path) -> list[Session]:
    """One Session per trace file (per rank) found at `path`."""
    return [read.session for read in read_traces(path)]


def read_traces(path: str | Path) -> list[TraceRead]:
    """Each trace file (per rank) found at `path`, read one record at a time."""
    files = trace_files(path)
    if not files:
        raise FileNotFoundError(f"no trace files (*.log, *.log.gz) in {path}")
    reads = []
    for file in files:
        with open_trace_bytes(file) as stream:
            reads.append(_build(_file_records, stream, str(file)))
    return reads


def build_from_lines(lines: Iterable[str], name: str | None) -> TraceRead:
    """The Session of a trace's lines, built as its records are read (none kept after use)."""
    return _build(iter_records, lines, name)


# kinds no family reads, whose records the reader need not decode (see PASSED_OVER for why);
# interned strings and artifacts are read for what they name
_NOT_DECODED = frozenset(PASSED_OVER) - {"str", "artifact"} - frozenset(KINDS)


def _file_records(stream: BinaryIO, log: TraceLog) -> Iterator[Record]:
    return iter_file_records(stream, log, _NOT_DECODED)


def _build(read: Callable[[Any, TraceLog], Iterator[Record]], source: Any, name: str | None) -> TraceRead:
    log = TraceLog(path=name, records=[], strings={}, skipped=[])
    state = BuildState.of(log)
    for record in read(source, log):
        add(state, record)
    return TraceRead(finish(state), log.records_read + len(log.strings), log.lines_read)


def build_session(log: TraceLog) -> Session:
    """The Session of a trace whose records have all been read (`TraceLog.records`)."""
    state = BuildState.of(log)
    for record in log.records:
        add(state, record)
    return finish(state)
