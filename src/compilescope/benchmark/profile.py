"""Where the compiled time goes: per-kernel time from torch.profiler, each kernel mapped to the
ATen ops it fused and the user's lines it came from, and on a GPU set against the device's
measured limits (a roofline view).

Runs in its own worker process, because it asks Inductor for more than a plain compile does
(the user asked, with --profile): kernel profiling events on the CPU
(cpp.enable_kernel_profile), provenance from kernels to source lines
(trace.provenance_tracking_level) and byte/FLOP estimates for Triton kernels (benchmark_kernel).
The timing workers compile with the user's settings untouched.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from compilescope.benchmark.measure import Config, Make, built, model_step
from compilescope.benchmark.timing import Clock


def _copy_gbps(clock: Clock) -> float:
    """Bytes read + written per second by a 2 GiB device-to-device copy, at its fastest of 10."""
    import torch

    source = torch.empty(2**29, dtype=torch.float32, device="cuda")  # 2 GiB
    target = torch.empty_like(source)
    for _ in range(3):
        target.copy_(source)
    ms = min(clock.ms(lambda: target.copy_(source)) for _ in range(10))
    return 2 * source.numel() * 4 / (ms / 1000) / 1e9


def measure_peaks(dtype: Any) -> dict[str, float]:
    """The device's limits as this machine delivers them: a 2 GiB device-to-device copy
    (bytes read + written per second) and a large matrix product in the model's dtype."""
    import torch

    clock = Clock("cuda")
    peaks: dict[str, float] = {"peak_copy_gbps": _copy_gbps(clock)}  # (its 4 GiB given back before the matrices)
    n = 8192
    a = torch.randn(n, n, device="cuda", dtype=dtype)
    b = torch.randn(n, n, device="cuda", dtype=dtype)
    for _ in range(3):
        a @ b
    ms = min(clock.ms(lambda: a @ b) for _ in range(10))
    peaks["peak_matmul_tflops"] = 2 * n**3 / (ms / 1000) / 1e12
    return peaks


def profile_config(make: Make, config: Config, runs: int = 10) -> dict[str, Any]:
    import torch

    import compilescope.benchmark.torch_adapter as torch_adapter
    from compilescope.record import capture

    notes = torch_adapter.ask_inductor_for_profile_details()
    model, inputs, config = built(make, config)
    if isinstance(model, torch.nn.Module):
        model.train(config.training)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3) if config.training else None
    compiled = torch.compile(model, backend=config.backend, mode=None if config.mode == "default" else config.mode)
    step = model_step(compiled, optimizer, inputs, config)
    cuda = config.device.startswith("cuda") and torch.cuda.is_available()
    with capture(label=f"bench --profile {config.label}") as session:
        for _ in range(3):  # compile, then let autotuning and CUDA graphs settle
            step()
    if cuda:
        torch.cuda.synchronize()

    activities = [torch.profiler.ProfilerActivity.CPU] + ([torch.profiler.ProfilerActivity.CUDA] if cuda else [])
    with torch.profiler.profile(activities=activities) as prof:
        for _ in range(runs):
            step()
        if cuda:
            torch.cuda.synchronize()

    peaks = (
        measure_peaks(next((p.dtype for p in model.parameters()), torch.float32) if isinstance(model, torch.nn.Module) else torch.float32)
        if cuda
        else {}
    )
    kernels, regions = kernel_times(prof, session, cuda, peaks)
    # (it starts with the configuration's keys, as measure()'s results do: bench takes a result
    # without them for a worker that died before writing)
    return {
        **config.describe(),
        "kernels": kernels,
        "profiled_calls": runs,
        "compiled_regions": dict(regions),
        "profile_notes": notes,
        **peaks,
    }


