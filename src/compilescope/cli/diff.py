"""compilescope diff: what changed between two runs, without torch."""

from __future__ import annotations

import argparse
import json
import sys

from compilescope.app.errors import CommandError

TYPE_CHECKING = False  # (the model comes in with run(): the command's --help loads none of it)
if TYPE_CHECKING:
    from compilescope.session.model import Session


class DiffCommand:
    """What changed between two runs: compiled functions and compiles, graph breaks, recompiles
    and their reasons, guards, kernels, compile time by stage, per-call times and bench figures.

    compilescope diff before.json after.json          # before and after a fix
    compilescope diff torch213/ torch214/             # two TORCH_TRACE folders: rank by rank
    compilescope diff traces/ traces/ --rank 0 --against-rank 1   # two ranks of one job
    compilescope diff a.json b.json --json changes.json --html changes.html

    Each side is a session (.json), a trace (.log, .log.gz) or a TORCH_TRACE folder. Items are
    matched by what they are, not by compile id or line number, so moved code is not a change.
    """

    @staticmethod
    def prepare_parser(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("before", help="the first run: a session .json, a trace .log or a TORCH_TRACE folder")
        parser.add_argument("after", help="the second run, the same kinds")
        parser.add_argument(
            "--rank", type=int, metavar="N", help="compare rank N (of the first run, and of the second unless --against-rank)"
        )
        parser.add_argument("--against-rank", type=int, metavar="M", help="compare with rank M of the second run (two ranks of one job)")
        parser.add_argument("--json", metavar="PATH", help="also write the changes as JSON")
        parser.add_argument("--html", metavar="PATH", help="also write the changes as one HTML page")

    def run(self, args: argparse.Namespace) -> int:
        from compilescope.app.report import read_sessions
        from compilescope.app.view import open_command
        from compilescope.findings.diff import diff
        from compilescope.outputs import absolute, check_writable, write_text
        from compilescope.render.compare import summary_table
        from compilescope.render.diff import DIFF_SCHEMA, diff_html, diff_json, renderables
        from compilescope.render.terminal import console_for, printable
        from compilescope.render.text import escape_control, one_line

        for option, target, what in (("--json", args.json, "the JSON"), ("--html", args.html, "the page")):  # before reading anything
            if target == "":  # (nothing would be written, and nothing said)
                raise CommandError(f"{option}: an empty path: name the file to write")
            if target:
                check_writable(absolute(target), what)
        pairs = _pairs(read_sessions(args.before), read_sessions(args.after), args)
        console = console_for(sys.stdout)
        results = []
        for index, (before, after, before_name, after_name) in enumerate(pairs):
            changes = diff(before, after, before_name, after_name)
            results.append(changes)
            if index:
                console.print()
            console.print(printable([*renderables(changes, summary_table(before, after, "before", "after"))]))
        if args.json:
            data = diff_json(results[0]) if len(results) == 1 else {"schema": DIFF_SCHEMA, "ranks": [diff_json(r) for r in results]}
            write_text(args.json, json.dumps(data, ensure_ascii=False, indent=1), "the JSON")
            print(f"Saved the changes to {one_line(args.json)}", file=sys.stderr)
        if args.html:
            write_text(args.html, "\n".join(diff_html(r) for r in results[:1]) if len(results) == 1 else _pages(results), "the page")
            print(escape_control(f"The changes: {one_line(args.html)}   open it with: {open_command(args.html)}"), file=sys.stderr)
        return 0


def _pages(results: list) -> str:
    """Several ranks' changes as one page: each rank's page body after the other."""
    from compilescope.render.diff import diff_html

    pages = [diff_html(r) for r in results]
    head, _, _ = pages[0].partition("<body>\n")
    bodies = [page.partition("<body>\n")[2].rpartition("</body>")[0] for page in pages]
    return head + "<body>\n" + "<hr>\n".join(bodies) + "</body>\n</html>\n"


def _name(session: Session, path: str, several: bool) -> str:
    return f"{path} rank {session.rank}" if several and session.rank is not None else path


def _pairs(before: list[Session], after: list[Session], args: argparse.Namespace) -> list[tuple[Session, Session, str, str]]:
    """Which session of each side to compare with which: one each, the ranks asked for, or rank
    by rank."""
    if args.rank is not None or args.against_rank is not None:
        first = args.rank if args.rank is not None else args.against_rank
        second = args.against_rank if args.against_rank is not None else args.rank
        return [
            (
                _rank(before, first, args.before),
                _rank(after, second, args.after),
                f"{args.before} rank {first}",
                f"{args.after} rank {second}",
            )
        ]
    if len(before) == 1 and len(after) == 1:
        return [(before[0], after[0], args.before, args.after)]
    if len(before) == 1 or len(after) == 1:
        many, name = (after, args.after) if len(before) == 1 else (before, args.before)
        ranks = ", ".join(str(s.rank) for s in many)
        raise CommandError(f"{name} holds {len(many)} ranks ({ranks}) and the other side one: say which with --rank N")
    by_rank = {s.rank: s for s in after}
    pairs = [
        (s, by_rank[s.rank], _name(s, args.before, True), _name(by_rank[s.rank], args.after, True)) for s in before if s.rank in by_rank
    ]
    if not pairs:
        raise CommandError(f"{args.before} and {args.after} share no rank: compare two ranks with --rank N --against-rank M")
    return pairs


def _rank(sessions: list[Session], rank: int, name: str) -> Session:
    found = [s for s in sessions if s.rank == rank]
    if not found and len(sessions) == 1 and sessions[0].rank is None:
        return sessions[0]  # a single run's trace names no rank
    if len(found) != 1:
        have = ", ".join(str(s.rank) for s in sessions)
        raise CommandError(
            f"no trace of rank {rank} in {name} (it holds {have or 'no rank'})"
            if not found
            else f"{name}: rank {rank} appears {len(found)} times"
        )
    return found[0]
