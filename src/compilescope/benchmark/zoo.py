"""The zoo: many models, each measured in processes of its own under one time limit, so that a
model that crashes, hangs or runs out of memory ends only its own row.

Per model, two worker processes (benchmark/worker.py), as `bench` measures one configuration:
1. a compile cache empty of compiled code (compile_cache.py: Inductor's once-per-cache CPU
   probes are in it, as in a user's): build the model, call it eagerly once (a model that fails
   there is an `error`, not torch.compile's failure), then the first compiled call, timed (the
   cold compile), while compilescope records what torch.compile did, as `compilescope run` would;
2. the cache the first filled, in a new process: the eager call again, the first compiled call
   again (the warm compile; with how many graphs missed the cache and were compiled again),
   then eager and compiled taking turns for the per-call times, memory and accuracy.
Both are forked from a starter that imported torch and the model library once
(benchmark/starter.py), where it can start; a fresh process each where it cannot. The parent
imports no torch; `examine` (the CLI's) reads each model's trace: compiles, graph
breaks, recompiles, and whether compilescope itself could explain and draw it.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compilescope.benchmark.by_name import ByName, is_by_name
from compilescope.benchmark.compile_cache import Seed, cache_env, kept_seed
from compilescope.benchmark.measure import Config
from compilescope.benchmark.spawn import Starter, TimedOut, run_worker, stop_all
from compilescope.choices import DEFAULT_TIME_LIMIT_S
from compilescope.outputs import unpublished
from compilescope.session.zoo import ZooModel


@dataclass
class ZooPlan:
    names: list[str]  # "hf:gpt2", "timm:resnet50", "models.py:make"
    size: str = "tiny"
    device: str = "cpu"
    training: bool = False
    amp: bool = False  # inference in bfloat16, training under autocast(bfloat16)
    backend: str = "inductor"
    mode: str = "default"
    config: dict[str, Any] = field(default_factory=dict)  # --config, for every model by name
    runs: int = 20
    warmup: int = 3
    warmup_s: float | None = None
    time_limit_s: int = DEFAULT_TIME_LIMIT_S
    jobs: int = 1  # models at once; on CUDA each on its own GPU
    work: Path | None = None  # keep each model's trace and session here

    @property
    def precision(self) -> str:
        if not self.amp:
            return "fp32"
        return "amp" if self.training else "bf16"

    def measure_config(self) -> Config:
        return Config(backend=self.backend, mode=self.mode, training=self.training, device=self.device, precision=self.precision)


# examine(trace_path, row, session_path): fills the row's capture figures from the trace (and
# writes the session to session_path where one is given)
Examine = Callable[[Path, ZooModel, "Path | None"], None]


def safe_name(name: str) -> str:
    """A model's name as a file name: "hf:deberta-v2" -> "hf_deberta-v2"."""
    return "".join(c if c.isalnum() or c in "-." else "_" for c in name).strip("._") or "model"


# Where a worker stopped at the time limit was, from the last stage it said it completed
_AFTER_FIRST = {"": "building the model", "built": "the eager call", "eager": "the first compiled call (compiling, with a cold cache)"}
_AFTER_SECOND = {
    "": "building the model",
    "built": "the eager call",
    "eager": "the first compiled call with the filled cache",
    "compiled": "the timed calls",
}


def _where_stopped(first: bool, stage_file: Path) -> str:
    stage = stage_file.read_text(encoding="utf-8").strip() if stage_file.exists() else ""
    return (_AFTER_FIRST if first else _AFTER_SECOND).get(stage, "its measurement")


def preload(names: list[str]) -> list[str]:
    """What the workers' starter imports once (benchmark/starter.py): torch, and the libraries
    the models come from, as far as every model of theirs imports them before it is built."""
    modules = ["torch"]
    if any(name.startswith("hf:") for name in names):
        modules += ["transformers", "transformers.modeling_utils"]
    if any(name.startswith("timm:") for name in names):
        modules.append("timm")
    return modules


def measure_model(
    name: str, plan: ZooPlan, examine: Examine, gpu: int | None = None, starter: Starter | None = None, cold: Seed | None = None
) -> ZooModel:
    """One model's row: its two workers under the plan's time limit (forked by `starter` where
    one is given), the first in a cold cache (`cold`'s copy, else empty), then `examine` on its
    trace."""
    started = time.perf_counter()
    deadline = started + plan.time_limit_s
    row = ZooModel(name=name, status="pass")
    config = plan.measure_config()
    with _model_folder(plan.work, name) as folder:
        cache = folder / "inductor-cache"
        shutil.rmtree(cache, ignore_errors=True)  # (--work kept from a run stopped before it cleaned up: warm)
        (cold or Seed(None)).start_cold(cache)
        trace = folder / "trace.log"
        trace.unlink(missing_ok=True)
        env = {**os.environ, **cache_env(cache)}
        if gpu is not None:
            env["CUDA_VISIBLE_DEVICES"] = str(gpu)
        spec: dict[str, Any] = {
            "target": name,
            "config": dataclasses.asdict(config),
            "runs": plan.runs,
            "warmup": plan.warmup,
            "warmup_s": plan.warmup_s,
            "by_name": dataclasses.asdict(ByName(name, plan.size, dict(plan.config))) if is_by_name(name) else None,
        }
        results: list[dict[str, Any]] = []
        for first in (True, False):
            left = deadline - time.perf_counter()
            stage_file = folder / "stage"
            stage_file.unlink(missing_ok=True)
            # (both call the model eagerly first: a warm first call must meet the model as the cold one did)
            step = {**spec, "first_call_only": first, "check_eager": True, "capture": str(trace) if first else None}
            step["stage_file"] = str(stage_file)
            try:
                if left <= 0:
                    raise TimedOut
                result = run_worker(step, env, left, starter)
            except TimedOut:
                row.status = "timeout"
                row.reason = f"past the time limit ({plan.time_limit_s} s), in {_where_stopped(first, stage_file)}"
                break
            results.append(result)
            row.model = row.model or result.get("model")
            if "error" in result or "skipped" in result:
                _failed(row, result)
                break
        _fill(row, results)
        if not trace.exists():  # a worker stopped at the time limit never named its trace
            unpublished(trace)
        if trace.exists() and trace.stat().st_size > 0:
            examine(trace, row, folder / "session.json" if plan.work else None)
        (folder / "stage").unlink(missing_ok=True)
        if plan.work:
            row.session = str(folder / "session.json") if (folder / "session.json").exists() else None
            shutil.rmtree(cache, ignore_errors=True)  # (compiled code: large, and in the trace already)
    row.seconds = time.perf_counter() - started
    return row


