"""compilescope run --try FIX: the program run twice, as it is and with a fix set from outside
(record/fixes.py), each in a fresh process with an empty Inductor cache of its own (so compile
times compare), then both side by side (render/compare.py).

Each run is a plain `compilescope run` in a subprocess, so each is exactly what `run` measures;
the second is given --apply-fix. The first run's files have run's usual names, the second's
`.try` before the suffix (compilescope-train.try.json).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

from compilescope.cli.errors import CommandError
from compilescope.outputs import absolute, stem_and_suffix

TYPE_CHECKING = False
if TYPE_CHECKING:
    from compilescope.cli.run_options import RunOptions


def run_with_fixes(args: RunOptions) -> int:
    from compilescope.record import fixes

    try:
        chosen = [fixes.parse(name) for name in args.try_fixes]
    except ValueError as error:
        raise CommandError(str(error)) from None
    if args.no_save:
        raise CommandError("--try compares two saved sessions: leave out --no-save")
    if not args.module and not os.path.isfile(args.target):
        raise CommandError(f"no such script: {args.target}")
    name = args.target.rsplit(".", 1)[-1] if args.module else stem_and_suffix(os.path.basename(args.target))[0]
    before = _paths(args, f"compilescope-{name}")
    after = {key: _with_try(path) for key, path in before.items()}
    statuses = []
    for label, paths, extra in (
        ("as it is", before, []),
        ("with " + ", ".join(f.name for f in chosen), after, [a for f in chosen for a in ("--apply-fix", f.name)]),
    ):
        print(f"compilescope: running {args.target} {label} …", file=sys.stderr, flush=True)
        statuses.append(_run_once(args, paths, extra))
    from compilescope.render.compare import print_comparison
    from compilescope.session.loading import load_all

    sessions = []
    for paths in (before, after):
        try:
            sessions.append(load_all(paths["json"])[0])
        except Exception as error:  # a run that saved nothing (killed): say which, keep the other's files
            raise CommandError(f"no session from the run that wrote {paths['json']}: {error}") from None
    print_comparison(sessions[0], sessions[1], [fixes.describe(f) for f in chosen], stream=sys.stderr)
    for label, paths in (("as it is", before), ("with the fix", after)):
        print(f"The run {label}: compilescope report {_shown(paths['json'])}", file=sys.stderr)
    return statuses[1] or statuses[0]


def _paths(args: RunOptions, base: str) -> dict[str, str]:
    paths = {"json": absolute(args.json or f"{base}.json"), "trace": absolute(args.trace or f"{base}.log")}
    if not args.no_html:
        paths["html"] = absolute(args.html or f"{base}.html")
    return paths


def _with_try(path: str) -> str:
    stem, suffix = stem_and_suffix(path)
    return f"{stem}.try{suffix}"


def _shown(path: str) -> str:
    relative = os.path.relpath(path)
    return relative if not relative.startswith("..") else path


def _run_once(args: RunOptions, paths: dict[str, str], extra: list[str]) -> int:
    """One `compilescope run` of the program in a fresh process with an empty Inductor (and
    Triton) cache; its exit status. The program's output passes through."""
    command = [sys.executable, "-m", "compilescope", "run", "--no-explanation", "--json", paths["json"], "--trace", paths["trace"]]
    command += ["--html", paths["html"]] if "html" in paths else ["--no-html"]
    command += ["--no-calls"] if args.no_calls else []
    command += ["--no-children"] if args.no_children else []
    command += [*extra, *(["-m"] if args.module else []), args.target, *args.args]
    with tempfile.TemporaryDirectory(prefix="compilescope-try-cache-") as cache:
        env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": os.path.join(cache, "inductor"), "TRITON_CACHE_DIR": os.path.join(cache, "triton")}
        return subprocess.run(command, env=env).returncode
