"""A partial run says so: a trace that ends inside a compile (the process was killed while torch
compiled), and `compilescope run`'s trace of a program with no record of the program's end
(killed), lead every view with it (the terminal, the HTML page, the JSON, diff), and `check`
fails on it unless --allow-incomplete. Made from committed traces of real runs, cut as a kill
cuts them (tests/test_killed_run.py kills a real run)."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

import compilescope
from recorded import TRACES, cli

DIAGNOSIS = TRACES / "diagnosis.log.gz"  # 26 compiles, graph breaks and recompiles
TINY = TRACES / "tiny.log.gz"  # one compile, then the program's end


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _lines(trace: Path) -> list[str]:
    with gzip.open(trace, "rt", encoding="utf-8", newline="") as handle:
        return handle.read().split("\n")


def _cut_inside_a_compile(tmp_path: Path, nth: int = 1) -> Path:
    """The diagnosis run's trace, as a kill leaves it while torch compiles the nth+1 compile:
    everything up to that compile's dynamo_start (and its payload), nothing after."""
    lines = _lines(DIAGNOSIS)
    start = [index for index, line in enumerate(lines) if '"dynamo_start"' in line][nth]
    end = start + 1
    while end < len(lines) and lines[end].startswith("\t"):
        end += 1
    path = tmp_path / "cut.log"
    path.write_text("\n".join(lines[:end]) + "\n", encoding="utf-8")
    return path


def _run_trace(tmp_path: Path, program_end: bool) -> Path:
    """tiny's trace as `compilescope run` now writes it (its first line says the trace is run's
    of its program), with or without the program's end (what a SIGKILL after the program's last
    compile leaves)."""
    lines = _lines(TINY)
    assert '"compilescope_capture": {' in lines[0]
    lines[0] = lines[0].replace('"rank": null}', '"rank": null, "records_program_end": true}')
    if not program_end:
        lines = [line for line in lines if '"compilescope_program"' not in line]
    path = tmp_path / ("ended.log" if program_end else "killed.log")
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


STOPPED = "the run stopped during compile 1/0; what follows is partial"
KILLED = "the program did not finish (no end was recorded: killed?); what follows is partial"


