"""A trace file is read in large pieces of bytes and split into records in C (trace/reader.py
iter_file_records), not line by line: whatever the size of the pieces, the records, the reasons
for what was skipped and the line numbers are those the line-by-line reader finds, and records of
kinds the session never reads are counted without being decoded."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from compilescope.session.build import read_traces
from compilescope.trace import reader
from compilescope.trace.reader import TraceLog, iter_file_records, iter_records, open_trace, open_trace_bytes
from recorded import TRACES, record_bytes

BREAK = {"artifact": {"name": "dynamo_graph_break_reason", "encoding": "string"}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0}


# a file with every shape a block of lines can take: payload lines before any record, blank and
# foreign lines (with payload lines after them), "\r\n" line ends, bytes that are not UTF-8, a
# damaged payload, an empty one, and a last line without its end
ODD = (
    b"\torphan\n\tlines\n"
    + record_bytes(BREAK, b"first\nsecond")
    + b"\n  \nnot a trace line\n\tits payload line\n"
    + record_bytes(BREAK, b"crlf\nends").replace(b"\n", b"\r\n")
    + record_bytes(BREAK, b"odd \xff\xfe bytes\x00 and \r inside")
    + record_bytes(BREAK, b"damaged").replace(b"\tdamaged", b"\tdamageD")
    + record_bytes(BREAK, b"")
    + record_bytes({"str": ["/u/app.py", 0]})
    + record_bytes(BREAK, b"no end")[:-1]
)


def _read(path: Path) -> tuple[list[tuple], list[tuple[int, str]], int, int, dict[int, str]]:
    log = TraceLog(path=None, records=[], strings={}, skipped=[])
    with open_trace_bytes(path) as stream:
        records = [(r.kind, r.metadata, r.payload, str(r.compile_id), r.line) for r in iter_file_records(stream, log)]
    return records, [(s.line, s.reason) for s in log.skipped], log.lines_read, log.records_read, log.strings


def _read_lines(path: Path) -> tuple[list[tuple], list[tuple[int, str]], int, int, dict[int, str]]:
    log = TraceLog(path=None, records=[], strings={}, skipped=[])
    with open_trace(path) as handle:
        records = [(r.kind, r.metadata, r.payload, str(r.compile_id), r.line) for r in iter_records(handle, log)]
    return records, [(s.line, s.reason) for s in log.skipped], log.lines_read, log.records_read, log.strings


@pytest.mark.parametrize("piece", [1, 2, 3, 7, 64, 4096])
def test_records_are_the_same_whatever_the_pieces_the_file_is_read_in(tmp_path: Path, monkeypatch, piece: int) -> None:
    # GIVEN a file of every odd shape, the same compressed, and a real trace
    odd = tmp_path / "odd.log"
    odd.write_bytes(ODD)
    (tmp_path / "odd.log.gz").write_bytes(gzip.compress(ODD))
    real = tmp_path / "quickstart.log"
    real.write_bytes(gzip.decompress((TRACES / "quickstart.log.gz").read_bytes()))
    expected = {path: _read_lines(path) for path in (odd, tmp_path / "odd.log.gz", real)}
    # WHEN each is read in pieces of `piece` bytes (a record's end falls at every place of one)
    monkeypatch.setattr(reader, "_CHUNK", piece)
    for path, want in expected.items():
        # THEN the records, what was skipped and why, and the line numbers are the line reader's
        assert _read(path) == want, path
    records, skipped, lines, _, strings = expected[odd]
    assert [r[2] for r in records] == [
        "first\nsecond",
        "crlf\nends",
        "odd \udcff\udcfe bytes\x00 and \r inside".replace("\udcff\udcfe", "\ufffd\ufffd"),
        None,
        "",
        "no end",
    ]
    assert skipped == [
        (1, "payload line without a record before it"),
        (2, "payload line without a record before it"),
        (8, "not a structured-trace line"),
        (9, "payload line without a record before it"),
        (15, "payload of artifact 'dynamo_graph_break_reason' is incomplete or damaged"),
    ]
    assert lines == ODD.count(b"\n") + 1 and strings == {0: "/u/app.py"}


def test_records_no_view_reads_are_counted_not_decoded(tmp_path: Path) -> None:
    # GIVEN a trace whose describe_tensor records (torch writes thousands; no view reads them)
    # are damaged, one before any other record and one after
    start = record_bytes({"dynamo_start": {"stack": []}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0})
    damaged = b'V1129 11:28:36.564000 1900 torch/x.py:1] {"describe_tensor": {"id": 0, \n'
    (tmp_path / "t.log").write_bytes(damaged + start + damaged)
    # WHEN the session is built
    (read,) = read_traces(tmp_path / "t.log")
    # THEN the one after a record is counted without being decoded, the first is read and said
    assert read.records == 2
    assert read.session.skipped == ["line 1: record is not valid JSON (Expecting property name enclosed in double quotes)"]
    # AND the plain reader, which keeps every record, decodes both
    assert [s.line for s in reader.read_trace(tmp_path / "t.log").skipped] == [1, 3]
