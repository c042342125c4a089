"""`compilescope report`'s reading and its one-session end: the sessions at the paths the user
names (a session, a trace, a folder of ranks, a job's JSON, or the hidden trace a stopped run
left), each read as it is asked for, and one session explained in the terminal and written where
asked. A job's ranks go to app/cluster.py; diff and check read their runs here too."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

from compilescope.app.errors import CommandError, reading
from compilescope.app.view import open_command, print_session
from compilescope.session.model import Session

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def explain_one(session: Session, options: dict[str, Any], json_path: Path | None, html_path: Path | None) -> int:
    """One session: explained on stdout, saved (--json) and its report written (--html) where
    asked, the paths checked before anything is written; exit status 0."""
    from compilescope.findings.rules import findings
    from compilescope.outputs import absolute, check_writable
    from compilescope.render.text import escape_control, one_line

    for target, what in ((json_path, "the session"), (html_path, "the report")):  # before anything is written
        if target is not None:
            check_writable(absolute(target), what)
    found = findings(session)  # once, for the terminal and the report
    print_session(session, {**options, "found": found}, stream=sys.stdout)
    # (an OutputError here, a file that appeared at the path meanwhile, is main's one line)
    if json_path is not None:
        session.save(str(json_path), found)
        print(f"Saved the session to {one_line(str(json_path))}", file=sys.stderr)
    if html_path is not None:
        from compilescope.render.html import write_html

        write_html(session, html_path, found)
        print(
            escape_control(f"The report: {one_line(str(html_path))}   open it with: {open_command(str(html_path))}"),
            file=sys.stderr,
        )
    return 0


def read_sessions(name: str) -> list[Session]:
    """Every session at `name` (a session, a trace, a folder of ranks, a job's JSON) that holds
    anything, or the CommandError that says why there is none; for diff and check."""
    sessions = [s for s, records in each_session(sources_at(name)) if records is None or records > 0]
    if not sessions:
        raise CommandError(
            f"{name}: holds no torch structured-trace record (expected a session .json, a trace .log or a TORCH_TRACE folder)"
        )
    return sessions


def sources_at(name: str) -> list[tuple[str, Path]]:
    """What is to be read at `name`, one file each (session.loading.pieces), checked first."""
    from compilescope.session.loading import pieces

    if not name:  # Path("") is ".": an empty argument (an unset variable) must not read this folder
        raise CommandError("an empty path: name a session .json, a trace .log or a TORCH_TRACE folder (. for this folder)")
    if not os.path.lexists(Path(name)):
        left = _left_by_a_stopped_run(name)
        if left is None:
            raise CommandError(f"no such file or folder: {name}")
        name = left
    with reading(name):
        return [(name, piece) for piece in pieces(name)]


def _left_by_a_stopped_run(name: str) -> str | None:
    """The trace a run writes while its program runs (outputs.create_private: a hidden file
    beside `name`) where it never named it: its program ended by os._exit, or was killed. That
    file (the newest such), said on stderr; CommandError where a run is still writing it; None
    where there is none."""
    from compilescope.outputs import PARTIAL, in_use

    folder, base = os.path.split(os.path.abspath(name))
    try:
        hidden = [e for e in os.scandir(folder) if e.name.startswith(f".{base}.") and e.name.endswith(PARTIAL) and e.is_file()]
    except OSError:
        return None
    if not hidden:
        return None
    newest = max(hidden, key=lambda e: e.stat().st_mtime)
    shown = os.path.join(os.path.dirname(name), newest.name)
    if in_use(newest.path):
        raise CommandError(f"no such file or folder: {name} yet: the run writing it keeps it in {shown} until its program ends")
    print(
        f"compilescope: {name} was never named: the run that wrote it stopped before its end (os._exit, or killed); "
        f"reading {shown} (the next compilescope run in that folder keeps it as its .unfinished.log)",
        file=sys.stderr,
    )
    return shown


def each_session(sources: list[tuple[str, Path]]) -> Iterator[tuple[Session, int | None]]:
    """Each session in the sources, read as it is asked for."""
    from compilescope.session.loading import read_all

    for name, piece in sources:
        with reading(str(piece) if str(piece) != name else name):
            found = read_all(piece)
        yield from found


def is_trace(path: Path) -> bool:
    return path.name.endswith((".log", ".log.gz"))
