"""The one line every view says of the program's memory (session/memory.py's ProgramMemory):

    Memory: CPU high-water 1.9 GiB; cuda:0 max allocated 3.2 GiB, max reserved 4.0 GiB, CUDA graph pools 1.1 GiB (2 pools)

The terminal's header (render/sections/overview.py), the plain lines of a run that compiled
nothing (render/plain.py) and the HTML report's header (render/html.py) all print this line, so
they say the same. Light on purpose (no dataclasses, no rich): it is given ProgramMemory as JSON,
as the plain lines have it. A figure not measured is "unknown", never left out or guessed.
"""

from __future__ import annotations

from compilescope.session.sizes import size  # noqa: F401  (its callers import it from here)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MOST_DEVICES_SAID = 4  # devices on the line; the session's JSON and the report's title have them all

# What the figures are, for the report's hover text (docs/cli.md, "Memory", says it at length)
MEANING = (
    "Measured as the program ended. CPU high-water: the most physical memory the process held at once, "
    "compilescope's own recording included; a child process: the largest high-water mark of those that had ended, "
    "said where it is larger than the process's own. "
    "CUDA: torch's caching allocator, peaks since the program started or last called "
    "torch.cuda.reset_peak_memory_stats; CUDA graph pools: the private pools holding memory at the end."
)


def memory_line(memory: dict[str, Any] | None) -> str | None:
    """The line, or None where the memory was not measured (a trace from elsewhere)."""
    if memory is None:
        return None
    parts = [f"CPU high-water {size(memory.get('cpu_peak_bytes'))}"]
    # A child's figure up to the process's own may be the process's: Linux counts, for a child it
    # forked (subprocess's vfork too), this process's memory at that moment (session/memory.py)
    children, own = memory.get("children_peak_bytes"), memory.get("cpu_peak_bytes")
    if children and own is not None and children > own:
        parts[0] += f", a child process {size(children)}"
    devices = memory.get("cuda") or []
    for device in devices[:MOST_DEVICES_SAID]:
        said = f"{device.get('device')} max allocated {size(device.get('max_allocated_bytes'))}, max reserved {size(device.get('max_reserved_bytes'))}"
        pools = device.get("graph_pools")
        if pools is None:
            said += ", CUDA graph pools unknown"
        elif pools:
            said += f", CUDA graph pools {size(device.get('graph_pool_bytes'))} ({pools} pool{'' if pools == 1 else 's'})"
        parts.append(said)
    if len(devices) > MOST_DEVICES_SAID:
        parts.append(f"{len(devices) - MOST_DEVICES_SAID} more devices (in the session's JSON)")
    return "Memory: " + "; ".join(parts)
