"""Every file compilescope writes goes through here: new files only, never the user's.

The invariant (DESIGN.md): compilescope never writes over a file of the user's, never through a
symbolic link, and each process gets its own outputs, resolved where the command started. So:

- Paths are made absolute when a command starts (`absolute`): a program that changes its working
  folder (Hydra does) cannot move or lose our outputs.
- A path may be written only where nothing is, or where a file compilescope wrote itself is
  (`refusal` says why not otherwise: a link, a folder, a special file, someone else's file). Our
  files are recognised by their first bytes (`is_ours`), not by their names.
- A finished file (a session, a report, a .py file) is written whole to a new temporary file
  beside its target, created exclusively, then put in place: by a hard link where the target is
  absent (which fails, rather than follows, if a link was planted since), by a rename over a file
  of ours otherwise (`write_text`). A crash never leaves half a file under the target's name.
- A file written while a program runs (the trace) is private until the run ends
  (`create_private`): a hidden file beside its target, created exclusively with O_NOFOLLOW and
  locked, so that the program never meets it under the name it knows; `publish` names it at
  the end, beside a file the program made at that name if it made one. A second compilescope
  process sees the lock (`being_written`) and takes other names. A run that is killed leaves
  the hidden file: the next run in that folder keeps a trace as NAME.unfinished.log and removes
  other half-written files of ours (`leftovers`).

No torch here: every layer that writes uses it. Paths are plain strings (any os.PathLike is taken):
this module runs before a program under `compilescope run`, and pathlib would cost ~3 ms of a
short program's run (docs/cli.md, "What run costs").
"""

from __future__ import annotations

import contextlib
import os
import re
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import IO

    Place = str | os.PathLike[str]  # a path, as a string or a pathlib.Path

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; a file in use is then not detected
    fcntl = None  # type: ignore[assignment]


class OutputError(Exception):
    """A path compilescope must not write: the message says which and why, for the user."""


# The first bytes of each kind of file compilescope writes. A trace's every line of our own ends
# its header with "compilescope/capture.py:0]" (see record.writer), and the writer's first line is
# always one of ours; a session starts with its schema; a report names its generator; a .py file
# starts with the comment pyfiles writes.
# (Compiled when first used, by re's cache: a run that writes nothing over a file never needs them.)
_OURS = (
    (rb"^V\d{4} [\d:.]+ +\d+ compilescope/capture\.py:0\] \{", 0),
    (rb'^\{\s*"schema":\s*"compilescope/', 0),
    (rb'^<!DOCTYPE html>.{0,4096}?(<meta name="generator" content="compilescope|<title>compilescope)', re.S),
    (rb"^# compilescope: ", 0),
    (rb'^\{"otherData": \{"generator": "compilescope', 0),  # a --timeline file (app/timeline.py)
    (rb"^# A runnable repro of compile .{1,200}, written by compilescope:", 0),  # render/repro.py
)
_HEAD_BYTES = 8192
# To look at a file: never through a link, never waiting on a pipe.
_LOOK = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)


def absolute(path: Place) -> str:
    """The path made absolute against the current folder, without resolving links (a link in a
    folder above is the user's setup; only the file itself is checked)."""
    return os.path.abspath(os.fspath(path))


def stem_and_suffix(path: Place) -> tuple[str, str]:
    """The last part of the path as pathlib splits it: ("train", ".json") for "out/train.json",
    (".env", "") for ".env", ("x.tar", ".gz") for "x.tar.gz"."""
    name = os.path.basename(os.fspath(path))
    dot = name.rfind(".")
    return (name[:dot], name[dot:]) if 0 < dot < len(name) - 1 else (name, "")


def process_tag() -> str:
    """ ".rank3" where a launcher (torchrun, or any that sets RANK) gave this process a rank: it
    goes in the name of every file the process writes, so that ranks never share one."""
    rank = os.environ.get("RANK", "")
    return f".rank{rank}" if rank.isdigit() else ""


def _describe_link(path: Place) -> str:
    try:
        return f"it is a symbolic link (to {os.readlink(path)})"
    except OSError:
        return "it is a symbolic link"


