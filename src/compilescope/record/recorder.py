"""The recorder: attaches to torch's structured-trace logger and builds the Session (see the
package's docstring for what capture promises)."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time

import compilescope.record.import_hook as import_hook
from compilescope._version import __version__
from compilescope.record.progress import Progress
from compilescope.record.writer import TraceFileWriter
from compilescope.session import error_summary
from compilescope.trace.ours import (
    CALLS_RECORD,
    CAPTURE_RECORD,
    CHILDREN_RECORD,
    COMPILED_MODULES_RECORD,
    ENVIRONMENT_RECORD,
    GENERATED_CODE_RECORD,
    PROGRAM_END_KEY,
    PROGRAM_RECORD,
)

# What a run needs only once the program imports torch (the call and code recorders, the
# logging handler), or only at its end (the trace's reader, the session), is imported there: a
# program that never imports torch pays for none of it (docs/cli.md, "What run costs").
TYPE_CHECKING = False
if TYPE_CHECKING:
    import logging
    from collections.abc import Callable, Iterator
    from pathlib import Path
    from typing import Any

    from compilescope.record.accuracy import AccuracyCheck
    from compilescope.record.calls import CallRecorder
    from compilescope.record.generated import GeneratedCodeRecorder
    from compilescope.record.handler import TraceHandler
    from compilescope.record.modules import CompiledModules
    from compilescope.session.model import ChildProcess, Session


def environment(final: bool = False) -> dict[str, Any]:
    """What we can say about this process's setup without changing it: no torch import if the
    program has none, no CUDA start if the program has not started it."""
    # (platform.python_version(), without importing platform: the first word of sys.version)
    facts: dict[str, Any] = {"python": sys.version.split()[0], "platform": _platform_name()}
    torch = sys.modules.get("torch")
    if torch is None or not hasattr(torch, "__version__"):
        return facts

    import compilescope.record.torch_adapter as torch_adapter

    facts.update(
        torch=str(torch.__version__),
        threads=torch.get_num_threads(),
        # Only once the program has loaded Inductor (torch.compile does): asking before would
        # import Dynamo and Inductor, a second or more, into a program that may never compile.
        compiler=torch_adapter.inductor_cxx(only_if_loaded=True),
        cuda=getattr(torch.version, "cuda", None),
    )
    device = f"cpu ({cpu_name()})"
    # Asking for the GPU's name would start CUDA in a program that may not use it (and break a
    # later fork), so only name it once the program itself has started CUDA.
    if final:
        facts["dynamo_config"] = torch_adapter.dynamo_settings()
        facts["libraries"] = _library_versions()
    if final and torch.cuda.is_available() and torch.cuda.is_initialized():
        device = f"cuda: {torch.cuda.get_device_name()}"
    facts["device"] = device
    triton = sys.modules.get("triton")
    if triton is not None:
        facts["triton"] = getattr(triton, "__version__", None)
    return facts


def _library_versions(most: int = 300) -> dict[str, str]:
    """The versions of the top-level packages the program loaded: their `__version__`, read
    from the module's own dict (a module's __getattr__, which may import, is never called), or,
    for an installed package without one there (transformers' lazy module), its version in the
    name of its .dist-info folder (one listing of each site-packages folder; nothing imported)."""
    found: dict[str, str] = {}
    missing: dict[str, str] = {}  # name -> the folder it is installed in
    for name, module in list(sys.modules.items()):
        if "." in name or name.startswith("_") or len(found) + len(missing) >= most:
            continue
        try:
            namespace = vars(module)
        except TypeError:  # not a module with a __dict__
            continue
        version = namespace.get("__version__")
        if isinstance(version, str) and len(version) < 100:
            found[name] = version
            continue
        origin = getattr(namespace.get("__spec__"), "origin", None)
        if isinstance(origin, str) and ("site-packages" in origin or "dist-packages" in origin):
            folder = origin.split(os.sep + name + os.sep)[0] if (os.sep + name + os.sep) in origin else os.path.dirname(origin)
            missing[name] = folder
    listed: dict[str, dict[str, str]] = {}
    for name, folder in missing.items():
        if folder not in listed:
            try:
                entries = os.listdir(folder)
            except OSError:
                entries = []
            listed[folder] = {
                entry[: -len(".dist-info")].rsplit("-", 1)[0].lower().replace("-", "_"): entry[: -len(".dist-info")].rsplit("-", 1)[1]
                for entry in entries
                if entry.endswith(".dist-info") and "-" in entry
            }
        version = listed[folder].get(name.lower())
        if version:
            found[name] = version
    return found


def _platform_name() -> str:
    """platform.platform(terse=True), without the `uname -p` subprocess it starts on Linux to
    learn the processor (unpacking platform.uname() asks for it): the program would see a child
    process it did not start. On Linux that string never shows the processor anyway, unless
    `uname -p` names one other than the machine ("unknown" and the machine itself are left out)."""
    if sys.platform.startswith("linux"):
        system = os.uname()
        try:  # what platform.libc_ver() asks first, without importing platform
            libc, version = os.confstr("CS_GNU_LIBC_VERSION").split(maxsplit=1)  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            import platform

            libc, version = platform.libc_ver()
        parts = [system.sysname, system.release, system.machine, "with", libc + version]
        name = "-".join(part.strip() for part in parts if part)
        for character in ' /\\:;"()':
            name = name.replace(character, "_" if character == " " else "-")
        name = name.replace("unknown", "")
        while "--" in name:
            name = name.replace("--", "-")
        return name.rstrip("-")
    import platform

    return platform.platform(terse=True)


def _process_facts() -> dict[str, Any]:
    """Which process wrote the trace: its pid, its parent's, its command line, and the rank a
    launcher (torchrun) gave it."""
    rank = os.environ.get("RANK")
    return {
        "compilescope": __version__,
        "pid": os.getpid(),
        "parent_pid": os.getppid(),
        "argv": list(getattr(sys, "orig_argv", sys.argv)),
        "rank": int(rank) if rank is not None and rank.isdigit() else None,
    }


def cpu_name() -> str:
    """The CPU as the environment names it: "Intel(R) Xeon(R) Processor, 2 cores"."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return f"{line.split(':', 1)[1].strip()}, {os.cpu_count()} cores"
    except OSError:
        pass
    import platform

    # platform.processor() runs `uname -p` on Linux (a child process the program would see)
    processor = platform.machine() if sys.platform.startswith("linux") else (platform.processor() or platform.machine())
    return f"{processor}, {os.cpu_count()} cores"


class Capture:
    """An attached trace writer; `finish()` detaches it and builds the Session."""

    def __init__(
        self,
        trace_path: str | Path | None = None,
        wait_for_torch: bool = False,
        on_attach: Callable[[], None] | None = None,
        record_calls: bool = True,
        record_code: bool = True,
        wait_for_compile: bool = False,
        fixes: list[Any] | None = None,
        records_program_end: bool | None = None,
        progress: bool = False,
        check_accuracy: int | None = None,
        accuracy_folder: str | None = None,
    ) -> None:
        """`wait_for_compile`: make the trace file only once torch.compile compiles (a child
        process of the program: one that never compiles leaves no file). `records_program_end`:
        the trace is `compilescope run`'s of its program, which ends with a PROGRAM_RECORD once
        the program ends (record_program); the first line says so, so that a reader knows a trace
        without that record as one whose program did not finish (killed). By default, where it
        waits for torch (only run's does): a capture() block, a child process or bench's worker
        write no such record, by design. `progress`: show the live status line while the program
        compiles (record/progress.py), where stderr is a terminal. `check_accuracy`: compare
        each compiled graph's first that many calls with the graph run eagerly (record/
        accuracy.py); the minifier's scripts of those that differ go under `accuracy_folder`."""
        self._on_attach = on_attach
        # the status line's terminal, opened before the program can replace stderr; drawn on
        # once the program imports torch
        self._progress = Progress.for_terminal() if progress else None
        self._fixes = fixes or []  # record/fixes.py's, set as the program imports Dynamo (run --try)
        # made once torch is imported (_attach): until then there is nothing to record
        self.calls: CallRecorder | None = None
        self.code: GeneratedCodeRecorder | None = None
        self.modules: CompiledModules | None = None
        self.accuracy: AccuracyCheck | None = None
        self._check_accuracy, self._accuracy_folder = check_accuracy, accuracy_folder
        self._accuracy_ended = False
        self._started_in = os.getcwd()  # (where the commands it prints are run from: the user's shell)
        self._record_calls, self._record_code = record_calls, record_code
        self._temporary = trace_path is None
        if trace_path is None:
            import tempfile

            handle, name = tempfile.mkstemp(prefix="compilescope-", suffix=".log")
            self.writer = TraceFileWriter(name, stream=os.fdopen(handle, "w+", encoding="utf-8"))
        else:
            # OutputError where it may not be written
            self.writer = TraceFileWriter(trace_path, wait_for="dynamo_start" if wait_for_compile else None)
        self.trace_path = self.writer.path
        self.saved_trace: str | None = None  # where the trace was given its final name, at the end
        # The first line says who wrote the file (compilescope.outputs recognises it by it).
        facts = _process_facts()
        if wait_for_torch if records_program_end is None else records_program_end:
            facts[PROGRAM_END_KEY] = True
        self.writer.write_record(CAPTURE_RECORD, facts)
        self.started = time.perf_counter()
        self._logger: logging.Logger | None = None
        self._handler: TraceHandler | None = None
        self._old_level: int | None = None
        self._finder: Any = None
        self._dynamo_finder: Any = None
        self._attached = False
        self._detached = False
        self.final_environment: dict[str, Any] = {}  # what environment() said as the program ended
        if wait_for_torch:
            self._finder = import_hook.when_torch_imported(self._attach)
        else:
            import torch  # noqa: F401  (torch sets up its trace logger when imported)

            self._attach()

    def _attach(self) -> None:
        import logging

        import compilescope.record.torch_adapter as torch_adapter
        from compilescope.record.calls import CallRecorder
        from compilescope.record.generated import GeneratedCodeRecorder
        from compilescope.record.handler import TraceHandler
        from compilescope.record.modules import CompiledModules

        self._attached = True
        self.modules = CompiledModules()
        try:
            self.modules.start()
        except Exception as error:  # a bonus: never fail the program for it
            self.modules.unavailable = f"not recorded: {error_summary(error)}"
        if self._record_calls:
            self.calls = CallRecorder()
        if self._record_code:
            self.code = GeneratedCodeRecorder()
        if self._check_accuracy:
            from compilescope.record.accuracy import AccuracyCheck

            self.accuracy = AccuracyCheck(self._check_accuracy, self.writer, at_end=self._end_accuracy)
        logger = torch_adapter.trace_logger()
        # torch keeps this logger at DEBUG and emits only while it has a handler; keep it so.
        if logger.level != logging.DEBUG:
            self._old_level = logger.level
            logger.setLevel(logging.DEBUG)
        earlier = _repeat_file_names(self.writer)
        self.writer.write_record(ENVIRONMENT_RECORD, environment())
        self._handler = TraceHandler(self.writer)
        for interned in earlier:
            self._handler.note_file(interned)
        if self._progress is not None:
            self._handler.progress = self._progress.start()
        # Ours goes first: torch's own handler (LazyTraceHandler, with TORCH_TRACE unset) removes
        # itself from the logger while the logger is handing it torch's first record, and the
        # handler after it in the list is then passed over for that record (the first compile's
        # "dynamo" begin event). A new list, not one changed in place: a record being handed out
        # in another thread meanwhile goes on over the list it began with.
        logger.handlers = [self._handler, *logger.handlers]
        self._logger = logger
        if self.calls is not None:
            try:
                self.calls.start(now=False)
            except Exception as error:  # counting calls is a bonus: never fail the program for it
                self.calls.stop()
                self.calls.unavailable = f"not recorded: {error_summary(error)}"
        # The bytecode hooks need Dynamo: they are set once the program imports it (torch.compile
        # does, on its first use), never by us before (import_hook.py says why nothing is missed).
        if self.calls is not None or self.code is not None:
            self._dynamo_finder = import_hook.when_imported(torch_adapter.DYNAMO_MODULE, self._attach_dynamo)
        if self._on_attach is not None:
            self._on_attach()

    def _attach_dynamo(self) -> None:
        """Dynamo is imported (inside the program's import of it): hook its code generation.
        Never raises into the program's import."""
        self._dynamo_finder = None
        if self._detached:
            return
        if self._fixes:
            import compilescope.record.fixes as fixes

            fixes.apply_at_import(self._fixes, self.writer)
        # Dynamo brought Inductor's config: the C++ compiler is known now (written here too, so
        # that a run killed before its end still says it).
        with contextlib.suppress(Exception):
            facts = environment()
            if facts.get("compiler") is not None:
                self.writer.write_record(ENVIRONMENT_RECORD, facts)
        if self.calls is not None:
            try:
                self.calls.hook_dynamo()
            except Exception as error:  # counting calls is a bonus: never fail the program for it
                with contextlib.suppress(Exception):
                    self.calls.stop()
                self.calls.unavailable = f"not recorded: {error_summary(error)}"
        if self.accuracy is not None:
            try:
                self.accuracy.start()
            except Exception as error:  # the check is asked for, but never fails the program
                self.accuracy.unavailable = f"not checked: {error_summary(error)}"
        if self.code is not None:
            try:
                self.code.start()
            except Exception as error:  # a bonus too
                with contextlib.suppress(Exception):
                    self.code.stop()
                self.code.unavailable = f"not recorded: {error_summary(error)}"

    def _end_accuracy(self) -> None:
        """--check-accuracy's end (at the program's exit, or at the latest as we detach), once."""
        if self.accuracy is not None and not self._accuracy_ended:
            self._accuracy_ended = True
            from compilescope.record.accuracy_stages import finish_unrecorded
            from compilescope.record.memory import measure_before_our_work

            measure_before_our_work()
            finish_unrecorded(self.accuracy, self._accuracy_folder, self._started_in, self._logger, self._handler)

    def record_program(self, program: dict[str, Any]) -> None:
        """How the program ran and ended: session.model.Program's fields."""
        self.writer.write_record(PROGRAM_RECORD, program)

    def record_children(self, children: list[ChildProcess]) -> None:
        """The program's child processes, as record/children.py found them (in the record's
        metadata: a payload would need its md5, and hashlib, for a run that found none)."""
        listed: list[Any] = []
        if children:
            import dataclasses

            listed = [dataclasses.asdict(c) for c in children]
        self.writer.write_record(CHILDREN_RECORD, {"children": listed})

    @property
    def shows_progress(self) -> bool:
        """Whether the live status line is drawn while the program compiles (until it ends)."""
        return self._progress is not None

    def stop_progress(self) -> None:
        """The program is over: the status line erased (if one is shown) and never drawn again."""
        if self._progress is not None:
            self._progress.close()
            self._progress = None

    def detach(self) -> None:
        self.stop_progress()
        for finder in (self._finder, self._dynamo_finder):
            if finder is not None:
                import_hook.remove(finder)
        self._finder = self._dynamo_finder = None
        if self.calls is not None:
            self.calls.stop()
        if self.code is not None:
            self.code.stop()
        if self.modules is not None:
            self.modules.stop()
        if self._logger is not None:
            if self._handler is not None:
                self._logger.removeHandler(self._handler)
                self._handler.close()
            if self._old_level is not None:
                self._logger.setLevel(self._old_level)
            self._logger = None
        if not self._detached and not self.writer.closed:
            self._detached = True
            # The final facts (CUDA's device, once the program started it) are a bonus: never
            # let them fail the end of the user's program.
            with contextlib.suppress(Exception):
                self.final_environment = environment(final=True)
                self.writer.write_record(ENVIRONMENT_RECORD, self.final_environment)
            if self.accuracy is not None:
                self._end_accuracy()
            if self.calls is not None and self._attached:
                with contextlib.suppress(Exception):
                    self.writer.write_record(CALLS_RECORD, self.calls.facts())
            if self.modules is not None and self._attached:
                with contextlib.suppress(Exception):
                    self.writer.write_record(COMPILED_MODULES_RECORD, self.modules.facts())
            if self.code is not None and self._attached:
                # decompiling runs here, once the program is done; its time is in the record
                with contextlib.suppress(Exception):
                    self.writer.write_record(GENERATED_CODE_RECORD, {}, json.dumps(self.code.facts()))

    def finish_child(self) -> None:
        """At the end of a child process: the final records, and the file closed and given its
        name."""
        self.detach()
        self.writer.close()
        self.writer.publish()

    def continue_in_fork(self, path: str | Path) -> None:
        """In a process just forked from this one: write a trace of its own at `path` (made once
        it compiles), and leave the parent's file alone. What the recorders of calls and code
        hold is the parent's, so the fork records neither."""
        parent = self.writer
        parent.abandon()
        self.writer = TraceFileWriter(path, wait_for="dynamo_start")
        self.trace_path = self.writer.path
        self.writer.write_record(CAPTURE_RECORD, _process_facts())
        if self._attached:
            _repeat_file_names(self.writer)
        for recorder in (self.calls, self.code, self.modules):
            if recorder is not None:
                recorder.stop()
        self.calls = self.code = self.modules = None
        if self._handler is not None:
            self._handler.writer = self.writer

    def finish_without_torch(self) -> dict[str, Any]:
        """The end of a run whose program never imported torch: the last records written, the
        file closed (removed, if it was a temporary one); the environment as the program ended,
        for the session (session/empty.py). Nothing of the trace is read back: it holds only
        compilescope's own records."""
        self.detach()
        self.writer.close()
        if self._temporary:
            with contextlib.suppress(OSError):
                os.unlink(self.trace_path)
        else:
            self.saved_trace = self.writer.publish()
        return self.final_environment

    def build(self) -> Session:
        from compilescope.session.build import build_session
        from compilescope.trace.reader import read_trace

        self.detach()
        with self.writer.read_back() as handle:
            if not self._temporary:
                self.saved_trace = self.writer.publish()
            session = build_session(read_trace(handle, name=str(self.saved_trace or self.trace_path)))
        if self._temporary or self.saved_trace is None:
            session.trace_files = []
        if self._temporary:
            with contextlib.suppress(OSError):
                os.unlink(self.trace_path)
        return session

    @property
    def trace_problem(self) -> str | None:
        """What went wrong writing the trace (a full disk, a read-only folder), in one line."""
        return self.writer.problem


def _repeat_file_names(writer: TraceFileWriter) -> list[list[Any]]:
    """torch writes each file name once per process (`str` records, which later records refer
    to by number): repeat those it wrote before this trace began; those repeated."""
    import compilescope.record.torch_adapter as torch_adapter

    strings = torch_adapter.interned_strings()
    repeated: list[list[Any]] = []
    if isinstance(strings, dict):
        for text, index in sorted(strings.items(), key=lambda item: item[1]):
            writer.write_record("str", [text, index])
            repeated.append([text, index])
    return repeated


@contextlib.contextmanager
def capture(trace_path: str | Path | None = None, label: str = "with compilescope.capture()") -> Iterator[Session]:
    """Record what torch.compile does inside the block; the yielded Session is filled in when
    the block ends (also when it raises). `label` names what ran, in the report's header."""
    import dataclasses

    from compilescope.session.model import Program, Session

    session = Session()
    recorder = Capture(trace_path)
    try:
        yield session
    finally:
        built = recorder.build()
        for item in dataclasses.fields(Session):
            setattr(session, item.name, getattr(built, item.name))
        if session.program is None:
            session.program = Program(kind="capture", target=label, wall_time_s=time.perf_counter() - recorder.started)


def _forget_our_backend_change(session: Session) -> None:
    """explain() compiles afresh with a backend Dynamo has not seen, which torch reports as a
    recompile on BACKEND_MATCH against versions compiled earlier in the process (and not in
    this session): that reason is explain()'s doing, not the user's, and is left out."""
    here = {c.compile_id for c in session.compiles}
    for c in session.compiles:
        if c.failed_guards and all("BACKEND_MATCH" in g.text and g.previous_compile not in here for g in c.failed_guards):
            c.recompile_reason, c.failed_guards = None, []


def explain(
    fn: Callable[..., Any],
    *args: Any,
    backend: str | Callable[..., Any] = "inductor",
    mode: str | None = None,
    dynamic: bool | None = None,
    fullgraph: bool = False,
    options: dict[str, Any] | None = None,
    **kwargs: Any,
) -> Session:
    """Compile `fn` (a function or nn.Module) with torch.compile, call it once with the given
    arguments, and return what torch.compile did. It compiles afresh even where the process
    compiled the same code before (a notebook cell run again), as torch._dynamo.explain does:
    torch.compile gets a backend Dynamo has not seen. An error in the call is recorded in the
    session (`session.program.exception`) rather than raised, since it is often what the user
    wants explained (a fullgraph=True failure, say)."""
    import torch

    from compilescope.session.model import Program

    name = getattr(fn, "__qualname__", None) or type(fn).__name__
    started = time.perf_counter()
    exception: str | None = None
    import compilescope.record.torch_adapter as torch_adapter

    try:  # a backend Dynamo has not seen: what this process compiled before is compiled again
        fresh = torch_adapter.fresh_backend(backend, mode, options, dynamic)
    except torch_adapter.NotAvailable:  # (an older or newer torch: as torch.compile would)
        fresh = None
    with capture() as session:
        if fresh is not None:
            compiled = torch.compile(fn, backend=fresh, dynamic=dynamic, fullgraph=fullgraph)
        else:
            compiled = torch.compile(fn, backend=backend, mode=mode, dynamic=dynamic, fullgraph=fullgraph, options=options)
        try:
            compiled(*args, **kwargs)
        except Exception as error:  # explained, not raised: see the docstring
            exception = error_summary(error)
    if fresh is not None:
        _forget_our_backend_change(session)
    session.program = Program(
        kind="function",
        target=name,
        exit_status=None,
        exception=exception,
        wall_time_s=time.perf_counter() - started,
    )
    return session
