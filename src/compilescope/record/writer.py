"""A logging handler that writes torch's structured trace to a file, in TORCH_TRACE's format.

Attached to the `torch.__trace` logger it receives exactly the records `TORCH_TRACE=dir` would
write, without the user setting anything, and the file it writes is read by the same code that
reads a trace from elsewhere (and by tlparse). Each record is flushed as it is written, so a
program that crashes, or is killed, still leaves everything up to that point.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any, TextIO


def _format(metadata: dict[str, Any], payload: str | None, where: str = "compilescope/capture.py:0") -> str:
    now = time.time()
    stamp = time.strftime("%m%d %H:%M:%S", time.localtime(now)) + f".{int((now % 1) * 1e6):06d}"
    line = f"V{stamp} {os.getpid()} {where}] {json.dumps(metadata, default=repr)}"
    if payload is not None:
        line += "".join(f"\n\t{part}" for part in payload.split("\n"))
    return line + "\n"


def payload_digest(payload: str) -> str:
    return hashlib.md5(payload.encode("utf-8"), usedforsecurity=False).hexdigest()


class TraceFileWriter(logging.Handler):
    def __init__(self, path: str | Path) -> None:
        super().__init__(level=logging.DEBUG)
        self.path = Path(path)
        self._stream: TextIO | None = open(self.path, "w", encoding="utf-8")
        self._pid = os.getpid()
        self._lock_write = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        metadata = getattr(record, "metadata", None)
        if not isinstance(metadata, dict) or os.getpid() != self._pid:
            return  # not a structured record, or a forked child: the parent owns this file
        payload = getattr(record, "payload", None)
        where = f"{record.pathname.split('site-packages/')[-1]}:{record.lineno}"
        try:
            self._write(_format(metadata, payload, where))
        except Exception:
            self.handleError(record)

    def write_record(self, name: str, metadata: Any, payload: str | None = None) -> None:
        """Add a record of compilescope's own (environment, program) to the same file."""
        data: dict[str, Any] = {name: metadata}
        if payload is not None:
            data["has_payload"] = payload_digest(payload)
        self._write(_format(data, payload))

    def _write(self, text: str) -> None:
        with self._lock_write:
            if self._stream is None:
                return
            self._stream.write(text)
            self._stream.flush()

    @property
    def closed(self) -> bool:
        return self._stream is None

    def close(self) -> None:
        with self._lock_write:
            if self._stream is not None:
                self._stream.close()
                self._stream = None
        super().close()
