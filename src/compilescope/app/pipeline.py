"""One `compilescope run`, as a pipeline of named steps over a RunPlan (app/plan.py):

    plan ─▶ launch ─▶ capture ─▶ (the program runs) ─▶ build ─▶ explain ─▶ write
            Launch    Capture,                          Session  findings  session .json, report
            (python's FollowChildren,                            (+ each   .html, the terminal's
            own rules) RunProfiler                               child's)  explanation, .py files

run_program drives them; `run`, `decompile` and each of `run --try`'s two runs (app/try_fix.py)
come here with their plan. Each step is a function below, with what it is for.

What runs before the program, and after it when the program never imported torch, imports only
what it needs: on a program that never imports torch, `run` costs a few percent over python
(docs/cli.md, "What run costs"). The session model, rich, the trace's reader and the decompiler
come in at the end, when there is something to explain.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import time

from compilescope.app.errors import CommandError
from compilescope.app.launch import Launch, NotRunnable
from compilescope.app.outputs import OutputPlan
from compilescope.app.plan import RunPlan
from compilescope.app.view import print_session, view_options
from compilescope.outputs import OutputError, absolute
from compilescope.session import error_summary

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO

MOST_CHILDREN_READ = 64  # children whose traces are read for findings (a cluster's ranks: issue 20)


class Recording:
    """What records the run while the program runs (the capture step's result): torch's trace
    (record/recorder.py's Capture), the program's child processes, and --profile's profiler."""

    __slots__ = ("recorder", "children", "profiler", "decompile_dir", "debugging")

    def __init__(self, recorder: Any, children: Any, profiler: Any, decompile_dir: Any, debugging: Any = None) -> None:
        self.recorder = recorder
        self.children = children  # None: not followed
        self.profiler = profiler  # None: no --profile
        self.decompile_dir = decompile_dir  # None: no --decompile
        self.debugging = debugging  # --debug-dir's app/debug.py DebugFolder; None: none


def run_program(plan: RunPlan) -> int:
    """Run the program as `plan` says and explain it: every step, in order; the program's exit
    status. A plan with fixes to try runs twice (app/try_fix.py)."""
    if plan.try_fixes:
        from compilescope.app.try_fix import run_with_fixes

        return run_with_fixes(plan)
    fixes = parsed_fixes(plan.apply_fixes)
    # Our own copy of stderr, taken before the program runs: the explanation still reaches
    # the terminal if the program closes or replaces sys.stderr.
    stream = _own_stderr()
    try:
        program = Launch(plan)
    except NotRunnable as error:  # python's own message, and its exit status
        print(f"{sys.executable}: {error}", file=sys.stderr)
        return 1
    outputs = OutputPlan.of(plan, program)
    if plan.timeline is not None:  # resolved where the command started, checked before the program runs
        plan = plan.replace(timeline=_checked_timeline(plan.timeline))
    for line in outputs.before_the_run():
        print(line, file=stream)
    recording = capture(plan, outputs, fixes, stream)

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
    recording.recorder.stop_progress()  # (erased before anything more is written)
    _flush_streams()
    # What we say starts on a line of its own: the program's last output may not have ended
    # one (a progress bar, tqdm's, left unfinished), and what it wrote cannot be known without
    # wrapping its streams, so an empty line always separates it from ours.
    if plan.explanation:
        print(file=stream, flush=True)
    # The program is done: its objects (torch's, a million and more) move out of the
    # collector's view while we build and write, so that a full collection our own work
    # triggers does not scan them all (~85 ms on 2 cores); they are back in it before we
    # return, so that the interpreter's exit collects as it would under python.
    gc.freeze()
    try:
        record = {
            "kind": program.kind,
            "target": program.target,
            "argv": list(plan.args),
            "exit_status": exit_status,
            "exception": exception,
            "wall_time_s": wall,
        }
        after_the_program(plan, record, recording, outputs, stream)
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


def parsed_fixes(names: list[str]) -> list[Any]:
    """The plan step's last check: record/fixes.py's Fix for each name (CommandError for one
    that is none)."""
    if not names:
        return []
    from compilescope.record import fixes

    try:
        return [fixes.parse(name) for name in names]
    except ValueError as error:
        raise CommandError(str(error)) from None


def capture(plan: RunPlan, outputs: OutputPlan, fixes: list[Any], stream: TextIO) -> Recording:
    """Before the program: the recorder that writes torch's trace once the program imports
    torch (with the fixes set), the followers of its children, --profile's profiler, and
    --decompile's folder checked."""
    decompile_dir = None
    if plan.decompile is not None:
        from pathlib import Path

        from compilescope.app.decompiled_files import check_output_folder

        decompile_dir = Path(absolute(plan.decompile))
        check_output_folder(decompile_dir)
    debugging = None
    if plan.debug_dir is not None:
        from compilescope.app.debug import DebugFolder

        debugging = DebugFolder(plan.debug_dir, shown=plan.debug_dir.rstrip("/"))  # (checked: CommandError)

    from compilescope.record.recorder import Capture

    profiler = None
    if plan.profile:
        from compilescope.benchmark.profile import RunProfiler

        profiler = RunProfiler()
    try:
        recorder = Capture(
            outputs.trace,
            wait_for_torch=True,
            on_attach=profiler.start if profiler else None,
            record_calls=not plan.no_calls,
            fixes=fixes,
            progress=not plan.quiet,
            check_accuracy=plan.check_accuracy,
            accuracy_folder=outputs.accuracy_folder,
        )
    except OutputError as error:
        raise CommandError(str(error)) from None
    children = None
    if not plan.no_children:
        from compilescope.record.children import FollowChildren

        children = FollowChildren(outputs.children_folder, outputs.children_base, record_calls=not plan.no_calls)
        try:
            children.start(recorder)
        except OSError as error:  # no registry (a full or read-only temporary folder)
            print(f"compilescope: the program's child processes are not followed: {error}", file=stream)
            children = None
    if debugging is not None:
        debugging.start_with_dynamo()
    return Recording(recorder, children, profiler, decompile_dir, debugging)


def after_the_program(plan: RunPlan, record: dict[str, Any], recording: Recording, outputs: OutputPlan, stream: TextIO) -> None:
    """Everything after the program: its end recorded, the children listed, then build, explain
    and write (or, where nothing can have compiled, the short way without torch's session)."""
    from compilescope.record.memory import record_memory

    recorder = recording.recorder
    memory = record_memory(recorder.writer)  # first: nothing of ours is built yet
    recorder.record_program(record)
    debugged = recording.debugging.finish() if recording.debugging is not None else None
    found: list[Any] | None = None
    if recording.children is not None:
        try:
            found = recording.children.finish()
        except Exception as error:  # never let our bookkeeping change how the run ends
            print(f"compilescope: the program's child processes could not be listed: {error_summary(error)}", file=stream)
            found = []
        if outputs.json is None:  # --no-save: the children's traces were temporary
            outputs.forget_temporary()
            for item in found:
                item.trace = None
        recorder.record_children(found)
    if (
        "torch" not in sys.modules
        and not found
        and recording.profiler is None
        and recording.decompile_dir is None
        and not _rank()
        and not outputs.report_wanted(plan)
    ):
        saved = write_without_torch(recorder, record, outputs, found, plan, stream, memory)
    else:
        saved = build_explain_write(recording, record, outputs, plan, stream)
    if saved:
        print(saved, file=stream)
    if debugged:
        print(debugged, file=stream)


def build(recording: Recording, record: dict[str, Any], outputs: OutputPlan) -> Any:
    """The session, built from what the recorder kept (torch's trace), with the program's end
    and --profile's kernel table."""
    from compilescope.session.model import Program

    recorder = recording.recorder
    session = recorder.build()
    outputs.trace_saved, outputs.trace_problem = recorder.saved_trace, recorder.trace_problem
    session.program = Program(**record)
    if recording.profiler is not None:
        session.profile = recording.profiler.finish(session)
    return session


def explain(session: Any) -> list[Any]:
    """The session's findings (once, for the session's JSON, the report and the terminal),
    with the findings of the children that compiled (each rank of a torchrun job), merged into
    the program's own, one per cause across them (findings/ranks.py); the program's alone where
    their traces cannot be read."""
    found = session.explain()
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


def write(session: Any, found: list[Any], recording: Recording, outputs: OutputPlan, plan: RunPlan, stream: TextIO) -> str:
    """The session and the report saved, the explanation printed, --decompile's .py files
    written; what to tell the user about the saved files (printed last)."""
    saved = outputs.save(session, stream, found)
    if plan.explanation:
        if session.rank:  # under a launcher, rank 0 explains; the others say one line each
            from compilescope.render.console import brief

            print(brief(session), file=stream)
        else:
            print_session(session, {**view_options(plan), "found": found}, stream=stream)  # with --profile's kernel table
    if recording.decompile_dir is not None:
        from compilescope.app.decompiled_files import write_decompiled

        try:
            print(write_decompiled(session, recording.decompile_dir, shown=(plan.decompile or "").rstrip("/")), file=stream)
        except OutputError as error:
            print(f"compilescope: no .py files written: {error}", file=stream)
    if plan.timeline is not None:
        from compilescope.app.timeline import write_timeline

        try:
            inside = plan.timeline.startswith(os.path.join(outputs.folder, ""))
            shown = os.path.relpath(plan.timeline, outputs.folder) if inside else plan.timeline
            saved += ("\n" if saved else "") + write_timeline(session, plan.timeline, shown)
        except OutputError as error:
            print(f"compilescope: no timeline written: {error}", file=stream)
    return saved


def build_explain_write(recording: Recording, record: dict[str, Any], outputs: OutputPlan, plan: RunPlan, stream: TextIO) -> str:
    """build, explain, write; where nothing was compiled (the program imported torch, but
    compiled nothing), the few lines that say so, without rich, the rules or the report, which
    would cost more than 5% of a short run to show only that."""
    session = build(recording, record, outputs)
    nothing = (
        not session.frames and not session.children and not session.skipped and session.profile is None and not session.compiled_modules
    )
    if nothing and session.rank is None and recording.decompile_dir is None and not outputs.report_wanted(plan):
        import dataclasses

        from compilescope.findings.before_compile import finding_json, said_for
        from compilescope.findings.compiled_modules import torch_modules_compiled_in_place

        said = said_for(
            record["kind"],
            record.get("exit_status"),
            record.get("exception"),
            imported_torch=session.environment.torch is not None,
            torch_modules=torch_modules_compiled_in_place(session),
        )

        def json_of(traces: list[str]) -> str:
            session.trace_files = traces
            return session.to_json([finding_json(said)])

        memory = dataclasses.asdict(session.memory) if session.memory is not None else None
        return _say_nothing_compiled(
            outputs.save_without_report(json_of, stream), record, dataclasses.asdict(session.environment), plan, stream, memory
        )
    from compilescope.app.earlier import compare_with_earlier

    compare_with_earlier(session, outputs.json)  # before this run's session replaces it
    return write(session, explain(session), recording, outputs, plan, stream)


def write_without_torch(
    recorder: Any,
    record: dict[str, Any],
    outputs: OutputPlan,
    children: list[Any] | None,
    plan: RunPlan,
    stream: TextIO,
    memory: dict[str, Any] | None = None,
) -> str:
    """The end of a run whose program never imported torch (nor started a child that did): the
    session saved without the session model (session/empty.py), whose import alone (with
    dataclasses) would cost more than 5% of a short program's run; there is nothing compiled.
    `memory`: the program's, as record/memory.py measured it."""
    from compilescope._version import __version__
    from compilescope.findings.before_compile import finding_json, said_for
    from compilescope.session.empty import session_json

    environment = recorder.finish_without_torch()
    outputs.trace_saved, outputs.trace_problem = recorder.saved_trace, recorder.trace_problem
    found = [finding_json(said_for(record["kind"], record.get("exit_status"), record.get("exception"), imported_torch=False))]
    started = recorder.writer.started
    saved = outputs.save_without_report(
        lambda traces: session_json(environment, record, traces, __version__, children, found, started, memory), stream
    )
    return _say_nothing_compiled(saved, record, environment, plan, stream, memory)


def _say_nothing_compiled(
    saved: str, record: dict[str, Any], environment: dict[str, Any], plan: RunPlan, stream: TextIO, memory: dict[str, Any] | None
) -> str:
    """Print the few lines that say nothing was compiled (render/plain.py); `saved`, passed on.
    `memory`: the program's memory (session/memory.py's ProgramMemory as JSON), or None."""
    if plan.explanation:
        from compilescope.render.plain import nothing_compiled_text
        from compilescope.render.text import width_for

        print(nothing_compiled_text(record, environment, width_for(stream), memory), file=stream)
    return saved


def _checked_timeline(given: str) -> str:
    """--timeline's path, absolute; CommandError where it can never be written."""
    from compilescope.outputs import absolute, check_writable

    if not given:
        raise CommandError("--timeline: an empty path: name the file to write")
    path = absolute(given)
    try:
        check_writable(path, "the timeline")
    except OutputError as error:
        raise CommandError(str(error)) from None
    return path


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
