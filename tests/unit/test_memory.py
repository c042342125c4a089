"""The program's memory (`compilescope run`, docs/cli.md "Memory"): what capture measures as the
program ends (record/memory.py, here with a stand-in for torch.cuda: this tier has no GPU), the
session's reading of its record (a malformed one skipped with a reason, never a crash or a
guess), the JSON round trip, and the one line the terminal, the plain lines and the report say.
The real runs are in tests/test_run_memory.py and tests/test_gpu.py."""

from __future__ import annotations

import gzip
import json
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from compilescope.record import memory as capture_memory
from compilescope.render.console import render_text
from compilescope.render.html import render_html, report_data
from compilescope.render.plain import nothing_compiled_text
from compilescope.session import jsonio
from compilescope.session.build import build_from_lines
from compilescope.session.memory import DeviceMemory, ProgramMemory
from recorded import TRACES, flat

GiB, MiB = 2**30, 2**20
# a record as record/memory.py writes one (session/memory.py's ProgramMemory as JSON)
MEASURED: dict[str, Any] = {
    "cpu_peak_bytes": int(1.9 * GiB),
    "children_peak_bytes": int(2.5 * GiB),
    "cuda": [
        {
            "device": "cuda:0",
            "max_allocated_bytes": int(3.2 * GiB),
            "max_reserved_bytes": 4 * GiB,
            "allocated_bytes": 1 * GiB,
            "reserved_bytes": 4 * GiB,
            "graph_pools": 2,
            "graph_pool_bytes": int(1.1 * GiB),
            "unknown": [],
        }
    ],
    "no_cuda": None,
    "unknown": [],
}
LINE = (
    "Memory: CPU high-water 1.9 GiB, a child process 2.5 GiB; "
    "cuda:0 max allocated 3.2 GiB, max reserved 4.0 GiB, CUDA graph pools 1.1 GiB (2 pools)"
)


def _tiny() -> list[str]:
    """tiny's trace: one compile, then the program's end (recorded before run measured memory)."""
    with gzip.open(TRACES / "tiny.log.gz", "rt", encoding="utf-8", newline="") as handle:
        return [line + "\n" for line in handle.read().split("\n")]


def _tiny_with(memory: Any) -> list[str]:
    """tiny's trace with a memory record where run writes it (before the program's end)."""
    lines = _tiny()
    at = next(index for index, line in enumerate(lines) if '"compilescope_program"' in line)
    record = f"V1202 02:49:30.264000 20217 compilescope/capture.py:0] {json.dumps({'compilescope_memory': memory})}"
    return [*lines[:at], record + "\n", *lines[at:]]


def _session(memory: Any):
    return build_from_lines(_tiny_with(memory), "tiny.log").session


def test_the_session_reads_the_memory_record_and_every_view_says_it() -> None:
    # GIVEN a run's trace with the memory its program held
    session = _session(MEASURED)
    # THEN the session holds each figure, as measured
    assert session.memory == ProgramMemory(
        cpu_peak_bytes=int(1.9 * GiB),
        children_peak_bytes=int(2.5 * GiB),
        cuda=[DeviceMemory("cuda:0", int(3.2 * GiB), 4 * GiB, 1 * GiB, 4 * GiB, 2, int(1.1 * GiB))],
    )
    assert not [s for s in session.skipped if "memory" in s]
    # and it comes back from its JSON whole
    assert jsonio.loads(jsonio.dumps(session)) == session
    assert json.loads(jsonio.dumps(session))["memory"] == MEASURED
    # and the terminal, the report and the plain lines of a run that compiled nothing say the one line
    assert LINE in flat(render_text(session, width=100))
    assert report_data(session)[0]["memory_line"] == LINE
    assert LINE in flat(nothing_compiled_text({"kind": "script", "target": "p.py"}, {"python": "3.11"}, 100, MEASURED))


def test_a_child_process_is_said_only_where_its_figure_cannot_be_the_process_own() -> None:
    # Linux counts, for a child forked (or vfork-ed, as subprocess does) from the process, the
    # process's memory at that moment: a child's figure up to the process's own may be that
    for children, said in ((int(1.9 * GiB), False), (300 * MiB, False), (0, False), (None, False), (2 * GiB, True)):
        shown = flat(render_text(_session({**MEASURED, "children_peak_bytes": children}), width=100))
        assert ("a child process" in shown) is said, children


