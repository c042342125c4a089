"""The decompiler's stages, one function at a time (python -m compilescope.decompiler): the
graph as built, after each named pass, the structured statements and the source."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from compilescope.decompiler import decompile_code
from compilescope.decompiler.normalize import PASSES, normalize
from compilescope.decompiler.stages import find, main

PROGRAM = """\
class Box:
    def pick(self, items, limit):
        total = 0
        for item in items:
            if item is None:
                continue
            try:
                total += item
            finally:
                limit -= 1
            if 0 < limit < 3 or total > 10:
                break
        return total
"""


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "box.py"
    path.write_text(PROGRAM)
    return path


def test_the_passes_are_named_and_run_in_their_order() -> None:
    names = [p.name for p in PASSES]
    assert len(names) == len(set(names)) == 16
    assert names[0] == "implicit handlers dropped" and names[-1] == "with suppression targets found"
    assert names.index("send loops dropped") < names.index("finally copies taken out") < names.index("copied endings joined")
    # (an async for's and an async with's awaits are found as YIELD_FROMs: once the send loops are gone)
    assert names.index("send loops dropped") < names.index("async for loops read as for loops") < names.index("finally copies taken out")
    assert names.index("send loops dropped") < names.index("async with awaits dropped") < names.index("finally copies taken out")


def test_every_stage_of_one_method(program: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([f"{program}:Box.pick"]) == 0
    out = capsys.readouterr().out
    headers = [line for line in out.splitlines() if line.startswith("== ")]
    assert headers == ["== cfg", *(f"== pass: {p.name}" for p in PASSES), "== ast", "== source"]
    # the finally's copy on the loop's way on is taken out: that pass changed the graph
    after = out.split("== pass: finally copies taken out\n", 1)[1].split("\n== ", 1)[0]
    assert after != "(unchanged)"
    code = find(str(program), "Box.pick")
    assert out.rstrip("\n").endswith(decompile_code(code).source.rstrip("\n"))
    assert "FunctionDef(" in out.split("== ast\n", 1)[1]


def test_normalize_stops_after_a_named_pass(program: Path) -> None:
    code = find(str(program), "pick")  # (a unique short name finds it too)
    seen: list[str] = []
    normalize(code, stop_after="returns joined", seen=lambda name, graph: seen.append(name))
    assert seen == ["cfg", *[p.name for p in PASSES][: [p.name for p in PASSES].index("returns joined") + 1]]


def test_a_function_not_there_names_the_ones_that_are(program: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([f"{program}:nope"]) == 2
    err = capsys.readouterr().err
    assert "no function 'nope' in" in err and err.rstrip().endswith("its functions: Box, Box.pick")


def test_it_runs_as_a_module(program: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "compilescope.decompiler", "--stages", "source", f"{program}:Box.pick"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("== source\ndef pick(self, items, limit):")