def is_ours(path: Place) -> bool:
    """Whether `path` is a regular file (not a link) that compilescope wrote."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    if not stat.S_ISREG(info.st_mode):
        return False
    try:
        fd = os.open(path, _LOOK)
    except OSError:
        return False
    try:
        head = os.read(fd, _HEAD_BYTES)
    except OSError:
        return False
    finally:
        os.close(fd)
    return any(re.match(pattern, head, flags) for pattern, flags in _OURS)


def refusal(path: Place) -> str | None:
    """Why compilescope may not write `path` ("it is a symbolic link (to /etc/passwd)", ...), or
    None where it may: nothing is there, or a file compilescope wrote."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        parent = os.path.dirname(os.fspath(path)) or "."
        if not os.path.isdir(parent):
            return f"its folder {parent} does not exist"
        return None
    except OSError as error:
        return f"it cannot be looked at ({error.strerror})"
    if stat.S_ISLNK(info.st_mode):
        return _describe_link(path)
    if stat.S_ISDIR(info.st_mode):
        return "it is a folder"
    if not stat.S_ISREG(info.st_mode):
        return "it is a special file (a device, pipe or socket)"
    if not is_ours(path):
        return "it is a file compilescope did not write"
    return None


def check_writable(path: Place, what: str) -> None:
    """Raise OutputError, with a message for the user, where `path` may not be written."""
    reason = refusal(path)
    if reason is not None:
        raise OutputError(f"will not write {what} to {path}: {reason}")


def write_text(path: Place, text: str, what: str = "a file") -> str:
    """Write `text` to `path` whole, as a new file or over a file of ours (see the module's
    docstring); OutputError where the path is not ours to write."""
    with writing(path, what) as handle:
        handle.write(text)
    return absolute(path)


@contextlib.contextmanager
def writing(path: Place, what: str = "a file") -> Iterator[IO[str]]:
    """A file to write in parts (a report too large to hold whole): it appears at `path` whole
    when the block ends, and not at all if the block raises; the same rules as write_text."""
    target = absolute(path)
    check_writable(target, what)
    fd, temporary = _new_beside(target)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            yield handle
        _put_in_place(temporary, target, what)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


# A new file only: fails where anything (a link included) has the name.
_CREATE = os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def _new_beside(target: str, mode: int = os.O_WRONLY) -> tuple[int, str]:
    """A new, hidden file in the target's folder (`.NAME.<12 hex digits>.partial`), created
    exclusively, with the permissions the user's umask gives new files (tempfile's would be
    private to the user)."""
    for _ in range(100):
        folder, name = os.path.split(target)
        candidate = os.path.join(folder, f".{name}.{os.urandom(6).hex()}{PARTIAL}")
        try:
            fd = os.open(candidate, _CREATE | mode, 0o666)
        except FileExistsError:
            continue
        # Locked while it is written: another run's `leftovers` leaves it alone.
        if fcntl is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return fd, candidate
    raise OutputError(f"could not create a new file beside {target}")


PARTIAL = ".partial"
# A hidden file of ours being written: ".compilescope-train.log.0123456789ab.partial"
_PARTIAL_NAME = r"^\.(?P<name>.+)\.[0-9a-f]{12}\.partial$"


def _put_in_place(temporary: str, target: str, what: str) -> None:
    if not os.path.lexists(target):
        try:
            os.link(temporary, target)  # fails, never follows, if something appeared meanwhile
            return
        except OSError:
            pass  # something appeared, or a file system without hard links: check again, rename
    check_writable(target, what)
    os.replace(temporary, target)


def in_use(path: Place) -> bool:
    """Whether another process holds the lock of a file compilescope is writing (a trace)."""
    if fcntl is None:
        return False
    try:
        fd = os.open(path, _LOOK)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # closing releases the lock we may have taken
    return False


def create_private(path: Place, what: str = "a file") -> tuple[int, str]:
    """A file to write while the program runs, whose contents end up at `path`: a new, hidden,
    locked file beside it (its descriptor, open for reading and writing, and its name). The
    program cannot open it by the name it knows (compilescope-train.log), so a program that
    writes a file of that name writes its own file; `publish` puts ours in place at the end.
    OutputError where `path` may not be written; OSError where the folder refuses a new file."""
    target = absolute(path)
    check_writable(target, what)
    return _new_beside(target, os.O_RDWR)


