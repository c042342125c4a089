"""The zoo's results (compilescope zoo): one row per model, and the summary PyTorch's inductor
dashboard gives (pass rate, geometric-mean speedup, median compile time, memory compression).
Plain data, no torch: written as JSON `{"models": [...], "summary": {...}, ...}` and read back by
the renderers. docs/schema.md describes the format."""

from __future__ import annotations

import dataclasses
import json
import math
import statistics
from dataclasses import dataclass, field
from typing import Any, Literal

from compilescope.outputs import write_text
from compilescope.session import surrogates_escaped

ZOO_SCHEMA = "compilescope/zoo/1"  # (a file of ours starts with "schema": "compilescope/: outputs.py)

Status = Literal["pass", "fail", "error", "timeout"]
# pass: compiled, ran, and matched eager (or the match could not be checked: `accuracy` says);
# fail: torch.compile raised, or its result did not match eager's;
# error: the model did not build or did not run eagerly (not torch.compile's doing);
# timeout: past the time limit (`reason` says in which step)
STATUSES: tuple[Status, ...] = ("pass", "fail", "error", "timeout")


@dataclass
class ZooModel:
    name: str  # "hf:gpt2", "timm:resnet50", "models.py:make"
    status: Status
    reason: str | None = None  # why it did not pass: "the compiled call: RuntimeError: ..."
    model: str | None = None  # what was built: "GPT2LMHeadModel (tiny), 0.23M parameters"
    compiles: int | None = None  # compiled versions (frames x versions), from the capture
    graph_breaks: int | None = None
    top_break: str | None = None  # the costliest graph break's finding: title and torch's reason
    recompiles: int | None = None
    eager_ms: float | None = None  # medians per call
    compiled_ms: float | None = None
    speedup: float | None = None
    verdict: str | None = None  # bench's: faster, slower, about even, too noisy to say
    cold_compile_s: float | None = None  # the first compiled call with a cold compile cache
    warm_compile_s: float | None = None  # the same in a new process with the filled cache
    warm_cache_misses: int | None = None  # graphs that warm call compiled again, missing the filled cache (0: none)
    eager_memory_mb: float | None = None  # peak per call (CUDA), or the process's peak RSS
    compiled_memory_mb: float | None = None
    memory_kind: str | None = None
    accuracy: str | None = None  # "pass", "fail: ...", "unknown (...)"
    seconds: float | None = None  # the model's whole time in the sweep
    # Where compilescope itself failed on this model's run (building its session, explaining,
    # rendering, decompiling) or lost a fact: each one is a compilescope bug
    compilescope_problems: list[str] = field(default_factory=list)
    session: str | None = None  # its session's file, kept with --work

    @property
    def memory_compression(self) -> float | None:
        """Eager's peak memory over compiled's (the dashboard's compression ratio): above 1,
        compiled needs less. Only where both peaks were measured per call."""
        if self.eager_memory_mb and self.compiled_memory_mb:
            return self.eager_memory_mb / self.compiled_memory_mb
        return None


def _geomean(values: list[float]) -> float | None:
    values = [v for v in values if v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


@dataclass
class ZooSummary:
    models: int
    counts: dict[str, int]  # per status
    pass_rate: float | None  # passed / models
    geomean_speedup: float | None  # over the models that passed with a speedup
    median_compile_s: float | None  # cold first compiled call, over the models that passed
    memory_compression: float | None  # geometric mean of eager/compiled peak memory
    compilescope_problems: int  # models where compilescope itself failed


def summarize(models: list[ZooModel]) -> ZooSummary:
    passed = [m for m in models if m.status == "pass"]
    compile_times = [m.cold_compile_s for m in passed if m.cold_compile_s is not None]
    return ZooSummary(
        models=len(models),
        counts={status: sum(1 for m in models if m.status == status) for status in STATUSES},
        pass_rate=len(passed) / len(models) if models else None,
        geomean_speedup=_geomean([m.speedup for m in passed if m.speedup is not None]),
        median_compile_s=statistics.median(compile_times) if compile_times else None,
        memory_compression=_geomean([c for m in passed if (c := m.memory_compression) is not None]),
        compilescope_problems=sum(1 for m in models if m.compilescope_problems),
    )


@dataclass
class ZooRun:
    """A sweep: what was asked, where it ran, each model, the summary."""

    suite: str  # "hf", "hf,timm", or "models" where only --models named them
    size: str
    device: str
    training: bool
    precision: str  # fp32, bf16 (inference with --amp), amp (training with --amp)
    backend: str
    mode: str
    time_limit_s: int
    cold_cache: str | None = None  # what each cold compile's cache held (benchmark/compile_cache.py)
    command: list[str] = field(default_factory=list)
    environment: dict[str, str] = field(default_factory=dict)  # python, torch, transformers, timm, device
    started: str | None = None  # ISO time
    wall_s: float | None = None
    models: list[ZooModel] = field(default_factory=list)
    summary: ZooSummary | None = None
    stopped: str | None = None  # why the sweep ended before its last model (Ctrl-C)

    def to_json(self) -> str:
        data = {"schema": ZOO_SCHEMA, **dataclasses.asdict(self)}
        for row, model in zip(data["models"], self.models):
            row["memory_compression"] = model.memory_compression
        return surrogates_escaped(json.dumps(data, indent=1, ensure_ascii=False))

    def save(self, path: str) -> None:
        write_text(path, self.to_json(), "the zoo's results")


def load_zoo(text: str) -> ZooRun:
    """A zoo's JSON back (ValueError where it is not one)."""
    data: Any = json.loads(text)
    if not isinstance(data, dict) or data.get("schema") != ZOO_SCHEMA:
        raise ValueError(f"not a compilescope zoo result ({ZOO_SCHEMA})")
    names = {f.name for f in dataclasses.fields(ZooModel)}
    models = [ZooModel(**{k: v for k, v in row.items() if k in names}) for row in data.get("models", [])]
    fields = {f.name for f in dataclasses.fields(ZooRun)} - {"models", "summary"}
    run = ZooRun(**{k: v for k, v in data.items() if k in fields})
    run.models = models
    run.summary = summarize(models)
    return run