def kernel_times(
    prof: Any, session: Any, cuda: bool, peaks: dict[str, float], whole_run: bool = False
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Kernel by kernel, the time a profile recorded, matched to the session's kernels (their
    ATen ops and source lines), and the calls each compiled version served.

    For a whole run (not only compiled calls), a kernel counts only when it ran inside a
    compiled region (its CPU op, or for a GPU kernel the op that launched it, is inside a
    "Torch-Compiled Region" event), and not in the first call of each compiled version: that call
    also autotunes Triton kernels lazily and warms up, which is not what the version costs."""
    known = {k.name: k for k in session.kernels}
    # Library calls by op name ("mm"): looked up for every profiler event, so a dict, not a scan.
    library = {k.name: k for k in session.kernels if k.kind == "library call"}
    totals: dict[str, float] = defaultdict(float)
    calls: dict[str, int] = defaultdict(int)
    regions: dict[str, int] = defaultdict(int)
    launched: dict[str, set[str]] = defaultdict(set)  # library call -> the CUDA kernels it ran
    events = list(prof.events())
    region_events = [e for e in events if e.name.startswith("Torch-Compiled Region: ")]
    for event in region_events:
        regions[event.name.split(": ", 1)[1]] += 1
    counted = _steady_region_check(region_events) if whole_run else (lambda event: True)
    claimed: dict[tuple[str, int], int] = defaultdict(int)
    if cuda:
        claimed = _library_launches(events, library, counted, totals, calls, launched)
        launches = _launches_by_id(events) if whole_run else {}
    for event in events:
        name = event.name
        if name.startswith("Torch-Compiled Region: "):
            continue
        if cuda:
            if _is_device_event(event):
                key = (name, round(event.time_range.elapsed_us()))
                if claimed.get(key):  # counted under the library call that launched it
                    claimed[key] -= 1
                elif not whole_run or (name in known and counted(launches.get(event.id))):
                    totals[name] += _duration_us(event)
                    calls[name] += 1
            continue
        # On the CPU, Inductor's kernels record "graph_<n>_<kernel name>"; library calls are
        # the ATen ops they run (aten::mm, aten::addmm) inside the compiled region.
        kernel_name = re.sub(r"^graph_\d+_", "", name)
        if name.startswith("aten::") and name.removeprefix("aten::") in library:
            kernel_name = name.removeprefix("aten::")  # named as the session names library calls
        if (kernel_name in known or kernel_name.removeprefix("aten::") in library) and counted(event):
            totals[kernel_name] += event.self_cpu_time_total
            calls[kernel_name] += 1

    grand = sum(totals.values()) or 1.0
    kernels = []
    for name, total in sorted(totals.items(), key=lambda item: -item[1]):
        kernel = known.get(name) or library.get(name.removeprefix("aten::"))
        entry: dict[str, Any] = {
            "name": name,
            "kind": kernel.kind if kernel else "other",
            "calls": calls[name],
            "total_us": total,
            "share": total / grand,
            "where": "device" if cuda else "cpu",
            "aten_ops": kernel.aten_ops if kernel else None,
            "source_lines": kernel.source_lines if kernel else [],
            "device_kernels": sorted(launched.get(name, ())),
        }
        seconds = total / 1e6 / max(calls[name], 1)
        if kernel and kernel.num_gb and seconds > 0:
            entry["achieved_gbps"] = kernel.num_gb / seconds
            if peaks.get("peak_copy_gbps"):
                entry["bandwidth_of_peak"] = entry["achieved_gbps"] / peaks["peak_copy_gbps"]
        if kernel and kernel.flop and seconds > 0:
            entry["achieved_tflops"] = kernel.flop / seconds / 1e12
            if peaks.get("peak_matmul_tflops"):
                entry["tflops_of_peak"] = entry["achieved_tflops"] / peaks["peak_matmul_tflops"]
        kernels.append(entry)
    return kernels, dict(regions)


def eager_in_regions(prof: Any) -> dict[str, float]:
    """Per compiled version, the ms of host time of the ATen ops that ran in its compiled code
    but in no graph of it: the ops whose parent in the profile is the version's own "Torch-
    Compiled Region" event (a graph's ops hang under its CompiledFunction or Inductor's call of
    it; a resume function's, under its own region)."""
    spent: dict[str, float] = defaultdict(float)
    for event in prof.events():
        parent = getattr(event, "cpu_parent", None)
        if parent is None or not event.name.startswith("aten::") or _is_device_event(event):
            continue
        if parent.name.startswith("Torch-Compiled Region: "):
            spent[parent.name.split(": ", 1)[1]] += event.time_range.elapsed_us() / 1000
    return dict(spent)


