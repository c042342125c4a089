"""compilescope's record of the calls of compiled code (compilescope_calls, record/calls.py):
how many calls each compiled version served, and how long they took; the calls that ran no
compiled code; and the order a function's versions were called in.

After the last record, `apply_calls` puts them on each Compile and Frame.
"""

from __future__ import annotations

from typing import Any

from compilescope.session.model import CallTimes, Frame
from compilescope.session.records.program import hook_failures
from compilescope.session.records.state import BuildState, Handler
from compilescope.session.records.values import as_text, described, int_of, list_of, number_of, short
from compilescope.trace.reader import Record


def on_compilescope_calls(state: BuildState, record: Record) -> None:
    if isinstance(record.metadata, dict):
        state.calls = record.metadata
        for key in ("versions", "eager", "order"):
            value = record.metadata.get(key)
            if value is not None and not isinstance(value, list):
                state.wrong_type(record, key, value, "a list")
    else:
        state.wrong_type(record, "its metadata", record.metadata, "an object")


HANDLERS: dict[str, Handler] = {
    "compilescope_calls": on_compilescope_calls,
}


# ---- when the trace has been read -----------------------------------------------------------


def apply_calls(state: BuildState) -> None:
    """Put the calls each version served (compilescope's own record) on its Compile, and the
    calls that ran no compiled code, and their order, on the Frame."""
    data = state.calls
    if data is None:
        return
    if data.get("unavailable"):
        state.session.calls_recorded = str(data["unavailable"])
        return
    hook_failures(state, data)
    method = data.get("method")
    state.session.calls_recorded = method if isinstance(method, str) and method else "recorded"
    for version in list_of(data.get("versions")):
        cid = version.get("compile_id") if isinstance(version, dict) else None
        if not isinstance(cid, dict):
            state.skip(f"calls of a compiled version: not in the shape compilescope writes ({described(version)})")
            continue
        key = (int_of(cid.get("compiled_autograd_id")), int_of(cid.get("frame_id")), int_of(cid.get("frame_compile_id")))
        item = state.latest.get(key)
        if item is None:
            state.skip(
                f"calls of compiled version {short(as_text(version.get('label')) or 'unknown')}: the trace has no compile with that id"
            )
            continue
        item.compile.calls = _call_times(version)
    for original in list_of(data.get("eager")):
        frame = _frame_named(state, original.get("frame")) if isinstance(original, dict) else None
        if frame is not None:
            # Two code objects of one function (the resume functions of both sides of a
            # branch) add up.
            frame.calls_without_compiled_code = _add_calls(frame.calls_without_compiled_code, _call_times(original))
    for order in list_of(data.get("order")):
        frame = _frame_named(state, order.get("frame")) if isinstance(order, dict) else None
        if frame is not None:
            runs = [
                run
                for run in list_of(order.get("runs"))
                if isinstance(run, list) and len(run) == 2 and isinstance(run[0], str) and int_of(run[1]) is not None
            ]
            frame.call_order = [[label, count] for label, count in runs]
            frame.call_order_cut = order.get("cut") is True


def _frame_named(state: BuildState, key: Any) -> Frame | None:
    if not isinstance(key, list) or len(key) != 3:
        return None
    filename, lineno, name = key
    if not isinstance(filename, (str, type(None))) or int_of(lineno) is None or not isinstance(name, str):
        return None
    return state.frames.get((filename, lineno, name))


def _call_times(facts: dict[str, Any]) -> CallTimes:
    iqr = facts.get("iqr_us")
    iqr_us = [float(v) for v in iqr] if isinstance(iqr, list) and len(iqr) == 2 and all(number_of(v) is not None for v in iqr) else None
    return CallTimes(
        calls=int_of(facts.get("calls")) or 0,
        total_ms=number_of(facts.get("total_ms")) or 0.0,
        median_us=number_of(facts.get("median_us")),
        iqr_us=iqr_us,
        raised=int_of(facts.get("raised")) or 0,
        sampled=int_of(facts.get("sampled")),
    )


def _add_calls(first: CallTimes | None, second: CallTimes) -> CallTimes:
    if first is None or first.calls == 0:
        return second
    if second.calls == 0:
        return first
    # The median of the two together is not known from the two medians: say unknown.
    return CallTimes(calls=first.calls + second.calls, total_ms=first.total_ms + second.total_ms, raised=first.raised + second.raised)
