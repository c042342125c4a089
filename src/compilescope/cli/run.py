"""compilescope run: run a program unchanged and explain what torch.compile did in it."""

from __future__ import annotations

import argparse
import builtins
import contextlib
import gc
import importlib.machinery
import os
import sys
import time
import types

from compilescope.cli.errors import CommandError
from compilescope.cli.options import add_view_options, print_session, view_options
from compilescope.cli.run_options import RunOptions
from compilescope.cli.run_outputs import OutputPlan
from compilescope.outputs import OutputError, absolute, stem_and_suffix
from compilescope.session import error_summary

# What runs before the program, and after it when the program never imported torch, imports
# only what it needs: on a program that never imports torch, `run` costs a few percent over
# python (docs/cli.md, "What run costs"). The session model, rich, the trace's reader and the
# decompiler come in at the end, when there is something to explain.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from types import TracebackType
    from typing import Any, TextIO


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
        return run_program(RunOptions.from_command_line(parsed))


def run_program(args: RunOptions) -> int:
    """Run the program as `args` says and explain it (run, decompile and run --try come here);
    the program's exit status."""
    if args.try_fixes:
        from compilescope.cli.run_try import run_with_fixes

        return run_with_fixes(args)
    fixes = _parsed_fixes(args.apply_fixes)
    # Our own copy of stderr, taken before the program runs: the explanation still reaches
    # the terminal if the program closes or replaces sys.stderr.
    stream = _own_stderr()
    program = _Launch(args)
    plan = OutputPlan.of(args, program)
    for line in plan.before_the_run():
        print(line, file=stream)
    decompile_dir = None
    if args.decompile is not None:
        from pathlib import Path

        from compilescope.cli.decompiled_files import check_output_folder

        decompile_dir = Path(absolute(args.decompile))
        check_output_folder(decompile_dir)

    from compilescope.record.recorder import Capture

    profiler = None
    if args.profile:
        from compilescope.benchmark.profile import RunProfiler

        profiler = RunProfiler()
    try:
        recorder = Capture(
            plan.trace, wait_for_torch=True, on_attach=profiler.start if profiler else None, record_calls=not args.no_calls, fixes=fixes
        )
    except OutputError as error:
        raise CommandError(str(error)) from None
    children = None
    if not args.no_children:
        from compilescope.record.children import FollowChildren

        children = FollowChildren(plan.children_folder, plan.children_base, record_calls=not args.no_calls)
        try:
            children.start(recorder)
        except OSError as error:  # no registry (a full or read-only temporary folder)
            print(f"compilescope: the program's child processes are not followed: {error}", file=stream)
            children = None

    # Everything made so far (compilescope's modules, argparse's: thousands of objects) lives
    # until the end: move it out of the garbage collector's view, so that the program's
    # collections see what they see under python. Without this, `import torch` ran one more
    # full collection than under python (3 instead of 2, ~0.1 s on 2 cores; docs/cli.md).
    gc.freeze()
    pid, started = os.getpid(), time.perf_counter()
    exit_status, exception, interrupted = program.run()
    wall = time.perf_counter() - started
    if os.getpid() != pid:
        # A process the program forked that went on to the program's end: it is a child
        # (its own trace is finished at its exit); the outputs are the parent's to write.
        return exit_status
    _flush_streams()
    # What we say starts on a line of its own: the program's last output may not have ended
    # one (a progress bar, tqdm's, left unfinished), and what it wrote cannot be known without
    # wrapping its streams, so an empty line always separates it from ours.
    if args.explanation:
        print(file=stream, flush=True)
    # The program is done: its objects (torch's, a million and more) move out of the
    # collector's view while we build and write, so that a full collection our own work
    # triggers does not scan them all (~85 ms on 2 cores); they are back in it before we
    # return, so that the interpreter's exit collects as it would under python.
    gc.freeze()
    try:
        _explain_the_run(program, args, exit_status, exception, wall, recorder, children, plan, profiler, decompile_dir, stream)
    except Exception as error:  # whatever goes wrong on our side, the program's exit status stands
        with contextlib.suppress(Exception):
            print(f"compilescope: the run could not be explained: {error_summary(error)}", file=stream)
    finally:
        gc.unfreeze()
    if stream is not sys.stderr:
        stream.close()
    if interrupted:
        _die_by_sigint()
    return exit_status


