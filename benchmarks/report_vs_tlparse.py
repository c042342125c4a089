"""`compilescope report` against tlparse on the same logs, and `compilescope --version` against
python doing nothing: each pair run side by side, taking turns, medians compared.

    python benchmarks/report_vs_tlparse.py                      # 5 runs each, logs of 1 to 30 MB
    python benchmarks/report_vs_tlparse.py --runs 7 --big       # and a 100 MB log
    python benchmarks/report_vs_tlparse.py --out results.md     # where the table goes
    python benchmarks/report_vs_tlparse.py --src ../main/src    # another tree's compilescope (before/after)

The logs: two real TORCH_TRACE logs from tests/traces (a CUDA-graphs run, 1.0 MB, and GPT-2
training with loss logging, 2.2 MB), and larger ones made from the GPT-2 log as
tests/programs/large_logs.py makes them (its compile records copied under new frame ids, whole,
torch's configs kept): about 4 MB, 30 MB and, with --big, 100 MB.

The commands, as a user types them: `compilescope report LOG --json OUT` and `compilescope
report LOG --html OUT` (each also prints the explanation, to a pipe here), and tlparse's plain
mode, `tlparse LOG -o DIR --overwrite --no-browser` (its whole report: an index page and a
folder per compile). compilescope is this tree's (PYTHONPATH=src), run by the `compilescope`
script beside this Python; its modules' bytecode is cached as an installed package's is (a
PYTHONPYCACHEPREFIX folder of the run's own: the project's environment sets
PYTHONDONTWRITEBYTECODE, which would make every run compile every module again). Each command
runs once first to warm the page cache and that bytecode; then each round runs every command of a
log once, in turn; outputs of the run before are removed outside the timing.

The floor: Python started with nothing but what the project's rules have `report` import (the
model's dataclasses, rich for the terminal, json and hashlib for the reader), against tlparse's
whole run on the 1 MB log, so a reader sees which targets Python itself leaves out of reach.

Targets (issue 42): `--version` under 0.1 s; `report --json` at most tlparse's time from 1 MB up
and at most half of it from 30 MB up; the HTML report at most tlparse's time from 4 MB up.
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRACES = ROOT / "tests" / "traces"
sys.path.insert(0, str(ROOT / "tests" / "programs"))
import large_logs  # noqa: E402  (tests/programs: how the large-log tests make their logs)

REAL = {"cuda_graphs": "a CUDA-graphs run", "gpt2_loss_logging": "GPT-2 training, loss logged"}
BASE = "gpt2_loss_logging"  # the real log the larger ones are made from
MADE_MB = (4, 30)
BIG_MB = 100
FLOORS = {  # what `python -c` imports, and why report needs it
    "": "Python's own start",
    "import dataclasses": "the model (dataclasses)",
    "import rich.console": "the terminal (rich)",
    "import dataclasses, json, hashlib, rich.console": "all three, with the reader's json and hashlib",
}


@dataclass
class Race:
    """One pair of commands and their seconds, run after run."""

    what: str
    log: str
    size_mb: float
    ours: list[str]
    theirs: list[str]
    ours_s: list[float]  # wall-clock seconds
    theirs_s: list[float]
    target: float | None  # the largest ours/theirs the issue allows, None where it sets none
    ours_cpu: list[float] = field(default_factory=list)  # CPU seconds (user + system) of the process
    theirs_cpu: list[float] = field(default_factory=list)

    @property
    def ratio(self) -> float:
        return statistics.median(self.ours_s) / statistics.median(self.theirs_s)

    @property
    def cpu_ratio(self) -> float:
        return statistics.median(self.ours_cpu) / max(statistics.median(self.theirs_cpu), 1e-3)


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """The command's wall-clock seconds and its CPU seconds (user and system, its children's
    included): the CPU time is what a busy machine changes least."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise subprocess.CalledProcessError(process.returncode, command)
    return wall, usage.ru_utime + usage.ru_stime


