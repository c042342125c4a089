"""Logs and sessions from elsewhere are untrusted input (DESIGN.md): each bad file gets one line
and exit status 2, never a traceback; control characters never reach the terminal raw; an empty
trace says so; special files and unwritable outputs are refused before anything is read; what is
displayed of a huge value is bounded, and the JSON keeps it whole.

Inputs are the trace of a real `compilescope run` (tests/data/small_trace.log, made from
tests/programs/small_trace_program.py), changed where a test says; the CLI runs as a real
subprocess, as a user runs it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import compilescope
from compilescope.session.jsonio import SessionFormatError
from compilescope.trace.reader import UnreadableInput
from conftest import run_cli

sys.path.insert(0, str(Path(__file__).parent / "programs"))
import large_logs  # noqa: E402

TRACE = large_logs.BASE


def trace_with(path: Path, change) -> Path:
    """The real trace with `change(header, payload) -> (header, payload) | None` applied to each
    record (None drops it), payload checksums written as torch writes them."""
    with open(path, "w", encoding="utf-8") as out:
        for prefix, header, payload in large_logs.records(TRACE):
            header.pop("has_payload", None)
            changed = change(header, payload)
            if changed is not None:
                large_logs.write_record(out, prefix, *changed)
    return path


def one_line_error(result, *parts: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    assert "Traceback" not in result.stderr + result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for part in parts:
        assert part in lines[0], lines[0]


@pytest.fixture(scope="module")
def session_text() -> str:
    return compilescope.load(TRACE).to_json()


@pytest.fixture
def session_data(session_text: str) -> dict[str, Any]:
    return json.loads(session_text)


# ---- 1. loaders validate types and depth ----------------------------------------------------------


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.update(frames=[1, 2]), "frames[0]: expected an object, got 1"),
        (lambda d: d["frames"][0].update(name=["x"]), "frames[0].name: expected a string, got a list"),
        (
            lambda d: d["frames"][0]["compiles"][0].update(graph_breaks="none"),
            'frames[0].compiles[0].graph_breaks: expected a list, got "none"',
        ),
        (lambda d: d["frames"][1]["compiles"][0].pop("compile_id"), "frames[1].compiles[0]: missing 'compile_id'"),
        (lambda d: d["environment"].update(threads=2.5), "environment.threads: expected a whole number or null, got 2.5"),
        (lambda d: d["frames"][0].update(lineno=10**30), "frames[0].lineno: expected a whole number or null, got a number of 31 digits"),
        (
            lambda d: d.update(program={"kind": "script", "target": "t.py", "exception": {"type": "ValueError"}}),
            "program.exception: expected a string or null, got an object",
        ),
    ],
)
def test_a_session_with_a_value_of_the_wrong_type_is_refused_by_path(tmp_path: Path, session_data: dict, change, message: str) -> None:
    # GIVEN a saved session someone edited: one value of a type the model does not allow
    change(session_data)
    (tmp_path / "s.json").write_text(json.dumps(session_data))
    # WHEN it is loaded from Python, reported, or decompiled
    with pytest.raises(SessionFormatError, match=re.escape(message)):
        compilescope.load(tmp_path / "s.json")
    # THEN the CLI says where the bad value is, in one line, with exit status 2
    one_line_error(run_cli("report", "s.json", cwd=tmp_path), "compilescope report: s.json: " + message)
    one_line_error(run_cli("decompile", "s.json", cwd=tmp_path), "compilescope decompile: s.json: " + message)


def test_a_session_nested_too_deeply_is_refused(tmp_path: Path) -> None:
    (tmp_path / "deep.json").write_text('{"schema": "compilescope/1", "frames": ' + "[" * 200_000 + "]" * 200_000 + "}")
    one_line_error(run_cli("report", "deep.json", cwd=tmp_path), "deep.json: not a compilescope session: nested too deeply to read")
    (tmp_path / "deep2.json").write_text('{"schema": "compilescope/1", "frames": ' + "[" * 500 + "]" * 500 + "}")
    one_line_error(run_cli("report", "deep2.json", cwd=tmp_path), "frames[0]: expected an object, got a list")


def test_trace_records_of_the_wrong_type_are_skipped_with_their_reason(tmp_path: Path) -> None:
    # GIVEN the real trace with compilescope's program record, a dynamo_start, the environment and
    # the calls record holding values of types their writers never write
    def change(header: dict, payload: list[str]):
        if "compilescope_program" in header:
            header["compilescope_program"].update(exception=["ValueError", "x"], exit_status="one", argv="a b")
        if "dynamo_start" in header and header["frame_id"] == 2:
            header["dynamo_start"]["stack"] = "not a stack"
        if "compilescope_environment" in header:
            header["compilescope_environment"]["threads"] = {"n": 2}
        if "compilescope_calls" in header:
            header["compilescope_calls"] = {"method": 7, "versions": "all", "eager": [1], "order": {"frame": 3}}
        if "compilation_metrics" in header and header["frame_id"] == 1:
            header["compilation_metrics"].update(co_name=["f"], restart_reasons=5, guard_count="many", python_version=" ")
        return header, payload

    trace_with(tmp_path / "odd.log", change)
    result = run_cli("report", "odd.log", "--json", "odd.json", "--html", "odd.html", cwd=tmp_path)
    # THEN the rest of the trace is explained, and each bad value is left unknown and said
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    session = compilescope.load(tmp_path / "odd.json")  # what was built loads back
    assert session.program is not None and session.program.exception is None and session.program.exit_status is None
    assert session.program.target == "small_program.py" and session.program.argv == []
    assert session.environment.threads is None and session.environment.python == "3.11.7"
    skipped = "\n".join(session.skipped)
    assert "'compilescope_program': exception is a list, not a string: left unknown" in skipped
    assert "'compilescope_program': exit_status is the string 'one', not a whole number: left unknown" in skipped
    assert "'compilescope_environment': threads is an object, not a whole number: left unknown" in skipped
    assert "'dynamo_start': stack is the string 'not a stack', not a list: left unknown" in skipped
    assert "'compilescope_calls': versions is the string 'all', not a list: left unknown" in skipped
    # the compile whose dynamo_start had no stack is there, its function named by its metrics
    assert len(session.compiles) == 5 and session.find_compile("2/0").kernels
    assert [f.name for f in session.frames if f.compiles[0].compile_id == "2/0"] == ["fused"]
    assert "Skipped while reading" in result.stdout
    assert (tmp_path / "odd.html").stat().st_size > 0


# ---- 2. control characters never reach the terminal raw ---------------------------------------------

EVIL_NAME = "step\x1b]0;pwned\x07\x1b[2J\x9b31m\u202ename"


def test_control_characters_from_a_log_are_shown_not_sent_to_the_terminal(tmp_path: Path) -> None:
    # GIVEN a trace whose function name, file name and graph-break message carry escape
    # sequences (retitle the terminal, clear it), a C1 CSI and a bidirectional override
    def change(header: dict, payload: list[str]):
        if "dynamo_start" in header:
            header["dynamo_start"]["stack"][-1]["name"] = EVIL_NAME
        if "str" in header and header["str"][0].endswith("small_program.py"):
            header["str"][0] = "/tmp/\x1b[31mred\x1b[0m.py"
        if header.get("artifact", {}).get("name") == "dynamo_graph_break_reason":
            payload = [line.replace("Data-dependent branching", "Data-dependent \x1b[2J\x1b[Hbranching") for line in payload]
        return header, payload

    trace_with(tmp_path / "evil.log", change)
    trace_with(tmp_path / "also.log", lambda h, p: (h, p))
    # WHEN it is reported to a terminal (rich writes its own colours: FORCE_COLOR), alone and as
    # one rank of two (the ranks' view)
    for args in (["evil.log", "--show", "all"], ["evil.log", "also.log"]):
        result = run_cli("report", *args, cwd=tmp_path, env={"FORCE_COLOR": "1", "TERM": "xterm-256color"})
        assert result.returncode == 0, result.stderr
        out = result.stdout
        assert "\x1b[1m" in out  # rich's own styles do reach the terminal
        # THEN no sequence from the log does: each control character is shown as a picture
        for raw in ("\x1b]", "\x1b[2J", "\x1b[H", "\x07", "\x9b", "\u202e", "\x1b[31mred"):
            assert raw not in out, (raw, args)
        assert "step␛]0;pwned␇␛[2J\\x9b31m\\u202ename" in out
        assert "Data-dependent ␛[2J␛[Hbranching" in out
        # (the ranks' view names the file by its last parts, in the findings' places)
        assert "/tmp/␛[31mred␛[0m.py" in out if len(args) == 3 else "tmp/␛[31mred␛[0m.py" in out


def test_a_path_with_control_characters_is_echoed_visibly(tmp_path: Path) -> None:
    result = run_cli("report", "missing\x1b[2J.log", cwd=tmp_path)
    one_line_error(result, "compilescope report: no such file or folder: missing␛[2J.log")
    (tmp_path / "s.json").write_text(compilescope.load(TRACE).to_json())
    result = run_cli("report", "s.json", "--json", "no\x1b]0;t\x07/out.json", cwd=tmp_path)
    one_line_error(result, "will not write the session to", "no␛]0;t␇/out.json: its folder", "does not exist")


# ---- 3. an empty trace says so -------------------------------------------------------------------


def test_an_empty_trace_says_it_holds_no_records(tmp_path: Path) -> None:
    (tmp_path / "empty.log").write_text("")
    one_line_error(run_cli("report", "empty.log", cwd=tmp_path), "empty.log: the trace is empty: it holds no records")
    folder = tmp_path / "traces"
    folder.mkdir()
    (folder / "rank0.log").write_text("\n\n")
    one_line_error(run_cli("report", "traces", cwd=tmp_path), "the trace is empty: it holds no records")


def test_a_trace_without_compile_records_does_not_claim_nothing_was_compiled(tmp_path: Path) -> None:
    # GIVEN the real trace with only the records that are not about a compile (and none of
    # compilescope's own, which say what ran): a TORCH_TRACE log begun after the compiles
    trace_with(tmp_path / "none.log", lambda h, p: None if "frame_id" in h or any(k.startswith("compilescope_") for k in h) else (h, p))
    result = run_cli("report", "none.log", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "No compile in this trace" in result.stdout
    assert "holds no compile records" in result.stdout
    assert "compiled nothing" not in result.stdout


# ---- 4. special files and outputs refused before reading ------------------------------------------


def test_special_files_are_refused_before_they_are_opened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.log")  # opening it to read would wait for a writer forever
    started = time.monotonic()
    one_line_error(run_cli("report", "pipe.log", cwd=tmp_path, timeout=60), "pipe.log: a pipe, not a regular file or a folder")
    one_line_error(run_cli("decompile", "pipe.log", cwd=tmp_path, timeout=60), "pipe.log: a pipe, not a regular file or a folder")
    one_line_error(run_cli("report", "/dev/zero", cwd=tmp_path, timeout=60), "/dev/zero: a device, not a regular file or a folder")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(tmp_path / "sock.log"))
        one_line_error(run_cli("report", "sock.log", cwd=tmp_path, timeout=60), "sock.log: a socket")
    assert time.monotonic() - started < 30
    with pytest.raises(UnreadableInput):
        compilescope.load("/dev/zero")
    # a pipe in a TORCH_TRACE folder is not one of its logs
    (tmp_path / "traces").mkdir()
    os.mkfifo(tmp_path / "traces" / "rank1.log")
    (tmp_path / "traces" / "rank0.log").write_text(TRACE.read_text())
    result = run_cli("report", "traces", cwd=tmp_path, timeout=60)
    assert result.returncode == 0 and "Ranks" not in result.stdout


def test_outputs_that_cannot_be_written_are_refused_before_the_input_is_read(tmp_path: Path) -> None:
    (tmp_path / "s.json").write_text(compilescope.load(TRACE).to_json())
    for option, what in (("--json", "the session"), ("--html", "the report")):
        result = run_cli("report", "s.json", option, "/missing/folder/out", cwd=tmp_path)
        one_line_error(result, f"will not write {what} to /missing/folder/out", "does not exist")
        assert result.stdout == ""  # nothing was explained: the input was not read
    (tmp_path / "a folder.json").mkdir()
    one_line_error(run_cli("report", "s.json", "--json", "a folder.json", cwd=tmp_path), "it is a folder")
    (tmp_path / "mine.html").write_text("<p>the user's own page</p>")
    one_line_error(run_cli("report", "s.json", "--html", "mine.html", cwd=tmp_path), "it is a file compilescope did not write")
    assert (tmp_path / "mine.html").read_text() == "<p>the user's own page</p>"
    # decompile's folder likewise: missing parent, a file, a link
    one_line_error(run_cli("decompile", "--out", "/missing/folder/py", "s.json", cwd=tmp_path), "folder /missing/folder does not exist")
    (tmp_path / "file").write_text("x")
    one_line_error(run_cli("decompile", "--out", "file", "s.json", cwd=tmp_path), "cannot write .py files into file")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")
    one_line_error(run_cli("decompile", "--out", "link", "s.json", cwd=tmp_path), "cannot write .py files into link: it is a symbolic link")
    assert list((tmp_path / "elsewhere").iterdir()) == []


# ---- 5. what is displayed of a huge value is bounded -----------------------------------------------


def test_a_huge_string_is_cut_where_shown_and_kept_whole_in_the_json(tmp_path: Path) -> None:
    # GIVEN the real trace with a graph break whose message is 5 MB long (as from a huge repr)
    large_logs.huge_string_log(tmp_path / "huge.log", 5_000_000, "reason")
    large_logs.huge_string_log(tmp_path / "name.log", 3_000_000, "name")
    result = run_cli("report", "huge.log", "--json", "huge.json", "--html", "huge.html", "--show", "all", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    # THEN the terminal shows its start and how much more there is, not 5 MB
    assert len(result.stdout) < 200_000
    shown = " ".join(result.stdout.split())  # as read, whatever the terminal's width
    assert "Unsupported: xxxx" in shown and "… (5.0 MB more in the graph break's text)" in shown
    # the JSON keeps torch's message whole (its one-line reason, read out of it, is bounded);
    # the report holds at most its first million characters, and says so
    (brk,) = [b for b in compilescope.load(tmp_path / "huge.json").find_compile("0/0").graph_breaks if "Unsupported" in b.reason]
    assert "Graph Break Reason: Unsupported: " + "x" * 5_000_000 + "\n" in brk.text
    assert brk.reason == "Unsupported: " + "x" * (1000 - 13) + "… (5.0 MB more in the graph break's text)"
    page = (tmp_path / "huge.html").read_text()
    assert len(page) < 3_000_000 and "MB more, in the session's JSON" in page
    named = run_cli("report", "name.log", cwd=tmp_path)
    assert named.returncode == 0 and len(named.stdout) < 100_000
    shown = " ".join(named.stdout.split())
    assert "huge_xxx" in shown and "3.0 MB more, in the session's JSON" in shown


def test_a_long_payload_line_and_many_bad_lines_stay_bounded(tmp_path: Path) -> None:
    # GIVEN a file of 300,000 lines that are not a trace, after a real trace
    log = tmp_path / "noisy.log"
    log.write_text(TRACE.read_text() + "not a trace line\n" * 300_000)
    result = run_cli("report", "noisy.log", "--json", "noisy.json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    session = compilescope.load(tmp_path / "noisy.json")
    # THEN the first thousand are listed with their line, the rest counted
    assert len(session.skipped) == 1001
    assert session.skipped[-1] == "… and 299000 more that could not be read (only the first 1000 of each kind are listed)"
    assert "Skipped while reading (1001)" in result.stdout


def test_payload_checksums_cover_what_torch_wrote(tmp_path: Path) -> None:
    # a payload edited after torch wrote it is not explained from (the reader's md5 check)
    def change(header: dict, payload: list[str]):
        if header.get("artifact", {}).get("name") == "dynamo_graph_break_reason":
            header["has_payload"] = hashlib.md5(b"something else").hexdigest()
            return header, payload
        return header, payload

    with open(tmp_path / "edited.log", "w", encoding="utf-8") as out:
        for prefix, header, payload in large_logs.records(TRACE):
            header.pop("has_payload", None)
            header, payload = change(header, payload)
            if "has_payload" in header:
                out.write(prefix + json.dumps(header) + "\n" + "".join("\t" + line + "\n" for line in payload))
            else:
                large_logs.write_record(out, prefix, header, payload)
    session = compilescope.load(tmp_path / "edited.log")
    assert not session.graph_breaks
    assert any("payload of artifact 'dynamo_graph_break_reason' is incomplete or damaged" in s for s in session.skipped)
