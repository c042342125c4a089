"""`compilescope tour --all --json`, run once as a user runs it, and every lesson's facts checked
against what the same run observed: what each lesson program said, and the sessions compilescope
saved of it (kept with --work). Never against the lab's printout: its numbers came from elsewhere.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import compilescope
from compilescope.findings.finding import seconds
from compilescope.stats import break_even
from compilescope.tour.messages import say
from compilescope.tour.views import tensor_guard
from conftest import run_cli

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def tour(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path, str]:
    folder = tmp_path_factory.mktemp("tour")
    # the tour keeps its compile cache under XDG_CACHE_HOME: here, the test run's own
    env = {"XDG_CACHE_HOME": str(folder / "xdg"), "LANG": "zh_CN.UTF-8"}
    run = run_cli("tour", "--all", "--json", "tour.json", "--work", "work", cwd=folder, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    data = json.loads((folder / "tour.json").read_text(encoding="utf-8"))
    return data, folder / "work", run.stdout


def lesson(data: dict, number: int) -> dict:
    (found,) = [item for item in data["lessons"] if item["number"] == number]
    return found


def session(work: Path, number: int, run: int = 1) -> compilescope.Session:
    (saved,) = (work / f"lesson{number}" / str(run)).glob("*.json")
    return compilescope.load(saved)


def test_nine_lessons_in_the_locales_language(tour) -> None:
    data, work, shown = tour
    assert data["lang"] == "zh" and [item["number"] for item in data["lessons"]] == list(range(1, 10))
    assert "torch.compile 做了什么？在你自己的机器上走一遍" in shown and "这次游览在这台机器上用了" in shown
    assert (work.parent / "compilescope-tour.html").read_text(encoding="utf-8").startswith('<!DOCTYPE html>\n<html lang="zh">')


def test_setup_and_a_missing_compiler(tour) -> None:
    facts = lesson(tour[0], 1)["facts"]
    assert facts["compilers"]["g++"] is True and facts["python_h"] is True
    assert facts["missing_compiler"].startswith("InductorError: InvalidCxxCompiler: No working C++ compiler found")
    assert facts["missing_compiler"] in lesson(tour[0], 1)["text"]


def test_the_idea_in_plain_python(tour) -> None:
    facts = lesson(tour[0], 2)["facts"]
    assert [c["compiled"] for c in facts["calls"]] == [True, False, True, True, False]
    assert facts["versions"] == facts["compiled"] == 3


def test_first_call_cold_then_warm(tour) -> None:
    data, work, _ = tour
    facts = lesson(data, 3)["facts"]
    cold, warm = session(work, 3, 1), session(work, 3, 2)
    first, *later = facts["cold"]["calls_s"]
    assert first > 10 * max(later)  # the first call paid for compiling
    assert facts["cold"]["cache_misses"] == sum(c.cache.fx_graph_misses or 0 for c in cold.compiles) >= 1
    assert facts["warm"]["cache_hits"] == sum(c.cache.fx_graph_hits or 0 for c in warm.compiles) >= 1
    assert facts["cold"]["compile_s"] == cold.total_compile_time_s
    text = lesson(data, 3)["text"]
    assert seconds(first) in text and seconds(facts["warm"]["calls_s"][0]) in text


def test_the_graph_and_its_guards(tour) -> None:
    data, work, shown = tour
    facts = lesson(data, 4)["facts"]
    (compiled,) = session(work, 4).compiles
    assert (facts["graphs"], facts["graph_breaks"], facts["operations"]) == (1, 0, compiled.op_count)
    assert facts["guards"] == len(compiled.guards)
    assert facts["x_guard"]["size"] == [8, 64] and facts["x_guard"]["dtype"] == "float32"
    assert facts["guard_kinds"]["TENSOR_MATCH"] == 3  # x, the layer's weight and bias
    # the text and the view say it in the tour's language, with the run's figures
    assert tensor_guard(facts["x_guard"], "x", "zh") in lesson(data, 4)["text"]
    assert say("view.guards", "zh", count=str(facts["guards"]), kinds="") in shown
    assert "placeholder    l_x_  f32[8, 64]" in shown


def test_a_recompile_and_the_dynamic_version(tour) -> None:
    data, work, _ = tour
    facts = lesson(data, 5)["facts"]
    saved = session(work, 5)
    (again,) = saved.recompiles
    assert facts["failed_guard"]["text"] == again.failed_guards[0].text == "tensor 'x' size mismatch at index 0. expected 8, actual 16"
    assert facts["compiles"] == len(saved.compiles) == 2 and facts["sizes_seen"] == [8, 16, 32]
    assert facts["failed_guard"]["text"] in lesson(data, 5)["text"]
    # the second version serves any number of rows: a dimension of its guard on x is dynamic
    assert facts["dynamic_guard"]["size"] == [None, 64]
    assert tensor_guard(facts["dynamic_guard"], "x", "zh") in lesson(data, 5)["text"]


def test_training_and_inference_graphs(tour) -> None:
    data, work, _ = tour
    facts = lesson(data, 6)["facts"]
    saved = session(work, 6)
    backward = next(c.aot.backward for c in saved.compiles if c.aot.backward)
    inference = next(c.aot.inference for c in saved.compiles if c.aot.inference)
    assert facts["backward"] == backward.ops and facts["inference"] == inference.ops
    assert f"{len(facts['backward'])}" in lesson(data, 6)["text"]


def test_the_kernels_inductor_wrote(tour) -> None:
    data, work, shown = tour
    facts = lesson(data, 7)["facts"]
    names = sorted(k.name for k in session(work, 7).kernels)
    assert sorted(k["name"] for m in facts["models"].values() for k in m) == names
    (fused,) = facts["models"]["BiasThenRelu"]
    assert fused["aten_ops"] == ["aten.add", "aten.relu"] and fused["name"] in lesson(data, 7)["text"]
    # its code, as Inductor wrote it, under the tour's label
    (kernel,) = [k for k in session(work, 7).kernels if k.name == fused["name"]]
    assert say("view.code", "zh", kernel=fused["name"]) in shown
    assert next(line for line in kernel.code.splitlines() if line.startswith('extern "C"')) in shown


def test_graph_breaks_and_fullgraph(tour) -> None:
    data, work, _ = tour
    facts = lesson(data, 8)["facts"]
    (brk,) = [b for b in session(work, 8).graph_breaks]
    assert facts["WithIf"]["breaks"] == [{"reason": brk.reason, "line": brk.lineno, "code": brk.code}]
    assert facts["fullgraph"] == {"WithWhere": None, "WithIf": "UserError"}


def test_is_it_faster(tour) -> None:
    data, work, shown = tour
    models = lesson(data, 9)["facts"]["models"]
    assert [m["model"] for m in models] == ["ManySmallSteps", "OneBigMatmul"]
    for model in models:
        assert model["speedup"] == pytest.approx(model["eager_ms"] / model["compiled_ms"])
        assert f"{model['compiled_ms']:.3f} ms" in " ".join(lesson(data, 9)["lines"])
        even = break_even(model["first_call_s"], model["eager_ms"], model["compiled_ms"])
        assert model["break_even_calls"] == even
    # the table, labelled in the tour's language
    assert say("view.break_even", "zh") in shown and say("view.compiled_ms", "zh") in shown
    assert os.path.exists(work / "lesson9" / "1")


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["--lesson", "10"], "--lesson: there are lessons 1 to 9, not 10"),
        (["--device", "cuda"], "sees no GPU here (torch.cuda.is_available() is False); run without --device"),
        (["--json", "missing/tour.json"], "missing"),
    ],
)
def test_what_cannot_run_stops_before_any_lesson(tmp_path: Path, arguments: list[str], said: str) -> None:
    run = run_cli("tour", "--all", *arguments, cwd=tmp_path, env={"XDG_CACHE_HOME": str(tmp_path / "xdg")})
    assert run.returncode == 2 and said in run.stderr and "tour.html" not in os.listdir(tmp_path)
    assert "1." not in run.stdout  # no lesson ran


def test_what_cannot_run_is_said_in_the_tours_language(tmp_path: Path) -> None:
    run = run_cli("tour", "--lesson", "12", "--lang", "th", cwd=tmp_path, env={"XDG_CACHE_HOME": str(tmp_path / "xdg")})
    assert run.returncode == 2 and say("error.lesson", "th", count="9", given="12") in run.stderr


def test_in_a_terminal_it_pauses_after_each_lesson_enter_goes_on_q_stops(tmp_path: Path) -> None:
    import pty
    import select
    import subprocess
    import sys
    import time

    # GIVEN the tour started with a terminal on its stdin (a pty), no --all
    main, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "compilescope", "tour", "--no-html", "--lang", "en"],
        stdin=terminal,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg")},
    )
    os.close(terminal)
    assert process.stdout is not None
    out = process.stdout
    shown = b""

    def until_it_asks(times: int) -> None:
        nonlocal shown
        deadline = time.monotonic() + 300
        while shown.decode(errors="replace").count(say("tour.next", "en")) < times:
            assert time.monotonic() < deadline and process.poll() is None, shown.decode(errors="replace")
            if select.select([out], [], [], 1)[0]:
                shown += os.read(out.fileno(), 65536)

    try:
        # WHEN Enter is pressed after lesson 1, and q after lesson 2
        until_it_asks(1)
        assert "2. A wrapper, a guard and a cache" not in shown.decode()  # it waits
        os.write(main, b"\n")
        until_it_asks(2)
        os.write(main, b"q\n")
        rest, errors = process.communicate(timeout=120)
    finally:
        process.kill()
        os.close(main)
    text = (shown + rest).decode()
    # THEN two lessons ran, and the tour ended there, as it says
    assert process.returncode == 0, errors.decode()[-2000:]
    assert "1. What torch.compile needs" in text and "2. A wrapper, a guard and a cache" in text
    assert "3. Compiling waits for the first call" not in text and "(2 lessons)" in text
