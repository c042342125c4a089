"""Following a program's child processes under `compilescope run`: the parent's part.

Before the program runs, `FollowChildren.start()` makes the run's registry (a private temporary
file), passes the settings to the program's children through the environment, and follows this
process's own forks and the processes it starts (record/child.py says what each child does).
When the program has ended, `finish()` reads the registry back and says, for each Python child:
what it compiled (from its own trace), that it compiled nothing, or that it could not be
followed, and why. A child is never guessed at: one that did not say it was there is named from
the command that started it.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys

import compilescope.record.child as child
from compilescope.record.child import ENV, STARTUP, Settings

# The session model comes in only where a child was found (describe): a program that starts
# none pays nothing for it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from compilescope.session.model import ChildProcess

_MOST_REGISTRY_BYTES = 16 * 1024 * 1024
_MOST_SUMMARISED = 64  # children whose traces are read back for their figures
_PYTHON = r"^(python|pypy)[\d.]*(\.exe)?$"  # (compiled by re when a child is described)


class FollowChildren:
    def __init__(self, folder: str, base: str, record_calls: bool) -> None:
        self.folder, self.base, self.record_calls = folder, base, record_calls
        self.settings: Settings | None = None
        self._saved: dict[str, str | None] = {}

    def start(self, capture: Any) -> None:
        """From now on, the program's children are followed (`capture`: this process's own)."""
        folder = _registry_folder()
        _remove_abandoned_registries(folder)
        registry = _new_registry(folder)
        self.settings = Settings(str(self.folder), self.base, registry, self.record_calls)
        self._saved = {name: os.environ.get(name) for name in (ENV, "PYTHONPATH")}
        os.environ[ENV] = self.settings.to_environment()
        earlier = os.environ.get("PYTHONPATH")
        os.environ["PYTHONPATH"] = STARTUP + (os.pathsep + earlier if earlier else "")
        child.follow(self.settings, capture)

    def finish(self) -> list[ChildProcess]:
        """Stop following; the children, as the registry tells them."""
        child.stop_following()
        for name, value in self._saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        if self.settings is None:
            return []
        lines = _read_registry(self.settings.registry)
        with contextlib.suppress(OSError):
            os.unlink(self.settings.registry)
        return describe(lines)


_REGISTRY = "compilescope-children-"  # + the run's pid, "-", a random part, ".jsonl"


def _registry_folder() -> str:
    """The temporary folder: the first of tempfile.gettempdir()'s candidates that is a folder we
    may write in, found without importing tempfile (with random, hashlib and shutil, ~5 ms
    before the program runs)."""
    candidates = [os.environ.get(name) for name in ("TMPDIR", "TEMP", "TMP")]
    candidates += [r"c:\temp", r"c:\tmp", r"\temp", r"\tmp"] if os.name == "nt" else ["/tmp", "/var/tmp", "/usr/tmp"]
    for folder in candidates:
        if folder and os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK):
            return os.path.abspath(folder)
    return os.getcwd()


def _new_registry(folder: str) -> str:
    """A new, empty registry file of this run's, readable by this user only (as mkstemp makes)."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        path = os.path.join(folder, f"{_REGISTRY}{os.getpid()}-{os.urandom(6).hex()}.jsonl")
        try:
            os.close(os.open(path, flags, 0o600))
            return path
        except FileExistsError:
            continue
    raise FileExistsError(f"no new registry name in {folder}")


def _remove_abandoned_registries(folder: str) -> None:
    """A run that ended without finishing (the program called os._exit, or was killed) leaves
    its registry behind: remove those whose run is gone (our own files, by name and owner)."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if not (entry.name.startswith(_REGISTRY) and entry.name.endswith(".jsonl")):
            continue
        pid = entry.name.split("-")[2]
        with contextlib.suppress(OSError, ValueError):
            if entry.is_symlink() or entry.stat(follow_symlinks=False).st_uid != os.getuid() or _running(int(pid)):
                continue
            os.unlink(entry.path)


def _read_registry(path: str) -> list[dict[str, Any]]:
    import json

    lines = []
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read(_MOST_REGISTRY_BYTES)
    except OSError:
        return []
    for line in text.splitlines():
        try:
            data = json.loads(line)
        except ValueError:
            continue  # a line cut off by a child killed mid-write
        if isinstance(data, dict) and len(data) == 1:
            lines.append(data)
    return lines


def describe(lines: list[dict[str, Any]]) -> list[ChildProcess]:
    """The children, from the registry's lines (see record/child.py for what each says)."""
    if not lines:
        return []
    from compilescope.session.model import ChildProcess

    said: list[dict[str, Any]] = [line["child"] for line in lines if isinstance(line.get("child"), dict)]
    trouble = {line["not_followed"].get("pid"): line["not_followed"] for line in lines if isinstance(line.get("not_followed"), dict)}
    started = [line["started"] for line in lines if isinstance(line.get("started"), dict)]

    out: list[ChildProcess] = []
    for facts in said:
        out.append(_followed(facts, trouble.pop(facts.get("pid"), None), summarise=len(out) < _MOST_SUMMARISED))
    for facts in trouble.values():  # the hook ran but compilescope could not follow it
        out.append(
            ChildProcess(
                pid=_int(facts.get("pid")),
                parent_pid=_int(facts.get("parent_pid")),
                command=_command(_argv(facts)),
                how="started",
                followed=False,
                why_not=str(facts.get("why")),
            )
        )
    unmatched = list(said) + [f for f in trouble.values()]
    for start in started:
        argv = _unwrapped(_argv(start))
        if start.get("by_torch") is True or not _is_python(argv):
            continue  # torch's own helpers (compile workers, library probes) run no torch.compile
        found = next((c for c in unmatched if _same(start, argv, c)), None)
        if found is not None:
            unmatched.remove(found)
            continue
        out.append(
            ChildProcess(
                pid=None,
                parent_pid=_int(start.get("by")),
                command=_command(argv),
                how="started",
                followed=False,
                why_not=_why_not_followed(start, argv),
            )
        )
    return out


