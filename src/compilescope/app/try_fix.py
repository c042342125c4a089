"""compilescope run --try FIX: the program run twice, as it is and with a fix set from outside
(record/fixes.py), each in a fresh process with an empty Inductor cache of its own (so compile
times compare), then both side by side (render/compare.py).

Each run is the user's plan copied with only what --try changes: its outputs named (the first
run's files have run's usual names, the second's `.try` before the suffix:
compilescope-train.try.json, and DIR.try for --decompile DIR and --debug-dir DIR), no explanation of its own, and,
for the second, the fixes to set. Every other option of the command (-m, --no-calls, --profile,
--show, ...) is the plan's, carried over because the plan is copied, not listed. Each copy goes
to its process as JSON (python -m compilescope.app, app/__main__.py), which runs the same
pipeline as `compilescope run` (app/pipeline.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

from compilescope.app.errors import CommandError
from compilescope.outputs import absolute, stem_and_suffix

TYPE_CHECKING = False
if TYPE_CHECKING:
    from compilescope.app.plan import RunPlan


def run_with_fixes(plan: RunPlan) -> int:
    """Both runs, then the comparison; the second run's exit status (the first's, where the
    second's is 0)."""
    from compilescope.record import fixes

    try:
        chosen = [fixes.parse(name) for name in plan.try_fixes]
    except ValueError as error:
        raise CommandError(str(error)) from None
    if plan.no_save:
        raise CommandError("--try compares two saved sessions: leave out --no-save")
    if not plan.module and not os.path.isfile(plan.target):
        raise CommandError(f"no such script: {plan.target}")
    as_it_is, with_fixes = try_plans(plan, [f.name for f in chosen])
    statuses = []
    for label, run in (("as it is", as_it_is), ("with " + ", ".join(f.name for f in chosen), with_fixes)):
        print(f"compilescope: running {plan.target} {label} …", file=sys.stderr, flush=True)
        statuses.append(run_in_fresh_process(run))
    from compilescope.render.compare import print_comparison
    from compilescope.session.loading import load_all

    saved = [str(run.json) for run in (as_it_is, with_fixes)]  # (try_plans names both)
    sessions = []
    for path in saved:
        try:
            sessions.append(load_all(path)[0])
        except Exception as error:  # a run that saved nothing (killed): say which, keep the other's files
            raise CommandError(f"no session from the run that wrote {path}: {error}") from None
    print_comparison(sessions[0], sessions[1], [fixes.describe(f) for f in chosen], stream=sys.stderr)
    for label, path in (("as it is", saved[0]), ("with the fix", saved[1])):
        print(f"The run {label}: compilescope report {_shown(path)}", file=sys.stderr)
    return statuses[1] or statuses[0]


def try_plans(plan: RunPlan, fix_names: list[str]) -> tuple[RunPlan, RunPlan]:
    """The plans of the two runs: the user's, copied, with its outputs named (absolute), no
    explanation and no fixes to try; the second with `.try` in its outputs' names and the fixes
    set."""
    name = plan.target.rsplit(".", 1)[-1] if plan.module else stem_and_suffix(os.path.basename(plan.target))[0]
    base = f"compilescope-{name}"
    as_it_is = plan.replace(
        json=absolute(plan.json or f"{base}.json"),
        trace=absolute(plan.trace or f"{base}.log"),
        html=None if plan.no_html else absolute(plan.html or f"{base}.html"),
        timeline=absolute(plan.timeline) if plan.timeline else None,
        try_fixes=[],
        explanation=False,
    )
    with_fixes = as_it_is.replace(
        json=_with_try(as_it_is.json),
        trace=_with_try(as_it_is.trace),
        html=_with_try(as_it_is.html),
        decompile=_with_try(plan.decompile),
        debug_dir=_with_try(plan.debug_dir),
        timeline=_with_try(as_it_is.timeline),
        apply_fixes=[*plan.apply_fixes, *fix_names],
    )
    return as_it_is, with_fixes


def _with_try(path: str | None) -> str | None:
    """The second run's output beside the first's: `.try` before the suffix (out/s.try.json)."""
    if path is None:
        return None
    path = path.rstrip("/") or path
    stem, suffix = stem_and_suffix(path)
    return os.path.join(os.path.dirname(path), f"{stem}.try{suffix}")


def _shown(path: str) -> str:
    relative = os.path.relpath(path)
    return relative if not relative.startswith("..") else path


def run_in_fresh_process(plan: RunPlan) -> int:
    """The plan run in a process of its own (python -m compilescope.app) with an empty Inductor
    (and Triton) cache; its exit status. The program's output passes through."""
    with tempfile.TemporaryDirectory(prefix="compilescope-try-cache-") as cache:
        given = os.path.join(cache, "plan.json")
        with open(given, "w", encoding="utf-8") as out:
            out.write(plan.to_json())
        env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": os.path.join(cache, "inductor"), "TRITON_CACHE_DIR": os.path.join(cache, "triton")}
        return subprocess.run([sys.executable, "-m", "compilescope.app", given], env=env).returncode