def deviation(times: list[float]) -> float:
    """The median absolute deviation over the median: the runs' noise, one slow run aside."""
    middle = statistics.median(times)
    return statistics.median(abs(t - middle) for t in times) / middle


def make_logs(folder: Path, big: bool) -> list[tuple[str, Path]]:
    """(label, path) of each log, smallest first."""
    logs = []
    for name in REAL:
        path = folder / f"{name}.log"
        path.write_bytes(gzip.decompress((TRACES / f"{name}.log.gz").read_bytes()))
        logs.append((f"{name} (real: {REAL[name]})", path))
    base = folder / f"{BASE}.log"
    for mb in (*MADE_MB, *((BIG_MB,) if big else ())):
        path = folder / f"{BASE}_x{mb}mb.log"
        _, records, copies = large_logs.many_records_log(path, 0, base=base, size=mb * 10**6, whole=True)
        logs.append((f"{BASE}'s compiles x{copies} ({records} records)", path))
    return logs


def target_for(what: str, size_mb: float) -> float | None:
    if what == "report --json":
        return 0.5 if size_mb >= 30 else 1.0 if size_mb >= 1 else None
    if what == "report --html":
        return 1.0 if size_mb >= 4 else None
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs of each command (default 5)")
    parser.add_argument("--big", action="store_true", help=f"also a {BIG_MB} MB log")
    parser.add_argument("--out", type=Path, help="write the results as Markdown here")
    parser.add_argument("--note", default="", help="a line about the machine's state, for the results")
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the compilescope tree to run (default: this one's src)")
    args = parser.parse_args(argv)

    bin_dir = Path(sys.executable).parent
    ours = shutil.which("compilescope", path=str(bin_dir))
    tlparse = shutil.which("tlparse", path=str(bin_dir)) or shutil.which("tlparse")
    if not ours or not tlparse:
        print("needs the `compilescope` script and tlparse beside this Python (pip install tlparse)", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="compilescope-vs-tlparse-"))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "COLUMNS")}
    env |= {"PYTHONPATH": str(args.src.resolve()), "PYTHONPYCACHEPREFIX": str(work / "pycache")}
    load_before = os.getloadavg()
    started = time.time()
    try:
        races = [
            Race("--version", "", 0.0, [ours, "--version"], [sys.executable, "-c", "pass"], [], [], None),
        ]
        for label, log in make_logs(work, args.big):
            size = log.stat().st_size / 1e6
            tl = [tlparse, str(log), "-o", "tl_out", "--overwrite", "--no-browser"]
            for what, option, out in (("report --json", "--json", "out.json"), ("report --html", "--html", "out.html")):
                races.append(Race(what, label, size, [ours, "report", str(log), option, out], tl, [], [], target_for(what, size)))
        first_log = races[1].ours[2]  # the 1 MB log
        tl_first = [tlparse, first_log, "-o", "tl_out", "--overwrite", "--no-browser"]
        floors = [Race(why, code, 0.0, [sys.executable, "-c", code or "pass"], tl_first, [], [], None) for code, why in FLOORS.items()]
        races += floors
        for race in races:  # warm: the page cache, our bytecode
            timed(race.ours, work, env)
            timed(race.theirs, work, env)
            shutil.rmtree(work / "tl_out", ignore_errors=True)
        for _ in range(args.runs):
            for race in races:
                for leftover in ("out.json", "out.html"):
                    (work / leftover).unlink(missing_ok=True)
                shutil.rmtree(work / "tl_out", ignore_errors=True)
                wall, cpu = timed(race.ours, work, env)
                race.ours_s.append(wall)
                race.ours_cpu.append(cpu)
                shutil.rmtree(work / "tl_out", ignore_errors=True)
                wall, cpu = timed(race.theirs, work, env)
                race.theirs_s.append(wall)
                race.theirs_cpu.append(cpu)
            print(f"round done, load {os.getloadavg()[0]:.1f}", file=sys.stderr)
        load_after = os.getloadavg()
        text = results(races[: -len(floors)], args, tlparse, load_before, load_after, time.time() - started)
        text += floor_table(floors, Path(first_log).stat().st_size / 1e6)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


