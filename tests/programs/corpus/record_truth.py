"""The ground truth of a corpus program, read straight from torch's structured trace.

    python tests/programs/corpus/record_truth.py PROGRAM.py [TRACE ...] [--ranks N] [--out truth.json]

TRACE is a log torch wrote under TORCH_TRACE (a folder of them: one per rank), or the trace
`compilescope run` saved (`compilescope-NAME.log`, the same format). Without TRACE, the program
is run here under TORCH_TRACE, by plain python (or by torchrun on N ranks, gloo on loopback),
from its own folder; `--out truth/NAME.json` is how the committed truth was written:

    for p in tests/programs/corpus/*_*.py; do n=$(basename $p .py); [ $n = record_truth ] && continue
      python tests/programs/corpus/record_truth.py $p $( [ $n = ddp_step ] && echo --ranks 2 ) \
        --out tests/programs/corpus/truth/$n.json; done This reader is deliberately
separate from compilescope's own (src/compilescope/trace, session): a few dozen lines of JSON
over the glog-prefixed lines, so that tests/test_corpus.py compares two independent readings.

What it keeps, per log (per rank): the frames Dynamo compiled (from `compilation_metrics`), every
compile id in the order Dynamo started them (`dynamo_start`), each compile's graph breaks (the
`dynamo_graph_break_reason` artifacts: where torch says it broke, its one-line reason, whether it
could resume, the program's own frames in torch's traceback) and its recompile reasons (the
`recompile_reasons` artifact: the version whose guard failed, the guard, expected and actual where
torch's text says them). File names are made independent of where the program ran: a file in the
program's folder by its name, a library's file from its package (`torch/nn/modules/rnn.py`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

SIZE = re.compile(
    r"^tensor '(?P<subject>.+)' (?P<what>size|stride) mismatch at index (?P<index>\d+)\. expected (?P<expected>\S+), actual (?P<actual>\S+)$"
)
EQUALS = re.compile(r"^(?P<subject>.+?) == (?P<expected>.+)$")
TRACEBACK_FRAME = re.compile(r'^\s*File "(?P<file>.+)", line (?P<line>\d+), in (?P<function>.+)$')
IDS = ("frame_id", "frame_compile_id", "attempt", "has_payload", "rank", "compiled_autograd_id")


def records(path: Path):
    """(record, payload) for each glog-prefixed line of a trace; the payload is the tab-indented
    lines that follow it."""
    lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line or line.startswith("\t") or "] {" not in line:
            continue
        record = json.loads(line[line.index("] {") + 2 :])
        payload = []
        while i < len(lines) and lines[i].startswith("\t"):
            payload.append(lines[i][1:])
            i += 1
        yield record, "\n".join(payload)


class Names:
    """A file as the truth names it, wherever the program and the venv were."""

    def __init__(self, program: Path):
        self.folder = str(program.resolve().parent)

    def __call__(self, filename: str) -> str:
        if os.path.dirname(os.path.abspath(filename)) == self.folder or not os.path.isabs(filename):
            return os.path.basename(filename)
        if "site-packages/" in filename:
            return filename.split("site-packages/", 1)[1]
        return filename

    def is_program(self, filename: str) -> bool:
        return os.path.dirname(os.path.abspath(filename)) == self.folder


def graph_break(payload: str, name: Names) -> dict:
    lines = payload.split("\n")
    at = re.match(r"Graph break in user code at (.+):(\d+)$", lines[0])
    # the one-line reason: the first non-empty line after "Graph Break Reason: ..."
    reason = next((text.strip() for text in lines[2:] if text.strip() and not text.startswith(" ")), "")
    if "Graph break encountered:" not in payload and lines[1].startswith("Graph Break Reason: "):
        reason = reason or lines[1].removeprefix("Graph Break Reason: ")
    user_frames = []
    if "User code traceback:" in lines:
        for text in lines[lines.index("User code traceback:") + 1 :]:
            if text.startswith("Traceback (most recent call last)"):
                break
            frame = TRACEBACK_FRAME.match(text)
            if frame and name.is_program(frame["file"]):
                user_frames.append(f"{name(frame['file'])}:{frame['line']}")
    return {
        "at": f"{name(at[1])}:{at[2]}" if at else None,
        "reason": reason,
        "resumable": "cannot resume" not in lines[1],
        "user_frames": user_frames,
    }


def recompile_reasons(payload: str) -> list[str]:
    try:
        reasons = json.loads(payload)
    except json.JSONDecodeError:
        return [payload]  # torch writes a single reason as it is, not as a JSON string
    return [reasons] if isinstance(reasons, str) else list(reasons)


def failed_guard(reason: str) -> dict:
    previous, _, text = reason.partition(": ")
    guard = text.split("\n", 1)[0].split("#", 1)[0].strip()
    fact: dict = {"previous": previous, "guard": guard}
    size = SIZE.match(guard)
    equals = EQUALS.match(guard)
    if size:
        fact.update(subject=size["subject"], index=int(size["index"]), expected=size["expected"], actual=size["actual"])
    elif equals:
        fact.update(subject=equals["subject"], expected=equals["expected"])
    return fact


def read_log(path: Path, name: Names) -> dict:
    compiles: dict[str, dict] = {}
    frames: dict[int, dict] = {}
    rank = None
    torch_version = None
    for record, payload in records(path):
        rank = record.get("rank", rank)
        if "frame_id" in record and record.get("frame_compile_id") is not None:
            compile_id = f"{record['frame_id']}/{record['frame_compile_id']}"
        else:
            compile_id = None
        artifact = record.get("artifact", {}).get("name")
        if artifact == "torch_version":
            torch_version = json.loads(payload)["pytorch_version"]
        if compile_id is None:
            continue
        entry = compiles.setdefault(compile_id, {"id": compile_id, "graph_breaks": [], "recompile": []})
        if artifact == "dynamo_graph_break_reason":
            found = graph_break(payload, name)
            if found not in entry["graph_breaks"]:  # the same break met again in a restarted attempt
                entry["graph_breaks"].append(found)
        elif artifact == "recompile_reasons":
            entry["recompile"] = [failed_guard(reason) for reason in recompile_reasons(payload)]
        elif "compilation_metrics" in record:
            metrics = record["compilation_metrics"]
            frames.setdefault(
                record["frame_id"],
                {
                    "frame_id": record["frame_id"],
                    "name": metrics["co_name"],
                    "file": name(metrics["co_filename"]),
                    "line": metrics["co_firstlineno"],
                },
            )
            entry["name"] = metrics["co_name"]
            entry["failed"] = metrics.get("fail_type")
    return {
        "rank": rank,
        "torch": torch_version,
        "frames": [frames[key] for key in sorted(frames)],
        "compiles": list(compiles.values()),
    }


def truth(program: Path, traces: list[Path]) -> dict:
    name = Names(program)
    logs: list[dict] = []
    for trace in traces:
        files = sorted(trace.glob("*.log")) if trace.is_dir() else [trace]
        logs.extend(read_log(path, name) for path in files)
    logs.sort(key=lambda log: -1 if log["rank"] is None else log["rank"])
    versions = {log.pop("torch") for log in logs} - {None}
    return {"program": program.name, "torch": ", ".join(sorted(versions)) or None, "logs": logs}


def run_traced(program: Path, ranks: int | None, folder: Path) -> Path:
    """The program run under TORCH_TRACE=folder, from its own folder; the folder."""
    if ranks:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        command = [sys.executable, "-m", "torch.distributed.run", f"--nproc_per_node={ranks}", f"--master_port={port}", program.name]
    else:
        command = [sys.executable, program.name]
    env = {**os.environ, "TORCH_TRACE": str(folder), "MASTER_ADDR": "127.0.0.1"}
    subprocess.run(command, cwd=program.resolve().parent, env=env, check=True, capture_output=True, timeout=600)
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("program", type=Path)
    parser.add_argument("traces", type=Path, nargs="*")
    parser.add_argument("--ranks", type=int, help="run the program by torchrun on this many ranks")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="corpus-truth-") as folder:
        traces = args.traces or [run_traced(args.program, args.ranks, Path(folder))]
        text = json.dumps(truth(args.program, traces), indent=1) + "\n"
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
