"""The zoo's rules without torch: which status a worker's result gives, the dashboard's summary
figures, which models a --suite/--models asks for, what compilescope makes of a model's trace
(a committed one), and the terminal and HTML views (escaped, sortable)."""

from __future__ import annotations

import html
import json
import math
import re
from pathlib import Path

import pytest

from compilescope.app.errors import CommandError
from compilescope.app.zoo import examine, model_names
from compilescope.benchmark.zoo import _failed, _fill, safe_name
from compilescope.render.console import render_text  # noqa: F401  (the console module renders the table)
from compilescope.render.zoo import zoo_html, zoo_table
from compilescope.session.zoo import ZooModel, ZooRun, load_zoo, summarize

TRACES = Path(__file__).resolve().parents[1] / "traces"


def _row(name: str, status: str = "pass", **figures) -> ZooModel:
    return ZooModel(name=name, status=status, **figures)  # type: ignore[arg-type]


def test_status_from_where_the_worker_failed() -> None:
    building = _row("hf:a")
    _failed(building, {"error": "ValueError: no model type 'gtp2'", "failed_at": "building"})
    eager = _row("hf:b")
    _failed(eager, {"error": "RuntimeError: shapes", "failed_at": "the eager call"})
    compiled = _row("hf:c")
    _failed(compiled, {"error": "BackendCompilerFailed: boom", "failed_at": "the compiled call"})
    died = _row("hf:d")
    _failed(died, {"error": "worker failed: Killed", "failed_at": "the worker process"})
    assert (building.status, eager.status, compiled.status, died.status) == ("error", "error", "fail", "error")
    assert compiled.reason == "the compiled call: BackendCompilerFailed: boom"
    assert building.reason == "building: ValueError: no model type 'gtp2'"


def test_a_result_that_differs_from_eager_fails_and_the_figures_are_kept() -> None:
    cold = {"first_call_s": 20.0}
    warm = {"first_call_s": 3.0, "eager_ms": 2.0, "compiled_ms": 1.0, "speedup": 2.0, "accuracy": "fail", "verdict": "faster"}
    warm |= {"eager_peak_memory_mb": 100.0, "compiled_peak_memory_mb": 80.0, "memory_kind": "CUDA max allocated"}
    row = _row("hf:gpt2")
    _fill(row, [cold, warm])
    assert row.status == "fail" and row.reason == "accuracy: compiled differs from eager"
    # and where the worker said by how much, the reason says it
    detailed = _row("timm:inception_v3")
    by = "largest difference 0.031, where eager's largest value is 2.05, 1.51% of it; tolerance 0.01"
    _fill(detailed, [cold, {**warm, "accuracy": f"fail ({by})"}])
    assert detailed.status == "fail" and detailed.reason == f"accuracy: compiled differs from eager: {by}"
    assert (row.cold_compile_s, row.warm_compile_s, row.speedup) == (20.0, 3.0, 2.0)
    assert row.memory_compression == pytest.approx(1.25)
    # on a CPU there is one peak for both: no compression ratio is made up from it
    cpu = _row("hf:bert")
    _fill(cpu, [cold, {**warm, "accuracy": "pass", "eager_peak_memory_mb": None, "compiled_peak_memory_mb": None, "peak_memory_mb": 400.0}])
    assert cpu.status == "pass" and cpu.memory_compression is None and cpu.compiled_memory_mb == 400.0


def test_summary_is_the_dashboards_figures() -> None:
    rows = [
        _row("a", speedup=2.0, cold_compile_s=10.0, eager_memory_mb=200.0, compiled_memory_mb=100.0),
        _row("b", speedup=0.5, cold_compile_s=30.0, eager_memory_mb=100.0, compiled_memory_mb=100.0),
        _row("c", speedup=8.0, cold_compile_s=20.0),
        _row("d", "fail", speedup=100.0, cold_compile_s=1.0),
        _row("e", "timeout"),
    ]
    summary = summarize(rows)
    assert summary.pass_rate == pytest.approx(0.6)
    assert summary.geomean_speedup == pytest.approx(2.0)  # (2 * 0.5 * 8) ** (1/3): the failed model's 100x left out
    assert summary.median_compile_s == 20.0
    assert summary.memory_compression == pytest.approx(math.sqrt(2.0))
    assert summary.counts == {"pass": 3, "fail": 1, "error": 0, "timeout": 1}
    assert summarize([]).pass_rate is None


def test_which_models_a_sweep_asks_for() -> None:
    suite, names = model_names(None, None)
    assert suite == "hf" and len(names) >= 20 and all(n.startswith("hf:") for n in names)
    suite, names = model_names("hf,timm", None)
    assert sum(n.startswith("timm:") for n in names) >= 20
    assert model_names(None, "gpt2,resnet50,hf:xlnet,models.py:make")[1] == ["hf:gpt2", "timm:resnet50", "hf:xlnet", "models.py:make"]
    assert model_names("timm", "dla34")[1] == ["timm:dla34"]
    with pytest.raises(CommandError, match="--suite: choose from hf, timm"):
        model_names("torchbench", None)
    with pytest.raises(CommandError, match="twice"):
        model_names(None, "gpt2,hf:gpt2")
    assert safe_name("hf:deberta-v2") == "hf_deberta-v2" and safe_name("../x.py:make") == "x.py_make"


