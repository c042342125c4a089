"""Options shared by the commands that print a session (run, report): declared here, read by
app/view.py."""

from __future__ import annotations

from compilescope.choices import DETAILS

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def add_view_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--show",
        metavar="WHAT",
        default="",
        help=f"details to print for each compile, comma-separated: {', '.join(DETAILS)}, or all",
    )
    parser.add_argument("--frame", metavar="NAME", help="only the compiled function with this name")
    parser.add_argument("--all", dest="all_frames", action="store_true", help="list every compiled function (default: the first 25)")
