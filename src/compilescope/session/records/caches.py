"""The compile caches' records: each lookup in Inductor's FX graph cache and in AOT Autograd's
cache (the artifacts `fx_graph_cache_hit`/`_miss`/`_bypass` and `aotautograd_cache_hit`/
`_miss`/`_bypass`, JSON payloads), with the key and the parts torch made it of.

After the last record, `share_key_parts` keeps the parts every lookup of the session has in
common (the Inductor configs, the torch version, the system) once, in Session.cache_key_shared.
"""

from __future__ import annotations

import re
from typing import Any

from compilescope.session.caches import VALUE_KEPT, CacheLookup, KeyPart
from compilescope.session.model import Session
from compilescope.session.records.state import BuildState, Handler
from compilescope.session.records.values import list_of, number_of, short, text_of
from compilescope.trace.reader import Record, json_value

OUTCOMES = ("hit", "miss", "bypass")
# "[p2ebgo6adxadx4pfywvxzo5w3x57w7xnkacmsta7a467soxdymo] gm: <lambda>()..."
_PART = re.compile(r"\[(?P<digest>[^\]\s]{1,128})\] (?P<name>[^:\n]{1,200}): ?(?P<value>.*)", re.DOTALL)


def _lookup(state: BuildState, record: Record, cache: str, outcome: str) -> None:
    item = state.pending(record)
    if item is None or record.payload is None:
        return
    try:
        info = json_value(record.payload)
    except ValueError:
        info = None
    if not isinstance(info, dict):
        state.skip(f"line {record.line}: a {record.kind} whose payload is not a JSON object")
        return
    parts = _parts(list_of(info.get("components")))
    saved = number_of(info.get("time_saved_ms"))
    saved_s = saved / 1e3 if saved is not None else None
    if saved_s is None and (saved_ns := number_of(info.get("time_saved_ns"))) is not None:
        saved_s = saved_ns / 1e9
    item.compile.cache.lookups.append(
        CacheLookup(
            cache=cache,
            outcome=outcome,
            detail=text_of(info.get("cache_status_detailed")),
            graph=_graph_of(parts) if cache == "fx_graph" else None,
            key=text_of(info.get("key")),
            bypass_reason=text_of(info.get("cache_bypass_reason")),
            time_saved_s=saved_s,
            parts=parts or None,
        )
    )


def _parts(components: list[Any]) -> list[KeyPart]:
    """The key's parts as torch lists them; a line in another shape is kept whole as a part of
    its own (named by its start), never dropped."""
    parts = []
    for line in components:
        if not isinstance(line, str):
            continue
        match = _PART.match(line)
        if match is None:
            parts.append(KeyPart(name=short(line.split("\n", 1)[0], 80), digest=line[:VALUE_KEPT], value=short(line, VALUE_KEPT)))
            continue
        parts.append(KeyPart(name=match["name"], digest=match["digest"], value=short(match["value"], VALUE_KEPT)))
    return parts


def _graph_of(parts: list[KeyPart]) -> str | None:
    """Which graph of the compile an FX graph lookup was for, from its key's compile options."""
    flags = {p.name: p.value.strip() for p in parts if p.name in ("fx_kwargs[is_backward]", "fx_kwargs[is_inference]")}
    if flags.get("fx_kwargs[is_backward]") == "True":
        return "backward"
    if flags.get("fx_kwargs[is_inference]") == "True":
        return "inference"
    if flags.get("fx_kwargs[is_backward]") == "False":
        return "forward"
    return None


def _handler(cache: str, outcome: str) -> Handler:
    def handle(state: BuildState, record: Record) -> None:
        _lookup(state, record, cache, outcome)

    handle.__name__ = f"on_{cache}_cache_{outcome}"
    return handle


HANDLERS: dict[str, Handler] = {
    **{f"fx_graph_cache_{outcome}": _handler("fx_graph", outcome) for outcome in OUTCOMES},
    **{f"aotautograd_cache_{outcome}": _handler("aot_autograd", outcome) for outcome in OUTCOMES},
}


# ---- when the trace has been read -----------------------------------------------------------

# parts that belong to one graph, never shared: its code, its inputs, its compile options
_OWN = re.compile(r"^(gm|example_inputs\[|fx_kwargs\[|inputs_to_check|cache_key_tag)")


def share_key_parts(session: Session) -> None:
    """Keep once, in session.cache_key_shared, the parts (name and digest) that every FX graph
    lookup listing parts has in common and that are not one graph's own; each lookup keeps the
    rest. A session of one lookup shares all its parts but the graph's own."""
    listed = [lookup for c in session.compiles for lookup in c.cache.lookups if lookup.parts]
    if not listed:
        return
    common = {(p.name, p.digest) for p in listed[0].parts or [] if not _OWN.match(p.name)}
    for lookup in listed[1:]:
        common &= {(p.name, p.digest) for p in lookup.parts or []}
    if not common:
        return
    session.cache_key_shared = [p for p in listed[0].parts or [] if (p.name, p.digest) in common]
    for lookup in listed:
        lookup.parts = [p for p in lookup.parts or [] if (p.name, p.digest) not in common]