def test_a_figure_not_measured_is_unknown_and_no_cuda_is_not_mentioned() -> None:
    # GIVEN a run on CPU whose high-water mark could not be read, and whose program never started CUDA
    session = _session(
        {
            "cpu_peak_bytes": None,
            "children_peak_bytes": 0,
            "cuda": [],
            "no_cuda": "the program did not start CUDA",
            "unknown": ["CPU high-water mark: not available on this system (no getrusage)"],
        }
    )
    shown = flat(render_text(session, width=100))
    # THEN it says unknown (never 0), no child process figure, and nothing of CUDA
    assert "Memory: CPU high-water unknown " in shown + " "
    assert "child process" not in shown and "cuda:" not in shown and "CUDA graph" not in shown
    assert session.memory is not None and session.memory.unknown == ["CPU high-water mark: not available on this system (no getrusage)"]


def test_a_trace_without_the_record_has_no_memory_line() -> None:
    # a trace from elsewhere (TORCH_TRACE), or one `run` wrote before it measured memory
    session = build_from_lines(_tiny(), "tiny.log").session
    assert session.memory is None
    assert "Memory:" not in render_text(session, width=100) and report_data(session)[0]["memory_line"] is None


def test_a_malformed_memory_record_is_skipped_with_a_reason() -> None:
    # GIVEN records not in the shape compilescope writes (a trace from elsewhere, or damaged)
    whole = _session(["not", "an", "object"])
    figures = _session(
        {
            "cpu_peak_bytes": "lots",
            "children_peak_bytes": -1,
            "cuda": [
                "cuda:0",
                {"device": "cuda:1", "max_allocated_bytes": 2.5, "max_reserved_bytes": 4096, "graph_pools": True, "unknown": [7, "x"]},
            ],
            "no_cuda": 3,
            "unknown": "not a list",
        }
    )
    # THEN a record that is not an object leaves the memory unmeasured, and says why
    assert whole.memory is None
    assert any("'compilescope_memory': its metadata is a list, not an object: left unknown" in s for s in whole.skipped)
    # and each figure of the wrong type is unknown, each said; a device not in the shape is left out
    memory = figures.memory
    assert memory == ProgramMemory(cuda=[DeviceMemory("cuda:1", max_reserved_bytes=4096, unknown=["x"])])
    said = "\n".join(figures.skipped)
    for part in (
        "cpu_peak_bytes is the string 'lots', not a whole number of 0 or more",
        "children_peak_bytes is a whole number (-1), not a whole number of 0 or more",
        "a CUDA device not in the shape compilescope writes (the string 'cuda:0')",
        "cuda[1].max_allocated_bytes is a number (2.5)",
        "cuda[1].graph_pools is a boolean (True)",
        "no_cuda is a whole number (3), not a string",
    ):
        assert part in said, part
    assert "cuda:1 max allocated unknown, max reserved 4.0 KiB" in flat(render_text(figures, width=100))


def test_a_device_name_from_elsewhere_is_escaped_in_the_report() -> None:
    session = _session({**MEASURED, "cuda": [{**MEASURED["cuda"][0], "device": "<img src=x onerror=alert(1)>"}]})
    page = render_html(session)
    assert "<img src=x" not in page and "\\u003cimg src=x onerror=alert(1)\\u003e max allocated 3.2 GiB" in page


# ---- capture: what record/memory.py measures, with torch.cuda stood in for -------------------


class _FakeCuda:
    """torch.cuda as the program left it: started, two devices of which the program used the
    first, a CUDA graph pool of two segments and one of the allocator's own."""

    def __init__(self, started: bool = True) -> None:
        self.started = started
        self.reset_called = False

    def is_initialized(self) -> bool:
        return self.started

    def device_count(self) -> int:
        return 2

    def current_device(self) -> int:
        return 0

    def max_memory_allocated(self, device: int) -> int:
        return [3 * GiB, 0][device]

    def max_memory_reserved(self, device: int) -> int:
        raise RuntimeError("the allocator is not the caching one")

    def memory_allocated(self, device: int) -> int:
        return [1 * GiB, 0][device]

    def memory_reserved(self, device: int) -> int:
        return [4 * GiB, 0][device]

    def memory_snapshot(self, include_traces: bool = True) -> list[dict[str, Any]]:
        assert include_traces is False  # (the allocator's history is not asked for)
        return [
            {"device": 0, "total_size": 2 * MiB, "segment_pool_id": (0, 0)},
            {"device": 0, "total_size": 20 * MiB, "segment_pool_id": (1, 0)},
            {"device": 0, "total_size": 2 * MiB, "segment_pool_id": (1, 0)},
        ]

    def reset_peak_memory_stats(self, device: int | None = None) -> None:
        self.reset_called = True


