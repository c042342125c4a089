"""compilescope decompile: the code torch.compile generated for a program, as .py files."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from compilescope.app.decompiled_files import check_output_folder, write_decompiled
from compilescope.app.errors import CommandError


class DecompileCommand:
    """Run a program unchanged and write, for each function torch.compile compiled, one
    readable .py file in the order the program runs it.

    compilescope decompile train.py --epochs 1          # files in compilescope-train-decompiled/
    compilescope decompile --out generated/ -m mypackage.train
    compilescope decompile compilescope-train.json      # from a session `compilescope run` saved

    Each file holds the function as Dynamo got it; for each compiled version its guard as a
    Python function, the code Dynamo runs when the guard holds (its bytecode, decompiled), and
    the graph that code calls; then the resume functions after graph breaks under the names the
    code calls them by. Everything is valid Python. What the decompiler does not understand is
    shown as annotated bytecode at that place, never guessed. Nothing Dynamo runs is replaced:
    the program computes exactly what it computes without compilescope.
    """

    @staticmethod
    def prepare_parser(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("-m", dest="module", action="store_true", help="run a library module as a script, like python -m")
        parser.add_argument("--out", metavar="DIR", help="where to write the files (default: compilescope-<name>-decompiled)")
        parser.add_argument(
            "target", metavar="script.py | module | session.json", help="the program to run, or a session saved by compilescope run"
        )
        parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the program")

    def run(self, args: argparse.Namespace) -> int:
        target = Path(args.target)
        # (a saved session: whatever is there but a folder, so that a pipe named x.json is refused, not run)
        if not args.module and target.name.endswith((".json", ".log", ".log.gz")) and os.path.lexists(target) and not target.is_dir():
            if args.args:
                raise CommandError(f"{args.target} is a saved session: it takes no program arguments")
            return self._from_saved(target, Path(args.out or f"compilescope-{_stem(target)}-decompiled"))
        from compilescope.app.pipeline import run_program
        from compilescope.app.plan import RunPlan

        name = args.target.rsplit(".", 1)[-1] if args.module else target.stem
        return run_program(
            RunPlan(
                args.target,
                args.args,
                module=args.module,
                no_html=True,
                no_save=True,
                no_calls=True,
                no_children=True,
                decompile=args.out or f"compilescope-{name}-decompiled",
                explanation=False,
            )
        )

    def _from_saved(self, path: Path, out: Path) -> int:
        from compilescope.render.text import escape_control
        from compilescope.session.jsonio import SessionFormatError
        from compilescope.session.loading import load_all
        from compilescope.trace.reader import UnreadableInput

        # (error lines are escaped once, by cli.main: they may repeat a path from elsewhere)
        # The folder first: a path that can never be written costs no reading.
        if out.is_symlink():
            raise CommandError(f"cannot write .py files into {out}: it is a symbolic link")
        if os.path.lexists(out) and not out.is_dir():
            raise CommandError(f"cannot write .py files into {out}: it is not a folder")
        check_output_folder(out)
        try:
            sessions = load_all(path)
        except UnreadableInput as error:
            raise CommandError(str(error)) from None
        except (SessionFormatError, FileNotFoundError, UnicodeDecodeError) as error:
            raise CommandError(f"{path}: {error}") from None
        except OSError as error:
            raise CommandError(f"{path}: cannot be read ({error.strerror or error})") from None
        messages = []
        try:  # (an OutputError, a path not ours to write, is main's one line)
            for session in sessions:
                folder = out if len(sessions) == 1 else out / f"rank{session.rank}"
                messages.append(write_decompiled(session, folder))
        except (ValueError, RecursionError, MemoryError) as error:  # code in the session too odd to write
            raise CommandError(
                f"{path}: its code could not be written as Python files ({type(error).__name__}: {str(error)[:200]})"
            ) from None
        print(escape_control("\n".join(messages)), file=sys.stderr)
        return 0


def _stem(path: Path) -> str:
    stem = path.stem
    return stem[len("compilescope-") :] if stem.startswith("compilescope-") else stem
