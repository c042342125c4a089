"""The structured-trace reader and the Session builder on hand-made lines (no torch).

The lines follow torch's own format (torch/_logging/_internal.py, TorchLogsFormatter(trace=True));
the real-run tests in test_lessons.py and test_cli_run.py cover torch's actual output.
"""

from __future__ import annotations

import hashlib
import json
import sys

from compilescope.session.build import build_session
from compilescope.trace.reader import read_trace


def line(record: dict, payload: str | None = None) -> list[str]:
    if payload is not None:
        record = {**record, "has_payload": hashlib.md5(payload.encode()).hexdigest()}
    out = [f"V1129 11:28:36.564000 1900 torch/_dynamo/x.py:1] {json.dumps(record)}"]
    if payload is not None:
        out += ["\t" + part for part in payload.split("\n")]
    return out


def ids(frame: int, compile_: int, attempt: int = 0) -> dict:
    return {"frame_id": frame, "frame_compile_id": compile_, "attempt": attempt}


START = {"stack": [{"line": 3, "name": "main", "filename": 0, "loc": "f(x)"}, {"line": 7, "name": "f", "filename": 0}]}


def test_records_strings_and_payloads() -> None:
    lines = (
        line({"str": ["/u/app.py", 0]})
        + line({"dynamo_start": START, **ids(0, 0)})
        + line({"artifact": {"name": "recompile_reasons", "encoding": "json"}, **ids(0, 0)}, '["0/0: a"]')
    )
    log = read_trace(lines)
    assert log.strings == {0: "/u/app.py"}
    assert [r.kind for r in log.records] == ["dynamo_start", "recompile_reasons"]
    assert log.records[1].payload == '["0/0: a"]' and str(log.records[1].compile_id) == "0/0"
    assert not log.skipped


def test_damaged_payload_is_skipped_and_said() -> None:
    good = line({"dynamo_output_graph": {}, **ids(0, 0)}, 'class G:\n    def forward(self, L_x_: "f32[2]"):\n        return (x,)')
    good[-1] = good[-1][:5]  # cut off mid-write
    log = read_trace(line({"dynamo_start": START, **ids(0, 0)}) + good)
    assert [s.reason for s in log.skipped] == ["payload of 'dynamo_output_graph' is incomplete or damaged"]
    assert log.records[-1].payload is None


def test_repeated_compile_ids_after_reset_are_separate_compiles() -> None:
    # torch._dynamo.reset() (explain calls it) starts compile ids again at 0/0
    metrics = {"compilation_metrics": {"co_name": "f", "graph_op_count": 1, "has_guarded_code": True, "entire_frame_compile_time_s": 0.5}}
    lines = []
    for _ in range(2):
        lines += line({"dynamo_start": START, **ids(0, 0)}) + line({**metrics, **ids(0, 0)})
    session = build_session(read_trace(lines))
    (frame,) = session.frames
    assert (frame.name, frame.filename, frame.lineno) == ("f", None, 7)
    assert [c.compile_id for c in frame.compiles] == ["0/0", "0/0"]
    assert session.total_compile_time_s == 1.0


def test_a_compile_cut_off_before_its_metrics_is_unknown_not_ok() -> None:
    session = build_session(read_trace(line({"str": ["/u/app.py", 0]}) + line({"dynamo_start": START, **ids(0, 0)})))
    (compile_,) = session.compiles
    assert compile_.status == "unknown"
    assert compile_.compile_time_s is None
    assert "compile time unknown" in str(session)


def test_report_side_imports_no_torch() -> None:
    import subprocess

    code = (
        "import sys, compilescope, compilescope.cli, compilescope.session.build, compilescope.findings.rules, "
        "compilescope.render.console, compilescope.trace.reader; print('torch' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
