"""Issue 40, items 3 and 4, as a user meets them: real `compilescope run` subprocesses, real
torch.compile (eager and aot_eager backends). A break that leaves the rest of forward eager is
said and ranked first, with torch's setting offered as a --try that works; a scalar deciding an
`if` gets a fix that works when pasted, not a capture that cannot; a --try run's new findings are
explained as a plain run's are."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import compilescope
from conftest import run_cli

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = ROOT / "tests" / "traces" / "programs"


def _what_to_look_at(stderr: str) -> str:
    return stderr.split("What to look at", 1)[1].split("Compiled functions", 1)[0]


def test_an_lstm_left_eager_ranks_first_and_its_setting_can_be_tried(tmp_path: Path) -> None:
    # GIVEN an LSTM language model compiled whole (aot_eager), with a shorter last batch
    shutil.copy(PROGRAMS / "lstm.py", tmp_path / "lstm.py")
    # WHEN it is run
    result = run_cli("run", "--no-html", "lstm.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    shown = " ".join(_what_to_look_at(result.stderr).split())
    # THEN the first finding is the break, saying the rest of forward runs eagerly on every call
    first = shown.split(" ▲ ", 1)[0]
    assert (
        first.startswith("✖ Graph break in RNNModel.forward at ") and ": the rest of RNNModel.forward runs without torch.compile" in first
    )
    assert "(self.rnn, self.drop, self.decoder, decoded.view, F.log_softmax) runs without torch.compile on every call" in first
    assert "Cost: the work after the break, on every call" in first
    # and offers torch's setting as a --try, ahead of the recompile the short batch made
    assert "Try it without editing: compilescope run --try config.allow_rnn=True lstm.py" in first
    assert "The size of dimension 0 changed (35 → 20)" in shown.split(first, 1)[1]
    # WHEN that --try is run
    tried = run_cli("run", "--no-html", "--try", "config.allow_rnn=True", "lstm.py", cwd=tmp_path)
    assert tried.returncode == 0, tried.stderr[-3000:]
    assert tried.stdout.count("loss ") == 2
    # THEN the setting was set, the break is gone and the comparison says so
    after = compilescope.load(tmp_path / "compilescope-lstm.try.json")
    assert after.fixes is not None and "torch._dynamo.config.allow_rnn = True" in after.fixes[0]
    assert not after.graph_breaks and after.compiles
    compared = " ".join(tried.stderr.split())
    assert "graph breaks (places) 1 0 −1 (-100%)" in compared
    assert "Gone with the fix: ✓ Graph break in RNNModel.forward at" in compared


def test_run_profile_measures_the_work_left_eager(tmp_path: Path) -> None:
    # GIVEN the LSTM program, run with --profile (on Python 3.11 the only timing of its calls)
    shutil.copy(PROGRAMS / "lstm.py", tmp_path / "lstm.py")
    result = run_cli("run", "--no-html", "--profile", "lstm.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    session = compilescope.load(tmp_path / "compilescope-lstm.json")
    # THEN the profile holds the time of the ATen ops forward ran outside its graph, per version
    assert session.profile is not None and session.profile.eager_ms
    assert set(session.profile.eager_ms) <= set(session.profile.compiled_regions)
    calls = sum(session.profile.compiled_regions.values())
    assert calls == 8  # 7 batches of 35 and the last of 20
    # and the break's cost is that time, said as measured by --profile, and ranks first
    items = session.explain()
    brk = items[0]
    assert brk.kind == "graph break" and brk.recurs
    assert brk.cost_s == sum(session.profile.eager_ms.values()) / 1000 and brk.cost_s > 0
    assert f"in {calls} calls: the ATen ops the rest of RNNModel.forward ran without torch.compile (measured by --profile" in brk.cost


def test_quickstarts_branch_gets_a_fix_that_works_when_pasted(tmp_path: Path) -> None:
    # GIVEN examples/quickstart.py, compiled with the eager backend (the break is the same)
    source = (ROOT / "examples" / "quickstart.py").read_text()
    assert "torch.compile(Block())" in source
    program = tmp_path / "quickstart.py"
    program.write_text(source.replace("torch.compile(Block())", 'torch.compile(Block(), backend="eager")'))
    result = run_cli("run", "--no-html", "quickstart.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    before = compilescope.load(tmp_path / "compilescope-quickstart.json")
    brk = next(f for f in before.explain() if f.kind == "graph break")
    # THEN capturing the scalar is not offered, and the fix says why
    assert "capture_scalar_outputs" not in brk.try_fixes and "--try capture_scalar_outputs" not in (brk.try_command or "")
    assert "cannot remove this break" in brk.fix
    shown = " ".join(_what_to_look_at(result.stderr).split())
    assert "Try it without editing: compilescope run --try capture_scalar_outputs" not in shown
    # WHEN the torch.where the fix gives is pasted at the lines it names
    found = re.search(r"replace lines (\d+)-(\d+) with\n    (.+)\n", brk.fix)
    assert found is not None, brk.fix
    first, last, code = int(found.group(1)), int(found.group(2)), found.group(3)
    lines = program.read_text().splitlines()
    assert lines[first - 1].strip() == "if x.mean().item() > 0.5:"
    indent = lines[first - 1][: len(lines[first - 1]) - len(lines[first - 1].lstrip())]
    program.write_text("\n".join([*lines[: first - 1], indent + code, *lines[last:]]) + "\n")
    pasted = run_cli("run", "--no-html", "quickstart.py", cwd=tmp_path)
    assert pasted.returncode == 0, pasted.stderr[-3000:]
    after = compilescope.load(tmp_path / "compilescope-quickstart.json")
    # THEN the break is gone and the program prints what it printed before
    assert not after.graph_breaks and after.compiles
    assert pasted.stdout == result.stdout and "rows -> output mean" in result.stdout


def test_a_try_runs_new_break_comes_with_its_explanation_and_fix(tmp_path: Path) -> None:
    # GIVEN a scalar that decides an `if` a line later, tried with capture_scalar_outputs anyway
    shutil.copy(PROGRAMS / "scalar_branch.py", tmp_path / "scalar_branch.py")
    result = run_cli("run", "--no-html", "--try", "capture_scalar_outputs", "scalar_branch.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    # THEN the break torch makes instead, at the `if`, is shown whole: reason, cost and fix
    new = " ".join(result.stderr.split("New with the fix:", 1)[1].split())
    assert "Graph break in keep_best at " in new and "scalar_branch.py:10 Data-dependent branching" in new
    assert "Cost: " in new
    assert "→ Control flow that depends on a tensor's values cannot be traced; torch.where or torch.cond keep it in the graph." in new


IF_ELSE = """\
import torch


