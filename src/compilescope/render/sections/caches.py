"""The terminal's lines on one compile's use of torch's compile caches (`--show cache`): each
lookup (FX graph cache, AOT Autograd cache), its outcome in plain words, its key, what a hit
saved, why torch bypassed the cache, and the remote cache where torch counted it."""

from __future__ import annotations

from rich.text import Text

from compilescope.render.terminal import one_line_of, seconds
from compilescope.session.caches import CACHE_NAMES, CacheLookup
from compilescope.session.model import Compile

# torch's cache_status_detailed, in plain words
DETAILS = {
    "full_miss": "no entry for this key",
    "guard_miss": "an entry for this key, but its guards on input sizes failed",
    "hit": "",
}
INDENT = " " * 9


def cache_rows(c: Compile) -> list[Text]:
    """A line per lookup; where the trace holds none, a line that says so (a torch that does
    not write them, or a backend without Inductor)."""
    if not c.cache.lookups:
        return [
            Text(
                f"{INDENT}caches: no lookup in this trace (torch wrote none for this compile: an older torch, or a backend without Inductor)",
                style="dim",
            )
        ]
    rows = []
    for lookup in c.cache.lookups:
        rows.append(_row(lookup))
        if lookup.outcome == "miss" and lookup.parts:
            rows.append(Text(f"{INDENT}  its key's own parts (the parts every graph shares are in the session's JSON):", style="dim"))
            rows.extend(
                # cut to one line of a 100-column terminal: a wrapped part would lose its indent
                Text(
                    f"{INDENT}    " + _cut(f"{one_line_of(part.name)}: {one_line_of(' '.join(part.value.split()))}", 100 - len(INDENT) - 5),
                    style="dim",
                )
                for part in lookup.parts
            )
    if c.cache.remote_hits or c.cache.remote_misses:
        rows.append(Text(f"{INDENT}remote cache: {c.cache.remote_hits or 0} hit(s), {c.cache.remote_misses or 0} miss(es)", style="dim"))
    elif c.cache.remote_hits == 0 and c.cache.remote_misses == 0:
        rows.append(Text(f"{INDENT}remote cache: not used", style="dim"))
    return rows


def _cut(text: str, limit: int = 100) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _row(lookup: CacheLookup) -> Text:
    name = CACHE_NAMES.get(lookup.cache, one_line_of(lookup.cache))
    if lookup.graph:
        name += f", {lookup.graph} graph"
    row = Text(f"{INDENT}{name}: ")
    style = {"hit": "green", "miss": "yellow", "bypass": "red"}.get(lookup.outcome)
    row.append(one_line_of(lookup.outcome), style=style)
    said = DETAILS.get(lookup.detail or "", one_line_of(lookup.detail or ""))
    if said:
        row.append(f" ({said})")
    if lookup.time_saved_s is not None:
        row.append(f" · saved {seconds(lookup.time_saved_s)} of compiling, by torch's estimate", style="dim")
    if lookup.bypass_reason:
        row.append(f" · torch's reason: {one_line_of(lookup.bypass_reason)}")
    if lookup.key:
        row.append(f" · key {one_line_of(lookup.key[:16])}…", style="dim")
    return row
