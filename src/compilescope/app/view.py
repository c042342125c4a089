"""How a session is shown in the terminal: the view options (--show, --frame, --all) checked
and turned into the renderer's arguments, the explanation printed, and the command that opens a
report in the browser. Shared by run's pipeline, report and the cluster view."""

from __future__ import annotations

from compilescope.app.errors import CommandError
from compilescope.choices import DETAILS

# Light on purpose (run loads it before the program): rich and the session model come in with
# print_session, when there is something to print.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any, TextIO

    from compilescope.app.plan import RunPlan
    from compilescope.session.model import Session


def view_options(args: argparse.Namespace | RunPlan) -> dict[str, Any]:
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
