"""compilescope's record of the program's memory as it ended (trace/ours.py's MEMORY_RECORD,
written by record/memory.py in the shape of session/memory.py's ProgramMemory): read into
Session.memory.

A trace may come from elsewhere: a figure of the wrong type is left unknown (None) with a line in
`skipped`, a device not in the shape compilescope writes is left out with one, and a record
that is not an object at all leaves the memory unmeasured (None), never guessed.
"""

from __future__ import annotations

from typing import Any

from compilescope.session.memory import DeviceMemory, ProgramMemory
from compilescope.session.records.state import BuildState, Handler
from compilescope.session.records.values import described, int_of, list_of, short
from compilescope.trace.ours import MEMORY_RECORD
from compilescope.trace.reader import Record

_BYTES = ("max_allocated_bytes", "max_reserved_bytes", "allocated_bytes", "reserved_bytes", "graph_pools", "graph_pool_bytes")
MOST_DEVICES = 64  # as record/memory.py measures at most
MOST_REASONS = 20  # reasons kept per list (a record from elsewhere may hold any number)


def on_compilescope_memory(state: BuildState, record: Record) -> None:
    meta = record.metadata
    if not isinstance(meta, dict):
        state.wrong_type(record, "its metadata", meta, "an object")
        return

    def count(data: dict[str, Any], key: str, where: str) -> int | None:
        """A figure in bytes (or a count): a whole number, not negative; else None, said."""
        value = data.get(key)
        if value is None:
            return None
        number = int_of(value)
        if number is None or number < 0:
            state.wrong_type(record, where + key, value, "a whole number of 0 or more")
            return None
        return number

    no_cuda = meta.get("no_cuda")
    if no_cuda is not None and not isinstance(no_cuda, str):
        state.wrong_type(record, "no_cuda", no_cuda, "a string")
    devices = []
    for index, item in enumerate(list_of(meta.get("cuda"))[:MOST_DEVICES]):
        if not isinstance(item, dict) or not isinstance(item.get("device"), str):
            state.skip(f"line {record.line}: {MEMORY_RECORD!r}: a CUDA device not in the shape compilescope writes ({described(item)})")
            continue
        where = f"cuda[{index}]."
        figures = {key: count(item, key, where) for key in _BYTES}
        devices.append(DeviceMemory(device=short(item["device"], 40), **figures, unknown=_reasons(item.get("unknown"))))
    state.session.memory = ProgramMemory(
        cpu_peak_bytes=count(meta, "cpu_peak_bytes", ""),
        children_peak_bytes=count(meta, "children_peak_bytes", ""),
        cuda=devices,
        no_cuda=short(no_cuda) if isinstance(no_cuda, str) else None,
        unknown=_reasons(meta.get("unknown")),
    )


def _reasons(value: Any) -> list[str]:
    return [short(reason) for reason in list_of(value) if isinstance(reason, str)][:MOST_REASONS]


HANDLERS: dict[str, Handler] = {MEMORY_RECORD: on_compilescope_memory}
