"""Lesson 1 (check_setup.py) done properly: `compilescope doctor`, in a real subprocess. The lesson
program is this repository's (tests/programs/lessons), and the tutorial's own too where it lies
beside the repository (`../shared/tutorial`; elsewhere that run skips)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import LESSONS, copy_lesson, run_cli, tutorial

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("source", ["here", "tutorial"])
def test_doctor_reports_what_check_setup_reports(tmp_path: Path, source: str) -> None:
    copy_lesson("check_setup.py", tmp_path, tutorial() if source == "tutorial" else LESSONS)
    lesson = subprocess.run([sys.executable, "check_setup.py"], cwd=tmp_path, capture_output=True, text=True, check=True)
    result = run_cli("doctor", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr

    facts = dict(re.findall(r"^(\S+)\s+(.+)$", lesson.stdout, re.M))

    def says(label: str, value: str) -> bool:
        return re.search(rf"^ . {re.escape(label)}\s+{re.escape(value)}", result.stdout, re.M) is not None

    assert says("Python", facts["Python"])
    assert says("torch", facts["PyTorch"])
    assert ("CPU only" in result.stdout) == (facts["GPU"] == "False")
    for compiler in ("g++", "clang++", "cl"):
        assert f"{compiler} {facts[compiler]}" in result.stdout
    assert (facts["Python.h"] == "found") == ("✓ Python.h" in result.stdout)
    assert "a real Inductor compile ran and matched eager" in result.stdout
    assert "All good" in result.stdout


def test_doctor_explains_a_missing_compiler(tmp_path: Path) -> None:
    # GIVEN Inductor pointed at a compiler that does not exist (the tutorial met this as `cl`)
    result = run_cli("doctor", cwd=tmp_path, env={"CXX": "no-such-compiler++"})
    # THEN doctor fails, says which compiler is missing, and how to fix it
    assert result.returncode == 1
    assert "Inductor would use no-such-compiler++, which is not found" in result.stdout
    assert "CXX=no-such-compiler++ names a compiler that is not on PATH" in result.stdout
    # the real compile fails with torch's own error, with the fix next to it
    assert "InvalidCxxCompiler: No working C++ compiler found" in result.stdout
    assert "install g++" in result.stdout
    assert shutil.which("g++")  # the machine itself is fine; only CXX was wrong
