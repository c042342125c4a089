"""The CLI's answers to bad input, and `report` on a real trace, called in process
(compilescope.cli.main): one line naming the problem, exit status 2, nothing run or written."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from recorded import TRACES, cli, flat


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["report", "nope.json"], "compilescope report: no such file or folder: nope.json"),
        (["report", "."], "compilescope report: no trace files (*.log, *.log.gz) in ."),
        (
            ["report", str(TRACES / "tiny.log.gz"), "--show", "bogus"],
            "compilescope report: --show: unknown detail bogus; choose from graph, guards, dynamic, aot, kernels, code, time, cache, passes, all",
        ),
        (["report", str(TRACES / "tiny.log.gz"), "--rank", "3"], f"compilescope report: no trace of rank 3 in {TRACES / 'tiny.log.gz'}"),
        (["run", "nope.py"], "compilescope run: no such script: nope.py"),
        (["run", "--try", "dynamic", "--no-save", "x.py"], "compilescope run: --try compares two saved sessions: leave out --no-save"),
        (["run", "--try", "bogus", "x.py"], "compilescope run: --try: no fix named 'bogus'; the fixes: dynamic, capture_scalar_outputs,"),
        (
            ["bench", "models.py:make", "--size", "tiny"],
            "compilescope bench: --size and --config are for a model by name (hf:MODEL_TYPE, timm:NAME), not a file.py:make target",
        ),
        (["bench", "hf:gpt2", "--config", "n_layer"], "compilescope bench: --config: 'n_layer' is not key=value"),
        (["bench", "hf:"], "compilescope bench: 'hf:': name the model after the colon (hf:gpt2, timm:resnet50)"),
        (
            ["decompile", str(TRACES / "tiny-profiled.json"), "extra"],
            f"compilescope decompile: {TRACES / 'tiny-profiled.json'} is a saved session: it takes no program arguments",
        ),
    ],
)
def test_bad_input_is_one_line_and_status_2(capsys: pytest.CaptureFixture[str], in_tmp: Path, argv: list[str], said: str) -> None:
    status, out, err = cli(capsys, *argv)
    assert status == 2 and out == ""
    assert err.startswith(said) and err.count("\n") == 1, err
    assert os.listdir(in_tmp) == []  # nothing written


def test_an_empty_file_is_said_to_hold_no_records(capsys: pytest.CaptureFixture[str], in_tmp: Path) -> None:
    (in_tmp / "empty.log").write_text("")
    status, _, err = cli(capsys, "report", "empty.log")
    assert status == 2 and "empty.log: the trace is empty: it holds no records" in err


def test_a_path_with_control_characters_is_echoed_visibly(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = cli(capsys, "report", "evil\x1b[31m.json")
    assert status == 2 and "\x1b" not in err and "evil" in err


def test_no_command_prints_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = cli(capsys)
    listed = re.findall(r"^    (\w+)", err, re.M)
    assert status == 2 and listed == ["tour", "run", "report", "diff", "check", "bench", "zoo", "decompile", "repro", "doctor"], err


def test_report_of_a_compressed_trace_explains_it(capsys: pytest.CaptureFixture[str], in_tmp: Path) -> None:
    status, out, err = cli(capsys, "report", str(TRACES / "flipflop.log.gz"), "--json", "flipflop.json")
    text = flat(out + err)
    assert status == 0, err
    assert "What to look at" in text and "calls flip-flop between its versions (39 switches in 40 calls)" in text
    assert (in_tmp / "flipflop.json").is_file()


@pytest.mark.parametrize(
    "argv",
    [
        ["report", ""],
        ["report", str(TRACES / "tiny.log.gz"), ""],
        ["diff", "", "x.log"],
        ["check", "", "--max-graph-breaks", "0"],
        ["check", "x.log", "--baseline", ""],
    ],
)
def test_an_empty_path_is_refused_not_read_as_this_folder(capsys: pytest.CaptureFixture[str], in_tmp: Path, argv: list[str]) -> None:
    # GIVEN a folder that holds a trace (what Path("") would read: it is ".")
    (in_tmp / "x.log").write_bytes((TRACES / "odd_bytes.log.gz").read_bytes())
    # WHEN a command is given an empty path (an unset shell variable, "$RUN")
    status, out, err = cli(capsys, *argv)
    # THEN it is refused in one line, exit status 2, and nothing is read or written
    assert status == 2 and out == ""
    said = "an empty path: name a session .json, a trace .log or a TORCH_TRACE folder (. for this folder)"
    assert err == f"compilescope {argv[0]}: {said}\n"
    assert os.listdir(in_tmp) == ["x.log"]


def test_an_empty_output_path_is_refused(capsys: pytest.CaptureFixture[str], in_tmp: Path) -> None:
    # `report --html ""` (and diff's) wrote nothing and said nothing
    tiny = str(TRACES / "tiny.log.gz")
    for command in (["report", tiny], ["diff", tiny, tiny]):
        for option in ("--json", "--html"):
            status, out, err = cli(capsys, *command, option, "")
            assert status == 2 and out == ""
            assert err == f"compilescope {command[0]}: {option}: an empty path: name the file to write\n"
    assert os.listdir(in_tmp) == []
