"""The program's memory as it ended (`compilescope run`): the process's high-water mark, that of
its child processes, and, where the program itself started CUDA, each device's allocator figures
and the private pools CUDA graphs hold. Measured once, after the program ends and before
compilescope builds anything: a getrusage and a few of the allocator's statistics, so the run
costs nothing more while the program runs.

Observe only: torch is never imported here (it is looked up in sys.modules), CUDA is never
started (a program that did not start it gets no CUDA figures: starting it would take memory on
the device and break a later fork), and no statistic is reset. Each figure is asked for on its
own, and one that fails is None with the reason in `unknown`: nothing here raises into the
program's end.

Light on purpose (no dataclasses, no typing): it runs also at the end of a program that never
imported torch. `measure()` gives the record's facts in the shape of session/memory.py's
ProgramMemory as JSON, which session/records/memory.py reads back (and session/empty.py saves as
it is, for a program that never imported torch).
"""

from __future__ import annotations

import sys

from compilescope.session import error_summary
from compilescope.trace.ours import MEMORY_RECORD

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from compilescope.record.writer import TraceFileWriter

MOST_DEVICES = 64  # devices measured (a host has at most 16 or so)
_DEFAULT_POOL = (0, 0)  # the caching allocator's own pool; any other is a private one (CUDA graphs, MemPool)


_MEASURED: list[dict[str, Any]] = []  # figures taken early (measure_before_our_work), written later


def measure_before_our_work() -> None:
    """Take the figures now, for record_memory to write: `run --check-accuracy` compiles the
    stages of a differing graph as the program exits, which would raise the high-water mark."""
    if not _MEASURED:
        _MEASURED.append(measure())


def record_memory(writer: TraceFileWriter) -> dict[str, Any]:
    """Measure, once the program is over and before anything of compilescope's is built (or use
    the figures measure_before_our_work took), and write them to the trace (MEMORY_RECORD); the
    figures, for a session saved without the model (session/empty.py)."""
    facts = _MEASURED.pop() if _MEASURED else measure()
    writer.write_record(MEMORY_RECORD, facts)
    return facts


def measure() -> dict[str, Any]:
    """The figures (ProgramMemory's fields): never raises."""
    unknown: list[str] = []
    try:
        cpu, children = _rusage(unknown)
        cuda, no_cuda = _cuda(unknown)
    except Exception as error:  # each step guards its own; this is the last net
        return {"cpu_peak_bytes": None, "children_peak_bytes": None, "cuda": [], "no_cuda": None, "unknown": [error_summary(error)]}
    return {"cpu_peak_bytes": cpu, "children_peak_bytes": children, "cuda": cuda, "no_cuda": no_cuda, "unknown": unknown}


def _rusage(unknown: list[str]) -> tuple[int | None, int | None]:
    """The process's high-water resident set (own_high_water), and the largest of its ended
    (waited-for) child processes', in bytes. A forked child's counts this process's memory at the
    fork too (session/memory.py says how the views use it)."""
    try:
        import resource
    except ImportError:  # (Windows)
        unknown.append("CPU high-water mark: not available on this system (no getrusage)")
        return None, None
    own: int | None = None
    try:
        own = own_high_water()
    except (OSError, ValueError, AttributeError) as error:
        unknown.append(f"CPU high-water mark: {error_summary(error)}")
    try:
        children: int | None = int(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) * _RU_MAXRSS_SCALE
    except (OSError, ValueError, AttributeError) as error:
        unknown.append(f"child processes' high-water mark: {error_summary(error)}")
        children = None
    return own, children


_RU_MAXRSS_SCALE = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: KiB on Linux and the BSDs, bytes on macOS