def _explain_the_run(
    program: _Launch,
    args: RunOptions,
    exit_status: int,
    exception: str | None,
    wall: float,
    recorder: Any,
    children: Any,
    plan: OutputPlan,
    profiler: Any,
    decompile_dir: Any,
    stream: TextIO,
) -> None:
    """Everything after the program: its end recorded, the children listed, the session built,
    saved and explained."""
    record = {
        "kind": program.kind,
        "target": program.target,
        "argv": list(args.args),
        "exit_status": exit_status,
        "exception": exception,
        "wall_time_s": wall,
    }
    recorder.record_program(record)
    found: list[Any] | None = None
    if children is not None:
        try:
            found = children.finish()
        except Exception as error:  # never let our bookkeeping change how the run ends
            print(f"compilescope: the program's child processes could not be listed: {error_summary(error)}", file=stream)
            found = []
        if plan.json is None:  # --no-save: the children's traces were temporary
            plan.forget_temporary()
            for item in found:
                item.trace = None
        recorder.record_children(found)
    if (
        "torch" not in sys.modules
        and not found
        and profiler is None
        and decompile_dir is None
        and not _rank()
        and not plan.report_wanted(args)
    ):
        saved = _explain_without_torch(recorder, record, plan, found, args, stream)
    else:
        saved = _explain(recorder, record, plan, profiler, decompile_dir, args, stream)
    if saved:
        print(saved, file=stream)


def _explain(
    recorder: Any, record: dict[str, Any], plan: OutputPlan, profiler: Any, decompile_dir: Any, args: RunOptions, stream: TextIO
) -> str:
    """Build the session from the trace, save it and the report, and print the explanation;
    what to tell the user about the files."""
    from compilescope.session.model import Program

    session = recorder.build()
    plan.trace_saved, plan.trace_problem = recorder.saved_trace, recorder.trace_problem
    session.program = Program(**record)
    if profiler is not None:
        session.profile = profiler.finish(session)
    nothing = (
        not session.frames and not session.children and not session.skipped and session.profile is None and not session.compiled_modules
    )
    if nothing and session.rank is None and decompile_dir is None and not plan.report_wanted(args):
        # Nothing compiled (the program imported torch, but compiled nothing): rich, the rules
        # and the report would cost more than 5% of a short run, to show only that.
        import dataclasses

        from compilescope.findings.before_compile import finding_json, said_for

        said = said_for(
            record["kind"], record.get("exit_status"), record.get("exception"), imported_torch=session.environment.torch is not None
        )

        def json_of(traces: list[str]) -> str:
            session.trace_files = traces
            return session.to_json([finding_json(said)])

        return _say_nothing_compiled(
            plan.save_without_report(json_of, stream), record, dataclasses.asdict(session.environment), args, stream
        )
    found = session.explain()  # once, for the session's JSON, the report and the terminal
    found = _with_children_findings(session, found)
    saved = plan.save(session, stream, found)
    if args.explanation:
        if session.rank:  # under a launcher, rank 0 explains; the others say one line each
            from compilescope.render.console import brief

            print(brief(session), file=stream)
        else:
            print_session(session, {**view_options(args), "found": found}, stream=stream)  # with --profile's kernel table
    if decompile_dir is not None:
        from compilescope.cli.decompiled_files import write_decompiled

        try:
            print(write_decompiled(session, decompile_dir, shown=(args.decompile or "").rstrip("/")), file=stream)
        except OutputError as error:
            print(f"compilescope: no .py files written: {error}", file=stream)
    return saved


MOST_CHILDREN_READ = 64  # children whose traces are read for findings (a cluster's ranks: issue 20)


def _with_children_findings(session: Any, found: list[Any]) -> list[Any]:
    """The findings of the children that compiled (each rank of a torchrun job), merged into the
    program's own, one per cause across them (findings/ranks.py); the program's findings where
    their traces cannot be read."""
    compiled = [c for c in session.children or [] if c.compiles and c.trace]
    if not compiled:
        return found
    from compilescope.findings.finding import ranked
    from compilescope.findings.ranks import from_children
    from compilescope.session.loading import load_all

    read: list[tuple[Any, list[Any]]] = []
    for child in compiled[:MOST_CHILDREN_READ]:
        try:
            read.extend((child, s.explain()) for s in load_all(child.trace))
        except Exception:  # a child's trace we cannot read: its line under 'Child processes' says where it is
            continue
    return ranked([*found, *from_children(read)])


