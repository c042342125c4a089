"""Following a program's child processes under `compilescope run`: what each process does.

`compilescope run` passes its settings to the program's children in the environment
(COMPILESCOPE_CHILDREN) and puts a start-up hook first on PYTHONPATH (startup/sitecustomize.py),
as coverage.py does to measure subprocesses. So:

- A Python child started any way (multiprocessing's spawn and forkserver, subprocess, os.system,
  exec) runs the hook, which calls `start_child()`.
- A child forked from a followed process (multiprocessing's fork) goes on from `_after_fork()`.

Either way the child says it is there (a line in the run's registry: pid, parent, command line),
and records torch's trace as the program's own is recorded, into a file of its own beside the
program's (`compilescope-train.pid4242.log`, with the rank where a launcher gave one). The file is
made only when torch.compile compiles there: Inductor's compile workers and other Python helpers
leave none. Every followed process also notes the processes it starts (an audit hook), so that the
parent (record/children.py) can name a Python child that could not be followed.

Light on purpose: the start-up hook imports this module in every Python child; the recorder and
torch come in only once the child imports torch.
"""

from __future__ import annotations

import atexit
import json
import os
import shlex
import sys

import compilescope.record.import_hook as import_hook

TYPE_CHECKING = False  # (typing is not imported: every Python child of the program loads this module)
if TYPE_CHECKING:
    from types import FrameType
    from typing import Any

    from compilescope.record.recorder import Capture

ENV = "COMPILESCOPE_CHILDREN"
# The folder that holds the start-up hook (sitecustomize.py), first on the children's PYTHONPATH.
STARTUP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "startup")
# What a registry line may hold of a command line: a line stays one write, well under 64 KiB.
_MOST_ARGV_CHARS = 2000


class Settings:
    """What a child needs to follow itself, as `compilescope run` set it in the environment.
    (A plain class: dataclasses would add to every Python child's start.)"""

    def __init__(self, folder: str, base: str, registry: str, record_calls: bool) -> None:
        self.folder = folder  # where the program's outputs go (absolute)
        self.base = base  # "compilescope-train": the program's outputs' name, before any tag
        self.registry = registry  # the file every followed process appends its lines to
        self.record_calls = record_calls

    def to_environment(self) -> str:
        return json.dumps({"folder": self.folder, "base": self.base, "registry": self.registry, "record_calls": self.record_calls})

    @classmethod
    def from_environment(cls) -> Settings | None:
        try:
            data = json.loads(os.environ.get(ENV, ""))
            return cls(str(data["folder"]), str(data["base"]), str(data["registry"]), bool(data["record_calls"]))
        except (ValueError, KeyError, TypeError):
            return None

    def trace_path(self, pid: int) -> str:
        from compilescope.outputs import process_tag

        return os.path.join(self.folder, f"{self.base}{process_tag()}.pid{pid}.log")


class _Following:
    """This process's part: its settings, the registry, and the capture once torch is in."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.capture: Capture | None = None
        self.pid = os.getpid()
        # Opened once, kept open: the audit hook writes with os.write, which opens nothing (an
        # open inside an audit hook would be audited in turn).
        self.registry = os.open(settings.registry, os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))

    def say(self, kind: str, facts: dict[str, Any]) -> None:
        line = json.dumps({kind: facts}, default=str) + "\n"
        try:
            os.write(self.registry, line.encode("utf-8", "replace"))
        except OSError:
            pass


_state: _Following | None = None
_hooked = False  # the audit hook and the at-fork handler are installed once per process


def follow(settings: Settings, capture: Capture | None = None) -> None:
    """Follow this process's children from now on."""
    global _state, _hooked
    if _state is not None:
        return
    _state = _Following(settings)
    _state.capture = capture
    if not _hooked:
        _hooked = True
        sys.addaudithook(_audit)
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=_after_fork)


def stop_following() -> None:
    """The program has ended (in the process `compilescope run` started): children started from
    now on are not ours. The audit hook stays (Python cannot remove one) but does nothing."""
    global _state
    if _state is not None:
        os.close(_state.registry)
    _state = None


def _facts(parent: int, how: str, trace: str) -> dict[str, Any]:
    """What a child says of itself in the registry."""
    rank = os.environ.get("RANK", "")
    return {
        "pid": os.getpid(),
        "parent_pid": parent,
        "argv": _bounded(list(getattr(sys, "orig_argv", sys.argv))),
        "how": how,
        "trace": trace,
        "rank": int(rank) if rank.isdigit() else None,
    }


