"""compilescope run --try FIX (issue 18): the program run as it is and with a fix set from
outside, compared on the second run's facts. Real subprocesses, real torch.compile (eager)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import compilescope
from conftest import run_cli

PROGRAM = textwrap.dedent(
    """\
    import torch

    @torch.compile(backend="eager")
    def f(x):
        scale = x.sum().item()
        return x * scale

    for n in (4, 8, 16):
        f(torch.ones(n))
    print("done")
    """
)


def test_try_removes_a_break_and_the_recompiles_on_the_second_run(tmp_path: Path) -> None:
    # GIVEN a program whose .item() breaks the graph and whose sizes change
    (tmp_path / "scaled.py").write_text(PROGRAM)
    # WHEN it is tried with two fixes set from outside
    result = run_cli("run", "--try", "capture_scalar_outputs", "--try", "dynamic", "scaled.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.count("done") == 2  # the program ran twice, its output unchanged
    before = compilescope.load(tmp_path / "compilescope-scaled.json")
    after = compilescope.load(tmp_path / "compilescope-scaled.try.json")
    # THEN the first run is the program as it is, with its finding saying which fix to try
    assert len({(b.filename, b.lineno) for b in before.graph_breaks}) == 1 and len(before.recompiles) == 2
    assert before.fixes is None
    commands = [f.try_command for f in before.explain() if f.try_command]
    assert "compilescope run --try capture_scalar_outputs scaled.py" in commands
    assert "compilescope run --try dynamic scaled.py" in commands
    # and the second run had both set, and has neither the break nor a recompile
    assert after.fixes is not None and len(after.fixes) == 2
    assert "torch._dynamo.config.capture_scalar_outputs = True" in after.fixes[0]
    assert not after.graph_breaks and not after.recompiles and len(after.compiles) == 1
    # and the comparison says so
    shown = " ".join(result.stderr.split())
    assert "recompiles 2 0 −2 (-100%)" in shown
    assert "graph breaks (places) 1 0 −1 (-100%)" in shown
    assert "Gone with the fix: ✓ The size of dimension 0 changed" in shown and "✓ Graph break in f at" in shown
    assert "compilescope report compilescope-scaled.try.json" in shown


def test_an_unknown_fix_is_refused_before_the_program_runs(tmp_path: Path) -> None:
    (tmp_path / "scaled.py").write_text(PROGRAM)
    result = run_cli("run", "--try", "make-it-fast", "scaled.py", cwd=tmp_path)
    assert result.returncode == 2 and "done" not in result.stdout
    assert "no fix named 'make-it-fast'" in result.stderr and "capture_scalar_outputs" in result.stderr


def test_a_setting_this_torch_lacks_is_said_not_ignored(tmp_path: Path) -> None:
    (tmp_path / "scaled.py").write_text(PROGRAM)
    result = run_cli("run", "--no-html", "--try", "config.no_such_setting=1", "scaled.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "--try config.no_such_setting=1: torch._dynamo.config.no_such_setting does not exist in this torch" in result.stderr
