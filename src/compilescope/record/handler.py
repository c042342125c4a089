"""The logging handler on torch's structured-trace logger: each record torch emits goes to the
trace file (record/writer.py), as `TORCH_TRACE=dir` would write it.

Imported once the program has imported torch (which imports logging itself), never before.
"""

from __future__ import annotations

import logging
import os

from compilescope.record.writer import TraceFileWriter
from compilescope.session.places import library

TYPE_CHECKING = False
if TYPE_CHECKING:
    from compilescope.record.progress import Progress


class TraceHandler(logging.Handler):
    def __init__(self, writer: TraceFileWriter) -> None:
        super().__init__(level=logging.DEBUG)
        self.writer = writer  # replaced in a forked child that writes a trace of its own
        # torch's numbers for the files of compilescope's own frames (and runpy's, which runs
        # `python -m compilescope`): they sit at the bottom of every stack torch writes, above
        # the user's program, and are left out of the trace, so that it reads as under python
        self._ours: set[int] = set()
        self.progress: Progress | None = None  # the live status line (record/progress.py), on a terminal

    def emit(self, record: logging.LogRecord) -> None:
        metadata = getattr(record, "metadata", None)
        writer = self.writer
        if not isinstance(metadata, dict) or os.getpid() != writer.pid:
            return  # not a structured record, or a forked child: the parent owns that file
        payload = getattr(record, "payload", None)
        where = f"{record.pathname.split('site-packages/')[-1]}:{record.lineno}"
        if "str" in metadata:
            self.note_file(metadata["str"])
        elif "dynamo_start" in metadata and self._ours:
            metadata = self._without_our_frames(metadata)
        try:
            writer.write_torch_record(metadata, payload, where)
        except Exception:
            self.handleError(record)
        if self.progress is not None:
            self.progress.on_record(metadata, payload)

    def note_file(self, interned: object) -> None:
        """A file name torch numbered (its `str` record): noted if it is one of ours."""
        if isinstance(interned, (list, tuple)) and len(interned) == 2 and isinstance(interned[0], str) and isinstance(interned[1], int):
            name = interned[0]
            if library(name) == "compilescope" or name == "<frozen runpy>" or name.endswith("/runpy.py"):
                self._ours.add(interned[1])

    def _without_our_frames(self, metadata: dict) -> dict:
        """dynamo_start's stack without the frames of compilescope (and runpy) below the
        program's; a copy: torch's own dict, which other handlers may read, is left as it is."""
        start = metadata.get("dynamo_start")
        if not isinstance(start, dict) or not isinstance(stack := start.get("stack"), list):
            return metadata
        skip = 0
        while skip < len(stack) - 1 and isinstance(stack[skip], dict) and stack[skip].get("filename") in self._ours:
            skip += 1
        if not skip:
            return metadata
        return {**metadata, "dynamo_start": {**start, "stack": stack[skip:]}}
