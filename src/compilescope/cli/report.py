"""compilescope report: explain a saved session or a trace torch wrote, without torch."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from compilescope.cli.errors import CommandError
from compilescope.cli.options import add_view_options, open_command, print_session, view_options


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
        parser.add_argument("paths", nargs="+", metavar="path", help="a session .json, a trace .log file, or a TORCH_TRACE folder; several (compilescope-train.rank*.json) are read as one job's ranks")
        parser.add_argument("--json", metavar="PATH", help="also save the session as JSON (one file per rank: PATH gets a .rankN suffix)")
        parser.add_argument("--html", metavar="PATH", help="write the HTML report (one file per rank: PATH gets a .rankN suffix)")
        parser.add_argument("--rank", type=int, metavar="N", help="only the trace of rank N")
        add_view_options(parser)

    def run(self, args: argparse.Namespace) -> int:
        from compilescope import load_all
        from compilescope.session.jsonio import SessionFormatError

        options = view_options(args)
        sessions = []
        for name in args.paths:
            path = Path(name)
            if not path.exists():
                raise CommandError(f"no such file or folder: {name}")
            try:
                sessions.extend(load_all(path))
            except SessionFormatError as error:
                raise CommandError(f"{name}: {error}") from None
            except FileNotFoundError as error:
                raise CommandError(str(error)) from None
            except UnicodeDecodeError:
                raise CommandError(f"{name}: not a text file; expected a session .json or a trace .log") from None
        named = " ".join(args.paths)
        if args.rank is not None:
            sessions = [s for s in sessions if s.rank == args.rank]
            if not sessions:
                raise CommandError(f"no trace of rank {args.rank} in {named}")
        readable = [s for s in sessions if s.frames or not s.skipped or s.program and s.program.kind != "trace"]
        if not readable:
            raise CommandError(
                f"{named}: no torch structured-trace records could be read "
                f"({sessions[0].skipped[0] if sessions and sessions[0].skipped else 'empty'}); "
                "expected a file written with TORCH_TRACE=dir or by compilescope run"
            )
        if len(sessions) > 1:
            from rich.console import Console, Group

            from compilescope.render.console import rank_summary

            Console(file=sys.stdout, highlight=False).print(Group(*rank_summary(sessions)))
        for index, session in enumerate(sessions):
            if index:
                print(file=sys.stdout)
            print_session(session, options, stream=sys.stdout)
            suffix = f".rank{session.rank if session.rank is not None else index}" if len(sessions) > 1 else ""
            if args.json:
                target = Path(args.json)
                target = target.with_name(target.stem + suffix + (target.suffix or ".json"))
                session.save(str(target))
                print(f"Saved the session to {target}", file=sys.stderr)
            if args.html:
                from compilescope.render.html import write_html

                target = Path(args.html)
                target = target.with_name(target.stem + suffix + (target.suffix or ".html"))
                write_html(session, target)
                print(f"The report: {target}   open it with: {open_command(str(target))}", file=sys.stderr)
        return 0