def _with_torch(monkeypatch: pytest.MonkeyPatch, cuda: Any) -> None:
    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(cuda=cuda, __version__="2.13.0"))


def test_capture_measures_each_device_the_program_used(monkeypatch: pytest.MonkeyPatch) -> None:
    cuda = _FakeCuda()
    _with_torch(monkeypatch, cuda)
    measured = capture_memory.measure()
    # the process's own high-water mark, in bytes (Linux gives KiB)
    assert measured["cpu_peak_bytes"] > 10 * MiB and measured["children_peak_bytes"] is not None
    # cuda:1, which the program never allocated on, is left out; a figure that failed is unknown, with why
    assert measured["cuda"] == [
        {
            "device": "cuda:0",
            "max_allocated_bytes": 3 * GiB,
            "max_reserved_bytes": None,
            "allocated_bytes": 1 * GiB,
            "reserved_bytes": 4 * GiB,
            "graph_pools": 1,
            "graph_pool_bytes": 22 * MiB,
            "unknown": ["torch.cuda.max_memory_reserved: RuntimeError: the allocator is not the caching one"],
        }
    ]
    assert measured["no_cuda"] is None and not cuda.reset_called
    # and what it measured is what the session reads back
    assert json.loads(jsonio.dumps(_session(measured)))["memory"] == measured


def test_capture_never_starts_cuda_and_says_why_there_are_no_cuda_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    class NotStarted(_FakeCuda):
        def max_memory_allocated(self, device: int) -> int:
            raise AssertionError("asked a device of a program that never started CUDA")

    _with_torch(monkeypatch, NotStarted(started=False))
    assert capture_memory.measure()["cuda"] == [] and capture_memory.measure()["no_cuda"] == "the program did not start CUDA"
    monkeypatch.delitem(sys.modules, "torch")
    assert capture_memory.measure()["no_cuda"] == "the program did not import torch"


def test_a_snapshot_that_fails_leaves_the_pools_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    class OlderTorch(_FakeCuda):
        def memory_snapshot(self, *no_include_traces: bool) -> list[dict[str, Any]]:  # (no pool ids either)
            return [{"device": 0, "total_size": 2 * MiB}]

    _with_torch(monkeypatch, OlderTorch())
    (device,) = capture_memory.measure()["cuda"]
    assert device["graph_pools"] is None and device["graph_pool_bytes"] is None
    assert "CUDA graph pools: this torch's memory snapshot does not name each segment's pool" in device["unknown"]


def test_the_record_is_written_to_the_trace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from compilescope.record.writer import TraceFileWriter

    monkeypatch.delitem(sys.modules, "torch", raising=False)
    writer = TraceFileWriter(tmp_path / "t.log")
    facts = capture_memory.record_memory(writer)
    writer.close()
    writer.publish()
    lines = (tmp_path / "t.log").read_text().splitlines()
    assert [json.loads(line.split("] ", 1)[1]) for line in lines] == [{"compilescope_memory": facts}]


# A launcher holding 512 MiB (each page touched) starts a bare Python, which prints the high-water
# mark capture reads for itself.
LAUNCHED = """
import subprocess
import sys

held = bytearray(512 << 20)
for page in range(0, len(held), 4096):
    held[page] = 1
probe = "from compilescope.record.memory import own_high_water; print(own_high_water())"
print(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the carried-over ru_maxrss is Linux's")
def test_a_programs_high_water_mark_is_its_own_not_its_launchers() -> None:
    # GIVEN a program started by a process holding 512 MiB (Linux's ru_maxrss carries that over
    # exec: the program would read 512 MiB and more as its own)
    import subprocess

    done = subprocess.run([sys.executable, "-c", LAUNCHED], capture_output=True, text=True, timeout=60, check=True)
    # THEN its high-water mark is its own: a bare Python's tens of MiB
    assert 0 < int(done.stdout) < 128 * MiB, done.stdout
