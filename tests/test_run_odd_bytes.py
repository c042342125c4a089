"""Bytes are bytes under `compilescope run`: a user's string that torch writes into the trace as
it is (a carriage return, a NUL in `torch._dynamo.graph_break(msg=...)`'s message) splits no
line of it, and the graph break is reported, its message whole in the session."""

from __future__ import annotations

import re
from pathlib import Path

import compilescope
from conftest import run_cli

PROGRAM = """
import torch


@torch.compile(backend="eager")
def step(x):
    x = x + 1
    torch._dynamo.graph_break(msg="kept\\rwhole\\x00here")
    return x * 2


print(step(torch.ones(3)).tolist())
"""


def test_a_graph_break_whose_message_holds_a_carriage_return_is_reported(tmp_path: Path) -> None:
    # GIVEN a program whose graph break's message holds "\r" and NUL
    (tmp_path / "odd.py").write_text(PROGRAM, encoding="utf-8")
    # WHEN it runs under compilescope
    result = run_cli("run", "--no-html", "odd.py", cwd=tmp_path)
    # THEN it runs as under python, and the break is reported, with nothing said unreadable
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout == "[4.0, 4.0, 4.0]\n"
    text = " ".join(result.stderr.split())
    assert re.search(r"▲ Graph break in step at \S*odd\.py:8 Call to `torch\._dynamo\.graph_break\(\)`", text), result.stderr[-3000:]
    assert "could not be read" not in text and "Skipped while reading" not in text
    # AND the session keeps the break's message whole: "\r" and NUL inside it
    session = compilescope.load(tmp_path / "compilescope-odd.json")
    assert session.skipped == []
    (brk,) = [b for frame in session.frames for c in frame.compiles for b in c.graph_breaks]
    assert brk.explanation == "User-inserted graph break. Message: kept\r    whole\x00here"
    # AND the trace torch's own tools read holds it as torch writes it: the "\r" inside one line
    trace = (tmp_path / "compilescope-odd.log").read_bytes()
    assert b"\n\t  Explanation: User-inserted graph break. Message: kept\r    whole\x00here\n" in trace
