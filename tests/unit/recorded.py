"""The unit tier's inputs: sessions of committed traces (tests/traces/, recorded from real runs
by tests/traces/record), read without torch."""

from __future__ import annotations

import atexit
import functools
import gzip
import hashlib
import json
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

TRACES = Path(__file__).resolve().parents[1] / "traces"
_PROGRAMS = {  # where a committed trace's programs are in this clone
    "tests/traces/programs/": TRACES / "programs",
    "tests/programs/corpus/": TRACES.parent / "programs" / "corpus",
}


def record_bytes(metadata: dict, payload: bytes | None = None) -> bytes:
    """One record as torch writes it: its header line, then its payload's lines (each after a
    tab), the checksum made to match."""
    if payload is not None:
        metadata = {**metadata, "has_payload": hashlib.md5(payload).hexdigest()}
    line = b"V1129 11:28:36.564000 1900 torch/_dynamo/x.py:1] " + json.dumps(metadata).encode()
    if payload is not None:
        line += b"".join(b"\n\t" + part for part in payload.split(b"\n"))
    return line + b"\n"


def after_one_compile(folder: Path, *records: dict) -> Any:
    """The session of a trace in `folder`: one compile's start (0/0), then `records`."""
    import compilescope

    start = {"dynamo_start": {"stack": []}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0}
    trace = folder / "t.log"
    trace.write_bytes(record_bytes(start) + b"".join(record_bytes(r) for r in records))
    return compilescope.load(trace)


def rewritten(trace: Path, change: Callable[[str], str]) -> str:
    """A trace's text changed by `change`, each payload's checksum made to match, as torch
    writes it (the reader skips a payload whose checksum does not)."""
    # bytes that are not UTF-8 (odd_bytes.log.gz holds some) are kept as they are, and hashed so
    opened = (
        gzip.open(trace, "rt", encoding="utf-8", errors="surrogateescape", newline="\n")
        if trace.suffix == ".gz"
        else trace.open(encoding="utf-8", errors="surrogateescape", newline="\n")
    )
    with opened as handle:
        lines = change(handle.read()).split("\n")
    out: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        payload = []
        while index + 1 < len(lines) and lines[index + 1].startswith("\t"):
            index += 1
            payload.append(lines[index][1:])
        if '"has_payload": "' in line:
            digest = hashlib.md5("\n".join(payload).encode("utf-8", "surrogateescape")).hexdigest()
            head, _, rest = line.partition('"has_payload": "')
            line = head + '"has_payload": "' + digest + rest[32:]
        out += [line, *("\t" + p for p in payload)]
        index += 1
    return "\n".join(out)


@functools.cache
def _folder() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="compilescope-unit-traces-"))
    atexit.register(shutil.rmtree, folder, True)
    return folder


def portable(name: str) -> Path:
    """The committed trace, with the folder its program ran from pointed at this clone's copy of
    it: the trace names the program's file where it was recorded (another checkout), and what a
    finding reads from the source (a whole `if`, a call over several lines) must not depend on
    that folder still being there."""
    trace = TRACES / name
    if not name.endswith(".log.gz"):
        return trace

    def here(text: str) -> str:
        for tail, folder in _PROGRAMS.items():
            text = re.sub(rf'/[^"\s\\]*?/{re.escape(tail)}', str(folder).replace("\\", "\\\\") + "/", text)
        return text

    copy = _folder() / name.removesuffix(".gz")
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_text(rewritten(trace, here), encoding="utf-8", errors="surrogateescape", newline="\n")
    return copy


@functools.cache
def _loaded(name: str):
    import compilescope

    return compilescope.load(portable(name))


def session(name: str):
    """The session of a committed trace (tests/traces/<name>.log.gz, or a .json file), read once
    per test run: tests must not change it (a test that does takes a copy with fresh())."""
    return _loaded(name if name.endswith(".json") else f"{name}.log.gz")


def fresh(name: str):
    """A session of its own, read again, that a test may change."""
    import compilescope

    return compilescope.load(portable(name if name.endswith(".json") else f"{name}.log.gz"))


def found(name: str) -> list:
    return session(name).explain()


def one(items: list, **where: str):
    """The one finding whose attributes hold the given text (kind= equal, title_has= within)."""
    chosen = [
        f for f in items
        if all((text in f.title) if key == "title_has" else getattr(f, key) == text for key, text in where.items())
    ]  # fmt: skip
    assert len(chosen) == 1, f"{len(chosen)} findings with {where}: {[f.title for f in items]}"
    return chosen[0]


def flat(text: str) -> str:
    """Terminal text with its line wrapping undone."""
    return " ".join(text.split())


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    """`compilescope ARGV` in process (compilescope.cli.main): its status, stdout and stderr."""
    from compilescope.cli import main

    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err
