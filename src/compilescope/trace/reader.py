"""Read torch's structured trace (the format `TORCH_TRACE=dir` writes and tlparse reads).

Each record is one glog-style header line whose message is a JSON object, followed by an
optional payload: the lines after it that start with a tab. The JSON object has one key that
names the record (`dynamo_start`, `artifact`, `compilation_metrics`, ...) plus context keys
(`frame_id`, `frame_compile_id`, `attempt`, `rank`, `has_payload` = md5 of the payload).

This module knows only that format. It never imports torch, and it never gives up on a file:
a line it cannot read, or a payload whose checksum does not match (a file cut off mid-write),
is listed in `TraceLog.skipped` with the reason, and reading goes on.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

# "V1129 11:28:36.564000 1900 torch/_dynamo/utils.py:2350] {...}" (a rank prefix like
# "[rank0]:" may stand before the level letter in some torch versions).
_HEADER = re.compile(
    r"^(?:\[rank\d+\]:)?(?P<level>[VIWEC])(?P<date>\d{4}) (?P<time>[\d:.]+) +(?P<pid>\d+) "
    r"(?P<where>[^\]]*)\](?: \[[^\]]*\])* (?P<json>\{.*)$"
)
_CONTEXT_KEYS = frozenset(
    {
        "frame_id",
        "frame_compile_id",
        "attempt",
        "has_payload",
        "compiled_autograd_id",
        "rank",
        "stack",
        "subgraph_name",
    }
)


@dataclass(frozen=True)
class CompileId:
    """torch's compile id: frame `0`, its compile `1`, attempt `0` -> "0/1"; a restart "0/0_1"."""

    frame_id: int | None
    frame_compile_id: int | None
    attempt: int = 0
    compiled_autograd_id: int | None = None

    @property
    def key(self) -> tuple[int | None, int | None, int | None]:
        # Records of every attempt of one compile belong to that compile.
        return (self.compiled_autograd_id, self.frame_id, self.frame_compile_id)

    def __str__(self) -> str:
        text = f"{self.frame_id}/{self.frame_compile_id}"
        if self.attempt:
            text += f"_{self.attempt}"
        if self.compiled_autograd_id is not None:
            text = f"!{self.compiled_autograd_id}/{text}"
        return text


@dataclass
class Record:
    """One structured-trace record."""

    kind: str  # the record's name; for artifacts, the artifact's name ("recompile_reasons")
    metadata: Any  # the value under the record's name
    payload: str | None
    compile_id: CompileId | None
    line: int  # 1-based line of the header in the file
    pid: int | None = None
    rank: int | None = None
    is_artifact: bool = False
    context: dict[str, Any] = field(default_factory=dict)


@dataclass
class Skipped:
    line: int
    reason: str


@dataclass
class TraceLog:
    path: str | None
    records: list[Record]
    strings: dict[int, str]  # torch interns file names: {"str": [name, index]}
    skipped: list[Skipped]
    lines_read: int = 0

    def string(self, index: Any) -> str | None:
        """The file name torch interned as `index`, or None if the trace never said."""
        if isinstance(index, int):
            return self.strings.get(index)
        if isinstance(index, str):
            return index
        return None


def read_trace(source: str | Path | Iterable[str], name: str | None = None) -> TraceLog:
    """Parse a trace file (or any iterable of its lines) into records."""
    if isinstance(source, (str, Path)):
        path = Path(source)
        with open(path, encoding="utf-8", errors="replace") as handle:
            return _parse(handle, str(path))
    return _parse(source, name)


def _parse(lines: Iterable[str], path: str | None) -> TraceLog:
    log = TraceLog(path=path, records=[], strings={}, skipped=[])
    pending: tuple[int, re.Match[str]] | None = None
    payload: list[str] = []

    def finish() -> None:
        if pending is not None:
            _finish_record(log, pending[0], pending[1], payload)

    number = 0
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\n").rstrip("\r")
        if line.startswith("\t"):
            if pending is None:
                log.skipped.append(Skipped(number, "payload line without a record before it"))
            else:
                payload.append(line[1:])
            continue
        finish()
        pending, payload = None, []
        if not line.strip():
            continue
        match = _HEADER.match(line)
        if match is None:
            log.skipped.append(Skipped(number, "not a structured-trace line"))
            continue
        pending = (number, match)
    finish()
    log.lines_read = number
    return log


def _finish_record(log: TraceLog, number: int, match: re.Match[str], payload_lines: list[str]) -> None:
    try:
        data = json.loads(match.group("json"))
    except json.JSONDecodeError as error:
        log.skipped.append(Skipped(number, f"record is not valid JSON ({error.msg})"))
        return
    if not isinstance(data, dict):
        log.skipped.append(Skipped(number, "record is not a JSON object"))
        return
    names = [key for key in data if key not in _CONTEXT_KEYS]
    if not names:
        log.skipped.append(Skipped(number, "record has no name"))
        return
    kind = names[0]
    metadata = data[kind]

    payload: str | None = None
    if "has_payload" in data:
        payload = "\n".join(payload_lines)
        digest = hashlib.md5(payload.encode("utf-8"), usedforsecurity=False).hexdigest()
        if digest != data["has_payload"]:
            # A file cut off mid-write, or edited: keep the record's metadata, but never
            # explain from a payload we know is not what torch wrote.
            log.skipped.append(
                Skipped(number, f"payload of {_describe(kind, metadata)} is incomplete or damaged")
            )
            payload = None
            if not payload_lines:
                return

    if kind == "str":
        if isinstance(metadata, list) and len(metadata) == 2 and isinstance(metadata[1], int):
            log.strings[metadata[1]] = str(metadata[0])
        else:
            log.skipped.append(Skipped(number, "string record in an unknown shape"))
        return

    is_artifact = kind == "artifact" and isinstance(metadata, dict) and "name" in metadata
    if is_artifact:
        kind = str(metadata["name"])

    compile_id = None
    if "frame_id" in data or "frame_compile_id" in data:
        compile_id = CompileId(
            frame_id=_int_or_none(data.get("frame_id")),
            frame_compile_id=_int_or_none(data.get("frame_compile_id")),
            attempt=_int_or_none(data.get("attempt")) or 0,
            compiled_autograd_id=_int_or_none(data.get("compiled_autograd_id")),
        )
    context = {key: data[key] for key in data if key in _CONTEXT_KEYS}
    log.records.append(
        Record(
            kind=kind,
            metadata=metadata,
            payload=payload,
            compile_id=compile_id,
            line=number,
            pid=_int_or_none(match.group("pid")),
            rank=_int_or_none(data.get("rank")),
            is_artifact=is_artifact,
            context=context,
        )
    )


def _describe(kind: str, metadata: Any) -> str:
    if kind == "artifact" and isinstance(metadata, dict):
        return f"artifact {metadata.get('name')!r}"
    return repr(kind)


def _int_or_none(value: Any) -> int | None:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def trace_files(path: str | Path) -> list[Path]:
    """The trace files at `path`: the file itself, or every `*.log` in a TORCH_TRACE folder
    (one per process, so one per rank of a distributed job)."""
    target = Path(path)
    if target.is_dir():
        return sorted(p for p in target.iterdir() if p.is_file() and p.suffix == ".log")
    return [target]
