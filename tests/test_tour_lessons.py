"""The tour's lessons (src/compilescope/tour/lessons/), each run in its own process as the tour
runs it, and their facts (tour/facts.py) checked against what the same run said and what
compilescope saw of it: never against the lab's printout, whose numbers came from elsewhere."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from compilescope.tour import facts
from compilescope.tour.run import run_lesson

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # the test run's shared Inductor cache where conftest made one (lesson 3 makes its own cold one)
    shared = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    return Path(shared) if shared else tmp_path_factory.mktemp("cache")


def test_setup_and_a_missing_compiler(tmp_path: Path, cache: Path) -> None:
    found = facts.setup(run_lesson("l1_setup.py", tmp_path, cache))
    assert found["python"].count(".") == 2 and found["torch"].startswith("2.")
    assert found["compilers"]["g++"] is True  # (this machine has g++, and tells it)
    assert found["python_h"] is True
    assert found["missing_compiler"].startswith("InductorError: InvalidCxxCompiler: No working C++ compiler found")


def test_the_idea_in_plain_python(tmp_path: Path, cache: Path) -> None:
    run = run_lesson("l2_toy.py", tmp_path, cache, under_compilescope=False)
    found = facts.toy(run)
    assert [c["compiled"] for c in found["calls"]] == [True, False, True, True, False]
    assert found["versions"] == found["compiled"] == 3 and run.session is None


def test_first_call_cold_and_warm(tmp_path: Path) -> None:
    # an empty cache of its own, then the same cache again
    cold = run_lesson("l3_first_call.py", tmp_path / "cold", tmp_path / "cache")
    warm = run_lesson("l3_first_call.py", tmp_path / "warm", tmp_path / "cache")
    found = facts.first_call(cold, warm)
    assert (found["wrapper"], found["wrapped"]) == ("OptimizedModule", "TinyNet")
    assert found["cold"]["wrap_s"] < 0.1
    first, *later = found["cold"]["calls_s"]
    assert first > 10 * max(later)  # the first call paid for compiling
    assert found["cold"]["cache_misses"] >= 1 and found["cold"]["cache_hits"] == 0
    assert found["warm"]["cache_hits"] >= 1 and found["warm"]["cache_misses"] == 0
    assert found["warm"]["calls_s"][0] < first  # the filled cache saves most of it


def test_the_graph_and_the_guard_on_x(tmp_path: Path, cache: Path) -> None:
    run = run_lesson("l4_graph.py", tmp_path, cache)
    found = facts.graph(run)
    assert (found["graphs"], found["graph_breaks"], found["operations"]) == (1, 0, 3)
    assert [op for op, _ in found["nodes"]] == ["placeholder"] * 3 + ["call_function"] * 3 + ["output"]
    assert found["x_guard"]["size"] == [8, 64] and found["x_guard"]["stride"] == [64, 1]
    assert found["x_guard"]["plain"] == "x is a float32 tensor of size [8, 64], stride [64, 1], requires_grad=False"
    assert run.session is not None and found["guards"] == len(run.session.compiles[0].guards) > 10


def test_a_recompile_and_the_dynamic_version(tmp_path: Path, cache: Path) -> None:
    found = facts.recompile(run_lesson("l5_recompile.py", tmp_path, cache))
    assert [rows for rows, _ in found["calls"]] == [8, 8, 16, 8, 16, 32]
    assert found["failed_guard"] == {"text": "tensor 'x' size mismatch at index 0. expected 8, actual 16", "expected": "8", "actual": "16"}
    # three sizes, two versions: the second (dynamic) one served 32 rows without compiling
    assert found["compiles"] == 2 and found["sizes_seen"] == [8, 16, 32]
    assert found["dynamic_guard"] == "x is a float32 tensor of size [any, 64], stride [64, 1], requires_grad=False"


def test_training_and_inference_graphs(tmp_path: Path, cache: Path) -> None:
    found = facts.training(run_lesson("l6_training.py", tmp_path, cache))
    assert "aten.addmm.default" in found["forward"] and "aten.relu.default" in found["forward"]
    assert "aten.threshold_backward.default" in found["backward"] and "aten.mm.default" in found["backward"]
    assert found["inference"] == ["aten.t.default", "aten.addmm.default", "aten.add.Tensor", "aten.relu.default"]


def test_fusion_and_the_kernels_inductor_wrote(tmp_path: Path, cache: Path) -> None:
    found = facts.kernels(run_lesson("l7_kernels.py", tmp_path, cache))
    assert found["same"] is True and found["one_trip_s"] > 0 and found["two_trips_s"] > 0
    (fused,) = found["models"]["BiasThenRelu"]
    assert fused["kind"] == "cpp" and fused["aten_ops"] == ["aten.add", "aten.relu"]
    kinds = {k["kind"]: k for k in found["models"]["MatmulThenRelu"]}
    assert kinds["library call"]["name"] == "mm" and kinds["library call"]["aten_ops"] == ["aten.mm"]


def test_graph_breaks_where_and_fullgraph(tmp_path: Path, cache: Path) -> None:
    found = facts.graph_breaks(run_lesson("l8_graph_breaks.py", tmp_path, cache))
    (brk,) = found["WithIf"]["breaks"]
    assert "item()" in brk["reason"] and brk["code"].startswith("if x.sum().item() > 0:")
    assert found["WithIf"]["graphs"] == 2 and found["WithWhere"] == {"graphs": 1, "breaks": []}
    assert found["fullgraph"]["WithWhere"] is None and found["fullgraph"]["WithIf"] == "UserError"


def test_is_it_faster(tmp_path: Path, cache: Path) -> None:
    found = facts.faster(run_lesson("l9_faster.py", tmp_path, cache))
    small, matmul = found["models"]
    assert (small["model"], matmul["model"]) == ("ManySmallSteps", "OneBigMatmul")
    for model in (small, matmul):
        assert model["eager_ms"] > 0 and model["compiled_ms"] > 0 and model["runs"] == 30
        assert model["speedup"] == pytest.approx(model["eager_ms"] / model["compiled_ms"])
        assert model["compile_s"] is not None and model["compile_s"] > 0