def _bounded(argv: list[str]) -> list[str]:
    kept, used = [], 0
    for part in argv:
        used += len(part)
        if used > _MOST_ARGV_CHARS:
            kept.append("…")
            break
        kept.append(part)
    return kept


def start_child() -> None:
    """In a Python child that the start-up hook runs in: say so, and capture it once it imports
    torch. Never fails the child: what goes wrong is said in the registry."""
    settings = Settings.from_environment()
    if settings is None or _state is not None:
        return
    try:
        follow(settings)
    except OSError:
        return  # the run has ended (its registry is gone): this child is not followed
    assert _state is not None
    _state.say("child", _facts(os.getppid(), "started", settings.trace_path(os.getpid())))
    import_hook.when_torch_imported(_capture_this_process)


def _capture_this_process() -> None:
    state = _state
    if state is None:
        return
    try:
        from compilescope.record.recorder import Capture

        state.capture = Capture(state.settings.trace_path(os.getpid()), record_calls=state.settings.record_calls, wait_for_compile=True)
    except Exception as error:  # never fail the child for it: say why it is not captured
        state.say("not_followed", {"pid": os.getpid(), "why": f"{type(error).__name__}: {error}"})
        return
    atexit.register(_finish)


def _finish() -> None:
    state = _state
    if state is not None and state.capture is not None and state.pid == os.getpid():
        try:
            state.capture.finish_child()
        except Exception as error:
            state.say("not_followed", {"pid": os.getpid(), "why": f"at exit: {type(error).__name__}: {error}"})


def _after_fork() -> None:
    """In a process just forked from a followed one: the parent's capture was copied with it;
    from now on this process writes a trace of its own."""
    state = _state
    if state is None:
        return
    parent = state.pid
    state.pid = os.getpid()
    path = state.settings.trace_path(state.pid)
    state.say("child", _facts(parent, "forked", path))
    if state.capture is not None:
        try:
            state.capture.continue_in_fork(path)
        except Exception as error:
            state.capture = None
            state.say("not_followed", {"pid": state.pid, "why": f"{type(error).__name__}: {error}"})
            return
        atexit.register(_finish)  # a fork that returns normally; multiprocessing's end with os._exit


# Audit events of starting a process, and where in each event's arguments its command and
# environment are. Fork needs none: _after_fork runs in every forked child.
_STARTS = {"subprocess.Popen": (1, 3), "os.system": (0, None), "os.exec": (1, 2), "os.posix_spawn": (1, 2), "os.spawn": (2, 3)}


def _audit(event: str, args: tuple[Any, ...]) -> None:
    where = _STARTS.get(event)
    state = _state
    if where is None or state is None or state.pid != os.getpid():
        return
    try:
        command, environment = args[where[0]], (args[where[1]] if where[1] is not None else None)
        if isinstance(command, bytes):
            command = os.fsdecode(command)
        if isinstance(command, str):
            argv = ["/bin/sh", "-c", command] if event == "os.system" else shlex.split(command)
        else:
            argv = [os.fsdecode(part) if isinstance(part, bytes) else str(part) for part in command]
        state.say(
            "started",
            {
                "by": state.pid,
                "how": event,
                "argv": _bounded(argv),
                "environment_kept": _keeps_ours(environment),
                "by_torch": _started_by_torch(),
            },
        )
    except Exception:
        pass  # an audit hook must never raise into the program


def _keeps_ours(environment: Any) -> bool | None:
    """Whether an environment given to a new process still has what following it needs (None:
    it inherits this process's, which does)."""
    if environment is None:
        return None
    values = {os.fsdecode(k) if isinstance(k, bytes) else str(k): v for k, v in environment.items()}
    path = values.get("PYTHONPATH")
    path = os.fsdecode(path) if isinstance(path, bytes) else str(path or "")
    return ENV in values and STARTUP in path.split(os.pathsep)


_STDLIB = os.path.dirname(os.path.abspath(os.__file__))
_INDUCTOR = f"{os.sep}torch{os.sep}_inductor{os.sep}"


def _started_by_torch() -> bool:
    """Whether the code that started the process (the first caller outside the standard
    library) is Inductor's: its compile workers and library probes, which run no torch.compile.
    (torchrun's workers, started from torch.distributed, are the program's and are followed.)"""
    frame: FrameType | None = sys._getframe(2)
    while frame is not None:
        filename = os.path.abspath(frame.f_code.co_filename)
        if not filename.startswith(_STDLIB) and filename != os.path.abspath(__file__):
            return _INDUCTOR in filename
        frame = frame.f_back
    return False
