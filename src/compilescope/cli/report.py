"""compilescope report: explain a saved session or a trace torch wrote, without torch."""

from __future__ import annotations

import itertools
import os
import sys
from pathlib import Path

from compilescope.app.errors import CommandError
from compilescope.app.view import view_options
from compilescope.cli.options import add_view_options

# `compilescope report --help` imports this module and argparse only: the model, the findings
# and the renderers come in with run() (app/report.py), and a job's comparison (app/cluster.py:
# multiprocessing) only for a job.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


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
        parser.add_argument(
            "--timeline",
            metavar="PATH",
            help="also write the compile timeline, every stage torch timed, as Chrome Trace JSON (Perfetto, chrome://tracing)",
        )
        parser.add_argument("--rank", type=int, metavar="N", help="only rank N, explained in full")
        add_view_options(parser)

    def run(self, args: argparse.Namespace) -> int:
        from compilescope.app.report import each_session, explain_one, is_trace, sources_at

        options = view_options(args)
        outputs = [
            (given, ext, what)
            for given, ext, what in (
                (args.json, ".json", "the session"),
                (args.html, ".html", "the report"),
                (args.timeline, ".json", "the timeline"),
            )
            if given
        ]
        for option, given in (("--json", args.json), ("--html", args.html), ("--timeline", args.timeline)):
            if given == "":  # (left out by `if given` above: nothing would be written, and nothing said)
                raise CommandError(f"{option}: an empty path: name the file to write")
        for given, ext, what in outputs:  # before reading anything: a bad path costs no time
            _check_output(_target(given, "", ext), what)
        # (error lines are escaped once, by cli.main: they may repeat a path from elsewhere)
        sources = [source for name in args.paths for source in sources_at(name)]
        named = " ".join(args.paths)
        json_target = _target(args.json, "", ".json") if args.json else None
        html_target = _target(args.html, "", ".html") if args.html else None
        if (args.show or args.frame or args.all_frames) and len(sources) > 1 and args.rank is None:
            # (a job's view lists no compiled functions: these apply to one rank's explanation)
            print("compilescope report: --show, --frame and --all apply to one rank's explanation: add --rank N", file=sys.stderr)
        if args.timeline and len(sources) > 1 and args.rank is None:
            print("compilescope report: --timeline writes one rank's timeline: add --rank N (nothing written)", file=sys.stderr)
        if args.rank is None and len(sources) > 1 and all(is_trace(piece) for _, piece in sources):
            # a job's ranks, each a trace of its own: compared, read in worker processes
            from compilescope.app.cluster import report_cluster

            return report_cluster(iter(()), len(sources), named, json_target, html_target, [piece for _, piece in sources])
        stream = each_session(sources)
        if args.rank is not None:
            loaded = [(s, r) for s, r in stream if s.rank == args.rank]
            if not loaded:
                raise CommandError(f"no trace of rank {args.rank} in {named}")
        else:
            loaded = list(itertools.islice(stream, 2))
        if len(loaded) > 1 or (len(sources) > 1 and args.rank is None):
            # several sessions (saved ones, a job's JSON): compared, read here one at a time
            from compilescope.app.cluster import report_cluster

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
        status = explain_one(session, options, json_target, html_target)
        if args.timeline:
            from compilescope.app.timeline import write_timeline

            print(write_timeline(session, args.timeline), file=sys.stderr)
        return status


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
