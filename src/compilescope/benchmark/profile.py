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

import re
from collections import defaultdict
from typing import Any, Callable

from compilescope.benchmark.measure import Config, _Clock, _step


def measure_peaks(dtype: Any) -> dict[str, float]:
    """The device's limits as this machine delivers them: a 2 GiB device-to-device copy
    (bytes read + written per second) and a large matrix product in the model's dtype."""
    import torch

    peaks: dict[str, float] = {}
    clock = _Clock("cuda")
    source = torch.empty(2**29, dtype=torch.float32, device="cuda")  # 2 GiB
    target = torch.empty_like(source)
    for _ in range(3):
        target.copy_(source)
    ms = min(clock.ms(lambda: target.copy_(source)) for _ in range(10))
    peaks["peak_copy_gbps"] = 2 * source.numel() * 4 / (ms / 1000) / 1e9
    del source, target
    n = 8192
    a = torch.randn(n, n, device="cuda", dtype=dtype)
    b = torch.randn(n, n, device="cuda", dtype=dtype)
    for _ in range(3):
        a @ b
    ms = min(clock.ms(lambda: a @ b) for _ in range(10))
    peaks["peak_matmul_tflops"] = 2 * n**3 / (ms / 1000) / 1e12
    return peaks


def profile_config(make: Callable[[], tuple[Any, tuple]], config: Config, runs: int = 10) -> dict[str, Any]:
    import torch

    from compilescope.benchmark import torch_adapter
    from compilescope.record import capture

    notes = torch_adapter.ask_inductor_for_profile_details()
    model, inputs = make()
    if isinstance(model, torch.nn.Module):
        model.train(config.training)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3) if config.training else None
    options = {} if config.mode == "default" else {"mode": config.mode}
    compiled = torch.compile(model, backend=config.backend, **options)
    step = _step(compiled, optimizer, inputs, config.training)
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

    peaks = measure_peaks(next((p.dtype for p in model.parameters()), torch.float32) if isinstance(model, torch.nn.Module) else torch.float32) if cuda else {}
    kernels, regions = kernel_times(prof, session, cuda, peaks)
    return {"kernels": kernels, "profiled_calls": runs, "compiled_regions": dict(regions), "profile_notes": notes, **peaks}


def kernel_times(prof: Any, session: Any, cuda: bool, peaks: dict[str, float], whole_run: bool = False) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Kernel by kernel, the time a profile recorded, matched to the session's kernels (their
    ATen ops and source lines), and the calls each compiled version served.

    For a whole run (not only compiled calls), ATen ops count only inside a compiled region,
    and on a GPU only the kernels Inductor generated: a cuBLAS kernel there cannot be told
    apart from one the program's eager code launched."""
    known = {k.name: k for k in session.kernels}
    totals: dict[str, float] = defaultdict(float)
    calls: dict[str, int] = defaultdict(int)
    regions: dict[str, int] = defaultdict(int)
    for event in prof.events():
        name = event.name
        if name.startswith("Torch-Compiled Region: "):
            regions[name.split(": ", 1)[1]] += 1
            continue
        if cuda:
            if _is_device_event(event) and (not whole_run or name in known):
                totals[name] += _duration_us(event)
                calls[name] += 1
            continue
        # On the CPU, Inductor's kernels record "graph_<n>_<kernel name>"; library calls are
        # the ATen ops they run (aten::mm, aten::addmm) inside the compiled region.
        kernel_name = re.sub(r"^graph_\d+_", "", name)
        if name.startswith("aten::") and _is_library_op(name, session):
            if whole_run and not _inside_compiled_region(event):
                continue
            kernel_name = name.removeprefix("aten::")  # named as the session names library calls
        if kernel_name in known or _is_library_op(kernel_name, session):
            totals[kernel_name] += event.self_cpu_time_total
            calls[kernel_name] += 1

    grand = sum(totals.values()) or 1.0
    kernels = []
    for name, total in sorted(totals.items(), key=lambda item: -item[1]):
        kernel = known.get(name) or _library_kernel(name, session)
        entry: dict[str, Any] = {
            "name": name,
            "kind": kernel.kind if kernel else "other",
            "calls": calls[name],
            "total_us": total,
            "share": total / grand,
            "where": "device" if cuda else "cpu",
            "aten_ops": kernel.aten_ops if kernel else None,
            "source_lines": kernel.source_lines if kernel else [],
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


def _inside_compiled_region(event: Any) -> bool:
    parent = getattr(event, "cpu_parent", None)
    while parent is not None:
        if parent.name.startswith("Torch-Compiled Region: "):
            return True
        parent = getattr(parent, "cpu_parent", None)
    return False


def _is_device_event(event: Any) -> bool:
    device_type = getattr(event, "device_type", None)
    return device_type is not None and "CUDA" in str(device_type)


def _duration_us(event: Any) -> float:
    for attribute in ("device_time", "cuda_time", "self_device_time_total"):
        value = getattr(event, attribute, None)
        if isinstance(value, (int, float)) and value > 0:
            return float(value)
    return float(event.time_range.elapsed_us())


def _is_library_op(name: str, session: Any) -> bool:
    op = name.removeprefix("aten::")
    return any(k.kind == "library call" and k.name == op for k in session.kernels)


def _library_kernel(name: str, session: Any) -> Any:
    op = name.removeprefix("aten::")
    return next((k for k in session.kernels if k.kind == "library call" and k.name == op), None)


class RunProfiler:
    """`compilescope run --profile`: torch.profiler over the whole program, from the moment it
    has imported torch, then kernel times matched to the session's kernels."""

    def __init__(self) -> None:
        self.prof: Any = None
        self.cuda = False
        self.notes: list[str] = []

    def start(self) -> None:
        import torch

        from compilescope.benchmark import torch_adapter

        self.notes = torch_adapter.ask_inductor_for_profile_details()
        self.cuda = torch.cuda.is_available()
        activities = [torch.profiler.ProfilerActivity.CPU] + ([torch.profiler.ProfilerActivity.CUDA] if self.cuda else [])
        self.prof = torch.profiler.profile(activities=activities)
        self.prof.__enter__()

    def finish(self, session: Any) -> Any:
        from compilescope.session.model import KernelTime, Profile

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
        profile.profiled_calls = sum(regions.values())
        return profile