def publish(partial: str, path: Place, what: str = "a file") -> str:
    """Give the private file `partial` (create_private's) its final name: `path` where nothing is
    there or a file of ours is, else (the program made a file of its own there) a sibling tagged
    with this process's id. The name it got; OSError where it cannot be named (the partial stays)."""
    target = absolute(path)
    if refusal(target) is not None:
        target = other_name(target, f"pid{os.getpid()}")
    _put_in_place(partial, target, what)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(partial)
    return target


def being_written(path: Place) -> bool:
    """Whether another process is writing the file that will be named `path`: a private file of
    it (create_private's) whose lock is held, or (an older compilescope's) the locked file itself."""
    if in_use(path):
        return True
    folder, name = os.path.split(absolute(path))
    prefix = f".{name}."
    try:
        entries = [e for e in os.scandir(folder) if e.name.startswith(prefix) and e.name.endswith(PARTIAL)]
    except OSError:
        return False
    return any(re.match(_PARTIAL_NAME, e.name) and in_use(e.path) for e in entries)


def unpublished(path: Place) -> str | None:
    """The file that should be at `path` where its writer never named it: a process still writing
    it (its private file, to read as it is now), or one that ended without its last step (killed,
    or os._exit, as multiprocessing's workers end: the file is given its name now). None where
    there is none."""
    folder, name = os.path.split(absolute(path))
    try:
        private = [e.path for e in os.scandir(folder) if e.name.startswith(f".{name}.") and re.match(_PARTIAL_NAME, e.name)]
    except OSError:
        return None
    for candidate in private:
        if in_use(candidate):
            return candidate
        with contextlib.suppress(OSError, OutputError):
            return publish(candidate, path)
    return None


def leftovers(folder: Place, names: Iterable[str] = ()) -> list[str]:
    """Tidy what runs that stopped before their end (killed, a full disk) left in `folder`: the
    hidden files of ours no process is writing any more, whose final name starts with
    "compilescope-" or is one of `names`. A trace holds what was recorded until the stop: it is
    kept under a name of its own (compilescope-train.unfinished.log), readable by `report`;
    anything else (a session or a report cut short) is removed. The traces kept, by their new
    names. Never raises."""
    wanted = set(names)
    said: list[str] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return said
    for entry in entries:
        match = re.match(_PARTIAL_NAME, entry.name)
        if match is None or not (match["name"].startswith("compilescope-") or match["name"] in wanted):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            if not stat.S_ISREG(info.st_mode) or (hasattr(os, "getuid") and info.st_uid != os.getuid()) or in_use(entry.path):
                continue
            final = os.path.join(os.fspath(folder), match["name"])
            if info.st_size and _is_trace(entry.path):
                kept = other_name(final, "unfinished")
                _put_in_place(entry.path, kept, "an unfinished trace")
                os.unlink(entry.path)
                said.append(kept)
            elif not info.st_size or is_ours(entry.path):
                os.unlink(entry.path)
        except (OSError, OutputError):
            continue
    return said


def _is_trace(path: str) -> bool:
    """Whether a file of ours is a trace (its first line is one of compilescope's records)."""
    return is_ours(path) and _first_bytes(path).startswith(b"V")


def _first_bytes(path: str) -> bytes:
    try:
        fd = os.open(path, _LOOK)
    except OSError:
        return b""
    try:
        return os.read(fd, 1)
    except OSError:
        return b""
    finally:
        os.close(fd)


def other_name(path: Place, tag: str) -> str:
    """A sibling of `path` with `tag` before its suffix that nothing occupies yet:
    compilescope-train.json -> compilescope-train.2.json (tag "2")."""
    folder = os.path.dirname(os.fspath(path))
    stem, suffix = stem_and_suffix(path)
    candidate = os.path.join(folder, f"{stem}.{tag}{suffix}")
    number = 1
    while os.path.lexists(candidate):
        number += 1
        candidate = os.path.join(folder, f"{stem}.{tag}-{number}{suffix}")
    return candidate
