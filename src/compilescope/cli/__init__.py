"""The `compilescope` command: one module per subcommand, each a class whose docstring is its help.

Only the command asked for is imported (its module, and what it needs): `compilescope run` on a
program that never imports torch costs little more than python itself (docs/cli.md).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from compilescope._version import __version__
from compilescope.app.errors import CommandError
from compilescope.outputs import OutputError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# each command: the module and class that run it
COMMANDS = {
    "tour": "compilescope.cli.tour:TourCommand",
    "run": "compilescope.cli.run:RunCommand",
    "report": "compilescope.cli.report:ReportCommand",
    "diff": "compilescope.cli.diff:DiffCommand",
    "check": "compilescope.cli.check:CheckCommand",
    "bench": "compilescope.cli.bench:BenchCommand",
    "zoo": "compilescope.cli.zoo:ZooCommand",
    "decompile": "compilescope.cli.decompile:DecompileCommand",
    "repro": "compilescope.cli.repro:ReproCommand",
    "doctor": "compilescope.cli.doctor:DoctorCommand",
}

# each command's line in `compilescope --help`: the first paragraph of its class's docstring
# (tests/test_first_contact.py checks they agree), here so that the list of commands, and
# --version, import none of them
SUMMARIES = {
    "tour": "A guided tour of what torch.compile does, on this machine: nine small lessons, each run for real in "
    "its own process under compilescope, each explained with the figures it measured.",
    "run": "Run a Python program exactly as `python` would, then explain what torch.compile did.",
    "report": "Explain a saved session (.json) or a trace torch wrote with TORCH_TRACE=dir.",
    "diff": "What changed between two runs: compiled functions and compiles, graph breaks, recompiles and their "
    "reasons, guards, kernels, compile time by stage, per-call times and bench figures.",
    "check": "Fail (exit status 1) where a run has more graph breaks, recompiles or compile time than allowed, or "
    "anything new compared with a baseline run; pass (0) otherwise.",
    "bench": "Measure eager against compiled for a model: speedup, compile cost, break-even.",
    "zoo": "Real Hugging Face and timm models, each compiled and measured in processes of its own.",
    "decompile": "Run a program unchanged and write, for each function torch.compile compiled, one readable .py "
    "file in the order the program runs it.",
    "repro": "Write a standalone script that runs one compile's graph eagerly and compiled, and says whether they match.",
    "doctor": "Check that torch.compile can work here, and say how to fix what is missing.",
}


def command(name: str) -> Any:
    """The class of the command `name` (its module imported now)."""
    module, cls = COMMANDS[name].split(":")
    return getattr(importlib.import_module(module), cls)


def _asked_for(argv: list[str]) -> str | None:
    """The command the arguments name, if they name one (the first word not an option)."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line: with `only` (the command the arguments name), that command's options
    (its module imported now, the others not); without, the list of commands alone (their
    summaries, no module imported: nothing but --help and --version can be parsed then)."""
    parser = argparse.ArgumentParser(
        prog="compilescope",
        description="See what torch.compile did to your program, whether it paid off, and what to change.",
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="version", version=f"compilescope {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS if only is None else [only]:
        if only is None:
            subparsers.add_parser(name, help=SUMMARIES[name])
            continue
        cls = command(name)
        doc = (cls.__doc__ or "").strip()
        sub = subparsers.add_parser(
            name,
            help=summary(doc) or None,
            description=doc,
            formatter_class=_RawDescriptionFormatter,
        )
        cls.prepare_parser(sub)
    return parser


def _columns() -> int:
    """The terminal's width as shutil.get_terminal_size() finds it for argparse: $COLUMNS, else
    the width of the terminal on stdout, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Formatter(argparse.HelpFormatter):
    """argparse's help layout, its width found without importing shutil: argparse makes a
    formatter for every option it is given, and shutil (with bz2, lzma, fnmatch) adds ~2 ms to
    every command's start, `compilescope run` on a short program included."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position, width if width is not None else _columns() - 2)


class _RawDescriptionFormatter(_Formatter, argparse.RawDescriptionHelpFormatter):
    """A command's help: its docstring as written (the same width rule as _Formatter)."""


def summary(doc: str) -> str:
    """A command's one-sentence help, for `compilescope --help`: the first paragraph of its
    docstring, however many lines it was written on."""
    paragraph = doc.strip().split("\n\n", 1)[0]
    return " ".join(paragraph.split())


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(only=_asked_for(argv))
    if argv and argv[0] == "run":
        from compilescope.cli.run import with_option_values

        argv = with_option_values(parser, argv)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return command(args.command)().run(args)
    except CommandError as error:
        _say(args.command, error)
        return error.exit_code
    except OutputError as error:  # a path compilescope will not write (outputs.py says why)
        _say(args.command, error)
        return 2


def _say(name: str, error: Exception) -> None:
    """The one line of an error, its control characters shown visibly: it may repeat a path or
    a name from a file from elsewhere."""
    from compilescope.render.text import one_line

    print(f"compilescope {name}: {one_line(str(error))}", file=sys.stderr)
