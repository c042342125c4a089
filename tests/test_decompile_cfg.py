"""The decompiler's first layer, the control-flow graph, on every Python torch supports.

tests/programs/cfg_check.py builds the graph of sample functions (loops with break/continue/else,
nested loops, while True, try/except/else/finally, with, comprehensions, boolean operators) and of
every code object in a few stdlib modules, with each Python 3.10 to 3.13, and checks: each
instruction in exactly one block, every jump lands on a block start, edges agree both ways, the
entry dominates every reachable block, a loop's header dominates its body, and the loops found
in the bytecode are exactly the loops written in the source.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from conftest import ROOT, python_version

CHECK = ROOT / "tests" / "programs" / "cfg_check.py"


@pytest.mark.parametrize("version", ["3.10", "3.11", "3.12", "3.13"])
def test_control_flow_graph(version: str) -> None:
    python = python_version(version)
    done = subprocess.run(
        [python, str(CHECK)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(done.stdout)
    assert results["python"] == version
    for name, sample in results["samples"].items():
        assert sample["problems"] == [], (name, sample["problems"])
        assert sample["loops"] == sample["written"], (name, sample)
    for module, found in results["stdlib"].items():
        assert found["code_objects"] > 10 and found["problems"] == [], (module, found["problems"])
