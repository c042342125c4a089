"""Is it worth it? Eager vs compiled, compile cost, break-even.

    compilescope bench models.py:make                 # the command
    compilescope.bench("models.py:make")              # the same from Python
    compilescope.bench(model, x)                      # an object: measured in this process

`make()` returns (model_or_function, example_inputs). For a "file.py:make" target every
configuration is measured in fresh worker processes: one with a cold compile cache folder
(the cold first call), one with the folder the first filled (the warm first call, then the
steady-state timing, memory and accuracy). An object cannot travel to another process, so it is
measured here: its cold first call runs with a cold cache folder after torch._dynamo.reset(),
and "warm" reuses that folder in this same process (so in-memory caches help it too; the result
says so). A cold cache holds no compiled code, only what Inductor builds once per cache
whatever it compiles (its CPU probes, benchmark/compile_cache.py), as a user's does.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compilescope.benchmark.by_name import ByName
from compilescope.benchmark.compile_cache import Seed, cache_env, kept_seed
from compilescope.benchmark.measure import Config
from compilescope.session.benchmarks import BenchConditions, Benchmark, KernelTime, Profile
from compilescope.session.model import Program, Session, error_summary
from compilescope.stats import break_even  # noqa: F401  (bench's rule; tests import it from here)

DEFAULT_BACKENDS = ("inductor",)
DEFAULT_MODES = ("default",)


def configs(backends: Iterable[str], modes: Iterable[str], training: Iterable[bool], device: str) -> list[Config]:
    out = []
    for backend in backends:
        for mode in modes if backend == "inductor" else ("default",):
            for train in training:
                out.append(Config(backend=backend, mode=mode, training=train, device=device))
    return out


def to_benchmark(cold: dict[str, Any], warm: dict[str, Any], in_process: bool) -> Benchmark:
    bench = Benchmark(
        config=warm.get("config", cold.get("config", "?")),
        backend=warm.get("backend", cold.get("backend", "?")),
        mode=warm.get("mode", cold.get("mode", "default")),
        training=bool(warm.get("training", cold.get("training", False))),
        device=warm.get("device", "cpu"),
        skipped=warm.get("skipped") or cold.get("skipped") or warm.get("error") or cold.get("error"),
        model=warm.get("model") or cold.get("model"),
        eager_ms=warm.get("eager_ms"),
        eager_iqr_ms=warm.get("eager_iqr_ms"),
        compiled_ms=warm.get("compiled_ms"),
        compiled_iqr_ms=warm.get("compiled_iqr_ms"),
        speedup=warm.get("speedup"),
        first_call_cold_s=cold.get("first_call_s"),
        first_call_warm_s=warm.get("first_call_s"),
        runs=warm.get("runs"),
        warmup=warm.get("warmup"),
        threads=warm.get("threads"),
        timer=warm.get("timer"),
        peak_memory_mb=warm.get("peak_memory_mb"),
        eager_peak_memory_mb=warm.get("eager_peak_memory_mb"),
        compiled_peak_memory_mb=warm.get("compiled_peak_memory_mb"),
        memory_kind=warm.get("memory_kind"),
        accuracy=warm.get("accuracy"),
        tolerance=warm.get("tolerance"),
        warm_in_process=in_process,
        verdict=warm.get("verdict"),
        verdict_why=warm.get("verdict_why"),
        conditions=BenchConditions(**warm["conditions"]) if warm.get("conditions") else None,
    )
    bench.break_even_calls = break_even(bench.first_call_cold_s, bench.eager_ms, bench.compiled_ms)
    return bench


def _worker(target: str, config: Config, cache_dir: str, plan: Plan, first_call_only: bool, profile: bool = False) -> dict[str, Any]:
    from compilescope.benchmark.spawn import TimedOut, run_worker

    spec = {
        "target": target,
        "config": config.__dict__,
        "runs": plan.runs,
        "warmup": plan.warmup,
        "warmup_s": plan.warmup_s,
        "first_call_only": first_call_only,
        "profile": profile,
        "by_name": dataclasses.asdict(plan.by_name) if plan.by_name else None,
    }
    try:
        result = run_worker(spec, {**os.environ, **cache_env(Path(cache_dir))}, plan.timeout)
    except TimedOut:
        return config.failed(f"timed out after {plan.timeout} s")
    if "config" not in result:  # the worker died before writing: its last words
        return config.failed(result["error"])
    return result


def _add_profile(bench: Benchmark, profiled: dict[str, Any]) -> None:
    if not profiled:
        return
    if "error" in profiled:
        bench.profile = Profile(config=bench.config, profile_error=profiled["error"])
        return
    bench.profile = Profile(
        config=bench.config,
        kernels=[KernelTime(**k) for k in profiled.get("kernels", [])],
        profiled_calls=profiled.get("profiled_calls"),
        compiled_regions=profiled.get("compiled_regions", {}),
        peak_copy_gbps=profiled.get("peak_copy_gbps"),
        peak_matmul_tflops=profiled.get("peak_matmul_tflops"),
        profile_notes=profiled.get("profile_notes", []),
    )


@dataclass
class Plan:
    backends: tuple[str, ...] = DEFAULT_BACKENDS
    modes: tuple[str, ...] = DEFAULT_MODES
    training: tuple[bool, ...] = (False,)
    device: str = "auto"  # "auto": where make() puts the model and inputs (a model by name: the CPU)
    runs: int = 50
    warmup: int = 3
    warmup_s: float | None = None  # the warm-up's floor in seconds; None: 1 s on a CPU, 2 s on a GPU
    timeout: int = 1800
    progress: Callable[[str], None] = field(default=lambda label: None)
    profile: bool = False
    by_name: ByName | None = None  # a model by name (hf:, timm:): its size and config


def bench_target(target: str, plan: Plan) -> list[Benchmark]:
    """Measure a "file.py:make" target, or a model by name, in worker processes (see the module
    docstring)."""
    from compilescope.benchmark.by_name import is_by_name
    from compilescope.benchmark.target import check_target

    if is_by_name(target):
        if plan.device == "auto":  # (a model by name is built on the device asked for; none: the CPU)
            plan.device = "cpu"
        if plan.by_name is None or plan.by_name.target != target:
            plan.by_name = ByName(target)
    else:
        check_target(target)
    results = []
    with tempfile.TemporaryDirectory(prefix="compilescope-bench-probes-") as probes:
        probed = Seed(None)
        if "inductor" in plan.backends:
            plan.progress("Inductor's CPU probes, once per machine (not part of any cold compile)")
            probed = kept_seed(Path(probes) / "cache")
            if probed.why_not:
                plan.progress(f"the cold first calls include Inductor's CPU probes: {probed.why_not}")
        for config in configs(plan.backends, plan.modes, plan.training, plan.device):
            results.append(_bench_config(target, config, plan, probed))
    return results


def _bench_config(target: str, config: Config, plan: Plan, probed: Seed) -> Benchmark:
    with tempfile.TemporaryDirectory(prefix="compilescope-bench-cache-") as folder:
        cache_dir = str(Path(folder) / "cache")
        probed.start_cold(Path(cache_dir))
        plan.progress(f"{config.label}: first call, cold compile cache")
        cold = _worker(target, config, cache_dir, plan, True)
        plan.progress(f"{config.label}: warm compile cache, {plan.runs} timed calls")
        warm = _worker(target, config, cache_dir, plan, False) if "error" not in cold and "skipped" not in cold else cold
        profiled = {}
        if plan.profile and "error" not in warm and "skipped" not in warm:
            plan.progress(f"{config.label}: profiling the compiled calls")
            profiled = _worker(target, config, cache_dir, plan, False, profile=True)
    bench = to_benchmark(cold, warm, in_process=False)
    _add_profile(bench, profiled)
    return bench


def bench(
    target: Any,
    *args: Any,
    backends: Iterable[str] = DEFAULT_BACKENDS,
    modes: Iterable[str] = DEFAULT_MODES,
    training: Iterable[bool] = (False,),
    device: str | None = None,
    runs: int = 50,
    warmup: int = 3,
    warmup_s: float | None = None,
):
    """Benchmark eager against torch.compile. Returns a Session whose `benchmarks` hold one
    result per configuration (backend x mode x inference/training), each with a verdict
    ("faster", "slower", "about even" or "too noisy to say") and what it was measured under.
    `warmup` calls and `warmup_s` seconds at least (default 1 s on a CPU, 2 s on a GPU) are a
    floor: the warm-up goes on until the per-call times stop falling."""
    plan = Plan(tuple(backends), tuple(modes), tuple(training), device or "auto", runs, warmup, warmup_s)
    return run_plan(target, args, plan)


def run_plan(target: Any, args: tuple, plan: Plan) -> Session:
    """bench() and `compilescope bench`: measure, and wrap the results in a Session."""
    if isinstance(target, str):
        results = bench_target(target, plan)
        name = target
    else:
        results = _bench_object(target, args, plan)
        name = getattr(target, "__qualname__", None) or type(target).__name__
    session = Session(program=Program(kind="bench", target=name), benchmarks=results)
    # (the device each configuration was measured on: "auto" became where make() put the tensors)
    _fill_environment(session, next((b.device for b in results if b.device != "auto"), plan.device))
    return session


def _bench_object(target: Any, args: tuple, plan: Plan) -> list[Benchmark]:
    import copy

    import torch

    from compilescope.benchmark.measure import measure
    from compilescope.benchmark.torch_adapter import probe_cpu_vector_isa

    results = []
    previous = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    for config in configs(plan.backends, plan.modes, plan.training, plan.device):

        def make() -> tuple[Any, tuple]:
            return (copy.deepcopy(target) if isinstance(target, torch.nn.Module) else target), args

        with tempfile.TemporaryDirectory(prefix="compilescope-bench-cache-") as cache_dir:
            os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache_dir
            try:
                if config.backend == "inductor":  # (once per process, not part of the cold compile)
                    probe_cpu_vector_isa()
                plan.progress(f"{config.label}: first call, cold compile cache")
                torch._dynamo.reset()
                cold = measure(make, config, first_call_only=True)
                plan.progress(f"{config.label}: warm compile cache, {plan.runs} timed calls")
                torch._dynamo.reset()
                warm = measure(make, config, runs=plan.runs, warmup=plan.warmup, warmup_s=plan.warmup_s)
            except Exception as error:
                cold = warm = config.failed(error_summary(error))
            finally:
                if previous is None:
                    os.environ.pop("TORCHINDUCTOR_CACHE_DIR", None)
                else:
                    os.environ["TORCHINDUCTOR_CACHE_DIR"] = previous
        results.append(to_benchmark(cold, warm, in_process=True))
    return results


def _fill_environment(session: Session, device: str) -> None:
    import platform

    env = session.environment
    env.python = platform.python_version()
    try:
        import torch

        from compilescope.benchmark.measure import device_name

        env.torch = str(torch.__version__)
        env.device = None if device == "auto" else device_name(device)  # (None: unknown, nothing was built)
        env.threads = torch.get_num_threads()
    except ImportError:
        pass
