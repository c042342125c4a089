"""compilescope run --try FIX with the command's other options: both runs honour every one of
them, because each run's plan is the user's, copied with only what --try changes (its outputs'
names, the fixes set, no explanation of its own). Real subprocesses, real torch.compile (eager);
the plan-level check of every field is tests/unit/test_run_plan.py."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import compilescope
from conftest import run_cli

# The program keeps the plan its run was given (the JSON file python -m compilescope.app was
# started with): what a run does with view options is not visible while --try silences both
# runs' explanations, but what it was asked is.
PROGRAM = textwrap.dedent(
    """\
    import os, shutil, sys
    import torch

    shutil.copy(sys.orig_argv[-1], f"plan-{len([n for n in os.listdir('.') if n.startswith('plan-')])}.json")

    @torch.compile(backend="eager")
    def scaled(x):
        return x * x.sum().item()

    for n in (4, 8):
        scaled(torch.ones(n))
    print("done", sys.argv[1:])
    """
)


def test_try_gives_both_runs_every_option_of_the_command(tmp_path: Path) -> None:
    # GIVEN a program, and a folder of our own for the named outputs
    (tmp_path / "scaled.py").write_text(PROGRAM)
    (tmp_path / "out").mkdir()
    # WHEN it is tried with many options that are not the defaults
    options = ["--json", "out/s.json", "--trace", "out/s.log", "--html", "out/s.html", "--decompile", "gen"]
    options += ["--show", "guards,code", "--frame", "scaled", "--all", "--no-calls", "--no-children"]
    result = run_cli("run", "--try", "dynamic", *options, "scaled.py", "--flag", "a b", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    # THEN the program ran twice, with its own arguments both times
    assert result.stdout.count("done ['--flag', 'a b']") == 2
    # and each run wrote its outputs where they were named, the second's with .try in the name
    for stem in ("s", "s.try"):
        for suffix in (".json", ".log", ".html"):
            assert (tmp_path / "out" / f"{stem}{suffix}").is_file(), f"{stem}{suffix}"
    assert not list(tmp_path.glob("compilescope-scaled*"))
    # and --decompile's .py files, the second run's in gen.try/
    assert list((tmp_path / "gen").glob("*.py")) and list((tmp_path / "gen.try").glob("*.py"))
    # and --no-calls held in both sessions (on every Python: where calls can be recorded, and
    # where the session says why they are not)
    before = compilescope.load(tmp_path / "out" / "s.json")
    after = compilescope.load(tmp_path / "out" / "s.try.json")
    assert before.calls_recorded is None and after.calls_recorded is None
    assert before.fixes is None and after.fixes is not None and "assume_static_by_default" in after.fixes[0]
    # and both runs were given the view options and the rest, the second with the fix to set
    first, second = (json.loads((tmp_path / f"plan-{n}.json").read_text()) for n in (0, 1))
    for plan in (first, second):
        assert (plan["show"], plan["frame"], plan["all_frames"]) == ("guards,code", "scaled", True)
        assert (plan["no_calls"], plan["no_children"], plan["args"]) == (True, True, ["--flag", "a b"])
        assert plan["try_fixes"] == [] and plan["explanation"] is False
    assert first["apply_fixes"] == [] and second["apply_fixes"] == ["dynamic"]
    # and the comparison names both sessions
    assert "compilescope report out/s.json" in result.stderr and "compilescope report out/s.try.json" in result.stderr
