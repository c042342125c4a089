"""Bytes are bytes: a trace's lines end at "\\n" only, and whatever else a payload holds (a
carriage return, a NUL, bytes that are not UTF-8, a lone surrogate in a Python string) is kept,
never splits a line, never fails a write, never loses a record.

torch writes a user's string into a payload as it is: `torch._dynamo.graph_break(msg=...)`'s
message is one line of the break's payload, "\\r" and NUL included (tests/traces/odd_bytes.log.gz,
recorded from tests/traces/programs/odd_bytes.py; tests/traces/record then put two bytes that are
not UTF-8 into that message, with the checksum over the bytes, as a log written elsewhere).
"""

from __future__ import annotations

import gzip
import hashlib
import re

from compilescope.trace.reader import read_trace
from recorded import cli, flat, portable, record_bytes, session

# the break's message, as the session keeps it: the bytes that were not UTF-8 as U+FFFD each
MESSAGE = "User-inserted graph break. Message: kept\ufffd\ufffd\r    whole\x00here"


def _breaks(s) -> list:
    return [b for frame in s.frames for c in frame.compiles for b in c.graph_breaks]


def test_a_graph_break_whose_message_holds_cr_nul_and_odd_bytes_is_reported(capsys) -> None:
    # GIVEN the trace of a graph break whose message holds "\r", NUL and bytes not UTF-8
    s = session("odd_bytes")
    # THEN every line of it is read, and the break is there with its whole message
    assert s.skipped == []
    (brk,) = _breaks(s)
    assert brk.explanation == MESSAGE
    assert brk.reason == "Call to `torch._dynamo.graph_break()`" and brk.lineno == 11
    # AND `report` shows the break, with nothing said unreadable
    status, out, err = cli(capsys, "report", str(portable("odd_bytes.log.gz")))
    text = flat(out + err)
    assert status == 0
    assert "Graph break in step at programs/odd_bytes.py:11 Call to `torch._dynamo.graph_break()`" in text
    assert "could not be read" not in text and "Skipped while reading" not in text
    # AND the HTML report holds the message escaped in its data: "\r" and NUL as JSON escapes
    from compilescope.render.html import render_html

    page = render_html(s)
    assert "Message: kept\ufffd\ufffd\\r    whole\\u0000here" in page
    assert "\r" not in page and "\x00" not in page


BREAK = {"artifact": {"name": "dynamo_graph_break_reason", "encoding": "string"}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0}


def test_a_log_from_elsewhere_keeps_odd_bytes_plain_and_compressed(tmp_path) -> None:
    # GIVEN a log written elsewhere: a payload with "\r" inside a line and at a line's end, NUL,
    # bytes that are not UTF-8 (its checksum over its bytes), and a header whose JSON holds a raw
    # NUL and such a byte inside a string
    payload = b"Graph Break Reason: a\rb\x00c\xff\xfe\nline ends here\r\nlast \x0b\x1c\xc2\x85 line"
    data = (
        b'V1129 11:28:36.564000 1900 torch/x.py:1] {"str": ["/u/a\x00\xff.py", 0]}\n'
        + record_bytes(BREAK, payload)
        + record_bytes({"dynamo_start": {"stack": []}, "frame_id": 0, "frame_compile_id": 1, "attempt": 0})
    )
    plain, packed = tmp_path / "odd.log", tmp_path / "odd.log.gz"
    plain.write_bytes(data)
    packed.write_bytes(gzip.compress(data))
    for path in (plain, packed):
        # WHEN it is read
        log = read_trace(path)
        # THEN no line is skipped, and every record and character is kept (odd bytes as U+FFFD)
        assert log.skipped == [] and log.lines_read == 6
        assert log.strings == {0: "/u/a\x00\ufffd.py"}
        assert [r.kind for r in log.records] == ["dynamo_graph_break_reason", "dynamo_start"]
        assert log.records[0].payload == "Graph Break Reason: a\rb\x00c\ufffd\ufffd\nline ends here\r\nlast \x0b\x1c\x85 line"


def test_a_log_whose_line_ends_another_system_rewrote_is_still_read(tmp_path) -> None:
    # GIVEN a log copied through a Windows editor: every line ends "\r\n"
    payload = b"Graph Break Reason: one\nand two"
    data = (record_bytes(BREAK, payload) + record_bytes({"dynamo_start": {"stack": []}, "frame_id": 0, "frame_compile_id": 1})).replace(
        b"\n", b"\r\n"
    )
    path = tmp_path / "crlf.log"
    path.write_bytes(data)
    log = read_trace(path)
    # THEN its records and payloads read as torch wrote them
    assert log.skipped == []
    assert [r.payload for r in log.records] == ["Graph Break Reason: one\nand two", None]


def test_the_trace_of_a_run_is_read_back_split_at_newlines_only(tmp_path) -> None:
    from compilescope.record.writer import TraceFileWriter

    # GIVEN the trace `compilescope run` writes: a torch record whose payload holds a "\r" and
    # other characters str.splitlines() would split at, and a record of ours whose payload and
    # metadata hold lone surrogates (a name Python decoded from bytes that were not UTF-8)
    payload = "Message: kept\r    whole\x00here\r\nv\x0bf\x0cfs\x1cnel\x85ls\u2028end\r"
    writer = TraceFileWriter(tmp_path / "t.log")
    metadata = {**BREAK, "has_payload": hashlib.md5(payload.encode()).hexdigest()}
    writer.write_torch_record(metadata, payload, "torch/_dynamo/x.py:1")
    writer.write_record("compilescope_program", {"argv": ["a\udcffb.py"]}, "lone \ud800 surrogate")
    # WHEN it is read back at the end of the run
    with writer.read_back() as handle:
        log = read_trace(handle)
    assert writer.publish() == str(tmp_path / "t.log")
    # THEN both records are whole
    assert log.skipped == []
    assert [r.payload for r in log.records] == [payload, "lone \ufffd surrogate"]
    assert log.records[1].metadata == {"argv": ["a\ufffdb.py"]}
    # AND the file holds the "\r" as it is, in one line of the payload, as torch writes it
    written = (tmp_path / "t.log").read_bytes()
    assert b"\tMessage: kept\r    whole\x00here\r\n\tv\x0bf" in written
    assert re.search(rb"\] \{.*\}\n\tlone \xef\xbf\xbd surrogate\n", written)
