"""Each command imports only what it needs: `compilescope --version` and `--help` (the list of
commands, and a command's own help) load no module of the session model, the renderers, bench,
capture or the tour; `report` on a saved trace loads none of bench, capture or the tour; and
none of them imports torch.

Read from `python -X importtime` (every module a process imported, one line each), run as the
user runs the command: `python -m compilescope ...` in a fresh process, this tree's code first.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from recorded import TRACES

SRC = Path(__file__).resolve().parents[2] / "src"

NOT_FOR_HELP = ("compilescope.session", "compilescope.render", "compilescope.benchmark", "compilescope.record", "compilescope.tour")
NOT_FOR_REPORT = ("compilescope.benchmark", "compilescope.record", "compilescope.tour")


def imported(*args: str, cwd: Path) -> set[str]:
    """The modules `compilescope ARGS` imports, as -X importtime lists them."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "compilescope", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return {m.group(1) for m in re.finditer(r"^import time:[^|]*\|[^|]*\| *(\S+)$", done.stderr, re.M)}


def offending(modules: set[str], forbidden: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if m.startswith(forbidden) or m == "torch" or m.startswith("torch."))


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["report", "--help"]])
def test_version_and_help_load_no_layer_below_the_command_line(args: list[str], tmp_path: Path) -> None:
    # WHEN the user asks for the version, the list of commands, or report's options
    modules = imported(*args, cwd=tmp_path)
    # THEN the command line was read (the test saw the imports), and nothing heavy came with it
    assert "compilescope.cli" in modules
    assert offending(modules, NOT_FOR_HELP) == []


def test_report_loads_no_bench_capture_or_tour(tmp_path: Path) -> None:
    # WHEN a small committed trace is reported, its session saved as JSON
    modules = imported("report", str(TRACES / "tiny.log.gz"), "--json", "out.json", cwd=tmp_path)
    # THEN the trace was read and explained without bench, capture, the tour or torch
    assert (tmp_path / "out.json").stat().st_size > 0
    assert {"compilescope.trace.reader", "compilescope.session.model"} <= modules
    assert offending(modules, NOT_FOR_REPORT) == []


def test_the_list_of_commands_says_what_each_commands_help_says() -> None:
    # GIVEN the summaries `compilescope --help` lists without importing the commands
    from compilescope.cli import COMMANDS, SUMMARIES, command, summary

    # THEN each is the first paragraph of its command's docstring (its own help's first lines)
    assert set(SUMMARIES) == set(COMMANDS)
    for name in COMMANDS:
        assert SUMMARIES[name] == summary(command(name).__doc__ or ""), name