def test_examine_reads_the_models_trace_as_run_would() -> None:
    row = _row("program", cold_compile_s=1.0)
    environment: dict = {}
    examine(TRACES / "diagnosis.log.gz", row, None, backend="eager", environment=environment)
    assert (row.compiles, row.graph_breaks, row.recompiles) == (27, 4, 13)
    assert row.top_break is not None and row.top_break.startswith("Graph break in shout at programs/diagnosis.py:57")
    assert "Tensor.item()" in row.top_break
    assert row.compilescope_problems == []
    assert environment["torch"] == "2.13.0+cu130"
    # A trace with no Inductor kernels, said to be Inductor's: the lost fact is a problem of ours
    lost = _row("program", cold_compile_s=1.0)
    examine(TRACES / "tiny.log.gz", lost, None, backend="inductor")
    assert lost.compilescope_problems == [] or all(p.startswith("lost:") for p in lost.compilescope_problems)


def test_examine_says_where_compilescope_failed(tmp_path: Path) -> None:
    broken = tmp_path / "trace.log"
    broken.write_bytes(b"\x00\x01 not a trace")
    row = _row("program", cold_compile_s=1.0)
    examine(broken, row, None)
    assert row.compilescope_problems, "an unreadable trace is said, not skipped"


def _run(rows: list[ZooModel]) -> ZooRun:
    run = ZooRun(
        suite="hf", size="tiny", device="cpu", training=False, precision="fp32", backend="inductor", mode="default", time_limit_s=60
    )
    run.models = rows
    run.summary = summarize(rows)
    run.environment = {"torch": "2.13.0"}
    return run


HOSTILE = "<script>alert(1)</script>"


def test_the_page_escapes_everything_and_sorts_with_its_one_script() -> None:
    rows = [
        _row("hf:gpt2", speedup=1.5, cold_compile_s=20.0, warm_compile_s=3.0, compiles=1, graph_breaks=0, recompiles=0, accuracy="pass"),
        _row(f"x{HOSTILE}.py:make", "fail", reason=f"the compiled call: RuntimeError: {HOSTILE}", cold_compile_s=2.0),
        _row("hf:bert", speedup=0.8, cold_compile_s=5.0, top_break=f"Graph break in f: {HOSTILE}", graph_breaks=2),
    ]
    page = zoo_html(_run(rows))
    assert HOSTILE not in page and html.escape(HOSTILE) in page
    scripts = re.findall(r"<script>(.*?)</script>", page, re.S)
    assert len(scripts) == 1
    # the policy allows that script alone, by its hash
    import base64
    import hashlib

    digest = base64.b64encode(hashlib.sha256(scripts[0].encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in page
    assert page.count('data-type="n"') >= 10 and "<svg" in page
    assert 'data-v="1.5"' in page and 'data-v="">unknown' in page
    # the chart draws the models with both figures, named
    assert page.count("<circle") == 2


def test_the_terminal_table_says_why_each_model_did_not_pass() -> None:
    rows = [
        _row("hf:gpt2", speedup=1.5, cold_compile_s=20.0, accuracy="pass"),
        _row("hf:t5", "timeout", reason="past the time limit (60 s) in the first compiled call with an empty cache"),
        _row("hf:bert", compilescope_problems=["explaining it: KeyError: 'x' (at findings/rules.py:12)"]),
    ]
    from rich.console import Console

    console = Console(width=160, record=True, color_system=None)
    console.print(zoo_table(_run(rows)))
    text = console.export_text()
    assert "hf:t5 timeout: past the time limit (60 s)" in text
    assert "hf:bert: compilescope failed: explaining it: KeyError" in text
    assert "pass rate 67% (2 pass, 1 timeout)" in text and "geomean speedup 1.50x" in text


def test_results_come_back_from_their_json(tmp_path: Path) -> None:
    run = _run([_row("hf:gpt2", speedup=1.5, eager_memory_mb=2.0, compiled_memory_mb=1.0)])
    path = tmp_path / "zoo.json"
    run.save(str(path))
    data = json.loads(path.read_text())
    assert set(data) >= {"models", "summary", "schema"} and data["models"][0]["memory_compression"] == 2.0
    again = load_zoo(path.read_text())
    assert again.models == run.models and again.summary == run.summary
    with pytest.raises(ValueError):
        load_zoo('{"schema": "compilescope/1"}')


def test_verdicts_are_words_in_the_terminal_and_on_the_page() -> None:
    # GIVEN models whose speedups bench judged faster, slower and too noisy to say
    rows = [
        _row("hf:gpt2", speedup=1.3, verdict="faster"),
        _row("hf:bert", speedup=0.76, verdict="slower"),
        _row("hf:t5", speedup=1.02, verdict="too noisy to say"),
    ]
    from rich.console import Console

    # WHEN the table is printed without colour (a CI log) and the page is written
    console = Console(width=160, record=True, color_system=None)
    console.print(zoo_table(_run(rows)))
    text = " ".join(console.export_text().split())
    page = zoo_html(_run(rows))
    # THEN each verdict is said in words with its speedup, in both
    for said in ("faster 1.30x", "slower 0.76x", "too noisy to say (1.02x)"):
        assert said in text and said in page
    assert 'class="n slower" data-v="0.76"' in page  # (its colour too, and sorted by the figure)
