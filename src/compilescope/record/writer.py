"""The trace file: torch's structured trace and compilescope's own records, in TORCH_TRACE's format.

Torch's records reach it through record/handler.py (a logging handler on the `torch.__trace`
logger: exactly the records `TORCH_TRACE=dir` would write, without the user setting anything);
the file is read by the same code that reads a trace from elsewhere (and by tlparse). This module
does not import logging (nor hashlib, until a record has a payload): a program that never
imports torch pays only for the file. Each record is flushed as it is written, so a
program that crashes, or is killed, still leaves everything up to that point.

The file is created exclusively and locked (compilescope.outputs.create_locked), and read back at
the end through the writer's own handle: a program that changes folder, or removes the file,
loses nothing of the session.
"""

from __future__ import annotations

import _thread
import contextlib
import io
import json
import os
import time

from compilescope.outputs import create_locked

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import IO, Any


def _format(metadata: dict[str, Any], payload: str | None, where: str = "compilescope/capture.py:0") -> str:
    now = time.time()
    stamp = time.strftime("%m%d %H:%M:%S", time.localtime(now)) + f".{int((now % 1) * 1e6):06d}"
    line = f"V{stamp} {os.getpid()} {where}] {json.dumps(metadata, default=repr)}"
    if payload is not None:
        # split at "\n" only, as torch's handler writes it: "\r", "\x0b", "\x1c".. stay in their line
        line += "".join(f"\n\t{part}" for part in payload.split("\n"))
    return encodable(line + "\n")


def encodable(text: str) -> str:
    """`text` as UTF-8 can hold it: a lone surrogate (a name Python decoded from bytes that were
    not UTF-8, in a path torch logs from) becomes U+FFFD, as the trace reader reads one; the
    file is written with strict UTF-8, and a record must never fail to be written for it."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        import re

        return re.sub("[\ud800-\udfff]", "\ufffd", text)
    return text


def payload_digest(payload: str) -> str:
    import hashlib

    return hashlib.md5(encodable(payload).encode("utf-8"), usedforsecurity=False).hexdigest()


# A child process's trace waits in memory for its first compile; past this it goes to disk anyway.
_MOST_WAITING = 4 * 1024 * 1024


class TraceFileWriter:
    def __init__(self, path: str | Path, stream: IO[str] | None = None, wait_for: str | None = None) -> None:
        """Write to a new file at `path` (OutputError where it may not be written), or to
        `stream`, an open file for reading and writing that `path` names. With `wait_for`
        ("dynamo_start"), the file is made only when torch writes that record: until then the
        lines wait in memory, and a process that never compiles leaves no file."""
        self.path = os.path.abspath(os.fspath(path))
        self._wait_for = wait_for
        self._waiting: list[str] | None = [] if wait_for is not None and stream is None else None
        self._stream: IO[str] | None = stream
        if stream is None and self._waiting is None:
            self._stream = create_locked(self.path, "the trace")
        self._done = False
        self.pid = os.getpid()  # the process that writes it (a forked child never does)
        # the first record's time, as its header says it ("1202 11:20:09.416000"): the session's
        # `started`, for a session saved without reading the trace back (session/empty.py)
        self.started: str | None = None
        # (the threading module's Lock is this lock; threading itself is not imported for it)
        self._lock_write = _thread.allocate_lock()

    def write_torch_record(self, metadata: dict[str, Any], payload: str | None, where: str) -> None:
        """A record of torch's, as its logger handed it over (record/handler.py)."""
        self._write(_format(metadata, payload, where), opens=self._wait_for in metadata)

    def write_record(self, name: str, metadata: Any, payload: str | None = None) -> None:
        """Add a record of compilescope's own (environment, program) to the same file."""
        data: dict[str, Any] = {name: metadata}
        if payload is not None:
            data["has_payload"] = payload_digest(payload)
        self._write(_format(data, payload))

    def _write(self, text: str, opens: bool = False) -> None:
        with self._lock_write:
            if self._done:
                return
            if self.started is None:
                self.started = text[1:21]  # _format's "V" + "%m%d %H:%M:%S.ffffff"
            if self._waiting is not None:
                self._waiting.append(text)
                if not opens and sum(map(len, self._waiting)) < _MOST_WAITING:
                    return
                self._stream = create_locked(self.path, "the trace")
                text, self._waiting = "".join(self._waiting), None
            assert self._stream is not None
            self._stream.write(text)
            self._stream.flush()

    @property
    def closed(self) -> bool:
        return self._done

    @property
    def on_disk(self) -> bool:
        """Whether the file exists (a waiting writer makes it at its first compile)."""
        return self._stream is not None

    def read_back(self) -> IO[str]:
        """Stop writing; the trace's text from its start, through our own handle (whatever the
        program did to the path meanwhile). The caller closes it."""
        with self._lock_write:
            stream, waiting, self._stream, self._done = self._stream, self._waiting, None, True
        if stream is None:
            return io.StringIO("".join(waiting or []), newline="\n")
        stream.flush()
        # Read through a handle of our own on the same file, as the trace reader opens one
        # (trace.reader.open_trace): lines end at "\n" only (a "\r" or "\x0b" inside a payload
        # is the payload's), and bytes that are not UTF-8 come back as they are (surrogateescape)
        # for the payload's checksum. The descriptor is a copy: the file stays locked until the
        # caller closes it.
        fd = os.dup(stream.fileno())
        stream.close()
        os.lseek(fd, 0, os.SEEK_SET)
        return os.fdopen(fd, encoding="utf-8", errors="surrogateescape", newline="\n")

    def abandon(self) -> None:
        """In a forked child: let go of the parent's file without writing to it. The descriptor
        is pointed at /dev/null, so that nothing this process still holds (a buffer, the stream
        closed when collected) can reach the parent's file."""
        stream, self._stream, self._done = self._stream, None, True
        if stream is not None:
            with contextlib.suppress(Exception):
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, stream.fileno())
                os.close(null)
            with contextlib.suppress(Exception):
                stream.close()

    def close(self) -> None:
        with self._lock_write:
            stream, self._stream, self._done = self._stream, None, True
        if stream is not None:
            stream.close()
