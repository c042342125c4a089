"""One finding per cause (issue 18): a cause that torch reports several times, once per compiled
function or compile it touched, is one item in "What to look at", listing where it was met.

Real torch.compile (backend="eager": the findings are about Dynamo, not kernels), real
`compilescope run` in a subprocess.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import compilescope
from compilescope.findings.rules import findings
from conftest import run_cli


def test_a_break_met_by_three_compiled_functions_is_one_finding(tmp_path: Path) -> None:
    # GIVEN a compiled function whose callee's callee prints: Dynamo stops at the print once in
    # f, once in user and once in helper (each compiled in turn after the break before it)
    (tmp_path / "nested.py").write_text(
        textwrap.dedent(
            """\
            import torch

            def helper(x):
                print("hi")
                return x + 1

            def user(x):
                return helper(x * 2)

            @torch.compile(backend="eager")
            def f(x):
                return user(x) - 1

            f(torch.ones(3))
            """
        )
    )
    result = run_cli("run", "nested.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    session = compilescope.load(tmp_path / "compilescope-nested.json")
    assert len(session.graph_breaks) == 3  # torch reported it three times
    # THEN "What to look at" has it once, naming every function that met it
    breaks = [f for f in findings(session) if f.title.startswith("Graph break")]
    assert len(breaks) == 1, [f.title for f in breaks]
    (found,) = breaks
    assert found.title.startswith("Graph break in helper at ") and found.title.endswith("/nested.py:4")
    assert found.where == str(tmp_path / "nested.py") + ":4"
    assert "Met while compiling 3 functions (f, user, helper)" in found.detail
    assert len(found.compile_ids) == 3 and found.frame is None
    shown = " ".join(result.stderr.split())
    assert shown.count("Graph break in helper at") == 1
    assert "one change here removes them all" in shown
