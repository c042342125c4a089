"""The trace file: torch's structured trace and compilescope's own records, in TORCH_TRACE's format.

Torch's records reach it through record/handler.py (a logging handler on the `torch.__trace`
logger: exactly the records `TORCH_TRACE=dir` would write, without the user setting anything);
the file is read by the same code that reads a trace from elsewhere (and by tlparse). This module
does not import logging (nor hashlib, until a record has a payload): a program that never
imports torch pays only for the file. Each record is flushed as it is written, so a
program that crashes, or is killed, still leaves everything up to that point.

While the program runs, the trace is a private file (compilescope.outputs.create_private: a
hidden, locked file beside its final name), read back at the end through the writer's own
handle and only then given its final name: a program that writes a file of that name, changes
folder, or removes files, changes nothing of ours and loses nothing of the session. A run that
is killed leaves the hidden file; the next run in that folder keeps it as
compilescope-NAME.unfinished.log (outputs.leftovers).
"""

from __future__ import annotations

import _thread
import contextlib
import io
import json
import os
import time

from compilescope.outputs import OutputError, create_private, publish

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
    """Writes the trace to a private file (outputs.create_private) and, at the end (`publish`),
    gives it its final name. A write the file system refuses (a full disk, `ulimit -f`, a
    read-only or failing mount) never reaches the program: the file keeps every whole record
    written before it, what follows is kept in memory, and `problem` says what happened."""

    def __init__(self, path: str | Path, stream: IO[str] | None = None, wait_for: str | None = None) -> None:
        """Write for a file at `path` (OutputError where it may not be written), or to
        `stream`, an open file for reading and writing that `path` names (a temporary file of
        ours). With `wait_for` ("dynamo_start"), the file is made only when torch writes that
        record: until then the lines wait in memory, and a process that never compiles leaves no
        file."""
        self.path = os.path.abspath(os.fspath(path))
        self.partial: str | None = None  # the private file's name, until published
        self.problem: str | None = None  # why not everything reached the file, for the user
        self._wait_for = wait_for
        self._waiting: list[str] | None = [] if wait_for is not None and stream is None else None
        self._memory: list[str] = []  # what the file system refused, and everything after it
        self._fd: int | None = None
        self._written = 0  # bytes of whole records in the file
        if stream is not None:
            self._fd = os.dup(stream.fileno())
            stream.close()
        elif self._waiting is None:
            self._open()
        self._done = False
        self.pid = os.getpid()  # the process that writes it (a forked child never does)
        # the first record's time, as its header says it ("1202 11:20:09.416000"): the session's
        # `started`, for a session saved without reading the trace back (session/empty.py)
        self.started: str | None = None
        # (the threading module's Lock is this lock; threading itself is not imported for it)
        self._lock_write = _thread.allocate_lock()

    def _open(self) -> None:
        """Make the private file; where the folder refuses it (full, read-only), keep the trace in
        memory and say why. OutputError (a path that is not ours to write) goes to the caller."""
        try:
            self._fd, self.partial = create_private(self.path, "the trace")
        except OSError as error:
            self._fd = None
            self.problem = f"it could not be written to {os.path.dirname(self.path)}: {_reason(error)}"

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
                text, self._waiting = "".join(self._waiting), None
                self._open()
            if self._fd is None or self._memory:
                self._memory.append(text)
                return
            data = text.encode("utf-8")  # (_format made it encodable)
            try:
                _write_all(self._fd, data)
                self._written += len(data)
            except OSError as error:
                # Only whole records stay in the file (a record cut by the full disk is dropped
                # there); this one and the rest are kept in memory for the session.
                with contextlib.suppress(OSError):
                    os.ftruncate(self._fd, self._written)
                self.problem = f"it could not be written in full to {os.path.dirname(self.path)}: {_reason(error)}"
                self._memory.append(text)

    @property
    def closed(self) -> bool:
        return self._done

    @property
    def on_disk(self) -> bool:
        """Whether the file exists (a waiting writer makes it at its first compile)."""
        return self._fd is not None

    @property
    def complete(self) -> bool:
        """Whether the file holds every record (none was kept in memory only)."""
        return self._fd is not None and not self._memory

    def read_back(self) -> IO[str]:
        """Stop writing; the trace's text from its start, through our own handle (whatever the
        program did to the path meanwhile), with what only memory holds after it. The caller
        closes it."""
        with self._lock_write:
            fd, waiting, self._fd, self._done = self._fd, self._waiting, None, True
        rest = "".join([*(waiting or []), *self._memory])
        if fd is None:
            return io.StringIO(rest, newline="\n")
        os.lseek(fd, 0, os.SEEK_SET)
        # As the trace reader opens one (trace.reader.open_trace): lines end at "\n" only (a "\r"
        # or "\x0b" inside a payload is the payload's), and bytes that are not UTF-8 come back as
        # they are (surrogateescape) for the payload's checksum.
        if not rest:
            return os.fdopen(fd, "r", encoding="utf-8", errors="surrogateescape", newline="\n")
        with os.fdopen(fd, "rb") as raw:
            return io.StringIO(raw.read(self._written).decode("utf-8", "surrogateescape") + rest, newline="\n")

    def publish(self) -> str | None:
        """Give the file its final name (outputs.publish: `path`, or beside it where the program
        made a file of its own there); that name, or None where there is no complete file to name
        (`problem` says why). Never raises."""
        if self.partial is None:
            return None
        if self._memory:  # a trace cut short by the disk: left out, rather than passed for whole
            with contextlib.suppress(OSError):
                os.unlink(self.partial)
            self.partial = None
            return None
        try:
            final = publish(self.partial, self.path, "the trace")
        except (OSError, OutputError) as error:
            self.problem = f"it could not be named {self.path}: {_reason(error)}"
            with contextlib.suppress(OSError):
                os.unlink(self.partial)
            self.partial = None
            return None
        self.partial = None
        return final

    def abandon(self) -> None:
        """In a forked child: let go of the parent's file without writing to it. The descriptor
        is pointed at /dev/null, so that nothing this process still holds can reach the
        parent's file; its name stays the parent's to publish."""
        fd, self._fd, self._done, self.partial = self._fd, None, True, None
        if fd is not None:
            with contextlib.suppress(Exception):
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, fd)
                os.close(null)
            with contextlib.suppress(Exception):
                os.close(fd)

    def close(self) -> None:
        with self._lock_write:
            fd, self._fd, self._done = self._fd, None, True
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    """os.write until all of `data` is written (a write may take part of it: a disk filling up)."""
    view = memoryview(data)
    while view:
        count = os.write(fd, view)
        if count <= 0:
            raise OSError(28, "No space left on device")
        view = view[count:]


def _reason(error: BaseException) -> str:
    """An OSError in the user's words: "No space left on device" rather than "[Errno 28] ..."."""
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__