def _parsed_fixes(names: list[str]) -> list[Any]:
    """record/fixes.py's Fix for each name (CommandError for one that is none)."""
    if not names:
        return []
    from compilescope.record import fixes

    try:
        return [fixes.parse(name) for name in names]
    except ValueError as error:
        raise CommandError(str(error)) from None


def _explain_without_torch(
    recorder: Any, record: dict[str, Any], plan: OutputPlan, children: list[Any] | None, args: RunOptions, stream: TextIO
) -> str:
    """The end of a run whose program never imported torch (nor started a child that did): the
    session saved without the session model (session/empty.py), whose import alone (with
    dataclasses) would cost more than 5% of a short program's run; there is nothing compiled."""
    from compilescope._version import __version__
    from compilescope.findings.before_compile import finding_json, said_for
    from compilescope.session.empty import session_json

    environment = recorder.finish_without_torch()
    plan.trace_saved, plan.trace_problem = recorder.saved_trace, recorder.trace_problem
    found = [finding_json(said_for(record["kind"], record.get("exit_status"), record.get("exception"), imported_torch=False))]
    started = recorder.writer.started
    saved = plan.save_without_report(
        lambda traces: session_json(environment, record, traces, __version__, children, found, started), stream
    )
    return _say_nothing_compiled(saved, record, environment, args, stream)


def _say_nothing_compiled(saved: str, record: dict[str, Any], environment: dict[str, Any], args: RunOptions, stream: TextIO) -> str:
    """Print the few lines that say nothing was compiled (render/plain.py); `saved`, passed on."""
    if args.explanation:
        from compilescope.render.plain import nothing_compiled_text
        from compilescope.render.text import width_for

        print(nothing_compiled_text(record, environment, width_for(stream)), file=stream)
    return saved


def _rank() -> str:
    """The rank a launcher gave this process, if one did (its outputs are named by it)."""
    from compilescope.outputs import process_tag

    return process_tag()


class _Launch:
    """What to run and how, resolved as python resolves it, before anything runs."""

    def __init__(self, args: RunOptions) -> None:
        self.args = args
        self.module = bool(args.module)
        self.kind = "module" if self.module else "script"
        self.target = args.target
        if self.module:
            # python -m puts the current folder first on sys.path, then finds the module there.
            self.path0 = os.getcwd()
            with _sys_path0(self.path0):
                spec = _find_module(args.target)
            self.name = args.target.rsplit(".", 1)[-1]
            self.file = spec.origin
        else:
            if not os.path.exists(args.target):
                raise CommandError(f"no such script: {args.target}")
            if os.path.isdir(args.target):
                raise CommandError(f"{args.target} is a folder; give a .py file, or -m for a package")
            self.name = stem_and_suffix(args.target)[0]
            # As python: __file__ and tracebacks name the script by its absolute path, sys.argv[0]
            # as typed, sys.path[0] the folder of the script it links to.
            self.file = os.path.abspath(args.target)
            self.path0 = os.path.dirname(os.path.realpath(args.target))

    def run(self) -> tuple[int, str | None, bool]:
        """Run the program; its exit status, its exception ("ValueError: ..."), and whether it
        ended by Ctrl-C (KeyboardInterrupt), which python answers by dying of SIGINT."""
        saved_argv = sys.argv[:]
        sys.argv = [self.args.target, *self.args.args]
        exit_status, exception, interrupted = 0, None, False
        try:
            with _sys_path0(self.path0):
                if self.module:
                    import runpy

                    runpy.run_module(self.target, run_name="__main__", alter_sys=True)
                else:
                    _run_script(self.file)
        except SystemExit as stop:
            exit_status = _exit_status(stop)
        except BaseException as error:  # the program's own error: report it as Python would
            _report_exception(error)
            interrupted = isinstance(error, KeyboardInterrupt)
            exit_status = 130 if interrupted else 1
            exception = error_summary(error)
        finally:
            sys.argv = saved_argv
        return exit_status, exception, interrupted


def _find_module(name: str) -> Any:
    import importlib.util

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


