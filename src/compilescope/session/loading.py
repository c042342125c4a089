"""Sessions read from a path: a saved session (.json), a trace file, or a TORCH_TRACE folder
(one session per rank's log). The package root's load() and load_all() and `compilescope
report` read through here."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from compilescope.session.model import Program, Session


def read_all(path: str | Path) -> list[tuple[Session, int | None]]:
    """Each session at `path`, with the number of records its trace held (None: a saved session).
    A file from elsewhere is checked before use: anything but a regular file or a folder is
    refused (trace.reader.UnreadableInput), and a session's values are checked against the model
    (session.jsonio.SessionFormatError)."""
    from compilescope.trace.reader import check_input, open_trace

    target = Path(path)
    if not target.exists():
        raise FileNotFoundError(f"{path}: no such file or folder")
    check_input(target)  # a pipe or a device: refused before it is opened
    if target.is_file():
        with open_trace(target) as handle:
            is_json = handle.read(64).lstrip().startswith("{")
        if is_json:
            from compilescope.session.jsonio import loads_all

            with open_trace(target, errors="strict") as handle:
                return [(session, None) for session in loads_all(handle.read())]
    return list(_traces(target, path))


def pieces(path: str | Path) -> list[Path]:
    """What `iter_all` will read at `path`, one item per session file (a folder: its traces),
    so that a caller can say how many there are before reading any (checks as read_all)."""
    from compilescope.trace.reader import check_input, trace_files

    target = Path(path)
    if not target.exists():
        raise FileNotFoundError(f"{path}: no such file or folder")
    check_input(target)
    if target.is_dir():
        files = trace_files(target)
        if not files:
            raise FileNotFoundError(f"no trace files (*.log, *.log.gz) in {path}")
        return files
    return [target]


def iter_all(path: str | Path) -> Iterator[tuple[Session, int | None]]:
    """read_all, one session at a time: a folder of many large rank logs is read with one
    rank's session in memory."""
    for piece in pieces(path):
        yield from read_all(piece)


def _traces(target: Path, path: str | Path) -> Iterator[tuple[Session, int | None]]:
    from compilescope.session.build import read_traces

    for read in read_traces(target):
        session = read.session
        if session.program is None:
            session.program = Program(kind="trace", target=str(session.trace_files[0] if session.trace_files else path))
        yield read.session, read.records


def load_all(path: str | Path) -> list[Session]:
    """Every session at `path` (see read_all)."""
    return [session for session, _ in read_all(path)]