def test_a_trace_cut_inside_a_compile_says_so_first_in_every_view(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # GIVEN the trace of a run killed while torch compiled its second compile (1/0)
    cut = _cut_inside_a_compile(tmp_path)
    # WHEN it is reported
    status, out, _ = cli(capsys, "report", str(cut), "--json", "cut.json", "--html", "cut.html")
    # THEN the terminal leads with it
    assert status == 0
    assert out.splitlines()[0] == f"⚠ {STOPPED}"
    # the JSON has it, and reads back with it
    data = json.loads((tmp_path / "cut.json").read_text(encoding="utf-8"))
    assert data["incomplete"] == {"reason": STOPPED, "compile_id": "1/0", "program_finished": None}
    assert compilescope.load(tmp_path / "cut.json").incomplete == compilescope.load(cut).incomplete
    status, out, _ = cli(capsys, "report", "cut.json")
    assert out.splitlines()[0] == f"⚠ {STOPPED}"
    # the page says it before anything else in its body, without its scripts
    page = (tmp_path / "cut.html").read_text(encoding="utf-8")
    body = page.partition("<body>\n")[2]
    assert re.sub(r"<noscript>.*?</noscript>\n", "", body, flags=re.S).startswith(f'<p class="incomplete" role="alert">⚠ {STOPPED}</p>')
    # and diff says which side is partial, either side
    for before, after, side in ((str(DIAGNOSIS), str(cut), "second"), (str(cut), str(DIAGNOSIS), "first")):
        status, out, _ = cli(capsys, "diff", before, after, "--json", f"{side}.json", "--html", f"{side}.html")
        assert status == 0
        assert " ".join(out.split()).startswith(f"⚠ the {side} run ({cut}): {STOPPED}")
        changes = json.loads((tmp_path / f"{side}.json").read_text(encoding="utf-8"))
        assert changes["incomplete"] == {"before": STOPPED if side == "first" else None, "after": STOPPED if side == "second" else None}
        assert f"⚠ the {side} run ({cut}): {STOPPED}" in (tmp_path / f"{side}.html").read_text(encoding="utf-8")


def test_check_fails_a_partial_run_unless_allowed(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # GIVEN a run killed while compiling, before it met any graph break
    cut = _cut_inside_a_compile(tmp_path)
    assert compilescope.load(cut).graph_breaks == []
    # WHEN it is held to no graph breaks, THEN it fails: it stopped before it could meet them
    status, out, _ = cli(capsys, "check", str(cut), "--max-graph-breaks", "0")
    assert status == 1
    assert out.splitlines()[1:] == [f"  ✖ {cut} is partial: {STOPPED} (--allow-incomplete checks what it holds)"]
    # unless partial runs are allowed: then what it holds is checked
    status, out, _ = cli(capsys, "check", str(cut), "--max-graph-breaks", "0", "--max-compile-s", "1000", "--allow-incomplete")
    assert status == 0, out
    assert compilescope.check(cut, max_graph_breaks=0) == [f"{cut} is partial: {STOPPED} (--allow-incomplete checks what it holds)"]
    assert compilescope.check(cut, max_graph_breaks=0, allow_incomplete=True) == []
    # a partial baseline, too
    status, out, _ = cli(capsys, "check", str(DIAGNOSIS), "--baseline", str(cut))
    assert status == 1 and f"  ✖ {cut} is partial: {STOPPED} (--allow-incomplete checks what it holds)" in out.splitlines()


def test_a_run_whose_program_did_not_end_says_so(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # GIVEN `compilescope run`'s trace of a program killed after its compile, before its end
    killed = _run_trace(tmp_path, program_end=False)
    # THEN every view says the program did not finish, and check fails on it
    session = compilescope.load(killed)
    assert session.incomplete is not None and session.incomplete.reason == KILLED
    assert (session.incomplete.compile_id, session.incomplete.program_finished) == (None, False)
    status, out, _ = cli(capsys, "report", str(killed), "--html", "k.html")
    assert status == 0 and out.splitlines()[0] == f"⚠ {KILLED}"
    assert f'<p class="incomplete" role="alert">⚠ {KILLED}</p>' in (tmp_path / "k.html").read_text(encoding="utf-8")
    status, out, _ = cli(capsys, "check", str(killed), "--max-recompiles", "0")
    assert status == 1 and out.splitlines()[1] == f"  ✖ {killed} is partial: {KILLED} (--allow-incomplete checks what it holds)"
    assert cli(capsys, "check", str(killed), "--max-recompiles", "0", "--allow-incomplete")[0] == 0
    # and the same trace with its program's end is whole
    ended = _run_trace(tmp_path, program_end=True)
    assert compilescope.load(ended).incomplete is None
    status, out, _ = cli(capsys, "report", str(ended))
    assert "partial" not in out and cli(capsys, "check", str(ended), "--max-recompiles", "0")[0] == 0


@pytest.mark.parametrize(
    "trace",
    [
        "tiny.log.gz",  # `compilescope run`'s, written before its first line said so
        "corpus_ddp_step.rank0.log.gz",  # a child process's trace (a rank torchrun started)
        "ranks/ddp",  # TORCH_TRACE's own, per rank
    ],
)
def test_a_trace_without_a_program_record_by_design_is_not_partial(trace: str, tmp_path: Path) -> None:
    # GIVEN traces that record no end of their program by design (or whose end is cut off, where
    # the trace does not say it is run's), each ending outside any compile
    path = TRACES / trace
    if trace == "tiny.log.gz":
        path = tmp_path / "no-end.log"
        path.write_text("\n".join(line for line in _lines(TINY) if '"compilescope_program"' not in line), encoding="utf-8")
    # THEN none is called partial
    for session in compilescope.load_all(path):
        assert session.incomplete is None
        assert compilescope.check(session, max_graph_breaks=99) == []


def test_a_session_saved_before_the_field_loads_as_whole(tmp_path: Path) -> None:
    # GIVEN a session saved by a compilescope that had no "incomplete"
    data = json.loads(compilescope.load(TINY).to_json())
    del data["incomplete"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data), encoding="utf-8")
    # THEN it loads, whole
    assert compilescope.load(old).incomplete is None
