"""compilescope run: run a program unchanged and explain what torch.compile did in it."""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
import time

from compilescope.cli.errors import CommandError
from compilescope.cli.launch import Launch, NotRunnable
from compilescope.cli.options import add_view_options, print_session, view_options
from compilescope.cli.run_options import RunOptions
from compilescope.cli.run_outputs import OutputPlan
from compilescope.outputs import OutputError, absolute
from compilescope.session import error_summary

# What runs before the program, and after it when the program never imported torch, imports
# only what it needs: on a program that never imports torch, `run` costs a few percent over
# python (docs/cli.md, "What run costs"). The session model, rich, the trace's reader and the
# decompiler come in at the end, when there is something to explain.
TYPE_CHECKING = False
if TYPE_CHECKING:
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
    try:
        program = Launch(args)
    except NotRunnable as error:  # python's own message, and its exit status
        print(f"{sys.executable}: {error}", file=sys.stderr)
        return 1
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
    program: Launch,
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
