"""Traces compressed where they were written (a cluster's `trace.log.gz`) read as the plain
file does; a compressed file cut short keeps what was read and says where it stopped."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import compilescope
from compilescope.trace.reader import trace_files
from recorded import TRACES, session


def test_a_compressed_trace_reads_as_the_plain_file(tmp_path: Path) -> None:
    plain = tmp_path / "quickstart.log"
    with gzip.open(TRACES / "quickstart.log.gz", "rb") as source, open(plain, "wb") as target:
        shutil.copyfileobj(source, target)
    compressed, unpacked = compilescope.load(TRACES / "quickstart.log.gz"), compilescope.load(plain)
    assert compressed.trace_files[0].endswith("quickstart.log.gz") and unpacked.trace_files[0].endswith("quickstart.log")
    unpacked.trace_files = compressed.trace_files
    unpacked.program = compressed.program  # (each names the file it was read from)
    assert unpacked.to_json() == compressed.to_json()
    assert [c.compile_id for c in compressed.compiles] == ["0/0_1", "0/1_1", "1/0", "1/1", "1/2_1"]


def test_a_compressed_trace_cut_short_keeps_what_was_read(tmp_path: Path) -> None:
    data = (TRACES / "diagnosis.log.gz").read_bytes()
    cut = tmp_path / "cut.log.gz"
    cut.write_bytes(data[: len(data) // 2])
    half = compilescope.load(cut)
    whole = session("diagnosis")
    assert 0 < len(half.compiles) < len(whole.compiles)
    assert any("the rest of the file could not be decompressed (EOFError" in s for s in half.skipped), half.skipped
    assert any(f.title.endswith("part(s) of the trace could not be read") for f in half.explain())


def test_a_folder_of_ranks_may_hold_compressed_traces(tmp_path: Path) -> None:
    for rank, name in enumerate(("tiny", "flipflop")):
        shutil.copy(TRACES / f"{name}.log.gz", tmp_path / f"dedicated_log_torch_trace_rank_{rank}_x.log.gz")
    (tmp_path / "notes.txt").write_text("not a trace")
    assert [p.name for p in trace_files(tmp_path)] == [
        "dedicated_log_torch_trace_rank_0_x.log.gz",
        "dedicated_log_torch_trace_rank_1_x.log.gz",
    ]
    first, second = compilescope.load_all(tmp_path)
    assert [f.name for f in first.frames] == ["add_one"] and [f.name for f in second.frames] == ["norm"]
