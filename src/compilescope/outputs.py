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
- A file written while a program runs (the trace) is created exclusively with O_NOFOLLOW and
  locked (`create_locked`); a second compilescope process sees the lock and takes another name,
  rather than deleting the file from under the first.

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
    from collections.abc import Iterator
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


def _new_beside(target: str) -> tuple[int, str]:
    """A new, hidden file in the target's folder, created exclusively, with the permissions the
    user's umask gives new files (tempfile's would be private to the user)."""
    for _ in range(100):
        folder, name = os.path.split(target)
        candidate = os.path.join(folder, f".{name}.{os.urandom(6).hex()}.partial")
        try:
            return os.open(candidate, _CREATE | os.O_WRONLY, 0o666), candidate
        except FileExistsError:
            continue
    raise OutputError(f"could not create a new file beside {target}")


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


def create_locked(path: Place, what: str = "a file") -> IO[str]:
    """A new file at `path` for reading and writing, locked while it is open. A file of ours
    already there (an earlier run's) is replaced; one that another process is writing is not
    (OutputError)."""
    target = absolute(path)
    check_writable(target, what)
    if os.path.lexists(target):
        if in_use(target):
            raise OutputError(f"will not write {what} to {target}: another compilescope process is writing it")
        with contextlib.suppress(FileNotFoundError):
            os.unlink(target)
    try:
        fd = os.open(target, _CREATE | os.O_RDWR, 0o666)
    except FileExistsError:
        raise OutputError(f"will not write {what} to {target}: something was created there meanwhile") from None
    if fcntl is not None:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return os.fdopen(fd, "w+", encoding="utf-8")


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