def _followed(facts: dict[str, Any], trouble: dict[str, Any] | None, summarise: bool) -> ChildProcess:
    from compilescope.session.model import ChildProcess

    pid = _int(facts.get("pid"))
    how = "forked" if facts.get("how") == "forked" else "started"
    command = f"fork of pid {facts.get('parent_pid')}" if how == "forked" else _command(_argv(facts))
    item = ChildProcess(
        pid=pid, parent_pid=_int(facts.get("parent_pid")), command=command, how=how, followed=trouble is None, rank=_int(facts.get("rank"))
    )
    if trouble is not None:
        item.why_not = str(trouble.get("why"))
    trace = facts.get("trace")
    if isinstance(trace, str) and not os.path.lexists(trace):
        from compilescope.outputs import unpublished

        trace = unpublished(trace)
    if isinstance(trace, str) and os.path.isfile(trace):
        item.trace = trace
        if summarise:
            _summarise(item, trace)
    if item.trace is not None and pid is not None and _running(pid):
        item.why_not = "still running when the program ended: its trace may be incomplete"
    return item


def _summarise(item: ChildProcess, trace: str) -> None:
    from compilescope.session.build import build_session
    from compilescope.trace.reader import read_trace

    try:
        session = build_session(read_trace(trace))
    except (OSError, ValueError) as error:
        item.why_not = f"its trace could not be read: {error}"
        return
    item.functions = len(session.frames)
    item.compiles = len(session.compiles)
    item.recompiles = len(session.recompiles)
    item.graph_breaks = len(session.graph_breaks)
    item.kernels = len(session.kernels)
    item.compile_time_s = session.total_compile_time_s


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    # A child that ended but was not waited for is a zombie: not running.
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return True


def _argv(facts: dict[str, Any]) -> list[str]:
    argv = facts.get("argv")
    return [str(part) for part in argv] if isinstance(argv, list) else []


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _unwrapped(argv: list[str]) -> list[str]:
    """`sh -c "python x.py"` (os.system, shell=True) as the command the shell runs."""
    if len(argv) >= 3 and os.path.basename(argv[0]) in ("sh", "bash", "dash", "zsh") and argv[1] == "-c":
        import shlex

        with contextlib.suppress(ValueError):
            return shlex.split(argv[2])
    return argv


def _is_python(argv: list[str]) -> bool:
    """Whether a command starts Python: a python executable, or a script whose #! line names
    one (torchrun, a console script)."""
    if not argv:
        return False
    name = os.path.basename(argv[0])
    if re.match(_PYTHON, name) or os.path.realpath(argv[0]) == os.path.realpath(sys.executable):
        return True
    import shutil

    path = shutil.which(argv[0]) if os.sep not in argv[0] else argv[0]
    if path is None:
        return False
    try:
        with open(path, "rb") as handle:
            first = handle.readline(256)
    except OSError:
        return False
    return first.startswith(b"#!") and b"python" in first


def _same(start: dict[str, Any], argv: list[str], facts: dict[str, Any]) -> bool:
    """Whether a child that said it was there is the one this start made: same parent (or the
    same process, after exec), and its command line ends as the start's."""
    by = start.get("by")
    related = facts.get("parent_pid") == by or (start.get("how") == "os.exec" and facts.get("pid") == by)
    if not related and start.get("how") != "os.system":  # a shell may stand between
        return False
    theirs = _argv(facts)
    tail = argv[1:]
    return len(theirs) > len(tail) and (not tail or theirs[-len(tail) :] == tail)


def _why_not_followed(start: dict[str, Any], argv: list[str]) -> str:
    if start.get("environment_kept") is False:
        return "it was given an environment of its own, without compilescope's start-up hook on PYTHONPATH"
    for option in argv[1:]:
        if not option.startswith("-") or option in ("-c", "-m") or option.startswith("--"):
            break
        if "I" in option or "E" in option:
            return f"python {option} ignores PYTHONPATH, where compilescope's start-up hook is"
        if "S" in option:
            return f"python {option} skips site, which runs compilescope's start-up hook"
    return "it did not run compilescope's start-up hook (another Python without compilescope, or it ended before Python started)"


def _command(argv: list[str]) -> str:
    text = " ".join(argv)
    if "multiprocessing.spawn import spawn_main" in text:
        return "multiprocessing worker (spawn)"
    if "multiprocessing.forkserver import main" in text:
        return "multiprocessing fork server"
    if argv:
        argv = [os.path.basename(argv[0]), *argv[1:]]
    text = " ".join(" ".join(argv).split())  # one line: a -c program's lines joined
    return text if len(text) <= 120 else text[:119] + "…"