def own_high_water() -> int:
    """The most physical memory (resident set) this process has held at once, in bytes. On Linux,
    the kernel's VmHWM for this process's memory: getrusage's ru_maxrss is carried over exec, so a
    program started from a large process (a notebook's kernel, a pytest run, a launcher holding a
    dataset) would read its launcher's memory at the fork as its own (measured here: 1037 MiB in
    a bare `python -c` started by a process holding 1 GiB; VmHWM said 13 MiB). Elsewhere, or where
    /proc cannot be read, ru_maxrss. Raises OSError (and the like) where neither can be read."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    number, unit = line.split()[1:3]
                    if unit == "kB":
                        return int(number) * 1024
    except (OSError, ValueError):
        pass  # (no /proc: macOS, the BSDs, a sandbox)
    import resource

    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * _RU_MAXRSS_SCALE


def _cuda(unknown: list[str]) -> tuple[list[dict[str, Any]], str | None]:
    """Each device's figures (DeviceMemory's fields), or no device and why."""
    torch = sys.modules.get("torch")
    cuda = getattr(torch, "cuda", None) if torch is not None else None
    if cuda is None:
        return [], "the program did not import torch" if torch is None else "torch.cuda was not loaded"
    try:
        started = bool(cuda.is_initialized())
    except Exception as error:
        return [], f"unknown whether the program started CUDA ({error_summary(error)})"
    if not started:
        return [], "the program did not start CUDA"
    try:
        count = int(cuda.device_count())
        current = int(cuda.current_device())
    except Exception as error:
        unknown.append(f"CUDA devices: {error_summary(error)}")
        return [], None
    pools, pools_unknown = _private_pools(cuda)
    devices = []
    for index in range(min(count, MOST_DEVICES)):
        figures: dict[str, Any] = {"device": f"cuda:{index}"}
        why: list[str] = []
        for key, function in (
            ("max_allocated_bytes", "max_memory_allocated"),
            ("max_reserved_bytes", "max_memory_reserved"),
            ("allocated_bytes", "memory_allocated"),
            ("reserved_bytes", "memory_reserved"),
        ):
            figures[key] = _asked(getattr(cuda, function, None), index, f"torch.cuda.{function}", why)
        used = index == current or any(figures[key] for key in ("max_allocated_bytes", "max_reserved_bytes", "reserved_bytes"))
        if not used:  # a device the program never allocated on
            continue
        if pools_unknown is not None:
            figures["graph_pools"], figures["graph_pool_bytes"] = None, None
            why.append(pools_unknown)
        else:
            held = pools.get(index, {})
            figures["graph_pools"], figures["graph_pool_bytes"] = len(held), sum(held.values())
        figures["unknown"] = why
        devices.append(figures)
    if count > MOST_DEVICES:
        unknown.append(f"CUDA devices after the first {MOST_DEVICES} of {count}: not measured")
    return devices, None


def _asked(function: Callable[[int], Any] | None, index: int, name: str, why: list[str]) -> int | None:
    """One statistic of one device, or None with the reason added to `why`."""
    if function is None:
        why.append(f"{name}: not in this torch")
        return None
    try:
        value = function(index)
    except Exception as error:
        why.append(f"{name}: {error_summary(error)}")
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        why.append(f"{name}: gave {type(value).__name__}, not a whole number")
        return None
    return value


def _private_pools(cuda: Any) -> tuple[dict[int, dict[tuple, int]], str | None]:
    """The bytes each private pool holds, by device and pool id (the allocator's segments whose
    pool is not its own: CUDA graphs' pools under mode="reduce-overhead", and any
    torch.cuda.MemPool), or why they cannot be said. Without the allocator's history of
    allocations (include_traces=False, where this torch has it): only its segments are read."""
    snapshot = getattr(cuda, "memory_snapshot", None)
    if snapshot is None:
        return {}, "CUDA graph pools: torch.cuda.memory_snapshot is not in this torch"
    try:
        try:
            segments = snapshot(include_traces=False)
        except TypeError:  # (a torch before include_traces)
            segments = snapshot()
    except Exception as error:
        return {}, f"CUDA graph pools: torch.cuda.memory_snapshot: {error_summary(error)}"
    pools: dict[int, dict[tuple, int]] = {}
    try:
        for segment in segments:
            pool = segment.get("segment_pool_id")
            if pool is None:
                return {}, "CUDA graph pools: this torch's memory snapshot does not name each segment's pool"
            pool = tuple(pool)
            if pool == _DEFAULT_POOL:
                continue
            held = pools.setdefault(int(segment["device"]), {})
            held[pool] = held.get(pool, 0) + int(segment["total_size"])
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        return {}, f"CUDA graph pools: a memory snapshot of another shape ({error_summary(error)})"
    return pools, None