def results(races: list[Race], args: argparse.Namespace, tlparse: str, before: tuple, after: tuple, seconds: float) -> str:
    tl_version = subprocess.run([tlparse, "--version"], capture_output=True, text=True).stdout.strip()
    tree = args.src.resolve()
    rev = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(tree), "status", "--porcelain", "--", "."], capture_output=True, text=True).stdout.strip()
    cpu = next(
        (line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("model name")), "?"
    )
    lines = [
        "# compilescope report against tlparse",
        "",
        f"Measured {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC by `benchmarks/report_vs_tlparse.py"
        f"{' --big' if args.big else ''} --runs {args.runs}` ({seconds / 60:.0f} min).",
        "",
        f"- Machine: {platform.node()}, {os.cpu_count()} cores ({cpu}), {platform.platform()}.",
        f"- Python {platform.python_version()}; compilescope at {rev}{' with changes in src/' if dirty else ''} ({tree}); {tl_version}.",
        f"- Load average (1, 5, 15 min) before: {', '.join(f'{x:.2f}' for x in before)}; after: {', '.join(f'{x:.2f}' for x in after)}.",
    ]
    if args.note:
        lines.append(f"- {args.note}")
    lines += [
        "",
        "Method: see the script's docstring. Each command ran once to warm up, then "
        f"{args.runs} times, taking turns with its rival; the figures are medians of wall-clock "
        "seconds, with the runs' median absolute deviation over the median (noise) beside them, "
        "and medians of CPU seconds (user and system: what a shared machine changes least). The "
        "target is the largest wall-clock ratio (ours / theirs) issue 42 allows at that size.",
        "",
        "| command | log | MB | compilescope (s) | rival (s) | ours / theirs | target | noise (ours, theirs) "
        "| CPU s: ours, theirs (ratio) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for race in races:
        rival = "tlparse" if race.log else "`python -c pass`"
        met = "" if race.target is None else (" met" if race.ratio <= race.target else " **not met**")
        target = "under 0.1 s" if race.what == "--version" else ("-" if race.target is None else f"≤ {race.target:g}")
        if race.what == "--version":
            met = " met" if statistics.median(race.ours_s) < 0.1 else " **not met**"
        lines.append(
            f"| `{race.what}` | {race.log or '-'} | {race.size_mb:.1f} | {statistics.median(race.ours_s):.3f} | "
            f"{statistics.median(race.theirs_s):.3f} ({rival}) | {race.ratio:.2f} | {target}{met} | "
            f"{deviation(race.ours_s):.0%}, {deviation(race.theirs_s):.0%} | "
            f"{statistics.median(race.ours_cpu):.3f}, {statistics.median(race.theirs_cpu):.3f} ({race.cpu_ratio:.2f}) |"
        )
    return "\n".join(lines) + "\n"


def floor_table(floors: list[Race], size_mb: float) -> str:
    """The floor's rows: Python importing what report must, against tlparse's whole run."""
    lines = [
        "",
        f"### The floor: Python's start and the imports the project's rules require, against tlparse's whole run on the {size_mb:.1f} MB log",
        "",
        "| `python -c` | what for | seconds | tlparse, whole run (s) | ratio | CPU s: python, tlparse |",
        "|---|---|---|---|---|---|",
    ]
    for race in floors:
        lines.append(
            f"| `{race.log or 'pass'}` | {race.what} | {statistics.median(race.ours_s):.3f} | {statistics.median(race.theirs_s):.3f} | "
            f"{race.ratio:.2f} | {statistics.median(race.ours_cpu):.3f}, {statistics.median(race.theirs_cpu):.3f} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
