"""The `--try` fixes a graph break's finding offers, and the ones it withholds, checked the way a
user meets them: `compilescope run --try FIX` for real on programs with one break the fix removes
and one it cannot (tests/traces/programs/, the programs behind the unit tests' traces), and the
second run shows what the first run's findings said. Real subprocesses, torch.compile (eager)."""

from __future__ import annotations

import shutil
from pathlib import Path

import compilescope
from conftest import run_cli

PROGRAMS = Path(__file__).resolve().parent / "traces" / "programs"


def _tried(name: str, fix: str, folder: Path, status: int = 0):
    """The program run as it is and with `fix`: both sessions and the run's output (`status`: the
    exit status of the run with the fix, which is the program's)."""
    shutil.copy(PROGRAMS / f"{name}.py", folder / f"{name}.py")
    result = run_cli("run", "--no-html", "--try", fix, f"{name}.py", cwd=folder)
    assert result.returncode == status, result.stderr[-3000:]
    return compilescope.load(folder / f"compilescope-{name}.json"), compilescope.load(folder / f"compilescope-{name}.try.json"), result


def _lines(session) -> set[int]:
    return {b.lineno for b in session.graph_breaks if b.lineno is not None}


def _finding(session, function: str):
    (found,) = [f for f in session.explain() if f.kind == "graph break" and f.title.startswith(f"Graph break in {function} at")]
    return found


def test_reorder_print_removes_a_tensors_print_not_a_sizes_and_the_fstring_given_works(tmp_path: Path) -> None:
    # GIVEN print("y is", y) (line 11) and print("shape", y.shape) (line 18), each a break
    before, after, result = _tried("print_args", "reorder-print", tmp_path)
    assert _lines(before) == {11, 18}
    # THEN the first is offered reorder-print, the second is not, and the try shows why: line 11's
    # break is gone, line 18 still breaks, as torch cannot reorder a print of a torch.Size
    assert _finding(before, "scaled").try_fixes == ("reorder-print",)
    shaped = _finding(before, "shaped")
    assert shaped.try_fixes == () and "--try reorder-print cannot remove this break" in shaped.fix
    assert _lines(after) == {18}
    assert any("can't actually be reordered" in b.reason for b in after.graph_breaks)
    # WHEN the print the finding gives is pasted at line 18, as written, and reordered
    fixed = shaped.fix.split("Here: replace line 18 with\n")[1].splitlines()[0].strip()
    source = (tmp_path / "print_args.py").read_text().splitlines()
    indent = source[17][: len(source[17]) - len(source[17].lstrip())]
    source[17] = indent + fixed
    (tmp_path / "print_args.py").write_text("\n".join(source) + "\n")
    pasted, pasted_run = _rerun(tmp_path)
    # THEN nothing breaks, and the program prints the same
    assert _lines(pasted) == set()
    assert pasted_run.stdout.count("shape torch.Size([3])") == result.stdout.count("shape torch.Size([3])") > 0


def _rerun(folder: Path):
    result = run_cli("run", "--no-html", "--try", "reorder-print", "print_args.py", cwd=folder)
    assert result.returncode == 0, result.stderr[-3000:]
    return compilescope.load(folder / "compilescope-print_args.try.json"), result


def test_capture_dynamic_output_shape_ops_removes_a_nonzero_break_not_one_whose_result_python_needs(tmp_path: Path) -> None:
    # GIVEN torch.nonzero in three functions (lines 12, 18, 26): the second's size decides an `if`
    # (line 19), the third's result is read out with .tolist() (line 28)
    before, after, result = _tried("nonzero_use", "capture_dynamic_output_shape_ops", tmp_path, status=1)
    assert _lines(before) == {12, 18, 26, 28}
    assert _finding(before, "picked").try_fixes == ("capture_dynamic_output_shape_ops",)
    counted = _finding(before, "counted")
    assert counted.try_fixes == () and "`idx.shape[0] > 2` after it decides a Python branch on it" in counted.fix
    listed = [f for f in before.explain() if f.kind == "graph break" and f.where and f.where.endswith(":26")]
    assert len(listed) == 1 and "capture_dynamic_output_shape_ops" not in listed[0].try_fixes
    assert "torch 2.13 raises GuardOnDataDependentSymNode there, which stops the program" in listed[0].fix
    # THEN with the op captured, the first break is gone, torch breaks on the `if` instead, and the
    # third's .tolist() raises out of its compile and stops the program (exit status 1), as said
    assert _lines(after) == {19}
    assert [b.reason for b in after.graph_breaks] == ["Data-dependent branching"]
    failed = [c for c in after.compiles if c.status == "failed"]
    assert len(failed) == 1 and failed[0].failure_lineno == 28
    assert "GuardOnDataDependentSymNode" in result.stderr and result.stdout.count("done") == 1  # the first run's


def test_ignore_logging_removes_a_logger_info_break_not_an_is_enabled_for_one(tmp_path: Path) -> None:
    # GIVEN logger.info (line 15) and `if logger.isEnabledFor(...)` (line 22), each a break
    before, after, _ = _tried("logger_calls", "ignore-logging", tmp_path)
    assert _lines(before) == {15, 22}
    assert _finding(before, "told").try_fixes == ("ignore-logging",)
    asked = _finding(before, "asked")
    assert asked.try_fixes == () and "the call is Logger.isEnabledFor, which logs no message" in asked.fix
    # THEN the try removes the first and not the second, as the findings said
    assert _lines(after) == {22}


SHOUT = """\
import torch


@torch.compile(backend="eager")
def shout(x):
    y = x * 2
    print(float(y.mean()))
    return y + 1


for _ in range(2):
    shout(torch.ones(3))
print("done")
"""


def test_a_print_of_a_read_value_keeps_its_break_under_both_fixes_and_the_tensors_print_does_not(tmp_path: Path) -> None:
    # GIVEN print(float(y.mean())) (line 7), whose finding offers neither fix
    (tmp_path / "shout.py").write_text(SHOUT)
    result = run_cli("run", "--no-html", "--try", "capture_scalar_outputs", "--try", "reorder-print", "shout.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    before = compilescope.load(tmp_path / "compilescope-shout.json")
    both = compilescope.load(tmp_path / "compilescope-shout.try.json")
    printed = _finding(before, "shout")
    assert printed.try_fixes == () and "cannot remove this break" in printed.fix
    # THEN with both fixes set the line still breaks, as the finding said
    assert _lines(before) == {7} and _lines(both) == {7}
    # WHEN the print the finding gives is pasted at line 7 and reordered
    fixed = printed.fix.split("replace line 7 with\n")[1].splitlines()[0].strip()
    source = SHOUT.splitlines()
    source[6] = "    " + fixed
    (tmp_path / "shout.py").write_text("\n".join(source) + "\n")
    result = run_cli("run", "--no-html", "--try", "reorder-print", "shout.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    # THEN nothing breaks, and the tensor is printed (as tensor(2.), where the number was 2.0)
    assert _lines(compilescope.load(tmp_path / "compilescope-shout.try.json")) == set()
    assert "tensor(2.)" in result.stdout
