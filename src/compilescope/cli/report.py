"""compilescope report: explain a saved session or a trace torch wrote, without torch."""

from __future__ import annotations

import argparse
import itertools
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from compilescope.app.errors import CommandError, reading
from compilescope.app.view import open_command, print_session, view_options
from compilescope.cli.options import add_view_options
from compilescope.session.model import Session


class ReportCommand:
    """Explain a saved session (.json) or a trace torch wrote with TORCH_TRACE=dir.

    compilescope report compilescope-train.json --show all
    compilescope report /tmp/tracedir            # a job's ranks: what diverged between them
    compilescope report /tmp/tracedir/dedicated_log_torch_trace_rank_0_abc.log
    compilescope report compilescope-train.rank*.json   # the ranks `compilescope run` saved under torchrun

    Needs no torch: a trace copied from a cluster can be explained on a laptop.
    """

    @staticmethod
    def prepare_parser(parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "paths",
            nargs="+",
            metavar="path",
            help="a session .json, a trace .log file, or a TORCH_TRACE folder; several (compilescope-train.rank*.json) are read as one job's ranks",
        )
        parser.add_argument(
            "--json", metavar="PATH", help="also save the session as JSON (a job's ranks: one file, every rank's session and what diverged)"
        )
        parser.add_argument(
            "--html", metavar="PATH", help="write the HTML report (a job's ranks: one page, what diverged first, then each rank)"
        )
        parser.add_argument("--rank", type=int, metavar="N", help="only rank N, explained in full")
        add_view_options(parser)

    def run(self, args: argparse.Namespace) -> int:
        from compilescope.findings.rules import findings
        from compilescope.outputs import absolute, check_writable
        from compilescope.render.text import escape_control, one_line

        options = view_options(args)
        outputs = [
            (given, ext, what) for given, ext, what in ((args.json, ".json", "the session"), (args.html, ".html", "the report")) if given
        ]
        for option, given in (("--json", args.json), ("--html", args.html)):
            if given == "":  # (left out by `if given` above: nothing would be written, and nothing said)
                raise CommandError(f"{option}: an empty path: name the file to write")
        for given, ext, what in outputs:  # before reading anything: a bad path costs no time
            _check_output(_target(given, "", ext), what)
        # (error lines are escaped once, by cli.main: they may repeat a path from elsewhere)
        sources = [source for name in args.paths for source in _sources(name)]
        named = " ".join(args.paths)
        json_target = _target(args.json, "", ".json") if args.json else None
        html_target = _target(args.html, "", ".html") if args.html else None
        from compilescope.app.cluster import report_cluster

        if (args.show or args.frame or args.all_frames) and len(sources) > 1 and args.rank is None:
            # (a job's view lists no compiled functions: these apply to one rank's explanation)
            print("compilescope report: --show, --frame and --all apply to one rank's explanation: add --rank N", file=sys.stderr)
        if args.rank is None and len(sources) > 1 and all(_is_trace(piece) for _, piece in sources):
            # a job's ranks, each a trace of its own: compared, read in worker processes
            return report_cluster(iter(()), len(sources), named, json_target, html_target, [piece for _, piece in sources])
        stream = _sessions(sources)
        if args.rank is not None:
            loaded = [(s, r) for s, r in stream if s.rank == args.rank]
            if not loaded:
                raise CommandError(f"no trace of rank {args.rank} in {named}")
        else:
            loaded = list(itertools.islice(stream, 2))
        if len(loaded) > 1 or (len(sources) > 1 and args.rank is None):
            # several sessions (saved ones, a job's JSON): compared, read here one at a time
            return report_cluster(itertools.chain(loaded, stream), max(len(sources), len(loaded)), named, json_target, html_target)
        if not any(records is None or records > 0 for _, records in loaded):
            skipped = next((s.skipped[0] for s, _ in loaded if s.skipped), None)
            if skipped is None:
                raise CommandError(
                    f"{named}: the trace is empty: it holds no records "
                    "(a trace written with TORCH_TRACE=dir or by compilescope run holds at least one)"
                )
            raise CommandError(
                f"{named}: no torch structured-trace records could be read ({skipped}); "
                "expected a file written with TORCH_TRACE=dir or by compilescope run"
            )
        ((session, _),) = loaded
        json_path, html_path = json_target, html_target
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
    sessions = [s for s, records in _sessions(_sources(name)) if records is None or records > 0]
    if not sessions:
        raise CommandError(
            f"{name}: holds no torch structured-trace record (expected a session .json, a trace .log or a TORCH_TRACE folder)"
        )
    return sessions


def _sources(name: str) -> list[tuple[str, Path]]:
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


def _sessions(sources: list[tuple[str, Path]]) -> Iterator[tuple[Session, int | None]]:
    """Each session in the sources, read as it is asked for."""
    from compilescope.session.loading import read_all

    for name, piece in sources:
        with reading(str(piece) if str(piece) != name else name):
            found = read_all(piece)
        yield from found


def _is_trace(path: Path) -> bool:
    return path.name.endswith((".log", ".log.gz"))


def _target(given: str, suffix: str, extension: str) -> Path:
    """Where an output goes: PATH, with .rankN before its suffix for one rank of several."""
    target = Path(given)
    return target.with_name(target.stem + suffix + (target.suffix or extension))


def _check_output(target: Path, what: str) -> None:
    """OutputError, before anything is read, where an output can never be written: its folder
    is missing, or the path is a folder, a link or a special file. (Whether a file there is ours
    is checked again, with the final names, before anything is written.)"""
    from compilescope.outputs import absolute, check_writable

    path = Path(absolute(target))
    if not path.parent.is_dir() or (os.path.lexists(path) and (path.is_symlink() or not path.is_file())):
        check_writable(path, what)
