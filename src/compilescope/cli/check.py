"""compilescope check: a CI gate over a run, without torch."""

from __future__ import annotations

import argparse
import sys

from compilescope.app.errors import CommandError


class CheckCommand:
    """Fail (exit status 1) where a run has more graph breaks, recompiles or compile time than
    allowed, or anything new compared with a baseline run; pass (0) otherwise.

    compilescope check compilescope-train.json --max-graph-breaks 0 --max-recompiles 2
    compilescope check traces/ --max-compile-s 120           # every rank of a job
    compilescope check new.json --baseline main.json         # nothing new since main

    Each violation is listed in one line; status 2 means the run could not be read or nothing
    was asked. A value a limit cannot be compared with (a compile time that is NaN, or missing)
    is a violation, and so is a partial run (one that stopped mid-compile or was killed: its
    report says so) unless --allow-incomplete. docs/cli.md shows it in a CI job and in a pytest
    test.
    """

    @staticmethod
    def prepare_parser(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("run", metavar="SESSION_OR_TRACE", help="a session .json, a trace .log or a TORCH_TRACE folder")
        parser.add_argument(
            "--max-graph-breaks", type=_count, metavar="N", help="at most N graph breaks (places: a break a recompile meets again is one)"
        )
        parser.add_argument("--max-recompiles", type=_count, metavar="N", help="at most N recompiles")
        parser.add_argument("--max-compile-s", type=_seconds, metavar="S", help="at most S seconds compiling (per rank)")
        parser.add_argument(
            "--baseline",
            metavar="OLD",
            help="no graph break (by its place, not torch's wording), recompile or compiled function that OLD (the same kinds of path) did not have",
        )
        parser.add_argument(
            "--allow-incomplete",
            action="store_true",
            help="check what a partial run holds (one that stopped mid-compile, or whose program was killed) instead of failing it",
        )

    def run(self, args: argparse.Namespace) -> int:
        from compilescope.app.report import read_sessions
        from compilescope.findings.check import Limits, violations
        from compilescope.render.text import one_line
        from compilescope.session.counts import said

        limits = Limits(args.max_graph_breaks, args.max_recompiles, args.max_compile_s, allow_incomplete=args.allow_incomplete)
        if not limits.any and args.baseline is None:
            raise CommandError("nothing to check: give --max-graph-breaks, --max-recompiles, --max-compile-s or --baseline")
        sessions = read_sessions(args.run)
        baselines = read_sessions(args.baseline) if args.baseline is not None else []  # ("" refused there)
        found: list[str] = []
        for session in sessions:
            label = f"rank {session.rank}: " if len(sessions) > 1 and session.rank is not None else ""
            baseline = None
            if baselines:
                same = [b for b in baselines if b.rank == session.rank] if len(baselines) > 1 else baselines
                if not same:
                    raise CommandError(f"the baseline {args.baseline} has no rank {session.rank}")
                baseline = same[0]
            found.extend(violations(session, limits, baseline, label, name=args.run, baseline_name=args.baseline or "the baseline"))
        checked = ", ".join(
            part
            for part in (
                f"at most {said('graph_break_places', args.max_graph_breaks)}" if args.max_graph_breaks is not None else "",
                f"at most {said('recompiles', args.max_recompiles)}" if args.max_recompiles is not None else "",
                f"at most {args.max_compile_s:g} s compiling" if args.max_compile_s is not None else "",
                f"nothing new since {args.baseline}" if args.baseline else "",
            )
            if part
        )
        if found:
            print(
                f"compilescope check: {len(found)} violation{'s' if len(found) != 1 else ''} of {one_line(checked)} in {one_line(args.run)}"
            )
            for violation in found:
                print(f"  ✖ {one_line(violation)}")
            return 1
        print(f"compilescope check: passed ({one_line(checked)}) in {one_line(args.run)}", file=sys.stdout)
        return 0


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more: {text}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number of seconds, 0 or more: {text}")
    return value