@torch.compile(backend="eager")
def shifted(x):
    y = torch.sin(x)
    if y.sum().item() > 0:
        y = y + 1
    else:
        y = y - 1
    return y * 2


for seed in range(4):
    torch.manual_seed(seed)
    print(shifted(torch.randn(16)).sum().item())
"""


def test_an_if_else_on_a_scalar_gets_a_torch_where_that_works_when_pasted(tmp_path: Path) -> None:
    program = tmp_path / "shifted.py"
    program.write_text(IF_ELSE)
    result = run_cli("run", "--no-html", "shifted.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    brk = next(f for f in compilescope.load(tmp_path / "compilescope-shifted.json").explain() if f.kind == "graph break")
    assert brk.try_fixes == ()
    found = re.search(r"replace lines (\d+)-(\d+) with\n    (.+)\n", brk.fix)
    assert found is not None, brk.fix
    assert found.group(3) == "y = torch.where(y.sum() > 0, y + 1, y - 1)"
    lines = program.read_text().splitlines()
    first, last = int(found.group(1)), int(found.group(2))
    assert (lines[first - 1].strip(), lines[last - 1].strip()) == ("if y.sum().item() > 0:", "y = y - 1")
    program.write_text("\n".join([*lines[: first - 1], "    " + found.group(3), *lines[last:]]) + "\n")
    pasted = run_cli("run", "--no-html", "shifted.py", cwd=tmp_path)
    assert pasted.returncode == 0, pasted.stderr[-3000:]
    assert not compilescope.load(tmp_path / "compilescope-shifted.json").graph_breaks
    assert pasted.stdout == result.stdout and len(result.stdout.splitlines()) == 4
