"""RunPlan (app/plan.py): what one `compilescope run` is asked to do, copied for run --try's two
runs and handed to their processes as JSON; every field travels, so no option can be forgotten."""

from __future__ import annotations

import argparse

from compilescope.app.plan import RunPlan
from compilescope.app.try_fix import try_plans
from compilescope.cli.run import RunCommand
from compilescope.outputs import absolute

# What --try sets in each run's plan; every other field is the user's.
SET_BY_TRY = {"json", "trace", "html", "decompile", "debug_dir", "timeline", "try_fixes", "apply_fixes", "explanation"}


def parsed(*argv: str) -> RunPlan:
    parser = argparse.ArgumentParser()
    RunCommand.prepare_parser(parser)
    return RunPlan.from_command_line(parser.parse_args(list(argv)))


def test_a_plan_comes_back_from_its_json_whole() -> None:
    plan = parsed("-m", "--json", "a.json", "--no-html", "--profile", "--show", "guards", "--all", "pkg.train", "--epochs", "1")
    assert RunPlan.from_json(plan.to_json()) == plan
    assert plan.fields()["args"] == ["--epochs", "1"] and plan.module and plan.profile and plan.all_frames


def test_replace_changes_only_what_it_is_given() -> None:
    plan = parsed("--frame", "f", "--no-calls", "train.py")
    changed = plan.replace(apply_fixes=["dynamic"])
    assert changed.apply_fixes == ["dynamic"] and plan.apply_fixes == []
    assert {k: v for k, v in changed.fields().items() if k != "apply_fixes"} == {
        k: v for k, v in plan.fields().items() if k != "apply_fixes"
    }


def test_try_gives_both_runs_every_field_of_the_users_plan() -> None:
    # GIVEN a plan in which every field that --try does not set differs from its default
    plan = parsed(
        "--try",
        "dynamic",
        "--no-calls",
        "--no-children",
        "--profile",
        "--show",
        "code",
        "--frame",
        "f",
        "--all",
        "--quiet",
        "--check-accuracy=2",
        "x.py",
    )
    plan = plan.replace(
        target="train.py", args=["--lr", "1"], module=False, no_save=False, no_html=False, decompile="gen", timeline="t.json"
    )
    untouched = set(RunPlan.__slots__) - SET_BY_TRY
    default = RunPlan("x")
    assert all(getattr(plan, name) != getattr(default, name) for name in untouched - {"module", "no_save", "no_html"})
    # WHEN --try plans its two runs
    first, second = try_plans(plan, ["dynamic"])
    # THEN each has the user's value of every other field (a field added to RunPlan is carried
    # over without being named here)
    for run in (first, second):
        assert {name: getattr(run, name) for name in untouched} == {name: getattr(plan, name) for name in untouched}
        assert run.try_fixes == [] and run.explanation is False
    # and the outputs: run's usual names, then .try before the suffix
    assert (first.json, first.trace, first.html) == tuple(absolute(f"compilescope-train{s}") for s in (".json", ".log", ".html"))
    assert (second.json, second.trace, second.html) == tuple(absolute(f"compilescope-train.try{s}") for s in (".json", ".log", ".html"))
    assert (first.decompile, second.decompile) == ("gen", "gen.try")
    assert (first.timeline, second.timeline) == (absolute("t.json"), absolute("t.try.json"))
    assert (first.apply_fixes, second.apply_fixes) == ([], ["dynamic"])
