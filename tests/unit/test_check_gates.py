"""`compilescope check` compares only what it can: a value a gate reads that is not a number (NaN,
an infinity, a negative time, the wrong type) or is missing, in the session or in the baseline,
fails the gate with one line naming it, where a comparison with NaN (always false) passed it.
Sessions of the real run of tests/traces/programs/diagnosis.py (26 compiles: 12 recompiles,
graph breaks at 2 places), saved and changed as a damaged or hand-edited file would be."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import compilescope
from recorded import TRACES, cli

DIAGNOSIS = TRACES / "diagnosis.log.gz"


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _compiles(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for frame in data["frames"] for c in frame["compiles"]]


def _saved(tmp_path: Path, name: str, change: Callable[[dict[str, Any]], None] | None = None) -> str:
    """The diagnosis run's session saved as `name`, changed by `change` (as JSON: json writes
    NaN and Infinity as Python's json and compilescope read them)."""
    data = json.loads(compilescope.load(DIAGNOSIS).to_json())
    if change is not None:
        change(data)
    (tmp_path / name).write_text(json.dumps(data), encoding="utf-8")
    return name


def _first_time(value: Any) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        first = _compiles(data)[0]
        assert first["compile_id"] == "0/0"
        if value is _ABSENT:
            del first["compile_time_s"]
        else:
            first["compile_time_s"] = value

    return change


_ABSENT = object()


def _no_breaks(data: dict[str, Any]) -> None:
    """Each compile said to be a graph break keeps its status, and loses its breaks."""
    for c in _compiles(data):
        if c["status"] == "graph break":
            c["graph_breaks"] = []


def _no_recompile_reason(data: dict[str, Any]) -> None:
    """0/1 keeps the guard that failed, and loses the recompile reason."""
    c = _compiles(data)[1]
    assert c["compile_id"] == "0/1" and c["failed_guards"]
    c["recompile_reason"] = None


@pytest.mark.parametrize(
    ("value", "said"),
    [
        (math.nan, "is not a number of seconds in s.json (nan)"),
        (math.inf, "is not a number of seconds in s.json (inf)"),
        (-math.inf, "is not a number of seconds in s.json (-inf)"),
        (-1.0, "is not a number of seconds in s.json (-1.0)"),
        (None, "is unknown in s.json (the session does not say)"),
        (_ABSENT, "is unknown in s.json (the session does not say)"),
    ],
    ids=["nan", "inf", "-inf", "negative", "null", "absent"],
)
def test_compile_time_that_is_not_a_number_fails_the_time_gate(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, value: Any, said: str
) -> None:
    # GIVEN the run (its compile time 4.5 s in all, within 1000 s), with its first compile's time damaged
    assert cli(capsys, "check", _saved(tmp_path, "whole.json"), "--max-compile-s", "1000")[0] == 0
    damaged = _saved(tmp_path, "s.json", _first_time(value))
    # WHEN it is held to 1000 s
    status, out, _ = cli(capsys, "check", damaged, "--max-compile-s", "1000")
    # THEN it fails, saying which value cannot be compared
    assert status == 1, out
    assert out.splitlines()[1] == f"  ✖ compile time of 0/0 {said}: cannot compare with 1000.00 s"


@pytest.mark.parametrize("where", ["session", "baseline"])
@pytest.mark.parametrize(
    ("gate", "change", "said"),
    [
        (
            "--max-graph-breaks",
            _no_breaks,
            "5/0_1 is a graph break in {name}, but its graph break is missing: its graph breaks cannot be counted",
        ),
        (
            "--max-recompiles",
            _no_recompile_reason,
            "0/1 has a failed guard in {name}, but its recompile reason is missing: its recompiles cannot be counted",
        ),
    ],
    ids=["graph-breaks", "recompiles"],
)
def test_a_count_that_is_missing_fails_its_gate_and_the_baseline(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, where: str, gate: str, change: Callable[[dict[str, Any]], None], said: str
) -> None:
    # GIVEN the run, and a copy missing what a gate counts (the breaks of its graph-break
    # compiles; a recompile's reason, its failed guard kept)
    whole = _saved(tmp_path, "whole.json")
    damaged = _saved(tmp_path, "damaged.json", change)
    # WHEN the damaged copy is held to the run's own counts (2 places, 13 recompiles), or
    # compared with the run (as the session or as the baseline)
    if where == "session":
        checks = [[damaged, gate, "2" if gate == "--max-graph-breaks" else "13"], [damaged, "--baseline", whole]]
    else:
        checks = [[whole, "--baseline", damaged]]
    for argv in checks:
        status, out, _ = cli(capsys, "check", *argv)
        # THEN each fails, saying what is missing where
        assert status == 1, out
        assert f"  ✖ {said.format(name=damaged)}" in out.splitlines(), out


def test_values_of_the_wrong_type_and_limits_that_are_not_numbers_fail(tmp_path: Path) -> None:
    # GIVEN a session built in a test, a compile time of the wrong type in it (no file's loader
    # checked it)
    session = compilescope.load(DIAGNOSIS)
    session.compiles[0].compile_time_s = "0.44"  # type: ignore[assignment]
    # THEN the time gate names it, and the other gates still compare
    time, breaks = compilescope.check(session, max_compile_s=1000, max_graph_breaks=0)
    assert time == "compile time of 0/0 is not a number of seconds in the run ('0.44'): cannot compare with 1000.00 s"
    assert breaks.startswith("2 graph breaks (places) (4 graph break occurrences), more than the 0 allowed (the first: ")
    # and a limit no value can be compared with fails, where it passed every run
    whole = compilescope.load(DIAGNOSIS)
    assert compilescope.check(whole, max_compile_s=math.nan) == [
        "the limit --max-compile-s is not a number of seconds, 0 or more (nan): nothing can be compared with it"
    ]
    assert compilescope.check(whole, max_graph_breaks=math.inf) == [  # type: ignore[arg-type]
        "the limit --max-graph-breaks is not a count, 0 or more (inf): nothing can be compared with it"
    ]
