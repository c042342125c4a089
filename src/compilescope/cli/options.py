"""Options shared by the commands that print a session (run, report)."""

from __future__ import annotations

from compilescope.choices import DETAILS
from compilescope.cli.errors import CommandError

# Light on purpose (run loads it before the program): rich and the session model come in with
# print_session, when there is something to print.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any, TextIO

    from compilescope.cli.run_options import RunOptions
    from compilescope.session.model import Session


def add_view_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--show",
        metavar="WHAT",
        default="",
        help=f"details to print for each compile, comma-separated: {', '.join(DETAILS)}, or all",
    )
    parser.add_argument("--frame", metavar="NAME", help="only the compiled function with this name")
    parser.add_argument("--all", dest="all_frames", action="store_true", help="list every compiled function (default: the first 25)")


def view_options(args: argparse.Namespace | RunOptions) -> dict[str, Any]:
    show = [item.strip() for item in (args.show or "").split(",") if item.strip()]
    unknown = [item for item in show if item not in DETAILS and item != "all"]
    if unknown:
        raise CommandError(f"--show: unknown detail {', '.join(unknown)}; choose from {', '.join(DETAILS)}, all")
    return {"show": show, "frame_filter": args.frame, "max_frames": 10**9 if args.all_frames else 25}


def print_session(session: Session, options: dict[str, Any], stream: TextIO) -> None:
    """The explanation, laid out for `stream`: the terminal's width, or 100 columns piped."""
    from compilescope.render.console import show
    from compilescope.render.terminal import console_for

    show(session, console=console_for(stream), **options)


def open_command(path: str) -> str:
    """The command that opens a file in the browser on this platform."""
    import shlex
    import sys

    if sys.platform == "darwin":
        return f"open {shlex.quote(path)}"
    if sys.platform.startswith("win"):
        return f'start "" "{path}"'
    return f"xdg-open {shlex.quote(path)}"
