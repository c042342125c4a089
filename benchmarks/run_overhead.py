"""What `compilescope run prog.py` costs in wall time over plain `python prog.py`.

    .venv/bin/python benchmarks/run_overhead.py                  # every program below, 7 pairs each
    .venv/bin/python benchmarks/run_overhead.py --runs 11 --only torch-import,recompile
    .venv/bin/python benchmarks/run_overhead.py --markdown       # the table for benchmarks/results/
    .venv/bin/python benchmarks/run_overhead.py --torch-trace    # + TORCH_TRACE=dir python, the reference

Run it with the Python whose torch and compilescope you measure (the repository's .venv). The
programs: each script of the tutorial's lessons (../shared/tutorial beside the repository, as the
tests find it), a program that imports torch and compiles nothing ("torch-import"), and a small
torch.compile program ("compile-small"). Each is copied into a temporary folder of its own and
run there, so that `compilescope run` writes its default outputs (the session JSON, the HTML
report and torch's trace) into that folder, as a user's run writes them beside the program.

Method, per program:
1. warm the caches: one run of each command first, not counted (Python's .pyc files, the page
   cache, Inductor's on-disk compile cache, which the lessons share with every earlier run).
   Python writes .pyc files as it does by default: PYTHONDONTWRITEBYTECODE is removed from the
   measured processes' environment and PYTHONPYCACHEPREFIX points at a temporary folder, so that
   the warm-up leaves compiled bytecode there (as an installed package has it) and nothing is
   written into the repository. `--no-pyc` measures with PYTHONDONTWRITEBYTECODE=1 instead:
   compilescope's own modules (an editable install has no .pyc) are then compiled from source in
   every run, as in an environment that sets it;
2. then N pairs: `python prog.py` and `compilescope run prog.py`, their order alternating from
   pair to pair, each timed from start to exit (a fresh process each; stdout goes to /dev/null,
   stderr to a pipe, COLUMNS=120). compilescope's outputs are removed between runs, outside the
   timing. With `--torch-trace`, each round also runs `TORCH_TRACE=dir python prog.py` (torch's
   own structured trace, the floor for any tool that reads it), the order turning each round;
3. print the median wall time of each command; the ratio compilescope / python, as the median
   of the per-pair ratios, with the lowest and highest pair ratio (pairs taken close together
   cancel much of a shared machine's drift); and the median of the per-pair differences, in
   milliseconds (what `run` adds, in time rather than share).

A run that exits with a status other than 0 stops the benchmark with its stderr.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TUTORIAL = ROOT.parent / "shared" / "tutorial"
LESSONS = [
    "check_setup.py",
    "toy_compile.py",
    "first_call.py",
    "see_graph.py",
    "recompile.py",
    "train_graphs.py",
    "toy_fusion.py",
    "see_kernels.py",
    "graph_break.py",
    "benchmark.py",
]
OWN_PROGRAMS = {
    "torch-import": "import torch\nprint(torch.ones(3).sum().item())\n",
    "compile-small": (
        "import torch\n\n@torch.compile\ndef f(x):\n    return torch.relu(x * 2 + 1)\n\nprint(f(torch.ones(8)).sum().item())\n"
    ),
}


def programs(only: list[str] | None) -> list[tuple[str, str]]:
    """(name, source) of each program to measure."""
    found = [(name.removesuffix(".py"), (TUTORIAL / name).read_text()) for name in LESSONS if (TUTORIAL / name).exists()]
    found += list(OWN_PROGRAMS.items())
    if only:
        wanted = set(only)
        found = [item for item in found if item[0] in wanted]
        missing = wanted - {name for name, _ in found}
        if missing:
            sys.exit(f"no such program: {', '.join(sorted(missing))}")
    return found


def compilescope_command() -> list[str]:
    """The `compilescope` console script beside this Python, as a user runs it."""
    script = Path(sys.executable).parent / "compilescope"
    return [str(script)] if script.exists() else [sys.executable, "-m", "compilescope"]


ENVIRONMENT = {**os.environ, "COLUMNS": "120"}


def timed(command: list[str], folder: Path, extra: dict[str, str] | None = None) -> float:
    env = {**ENVIRONMENT, **(extra or {})}
    started = time.perf_counter()
    result = subprocess.run(command, cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} exited with {result.returncode} in {folder}:\n{result.stderr.decode(errors='replace')[-3000:]}")
    return elapsed


def clean(folder: Path, keep: str) -> None:
    for path in folder.iterdir():
        if path.name != keep:
            shutil.rmtree(path) if path.is_dir() else path.unlink()


def measure(name: str, source: str, runs: int, torch_trace: bool = False) -> dict[str, object]:
    folder = Path(tempfile.mkdtemp(prefix=f"run-overhead-{name}-"))
    script = f"{name}.py"
    (folder / script).write_text(source)
    # (label, command, extra environment): python first, the others compared with it
    commands = [("python", [sys.executable, script], None), ("compilescope", [*compilescope_command(), "run", script], None)]
    if torch_trace:  # torch's own structured trace, written by torch into a folder (the reference)
        commands.append(("torch_trace", [sys.executable, script], {"TORCH_TRACE": str(folder / "torch-trace")}))
    try:
        for _, command, extra in commands:  # warm-up, not counted
            timed(command, folder, extra)
            clean(folder, script)
        times: dict[str, list[float]] = {label: [] for label, _, _ in commands}
        for pair in range(runs):
            # the order turns from one round to the next, so that no command always goes first
            turn = pair % len(commands)
            for label, command, extra in commands[turn:] + commands[:turn]:
                times[label].append(timed(command, folder, extra))
                clean(folder, script)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    row: dict[str, object] = {"name": name, "runs": runs, "python_s": statistics.median(times["python"])}
    for label in times:
        if label == "python":
            continue
        ratios = [t / p for t, p in zip(times[label], times["python"])]
        added = [t - p for t, p in zip(times[label], times["python"])]
        row[label] = {
            "median_s": statistics.median(times[label]),
            "ratio": statistics.median(ratios),
            "ratio_low": min(ratios),
            "ratio_high": max(ratios),
            "added_ms": 1000 * statistics.median(added),
        }
    return row


def machine() -> str:
    import torch  # only to say which torch ran (the measured processes import their own)

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            cpu = next((line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")), cpu)
    except OSError:
        pass
    return (
        f"{cpu}, {os.cpu_count()} cores; Python {platform.python_version()}, torch {torch.__version__}, {torch.get_num_threads()} threads"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="pairs per program (default 7)")
    parser.add_argument("--only", help="comma-separated program names (lesson scripts without .py, torch-import, compile-small)")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument(
        "--torch-trace", action="store_true", help="also time TORCH_TRACE=dir python prog.py (torch's own structured trace, the reference)"
    )
    parser.add_argument(
        "--no-pyc", action="store_true", help="PYTHONDONTWRITEBYTECODE=1: compilescope's modules compiled from source in each run"
    )
    args = parser.parse_args()
    pycache = None
    if args.no_pyc:
        ENVIRONMENT["PYTHONDONTWRITEBYTECODE"] = "1"
        ENVIRONMENT.pop("PYTHONPYCACHEPREFIX", None)
    else:
        ENVIRONMENT.pop("PYTHONDONTWRITEBYTECODE", None)
        pycache = tempfile.mkdtemp(prefix="run-overhead-pycache-")
        ENVIRONMENT["PYTHONPYCACHEPREFIX"] = pycache
    how = "PYTHONDONTWRITEBYTECODE=1" if args.no_pyc else ".pyc files kept (PYTHONPYCACHEPREFIX)"
    print(f"{machine()}; {args.runs} pairs per program, after one warm-up run of each command; {how}", flush=True)
    if args.markdown:
        print(
            "\n| program | under | python (median) | under it (median) | ratio (median of pairs) | lowest–highest pair | added (median of pairs) |"
        )
        print("|---|---|---:|---:|---:|---:|---:|")
    try:
        for name, source in programs(args.only.split(",") if args.only else None):
            report(measure(name, source, args.runs, args.torch_trace), args.markdown)
    finally:
        if pycache is not None:
            shutil.rmtree(pycache, ignore_errors=True)


def report(row: dict[str, object], markdown: bool) -> None:
    for label, shown in (("compilescope", "compilescope run"), ("torch_trace", "TORCH_TRACE=dir python")):
        figures = row.get(label)
        if not isinstance(figures, dict):
            continue
        over = f"{100 * (figures['ratio'] - 1):+.1f}%"
        if markdown:
            print(
                f"| {row['name']} | {shown} | {row['python_s']:.2f} s | {figures['median_s']:.2f} s | {figures['ratio']:.3f} ({over}) "
                f"| {figures['ratio_low']:.3f}–{figures['ratio_high']:.3f} | {figures['added_ms']:+.0f} ms |",
                flush=True,
            )
        else:
            print(
                f"{row['name']:16} python {row['python_s']:6.2f} s   {shown} {figures['median_s']:6.2f} s   ratio {figures['ratio']:.3f} ({over}), "
                f"pairs {figures['ratio_low']:.3f}..{figures['ratio_high']:.3f}, added {figures['added_ms']:+.0f} ms",
                flush=True,
            )


if __name__ == "__main__":
    main()
