"""`compilescope zoo` for real: models compiled by Inductor in processes of their own, a model
whose compile fails reported as `fail` with torch's reason while the sweep goes on, a model past
its time limit reported as `timeout` with where it was, and compilescope's own explanation of
each run (session, findings, views, decompiled files) made without an internal error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import compilescope
from conftest import run_cli

pytestmark = pytest.mark.slow

# A model that runs eagerly and whose compile fails: Inductor is given a C++ compiler that does
# not exist (in the model's own process: make() runs in the worker).
FAILS = """
import torch
import torch._inductor.config as inductor_config


class Doubles(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x) * 2


def make():
    inductor_config.cpp.cxx = ("/nonexistent/c++",)
    return Doubles(), (torch.randn(8),)
"""

# A model that fills a cache of its own on its first call, as timm's LeViT fills its attention
# biases in eval mode: a compiled call before that traces another graph than one after it.
FILLS_ON_FIRST_CALL = """
import torch


class Biased(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(8))
        self.bias_cache = {}

    def forward(self, x):
        if "bias" not in self.bias_cache:
            self.bias_cache["bias"] = self.weight.detach() * 2
        return torch.relu(x) + self.bias_cache["bias"]


def make():
    return Biased(), (torch.randn(4, 8),)
"""

SLOW = """
import time


def make():
    time.sleep(3600)
"""

SMALL = """
import torch


def make():
    return torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.ReLU()), (torch.randn(4, 16),)
"""


def test_a_sweep_of_a_real_model_and_one_whose_compile_fails(tmp_path: Path) -> None:
    # GIVEN GPT-2 by name (tiny, one layer), a model that fills a cache on its first call and,
    # first, a model whose compile fails
    (tmp_path / "fails.py").write_text(FAILS)
    (tmp_path / "fills.py").write_text(FILLS_ON_FIRST_CALL)
    run = run_cli(
        "zoo",
        "--models",
        "fails.py:make,gpt2,fills.py:make",
        "--config",
        "n_layer=1",
        "--runs",
        "5",
        "--json",
        "zoo.json",
        "--html",
        "zoo.html",
        "--work",
        "work",
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    data = json.loads((tmp_path / "zoo.json").read_text())
    failed, gpt2, fills = data["models"]
    # THEN the failure is the compile's, with torch's reason, and the sweep went on
    assert failed["name"] == "fails.py:make" and failed["status"] == "fail"
    assert failed["reason"].startswith("the compiled call: ") and "InvalidCxxCompiler" in failed["reason"]
    assert failed["compiles"] == 1  # Dynamo got as far as handing the graph to Inductor
    # AND GPT-2 compiled, ran faster or not, matched eager, with its figures and its capture
    assert gpt2["name"] == "hf:gpt2" and gpt2["status"] == "pass", gpt2
    assert gpt2["model"].startswith("GPT2LMHeadModel (tiny), ")
    assert gpt2["accuracy"] == "pass" and gpt2["speedup"] > 0 and gpt2["eager_ms"] > 0
    assert gpt2["cold_compile_s"] > gpt2["warm_compile_s"] > 0
    assert gpt2["compiles"] >= 1 and gpt2["graph_breaks"] == 0 and gpt2["recompiles"] == 0
    assert gpt2["compilescope_problems"] == [] and failed["compilescope_problems"] == []
    # AND each warm first call found its graphs in the cache the cold one filled, the model that
    # fills a cache on its first call too (its warm call meets it filled, as the cold one did)
    assert gpt2["warm_cache_misses"] == 0
    assert fills["status"] == "pass" and fills["warm_cache_misses"] == 0, fills
    # AND the summary is the dashboard's, over the model that passed
    summary = data["summary"]
    assert summary["models"] == 3 and summary["pass_rate"] == pytest.approx(2 / 3) and summary["counts"]["fail"] == 1
    assert summary["geomean_speedup"] == pytest.approx((gpt2["speedup"] * fills["speedup"]) ** 0.5)
    assert summary["median_compile_s"] == pytest.approx((gpt2["cold_compile_s"] + fills["cold_compile_s"]) / 2)
    assert data["environment"]["torch"] and data["environment"]["transformers"]
    assert data["cold_cache"].startswith("no compiled code, only Inductor's CPU probes")
    # AND each model's session was kept, as `compilescope run` would have explained it
    session = compilescope.load(gpt2["session"])
    assert len(session.compiles) == gpt2["compiles"] and session.kernels
    assert any(c.transformed_code is not None for c in session.compiles)
    # AND the terminal and the page say it
    said = " ".join(run.stdout.split())
    assert "fails.py:make fail: the compiled call: InductorError" in said
    assert "pass rate 67% (2 pass, 1 fail)" in said
    assert "hf:gpt2: pass" in run.stderr  # each model's line as it finished
    page = (tmp_path / "zoo.html").read_text()
    assert "hf:gpt2" in page and "InvalidCxxCompiler" in page and "<svg" in page


def test_a_model_past_its_time_limit_is_a_timeout_and_the_next_one_runs(tmp_path: Path) -> None:
    # GIVEN a model that never finishes building, then a small one (the eager backend: the
    # time limit is the point, not Inductor)
    (tmp_path / "slow.py").write_text(SLOW)
    (tmp_path / "small.py").write_text(SMALL)
    run = run_cli(
        "zoo",
        "--models",
        "slow.py:make,small.py:make",
        "--backend",
        "eager",
        "--time-limit",
        "15",
        "--runs",
        "3",
        "--json",
        "zoo.json",
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    slow, small = json.loads((tmp_path / "zoo.json").read_text())["models"]
    # THEN the slow one is stopped at its limit, saying where it was; the next one passes
    assert slow["status"] == "timeout" and slow["reason"] == "past the time limit (15 s), in building the model"
    assert 15 <= slow["seconds"] < 40
    assert small["status"] == "pass" and small["accuracy"] == "pass" and small["compiles"] == 1
