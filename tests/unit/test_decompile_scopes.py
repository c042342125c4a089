"""`global` and `nonlocal` in decompiled source, on Python 3.10-3.13: tests/programs/decompile_scopes.py
decompiles each of its functions (globals stored, deleted, declared and only read; nested defs,
closures, comprehensions with `:=`, class bodies), runs the source in a fresh namespace and
compares results, globals and enclosing variables with the original's. One run per Python, the
four started together."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import ROOT, python_version

SCRIPT = ROOT / "tests" / "programs" / "decompile_scopes.py"
VERSIONS = ["3.10", "3.11", "3.12", "3.13"]
_STARTED: dict[str, subprocess.Popen[str]] = {}


def _report(version: str) -> dict[str, dict[str, str]]:
    """The script's report on this version's Python (all the versions here start at the first call)."""
    if not _STARTED:
        for other in VERSIONS:
            try:
                python = python_version(other)
            except (pytest.skip.Exception, pytest.fail.Exception):
                continue
            _STARTED[other] = subprocess.Popen(
                [python, str(SCRIPT)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                cwd=Path(SCRIPT).parent,
                env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
            )
    python_version(version)  # (skips, or with COMPILESCOPE_REQUIRE_ALL_PYTHONS fails, where there is none)
    stdout, stderr = _STARTED[version].communicate(timeout=120)
    assert _STARTED[version].returncode == 0, stderr
    report: dict[str, dict[str, str]] = json.loads(stdout)
    return report


@pytest.fixture(scope="module", autouse=True)
def _end_the_runs() -> Iterator[None]:
    """A run whose test did not get to read it (deselected, or failed before) is ended."""
    yield
    for process in _STARTED.values():
        if process.poll() is None:
            process.kill()
        process.communicate()
    _STARTED.clear()


def _lines(source: str) -> list[str]:
    return [line.strip() for line in source.splitlines()]


@pytest.mark.parametrize("version", VERSIONS)
def test_declarations_make_the_source_do_what_the_function_did(version: str) -> None:
    # GIVEN functions that bind globals and enclosing variables, decompiled with this Python
    report = _report(version)
    # THEN each one's source, run, gives the same results and leaves the same globals and cells
    wrong = {name: case["status"] for name, case in report.items() if case["status"] != "pass"}
    assert not wrong, json.dumps(wrong, indent=1)
    assert len(report) >= 12
    source = {name: case["source"] for name, case in report.items()}
    # AND the declarations are where the user would write them, once
    assert _lines(source["bump"])[:2] == ["def f(x):", "global counter"]
    assert "global" not in source["reads_only"]
    assert "global gone, made" in _lines(source["delete_global"])
    nested = _lines(source["nested_own_global"])
    assert nested.index("global g") == nested.index("def setg(w):") + 1 and nested.count("global g") == 1
    assert "global counter" in _lines(source["nested_global_read_shadowed"])
    both = _lines(source["global_and_nonlocal"])
    assert both[both.index("def both(y):") + 1 : both.index("def both(y):") + 3] == ["global counter", "nonlocal n"]
    assert _lines(source["closure_itself"])[:2] == ["def step(k):", "nonlocal n"]
    assert _lines(source["walrus_global_listcomp"])[1] == "global total"
    assert "nonlocal" not in source["walrus_local_comprehension"] and "global" not in source["walrus_local_comprehension"]
    walrus = _lines(source["walrus_nonlocal_comprehension"])
    assert walrus.count("nonlocal total") == 1 and walrus.index("nonlocal total") == walrus.index("def inner():") + 1
    documented = _lines(source["class_body_nonlocal_with_docstring"])
    assert documented[documented.index("class K:") + 1 : documented.index("class K:") + 3] == [
        '"""The docstring stays first."""',
        "nonlocal n",
    ]
    assert "global made" in _lines(source["class_body_global"])