def _library_launches(
    events: list[Any],
    library: dict[str, Any],
    counted: Callable[[Any], bool],
    totals: dict[str, float],
    calls: dict[str, int],
    launched: dict[str, set[str]],
) -> dict[tuple[str, int], int]:
    """On a GPU, the CUDA kernels (cuBLAS, cuDNN, ...) that the compiled code's library calls
    launched: the profiler hangs each kernel on the ATen op that launched it (the innermost one,
    aten::cudnn_convolution under aten::convolution), so climb to the library call the session
    knows. Adds their time under the library call's name; returns the (kernel name, µs) pairs it
    took, so that the device-event pass does not count them again."""
    claimed: dict[tuple[str, int], int] = defaultdict(int)
    for event in events:
        device_kernels = getattr(event, "kernels", None)
        if not device_kernels or _is_device_event(event):
            continue
        op_event = event
        while op_event is not None and not (op_event.name.startswith("aten::") and op_event.name.removeprefix("aten::") in library):
            op_event = getattr(op_event, "cpu_parent", None)
        if op_event is None or not counted(op_event):
            continue
        op = op_event.name.removeprefix("aten::")
        for kernel in device_kernels:
            totals[op] += float(kernel.duration)
            launched[op].add(str(kernel.name))
            claimed[(str(kernel.name), round(float(kernel.duration)))] += 1
        calls[op] += 1
    return claimed


def _launches_by_id(events: list[Any]) -> dict[int, Any]:
    """The CPU event that launched each GPU kernel: the profiler gives a kernel the correlation
    id of its runtime call (cuLaunchKernel, cudaLaunchKernel), whose parents are the op or the
    Inductor kernel's record that launched it."""
    found: dict[int, Any] = {}
    for event in events:
        if not _is_device_event(event) and (event.id not in found or "aunch" in event.name):
            found[event.id] = event
    return found


def _steady_region_check(region_events: list[Any]) -> Callable[[Any], bool]:
    """A test for CPU events: inside a compiled region, and not in the first call of its version.
    An op is inside when a region is among its parents; a CUDA runtime call (the launch of a
    Triton kernel) has no parents in the profile, so it is inside when it happened during one."""
    first: dict[str, Any] = {}
    for event in sorted(region_events, key=lambda e: e.time_range.start):
        first.setdefault(event.name, event)
    first_ids = {id(e) for e in first.values()}
    steady = sorted((e.time_range.start, e.time_range.end) for e in region_events if id(e) not in first_ids)
    starts = [start for start, _ in steady]

    def counted(event: Any) -> bool:
        if event is None:
            return False
        at = event.time_range.start
        while event is not None:
            if event.name.startswith("Torch-Compiled Region: "):
                return id(event) not in first_ids
            event = getattr(event, "cpu_parent", None)
        index = bisect.bisect_right(starts, at) - 1
        return index >= 0 and at <= steady[index][1]

    return counted


def _is_device_event(event: Any) -> bool:
    device_type = getattr(event, "device_type", None)
    return device_type is not None and "CUDA" in str(device_type)


def _duration_us(event: Any) -> float:
    for attribute in ("device_time", "cuda_time", "self_device_time_total"):
        value = getattr(event, attribute, None)
        if isinstance(value, (int, float)) and value > 0:
            return float(value)
    return float(event.time_range.elapsed_us())


class RunProfiler:
    """`compilescope run --profile`: torch.profiler over the whole program, from the moment it
    has imported torch, then kernel times matched to the session's kernels."""

    def __init__(self) -> None:
        self.prof: Any = None
        self.cuda = False
        self.notes: list[str] = []

    def start(self) -> None:
        import torch

        import compilescope.benchmark.torch_adapter as torch_adapter

        self.notes = torch_adapter.ask_inductor_for_profile_details()
        self.cuda = torch.cuda.is_available()
        activities = [torch.profiler.ProfilerActivity.CPU] + ([torch.profiler.ProfilerActivity.CUDA] if self.cuda else [])
        self.prof = torch.profiler.profile(activities=activities)
        self.prof.__enter__()

    def finish(self, session: Any) -> Any:
        from compilescope.session.benchmarks import KernelTime, Profile

        profile = Profile(config="the whole run", profile_notes=self.notes)
        if self.prof is None:
            profile.profile_error = "the program never imported torch"
            return profile
        try:
            import torch

            if self.cuda and torch.cuda.is_initialized():
                torch.cuda.synchronize()
            self.prof.__exit__(None, None, None)
            kernels, regions = kernel_times(self.prof, session, self.cuda, {}, whole_run=True)
        except Exception as error:  # a profiler problem must not cost the user the explanation
            profile.profile_error = f"{type(error).__name__}: {error}"
            return profile
        profile.kernels = [KernelTime(**k) for k in kernels]
        profile.compiled_regions = regions
        profile.eager_ms = eager_in_regions(self.prof)
        profile.profiled_calls = sum(regions.values())
        return profile
