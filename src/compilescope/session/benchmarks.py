"""What `compilescope bench` and `run --profile` measured: a Benchmark per configuration
(eager against compiled), the conditions it was measured under, and a Profile of kernel time.

Part of the Session's model (session/model.py holds the Session, which keeps them in
`benchmarks` and `profile`); saved and loaded as the rest of it (session/jsonio.py, docs/schema.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

# A benchmark's verdict: whether its figures settle the question (Benchmark.verdict)
VerdictWord = Literal["faster", "slower", "about even", "too noisy to say"]


@dataclass
class KernelTime:
    """One kernel's time in a profiled run (compilescope bench --profile)."""

    name: str
    kind: str  # "cpp", "triton", "library call", "other"
    calls: int
    total_us: float
    share: float  # of all kernel time in the profiled calls
    where: str  # "device" (GPU kernel time) or "cpu" (CPU time of the kernel)
    aten_ops: list[str] | None = None
    source_lines: list[str] = field(default_factory=list)
    device_kernels: list[str] = field(default_factory=list)  # a library call's CUDA kernels (cuBLAS, cuDNN)
    achieved_gbps: float | None = None  # bytes Inductor estimated / time
    achieved_tflops: float | None = None
    bandwidth_of_peak: float | None = None  # achieved / the measured copy bandwidth
    tflops_of_peak: float | None = None


@dataclass
class Profile:
    """Kernel time over a whole run (compilescope run --profile)."""

    config: str  # what was profiled: "the whole run"
    kernels: list[KernelTime] = field(default_factory=list)
    profiled_calls: int | None = None  # calls of compiled code seen by the profiler
    compiled_regions: dict[str, int] = field(default_factory=dict)  # compile id -> calls it served
    # compile id -> ms (host time) of the ATen ops that ran inside its compiled code but outside
    # its graphs: code Dynamo left to Python (the rest of a function after a break it could not
    # resume from); run --profile only
    eager_ms: dict[str, float] = field(default_factory=dict)
    peak_copy_gbps: float | None = None
    peak_matmul_tflops: float | None = None
    profile_error: str | None = None
    profile_notes: list[str] = field(default_factory=list)


@dataclass
class Benchmark:
    """Eager against compiled for one configuration (compilescope bench). Times are medians;
    the IQR is the middle half of the timed calls."""

    config: str  # "inductor/default/inference"
    backend: str
    mode: str
    training: bool
    device: str = "cpu"
    skipped: str | None = None  # why this configuration has no figures
    # a model by name (bench hf:gpt2): what was built, "GPT2LMHeadModel (tiny), 0.23M parameters"
    model: str | None = None
    eager_ms: float | None = None
    eager_iqr_ms: list[float] | None = None
    compiled_ms: float | None = None
    compiled_iqr_ms: list[float] | None = None
    speedup: float | None = None  # eager median / compiled median
    first_call_cold_s: float | None = None  # first compiled call, cold compile cache (compile_cache.py)
    first_call_warm_s: float | None = None  # first compiled call, cache filled by the cold run
    break_even_calls: float | None = None  # None: the compiled version never pays for its compile
    runs: int | None = None
    warmup: int | None = None
    threads: int | None = None
    timer: str | None = None
    peak_memory_mb: float | None = None
    eager_peak_memory_mb: float | None = None
    compiled_peak_memory_mb: float | None = None
    memory_kind: str | None = None
    accuracy: str | None = None  # "pass", "fail (by how much; the tolerance)", or "unknown (...)"
    tolerance: float | None = None
    warm_in_process: bool = False  # the warm first call ran in the same process as the cold one
    profile: Profile | None = None  # with --profile: time per kernel over the compiled calls
    # Whether the figures settle the question: "faster", "slower", "about even", or "too noisy
    # to say"; verdict_why says why, in a sentence (the spread, or the busy machine).
    verdict: VerdictWord | None = None
    verdict_why: str | None = None
    conditions: BenchConditions | None = None  # what it was measured under


@dataclass
class BenchConditions:
    """What a benchmark was measured under, so a reader can judge its figures (bench
    measures them on the CPU; None where it could not tell)."""

    cpus: int | None = None  # cores this process may run on
    load_before: float | None = None  # runnable tasks (1-minute load average) before measuring
    load_after: float | None = None
    others_cpu: float | None = None  # cores' worth of CPU other processes used while it measured
    busy: bool = False  # other work competed for the cores this process needed
    warmup_s: float | None = None  # how long the warm-up took, until per-call times stopped falling
    warmup_steady: bool | None = None  # False: times were still falling when the warm-up ran out
    rounds: int | None = None  # timed rounds; more than one when a wide spread was measured again
