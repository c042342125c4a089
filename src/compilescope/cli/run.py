"""compilescope run: run a program unchanged and explain what torch.compile did in it."""

from __future__ import annotations

import argparse
import importlib.util
import os
import runpy
import sys
import time
import traceback
from pathlib import Path
from types import TracebackType

from compilescope.cli.decompile import check_output_folder, write_decompiled
from compilescope.cli.errors import CommandError
from compilescope.cli.options import add_view_options, open_command, print_session, view_options
from compilescope.session.model import Program, error_summary


class RunCommand:
    """Run a Python program exactly as `python` would, then explain what torch.compile did.

    compilescope run train.py --epochs 1
    compilescope run -m mypackage.train --epochs 1

    The program's output, exit status and exceptions pass through unchanged; the explanation
    goes to stderr afterwards. The session is saved as compilescope-<name>.json, the report as
    compilescope-<name>.html (one self-contained file), and torch's raw structured trace as
    compilescope-<name>.log (readable by `compilescope report` and tlparse), also when the
    program crashes.
    """

    @staticmethod
    def prepare_parser(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("-m", dest="module", action="store_true", help="run a library module as a script, like python -m")
        parser.add_argument("--json", metavar="PATH", help="where to save the session (default: compilescope-<name>.json)")
        parser.add_argument("--trace", metavar="PATH", help="where to save torch's raw trace (default: compilescope-<name>.log)")
        parser.add_argument("--html", metavar="PATH", help="where to write the HTML report (default: compilescope-<name>.html)")
        parser.add_argument("--no-html", action="store_true", help="write no HTML report")
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
            "--decompile",
            metavar="DIR",
            help="also write, for each compiled function, a .py file with its code as Dynamo got it, each version's guard, the code Dynamo runs, its graph, and the resume functions after graph breaks (see compilescope decompile)",
        )
        add_view_options(parser)
        parser.add_argument("target", metavar="script.py | module", help="the program to run")
        parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the program")

    def run(self, args: argparse.Namespace) -> int:
        if args.module:
            spec = _find_module(args.target)
            name = args.target.rsplit(".", 1)[-1]
            kind, target = "module", args.target
            argv0 = spec.origin or args.target
        else:
            script = Path(args.target)
            if not script.exists():
                raise CommandError(f"no such script: {args.target}")
            if script.is_dir():
                raise CommandError(f"{args.target} is a folder; give a .py file, or -m for a package")
            name, kind, target, argv0 = script.stem, "script", args.target, args.target

        json_path = Path(args.json or f"compilescope-{name}.json")
        html_path = None if (args.no_html or args.no_save) else Path(args.html or f"compilescope-{name}.html")
        trace_path = Path(args.trace or (f"compilescope-{name}.log" if not args.no_save else _temporary_trace()))
        for path in (json_path, trace_path, html_path):
            if path is not None and not args.no_save and not path.parent.exists():
                raise CommandError(f"cannot write {path}: folder {path.parent} does not exist")
        decompile_dir = getattr(args, "decompile", None)
        if decompile_dir is not None:
            check_output_folder(Path(decompile_dir))

        from compilescope.record import Capture

        saved_argv, saved_path0 = sys.argv[:], (sys.path[0] if sys.path else None)
        sys.argv = [argv0, *args.args]
        path0 = os.getcwd() if args.module else str(Path(args.target).resolve().parent)
        if sys.path:
            sys.path[0] = path0
        else:
            sys.path.insert(0, path0)
        profiler = None
        if args.profile:
            from compilescope.benchmark.profile import RunProfiler

            profiler = RunProfiler()
        recorder = Capture(trace_path, wait_for_torch=True, on_attach=profiler.start if profiler else None, record_calls=not args.no_calls)
        started = time.perf_counter()
        exit_status, exception = 0, None
        try:
            if args.module:
                runpy.run_module(args.target, run_name="__main__", alter_sys=True)
            else:
                runpy.run_path(args.target, run_name="__main__")
        except SystemExit as stop:
            exit_status = _exit_status(stop)
        except BaseException as error:  # the program's own error: report it as Python would
            _print_program_traceback(error)
            exit_status = 130 if isinstance(error, KeyboardInterrupt) else 1
            exception = error_summary(error)
        finally:
            sys.argv = saved_argv
            if saved_path0 is not None and sys.path:
                sys.path[0] = saved_path0
        wall = time.perf_counter() - started
        _flush_streams()

        program = Program(kind=kind, target=target, argv=list(args.args), exit_status=exit_status, exception=exception, wall_time_s=wall)
        recorder.record_program(program)
        session = recorder.build()
        session.program = program
        if profiler is not None:
            session.profile = profiler.finish(session)
        if args.no_save:
            session.trace_files = []
            trace_path.unlink(missing_ok=True)
        else:
            session.save(str(json_path))
        if html_path is not None:
            from compilescope.render.html import write_html

            write_html(session, html_path)
        if getattr(args, "explanation", True):
            print_session(session, view_options(args), stream=sys.stderr)  # with --profile's kernel table
        if decompile_dir is not None:
            print(write_decompiled(session, Path(decompile_dir)), file=sys.stderr)
        if not args.no_save:
            lines = [f"\nSaved the session to {json_path} and torch's trace to {trace_path}."]
            if html_path is not None:
                lines.append(f"The report: {html_path}   open it with: {open_command(str(html_path))}")
            lines.append(f"Every detail in the terminal: compilescope report {json_path} --show all")
            print("\n".join(lines), file=sys.stderr)
        return exit_status


def _find_module(name: str):
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError) as error:
        raise CommandError(f"no module named {name!r} ({error})") from None
    if spec is None:
        raise CommandError(f"no module named {name!r}")
    if spec.submodule_search_locations is not None:
        main = importlib.util.find_spec(f"{name}.__main__")
        if main is None:
            raise CommandError(f"{name!r} is a package and has no __main__ module; it cannot be run with -m")
        return main
    return spec


def _temporary_trace() -> str:
    import tempfile

    handle, name = tempfile.mkstemp(prefix="compilescope-", suffix=".log")
    os.close(handle)
    return name


def _exit_status(stop: SystemExit) -> int:
    """The status Python itself would exit with for this SystemExit."""
    code = stop.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _print_program_traceback(error: BaseException) -> None:
    # Show the traceback Python would show: from the program's own frames, not ours or runpy's.
    tb: TracebackType | None = error.__traceback__
    package = str(Path(__file__).resolve().parent.parent)

    def is_ours(filename: str) -> bool:
        return filename in (runpy.__file__, "<frozen runpy>") or os.path.abspath(filename).startswith(package)

    while tb is not None and tb.tb_next is not None and is_ours(tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next
    traceback.print_exception(type(error), error, tb, file=sys.stderr)


def _flush_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