@contextmanager
def _model_folder(work: Path | None, name: str) -> Iterator[Path]:
    if work is not None:
        folder = work / safe_name(name)
        folder.mkdir(parents=True, exist_ok=True)
        yield folder
        return
    with tempfile.TemporaryDirectory(prefix="compilescope-zoo-") as temporary:
        yield Path(temporary)


def _failed(row: ZooModel, result: dict[str, Any]) -> None:
    """A worker that reported an error: `error` where the model did not build or run eagerly,
    `fail` where torch.compile (or its compiled code) raised."""
    if "skipped" in result:  # (training a function without parameters: nothing to compare)
        row.status, row.reason = "error", f"not measured: {result['skipped']}"
        return
    where = result.get("failed_at") or "the compiled call"
    row.status = "error" if where in ("building", "the eager call", "the worker process") else "fail"
    row.reason = f"{where}: {result.get('error') or 'unknown'}"


def _fill(row: ZooModel, results: list[dict[str, Any]]) -> None:
    if results and "first_call_s" in results[0]:
        row.cold_compile_s = results[0]["first_call_s"]
    if len(results) < 2 or "error" in results[1]:
        return
    warm = results[1]
    row.warm_compile_s = warm.get("first_call_s")
    row.warm_cache_misses = (warm.get("first_call_cache") or {}).get("misses")
    row.eager_ms, row.compiled_ms, row.speedup = warm.get("eager_ms"), warm.get("compiled_ms"), warm.get("speedup")
    row.verdict = warm.get("verdict")
    row.accuracy = warm.get("accuracy")
    row.memory_kind = warm.get("memory_kind")
    row.eager_memory_mb = warm.get("eager_peak_memory_mb")
    row.compiled_memory_mb = warm.get("compiled_peak_memory_mb")
    if row.eager_memory_mb is not None and row.compiled_memory_mb is not None:
        row.memory_kind = "CUDA max allocated in one call of each, after a reset (weights included)"
    else:
        row.compiled_memory_mb = warm.get("peak_memory_mb")  # (a CPU: the process's peak, both together)
    if row.status == "pass" and isinstance(row.accuracy, str) and row.accuracy.startswith("fail"):
        row.status = "fail"
        # ("fail (largest difference ...; tolerance ...)": the detail after the word)
        detail = row.accuracy.removeprefix("fail").strip().removeprefix("(").removesuffix(")")
        row.reason = "accuracy: compiled differs from eager" + (f": {detail}" if detail else "")


def sweep(
    plan: ZooPlan,
    examine: Examine,
    started: Callable[[str], None] = lambda name: None,
    finished: Callable[[ZooModel], None] = lambda row: None,
    warned: Callable[[str], None] = lambda text: None,
    seeded: Callable[[Seed], None] = lambda cold: None,
) -> list[ZooModel]:
    """Every model of the plan, `plan.jobs` at a time, in the plan's order in the result.
    `started`/`finished` are told of each model (the progress bar), `warned` of what slows the
    sweep or changes its figures, `seeded` of what the cold caches start from."""
    rows: dict[str, ZooModel] = {}
    free = list(range(plan.jobs))
    lock = threading.Lock()
    starters: dict[int, Starter] = {}
    seeds = tempfile.TemporaryDirectory(prefix="compilescope-zoo-probes-")
    cold = Seed(None)

    def one(name: str) -> ZooModel:
        with lock:
            slot = free.pop(0)
        try:
            if slot not in starters:
                starters[slot] = Starter(preload(plan.names))
                if not starters[slot].ready:
                    warned(f"each worker starts afresh (slower): {starters[slot].why}")
            started(name)
            gpu = slot if plan.device.startswith("cuda") and plan.jobs > 1 else None
            return measure_model(name, plan, examine, gpu, starters[slot], cold)
        finally:
            with lock:
                free.append(slot)

    try:
        if plan.backend == "inductor":
            cold = kept_seed(Path(seeds.name) / "cache")
            if cold.why_not:
                warned(f"each cold compile includes Inductor's CPU probes: {cold.why_not}")
        seeded(cold)
        if plan.jobs == 1:
            for name in plan.names:
                rows[name] = one(name)
                finished(rows[name])
        else:
            pool = ThreadPoolExecutor(max_workers=plan.jobs)
            try:
                futures = {pool.submit(one, name): name for name in plan.names}
                for future in as_completed(futures):
                    row = future.result()
                    rows[futures[future]] = row
                    finished(row)
            except BaseException:  # Ctrl-C: the models still running end now, the rest never start
                pool.shutdown(wait=False, cancel_futures=True)
                stop_all()
                raise
            pool.shutdown()
    finally:
        for starter in starters.values():
            starter.close()
        seeds.cleanup()
    return [rows[name] for name in plan.names if name in rows]
