"""compilescope run: run a program unchanged and explain what torch.compile did in it.

The command declares its options; the run itself is app/pipeline.py's, over the RunPlan built
from them (app/plan.py).
"""

from __future__ import annotations

import argparse

from compilescope.app.pipeline import run_program
from compilescope.app.plan import RunPlan
from compilescope.cli.options import add_view_options

DEFAULT_CALLS = 3  # (record/accuracy.py's; not imported from there: it imports torch)
_BARE = "--check-accuracy"


def _calls(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: a number of calls, 1 or more (--check-accuracy=N)")
    return int(text)


def with_option_values(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """`run`'s arguments with a bare --check-accuracy given its default (--check-accuracy=3): a
    flag whose number is optional would otherwise take the program's name as its number. Only
    compilescope's own options are looked at (those before the program), never the program's."""
    commands = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    run = commands[0].choices.get("run") if commands else None
    valued = {s for a in (run._actions if run is not None else []) if a.nargs != 0 for s in a.option_strings}
    argv = list(argv)
    index = 1
    while index < len(argv):
        token = argv[index]
        if token == _BARE:
            if index + 1 < len(argv) and argv[index + 1].isdigit():
                index += 2  # (its number given apart: --check-accuracy 5)
            else:
                argv[index] = f"{_BARE}={DEFAULT_CALLS}"
                index += 1
            continue
        if token == "-m" or not token.startswith("-") or token == "--":
            break  # the program: what follows is its own
        index += 2 if token in valued else 1
    return argv


class RunCommand:
    """Run a Python program exactly as `python` would, then explain what torch.compile did.

    compilescope run train.py --epochs 1
    compilescope run -m mypackage.train --epochs 1

    The program's output, exit status and exceptions pass through unchanged; the explanation
    goes to stderr afterwards. The session is saved as compilescope-<name>.json, the report as
    compilescope-<name>.html (one self-contained file; none where nothing was compiled), and
    torch's raw structured trace as compilescope-<name>.log (readable by `compilescope report`
    and tlparse), also when the program crashes.
    """

    @staticmethod
    def prepare_parser(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("-m", dest="module", action="store_true", help="run a library module as a script, like python -m")
        parser.add_argument("--json", metavar="PATH", help="where to save the session (default: compilescope-<name>.json)")
        parser.add_argument("--trace", metavar="PATH", help="where to save torch's raw trace (default: compilescope-<name>.log)")
        parser.add_argument("--html", metavar="PATH", help="where to write the HTML report (default: compilescope-<name>.html)")
        parser.add_argument("--no-html", action="store_true", help="write no HTML report")
        parser.add_argument(
            "--timeline",
            metavar="PATH",
            help="also write the compile timeline, every stage torch timed, as Chrome Trace JSON (Perfetto, chrome://tracing)",
        )
        parser.add_argument("--no-save", action="store_true", help="save nothing; only print the explanation")
        parser.add_argument(
            "--profile",
            action="store_true",
            help="profile the whole run with torch.profiler: time per kernel with its ATen ops and source lines, and the calls each compiled version served (slows the program; asks Inductor for kernel events and provenance)",
        )
        parser.add_argument(
            "--no-calls",
            action="store_true",
            help="do not record which compiled version served each call (recorded with sys.monitoring on Python 3.12+; it adds a few µs to each compiled call, measured in docs/cli.md)",
        )
        parser.add_argument(
            "--no-children",
            action="store_true",
            help="do not follow the program's Python child processes (multiprocessing, subprocesses); by default each one that compiles writes its own trace beside the program's, and the session lists them",
        )
        parser.add_argument(
            "--decompile",
            metavar="DIR",
            help="also write, for each compiled function, a .py file with its code as Dynamo got it, each version's guard, the code Dynamo runs, its graph, and the resume functions after graph breaks (see compilescope decompile)",
        )
        parser.add_argument(
            "--debug-dir",
            metavar="FOLDER",
            help="write each code object Dynamo makes (transformed functions, resume functions) as a .py file in FOLDER "
            "and run it from there, so that a debugger stops at breakpoints set in it (docs/debugging.md)",
        )
        parser.add_argument(
            "--check-accuracy",
            metavar="N",
            type=_calls,
            help=f"compare each compiled graph's first N calls (default {DEFAULT_CALLS}) with the same graph run eagerly on copies of its inputs "
            "(its gradients too, in training), name the stage of torch.compile that makes a differing graph differ, and write "
            "torch's minifier script for it; the program's own results are untouched (docs/accuracy.md)",
        )
        parser.add_argument(
            "--quiet",
            action="store_true",
            help="no live progress line on the terminal while the program compiles (never shown where stderr is not a terminal)",
        )
        parser.add_argument(
            "--try",
            dest="try_fixes",
            metavar="FIX",
            action="append",
            help="run the program twice, as it is and with FIX set from outside before it compiles, and show both side by side "
            "(compiles, graph breaks, recompiles, compile time, call time); FIX: dynamic, capture_scalar_outputs, "
            "capture_dynamic_output_shape_ops, reorder-print, ignore-logging, recompile_limit=N, config.NAME=VALUE; repeat for several",
        )
        # (what --try's second run is given: the fixes to set, and no explanation of its own)
        parser.add_argument("--apply-fix", dest="apply_fixes", action="append", help=argparse.SUPPRESS)
        parser.add_argument("--no-explanation", dest="explanation", action="store_false", help=argparse.SUPPRESS)
        add_view_options(parser)
        parser.add_argument("target", metavar="script.py | module", help="the program to run")
        parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the program")

    def run(self, parsed: argparse.Namespace) -> int:
        return run_program(RunPlan.from_command_line(parsed))