def _run_script(path: str) -> None:
    """Run a script as `python script.py` does: in a fresh __main__ module whose __file__ (and
    the code's file name, which tracebacks show) is its absolute path, leaving sys.argv[0] as
    typed (runpy.run_path would set it to the path it is given). A zip application or a .pyc
    file goes through runpy, which knows them."""
    with open(path, "rb") as handle:
        source = handle.read()
    if _compiled_or_zipped(path, source):
        import runpy

        runpy.run_path(path, run_name="__main__")
        return
    main = types.ModuleType("__main__")
    main.__dict__.update(__file__=path, __cached__=None, __builtins__=builtins, __spec__=None)
    main.__loader__ = importlib.machinery.SourceFileLoader("__main__", path)
    code = compile(source, path, "exec", dont_inherit=True)
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = main
    try:
        exec(code, main.__dict__)
    finally:
        if saved is not None:
            sys.modules["__main__"] = saved


def _compiled_or_zipped(path: str, source: bytes) -> bool:
    """Whether the file is a .pyc (it starts with the magic number) or a zip application: which
    runpy runs, not compile(). importlib.util and zipfile are imported only where the bytes
    could be one of these: a magic number ends in "\\r\\n", and a zip file's last 64 KiB hold
    the end of its central directory."""
    if source[2:4] == b"\r\n":
        import importlib.util

        if source[:4] == importlib.util.MAGIC_NUMBER:
            return True
    if b"PK\x05\x06" in source[-(65536 + 22) :]:
        import zipfile

        return zipfile.is_zipfile(path)
    return False


def _exit_status(stop: SystemExit) -> int:
    """The status Python itself would exit with for this SystemExit."""
    code = stop.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    with contextlib.suppress(Exception):  # python, too, prints it where it can
        print(code, file=sys.stderr)
    return 1


@contextlib.contextmanager
def _sys_path0(folder: str) -> Iterator[None]:
    """sys.path[0] as python sets it for the program (the script's folder, or the current one
    for -m), and ours again afterwards."""
    saved = sys.path[0] if sys.path else None
    if sys.path:
        sys.path[0] = folder
    else:
        sys.path.insert(0, folder)
    try:
        yield
    finally:
        if saved is not None and sys.path:
            sys.path[0] = saved


_PACKAGE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def _is_ours(filename: str) -> bool:
    runpy = sys.modules.get("runpy")
    return filename in (getattr(runpy, "__file__", None), "<frozen runpy>") or os.path.abspath(filename).startswith(_PACKAGE)


def _program_traceback(error: BaseException) -> TracebackType | None:
    """The traceback python would show: from the program's first frame, without ours or runpy's
    (none at all for a SyntaxError in the script itself, which python reports with no frame)."""
    tb = error.__traceback__
    while tb is not None and _is_ours(tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next
    return tb


def _report_exception(error: BaseException) -> None:
    """What python does with an exception nobody caught: hand it to sys.excepthook (the
    program's own, if it set one), and if that fails, say so and use the default."""
    tb = _program_traceback(error)
    error.with_traceback(tb)  # the default hook prints the exception's own traceback
    try:
        sys.excepthook(type(error), error, tb)
    except BaseException as hook_error:
        with contextlib.suppress(Exception):
            print("Error in sys.excepthook:", file=sys.stderr)
            sys.__excepthook__(type(hook_error), hook_error, hook_error.__traceback__)
            print("\nOriginal exception was:", file=sys.stderr)
            sys.__excepthook__(type(error), error, tb)


def _die_by_sigint() -> None:
    """End as python ends after an uncaught KeyboardInterrupt: killed by SIGINT, so that the
    shell (or the loop) that ran us stops too."""
    import signal

    _flush_streams()
    if hasattr(signal, "SIGINT") and hasattr(os, "kill"):
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)


def _own_stderr() -> TextIO:
    """A stream of our own on the file behind stderr (a duplicate of its descriptor)."""
    try:
        fd = os.dup(sys.stderr.fileno())
    except (AttributeError, OSError, ValueError):  # stderr is not a file (a test harness, say)
        return sys.stderr
    encoding = getattr(sys.stderr, "encoding", None) or "utf-8"
    return open(fd, "w", encoding=encoding, errors="backslashreplace", buffering=1)


def _flush_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
