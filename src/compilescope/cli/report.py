"""compilescope report: explain a saved session or a trace torch wrote, without torch."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from compilescope.cli.errors import CommandError
from compilescope.cli.options import (
    add_view_options,
    open_command,
    print_session,
    view_options,
)
from compilescope.session.model import Session


class ReportCommand:
    """Explain a saved session (.json) or a trace torch wrote with TORCH_TRACE=dir.

    compilescope report compilescope-train.json --show all
    compilescope report /tmp/tracedir            # every rank's log in the folder
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
        parser.add_argument("--json", metavar="PATH", help="also save the session as JSON (one file per rank: PATH gets a .rankN suffix)")
        parser.add_argument("--html", metavar="PATH", help="write the HTML report (one file per rank: PATH gets a .rankN suffix)")
        parser.add_argument("--rank", type=int, metavar="N", help="only the trace of rank N")
        add_view_options(parser)

    def run(self, args: argparse.Namespace) -> int:
        from compilescope.findings.rules import findings
        from compilescope.outputs import absolute, check_writable
        from compilescope.render.console import console_for, printable, rank_summary
        from compilescope.render.text import escape_control, one_line
        from compilescope.session.jsonio import SessionFormatError
        from compilescope.session.loading import read_all
        from compilescope.trace.reader import UnreadableInput

        options = view_options(args)
        outputs = [
            (given, ext, what) for given, ext, what in ((args.json, ".json", "the session"), (args.html, ".html", "the report")) if given
        ]
        for given, ext, what in outputs:  # before reading anything: a bad path costs no time
            _check_output(_target(given, "", ext), what)
        loaded: list[tuple[Session, int | None]] = []
        for name in args.paths:
            # (error lines are escaped once, by cli.main: they may repeat a path from elsewhere)
            path = Path(name)
            if not os.path.lexists(path):
                raise CommandError(f"no such file or folder: {name}")
            try:
                loaded.extend(read_all(path))
            except (SessionFormatError, UnreadableInput) as error:
                raise CommandError(str(error) if isinstance(error, UnreadableInput) else f"{name}: {error}") from None
            except FileNotFoundError as error:
                raise CommandError(str(error)) from None
            except UnicodeDecodeError:
                raise CommandError(f"{name}: not a text file; expected a session .json or a trace .log") from None
            except OSError as error:  # unreadable: permissions, a broken link
                raise CommandError(f"{name}: cannot be read ({error.strerror or error})") from None
        named = " ".join(args.paths)
        if args.rank is not None:
            loaded = [(s, r) for s, r in loaded if s.rank == args.rank]
            if not loaded:
                raise CommandError(f"no trace of rank {args.rank} in {named}")
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
        sessions = [s for s, _ in loaded]
        targets: list[tuple[Session, Path | None, Path | None]] = []
        for index, session in enumerate(sessions):
            suffix = f".rank{session.rank if session.rank is not None else index}" if len(sessions) > 1 else ""
            targets.append(
                (
                    session,
                    _target(args.json, suffix, ".json") if args.json else None,
                    _target(args.html, suffix, ".html") if args.html else None,
                )
            )
        for _, json_path, html_path in targets:  # every output, before anything is written
            for target, what in ((json_path, "the session"), (html_path, "the report")):
                if target is not None:
                    check_writable(absolute(target), what)
        if len(sessions) > 1:
            console_for(sys.stdout).print(printable(rank_summary(sessions)))
        for index, (session, json_path, html_path) in enumerate(targets):
            if index:
                print(file=sys.stdout)
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
