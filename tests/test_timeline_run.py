"""`compilescope run --timeline`: a real program, real torch.compile, and the Chrome Trace file
it writes, checked as Perfetto would read it."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from conftest import run_cli

PROGRAM = textwrap.dedent(
    """
    import torch

    @torch.compile(backend="aot_eager")
    def scale(x):
        return torch.sin(x) * 2 + 1

    with torch.no_grad():
        scale(torch.randn(4))
        scale(torch.randn(4, 4))  # a second compile: rank changed
    """
)


def test_run_writes_a_chrome_trace_of_every_compile(tmp_path: Path) -> None:
    # GIVEN a program that compiles one function twice
    (tmp_path / "prog.py").write_text(PROGRAM)
    # WHEN it runs under compilescope with --timeline
    run = run_cli("run", "--no-html", "--timeline", "t.json", "prog.py", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "The timeline: " in run.stderr and "open it in Perfetto or chrome://tracing" in run.stderr
    # THEN the file is Chrome Trace Event JSON
    events = json.loads((tmp_path / "t.json").read_text())["traceEvents"]
    stages = [e for e in events if e["ph"] == "X"]
    session = json.loads((tmp_path / "compilescope-prog.json").read_text())
    pid = next(e["pid"] for e in events if e["name"] == "process_name")
    # one track: the program's process (torch writes pid 0; the record's header names it), thread 0
    assert {(e["pid"], e["tid"]) for e in stages} == {(pid, 0)}
    assert [e["args"]["name"] for e in events if e["name"] == "thread_name"] == [f"process {pid}, thread 0"]
    # each compile's outermost "dynamo" stage is there, the first compile's too (our handler
    # goes first on torch's logger), with the whole compile nested inside it
    outer = {e["args"]["compile_id"]: e for e in stages if e["name"] == "dynamo"}
    whole = {e["args"]["compile_id"]: e for e in stages if e["name"] == "entire_frame_compile"}
    assert sorted(outer) == sorted(whole) == ["0/0", "0/1"]
    for compile_id, span in whole.items():
        parent = outer[compile_id]
        assert parent["ts"] <= span["ts"] and span["ts"] + span["dur"] <= parent["ts"] + parent["dur"]
        assert span["args"]["frame"] == "scale (prog.py:4)"
    # and the stages add up to the compile time compilescope states
    stated = sum(c["compile_time_s"] for f in session["frames"] for c in f["compiles"])
    assert sum(e["dur"] for e in whole.values()) / 1e6 == pytest.approx(stated, rel=0.05)
    assert session["timeline"]["unmatched"] == 0
