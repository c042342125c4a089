"""The `compilescope` command: one module per subcommand, each a class whose docstring is its help."""

from __future__ import annotations

import argparse
import sys

from compilescope import __version__
from compilescope.cli.bench import BenchCommand
from compilescope.cli.decompile import DecompileCommand
from compilescope.cli.doctor import DoctorCommand
from compilescope.cli.errors import CommandError
from compilescope.cli.report import ReportCommand
from compilescope.cli.run import RunCommand
from compilescope.outputs import OutputError

COMMANDS = {"run": RunCommand, "report": ReportCommand, "bench": BenchCommand, "decompile": DecompileCommand, "doctor": DoctorCommand}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="compilescope",
        description="See what torch.compile did to your program, whether it paid off, and what to change.",
    )
    parser.add_argument("--version", action="version", version=f"compilescope {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, command in COMMANDS.items():
        doc = (command.__doc__ or "").strip()
        sub = subparsers.add_parser(
            name,
            help=summary(doc) or None,
            description=doc,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        command.prepare_parser(sub)
    return parser


def summary(doc: str) -> str:
    """A command's one-sentence help, for `compilescope --help`: the first paragraph of its
    docstring, however many lines it was written on."""
    paragraph = doc.strip().split("\n\n", 1)[0]
    return " ".join(paragraph.split())


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return COMMANDS[args.command]().run(args)
    except CommandError as error:
        _say(args.command, error)
        return error.exit_code
    except OutputError as error:  # a path compilescope will not write (outputs.py says why)
        _say(args.command, error)
        return 2


def _say(command: str, error: Exception) -> None:
    """The one line of an error, its control characters shown visibly: it may repeat a path or
    a name from a file from elsewhere."""
    from compilescope.render.console import one_line

    print(f"compilescope {command}: {one_line(str(error))}", file=sys.stderr)
