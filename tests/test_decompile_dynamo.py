"""Dynamo's own output, read back: every code object Dynamo generates for the lesson programs
(tests/programs/lessons: the tutorial's lessons, written here), the graph-break programs held here
and two transformers models decompiles to Python that, compiled again and called with the
arguments the real code got, returns what it returned.

tests/programs/dynamo_decompile_check.py runs the scripts under a bytecode hook and a profile hook
(to record each transformed code's arguments), then calls the real transformed code and the
decompiled source side by side. Run on Python 3.11 (the main environment) and 3.12 (.venv-py312).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from conftest import ROOT, lesson, python312

CHECK = ROOT / "tests" / "programs" / "dynamo_decompile_check.py"
LESSON_PROGRAMS = ["first_call.py", "see_graph.py", "recompile.py", "train_graphs.py", "see_kernels.py", "graph_break.py", "benchmark.py"]


def _check(python: str | Path, scripts: list[Path], tmp_path: Path) -> dict:
    out = tmp_path / "decompiled.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [str(python), str(CHECK), str(out), *map(str, scripts)], capture_output=True, text=True, timeout=1200, env=env, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(out.read_text())


def _assert_round_trip(results: dict, scripts: list[Path]) -> Counter:
    assert results["script_errors"] == {}, results["script_errors"]
    codes = results["codes"]
    outcome = Counter(c["result"].split(":")[0] for c in codes)
    wrong = {f"{c['script']}:{c['name']}": c["result"][:500] for c in codes if not c["result"].startswith(("pass", "not called"))}
    assert wrong == {}, wrong  # no differs, no crashes, nothing unsupported
    # every code was called (a code Dynamo made but nothing ran is listed, not hidden)
    assert outcome["pass"] == len(codes), {c["name"]: c["result"] for c in codes if c["result"] != "pass"}
    compiled_scripts = {c["script"] for c in codes}
    for script in scripts:
        if script.name != "toy_fusion.py":
            assert script.name in compiled_scripts, f"{script.name} made no code for the check"
    return outcome


def _seed_example(results: dict) -> None:
    """The seed's toy_example: the main frame with its data-dependent branch (depyf stopped at
    its SWAP) and both resume functions, read back as valid Python that runs the same."""
    codes = [c for c in results["codes"] if c["script"] == "dynamo_breaks.py"]
    main = [c for c in codes if c["name"] == "toy_example"]
    resumes = [c for c in codes if c["name"].startswith("torch_dynamo_resume_in_toy_example")]
    assert main and main[0]["result"] == "pass" and len(resumes) == 2
    assert "__compiled_fn_" in main[0]["source"] and "return __resume_at_" in main[0]["source"]
    # the whole transformed code reads as statements, not bytecode
    assert "compilescope could not decompile" not in main[0]["source"]


@pytest.mark.slow
def test_dynamo_output_round_trips_on_python_311(tmp_path: Path) -> None:
    scripts = [ROOT / "tests" / "programs" / "dynamo_breaks.py", *[lesson(n) for n in LESSON_PROGRAMS]]
    try:
        import transformers  # noqa: F401

        scripts.append(ROOT / "tests" / "programs" / "dynamo_transformers.py")
    except ImportError:
        pass
    results = _check(sys.executable, scripts, tmp_path)
    assert results["python"] == f"{sys.version_info.major}.{sys.version_info.minor}"
    outcome = _assert_round_trip(results, scripts)
    _seed_example(results)
    print(f"Python {results['python']}: {dict(outcome)} over {len(scripts)} scripts")


@pytest.mark.slow
def test_dynamo_output_round_trips_on_python_312(tmp_path: Path) -> None:
    python = python312()
    scripts = [ROOT / "tests" / "programs" / "dynamo_breaks.py", *[lesson(n) for n in LESSON_PROGRAMS if n != "benchmark.py"]]
    results = _check(python, scripts, tmp_path)
    assert results["python"] == "3.12"
    outcome = _assert_round_trip(results, scripts)
    _seed_example(results)
    print(f"Python 3.12: {dict(outcome)} over {len(scripts)} scripts")
