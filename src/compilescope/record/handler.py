"""The logging handler on torch's structured-trace logger: each record torch emits goes to the
trace file (record/writer.py), as `TORCH_TRACE=dir` would write it.

Imported once the program has imported torch (which imports logging itself), never before.
"""

from __future__ import annotations

import logging
import os

from compilescope.record.writer import TraceFileWriter


class TraceHandler(logging.Handler):
    def __init__(self, writer: TraceFileWriter) -> None:
        super().__init__(level=logging.DEBUG)
        self.writer = writer  # replaced in a forked child that writes a trace of its own

    def emit(self, record: logging.LogRecord) -> None:
        metadata = getattr(record, "metadata", None)
        writer = self.writer
        if not isinstance(metadata, dict) or os.getpid() != writer.pid:
            return  # not a structured record, or a forked child: the parent owns that file
        payload = getattr(record, "payload", None)
        where = f"{record.pathname.split('site-packages/')[-1]}:{record.lineno}"
        try:
            writer.write_torch_record(metadata, payload, where)
        except Exception:
            self.handleError(record)
