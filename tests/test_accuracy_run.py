"""compilescope run --check-accuracy (issue 45): each compiled graph's first calls against the same
graph run eagerly, the stage that makes a differing graph differ, torch's minifier on it, and the
program's own results untouched. Real subprocesses, real Inductor (C++ on this CPU), and torch's
own testing switch (cpp.inject_relu_bug_TESTING_ONLY) for a wrong result."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import compilescope
from conftest import ROOT, run_cli

PROGRAM = ROOT / "tests" / "programs" / "accuracy_training.py"
pytestmark = pytest.mark.slow


def _python(folder: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=folder, capture_output=True, text=True, timeout=600)


def test_a_wrong_inductor_result_is_found_its_stage_named_and_minified(tmp_path: Path) -> None:
    # GIVEN a training loop and a dropout function, Inductor's relu made wrong on purpose
    shutil.copy(PROGRAM, tmp_path / "train.py")
    plain = _python(tmp_path, "train.py", "--bug")
    assert plain.returncode == 0, plain.stderr[-2000:]
    # WHEN it is run with --check-accuracy
    run = run_cli("run", "--check-accuracy", "--no-html", "train.py", "--bug", cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    # THEN the program printed what it prints without us (its losses, its random numbers after)
    assert run.stdout == plain.stdout
    session = compilescope.load(tmp_path / "compilescope-train.json")
    [model] = session.find_compile("0/0").accuracy
    # and the model's graph differs from eager on each of its 3 checked calls, by relu's error
    assert [c.outcome for c in model.calls] == ["differs"] * 3
    wrong = model.calls[0].compared[0]
    assert (wrong.what, wrong.shape, wrong.dtype, wrong.matches) == ("output 0", [8, 4], "float32", False)
    assert wrong.max_abs is not None and wrong.max_abs > 0.1
    # and the training step's gradients were compared, named as the user's parameters
    assert model.gradients is not None and "gradient of fn[0].weight" in [g.what for g in model.gradients]
    assert any(not g.matches for g in model.gradients)
    # and Inductor is named as the stage: AOT Autograd, with and without its decompositions, matched
    assert [(s.stage, s.matches) for s in model.stages] == [("aot_eager", True), ("aot_eager_decomp_partition", True), ("inductor", False)]
    assert model.first_differs == "inductor"
    # and dropout's graph is said not comparable rather than wrong
    [dropout] = session.find_compile("1/0").accuracy
    assert [c.outcome for c in dropout.calls] == ["not compared"] and "random numbers" in (dropout.calls[0].why or "")
    # and the finding says where, what differs, and what to do
    [finding] = [f for f in session.explain() if f.kind == "accuracy"]
    assert finding.title == "Compiled Sequential.forward (0/0) differs from eager"
    assert finding.where is not None and finding.where.endswith("train.py:17")
    assert 'backend="aot_eager"' in finding.fix and "python minify_0_0.py minify" in finding.fix
    said = " ".join(run.stderr.split())  # (the terminal's lines wrapped)
    assert "Accuracy against eager: 3 graphs checked (first 3 calls of each): 1 differs, 1 matches, 1 not compared" in said
    assert "accuracy: differs from eager in 3 of 3 calls checked: output 0 (float32 [8, 4])" in said

    # WHEN the user runs the minifier command it gives, from where they ran the program
    assert model.minifier is not None and model.minifier.minify is not None
    minify = subprocess.run(model.minifier.minify, shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    # THEN torch's minifier shrinks the graph to the one operation that is wrong: relu
    assert minify.returncode == 0, minify.stderr[-3000:]
    repro = tmp_path / "compilescope-train-accuracy" / "graph_0_0" / "repro.py"
    forward = repro.read_text().split("def forward", 1)[1].split("return", 1)[0]
    assert "relu(" in forward and "linear" not in forward, forward
    # and the minified repro, run, still fails accuracy (as torch's own check says it)
    checked = _python(repro.parent, "repro.py", "run")
    assert checked.returncode != 0 and "AccuracyError" in checked.stderr

    # WHEN the fix the finding gives is pasted into the program
    fixed = (tmp_path / "train.py").read_text().replace("torch.compile(model)", 'torch.compile(model, backend="aot_eager")')
    (tmp_path / "fixed.py").write_text(fixed)
    again = run_cli("run", "--check-accuracy", "--no-html", "fixed.py", "--bug", cwd=tmp_path)
    # THEN the model's graph matches eager, its gradients too
    assert again.returncode == 0, again.stderr[-3000:]
    [model] = compilescope.load(tmp_path / "compilescope-fixed.json").find_compile("0/0").accuracy
    assert model.matches and model.gradients and all(g.matches for g in model.gradients)


def test_without_the_switch_every_graph_matches_and_the_output_is_the_programs(tmp_path: Path) -> None:
    # GIVEN the same program, Inductor left as it is
    shutil.copy(PROGRAM, tmp_path / "train.py")
    without = run_cli("run", "--no-html", "--json", "without.json", "train.py", cwd=tmp_path)
    assert without.returncode == 0, without.stderr[-3000:]
    # WHEN it is run with --check-accuracy=2
    run = run_cli("run", "--check-accuracy=2", "--no-html", "train.py", cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    # THEN its output is what it is without the flag, to the digit (losses, the random numbers drawn after)
    assert run.stdout == without.stdout and "random after" in run.stdout
    session = compilescope.load(tmp_path / "compilescope-train.json")
    [model] = session.find_compile("0/0").accuracy
    assert [c.outcome for c in model.calls] == ["matches", "matches"]
    assert model.gradients is not None and len(model.gradients) == 4 and all(g.matches for g in model.gradients)
    assert not model.stages and model.minifier is None
    # and the report says so, with what checking cost
    assert session.accuracy is not None and session.accuracy.calls_per_graph == 2
    assert session.accuracy.seconds is not None and session.accuracy.seconds < 5
    said = " ".join(run.stderr.split())  # (the terminal's lines wrapped)
    assert "No compiled graph differs from eager (2 of 3 graphs checked match)" in said
    assert "accuracy: matches eager in 2 calls checked" in said
    assert not (tmp_path / "compilescope-train-accuracy").exists()
    # and without the flag nothing was checked
    assert compilescope.load(tmp_path / "without.json").accuracy is None


def test_bad_counts_are_refused_before_the_program_runs(tmp_path: Path) -> None:
    (tmp_path / "p.py").write_text("print('ran')\n")
    for bad in ("--check-accuracy=0", "--check-accuracy=many"):
        refused = run_cli("run", bad, "p.py", cwd=tmp_path)
        assert refused.returncode == 2 and "ran" not in refused.stdout
        assert "a number of calls, 1 or more" in refused.stderr
