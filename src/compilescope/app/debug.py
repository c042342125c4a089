"""compilescope.debug(folder) and `compilescope run --debug-dir FOLDER`: Dynamo's code, stepped
through in a debugger (docs/debugging.md).

While active, each code object Dynamo makes is written under the folder and runs from there
(record/debug_code.py). When it ends, each file gets the guard of its compiled version written
as Python to read (torch checks guards in C++: there is nothing of them to step into), and the
folder gets a README.md that lists the files. The files stay for the user.
"""

from __future__ import annotations

import contextlib
import os

from compilescope.app.decompiled_files import check_output_folder
from compilescope.app.errors import CommandError
from compilescope.outputs import OutputError, absolute, process_tag, write_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from compilescope.record.debug_code import DebugCode, WrittenCode

INDEX = "README.md"


class DebugFolder:
    """The folder, the hook that writes into it, and the files' last part written at the end."""

    def __init__(self, folder: str | Path, shown: str | None = None) -> None:
        """CommandError where the folder cannot be written (checked before anything runs)."""
        from compilescope.record.debug_code import DebugCode

        self.folder = absolute(folder)
        self.shown = shown or os.fspath(folder)  # as the user named it
        check_output_folder(_path(self.folder))
        self.code: DebugCode = DebugCode(self.folder, process_tag())
        self._finder: object = None
        self._said: str | None = None  # what finish() said

    @property
    def written(self) -> list[WrittenCode]:
        """What was written so far, in the order Dynamo made it."""
        return list(self.code.written)

    def start_now(self) -> None:
        """Hook Dynamo now (it is imported here if the program has not yet); RuntimeError where
        this torch cannot."""
        import torch._dynamo  # noqa: F401  (the hook is Dynamo's)

        os.makedirs(self.folder, exist_ok=True)
        self.code.start()
        if self.code.unavailable is not None:
            raise RuntimeError(f"compilescope.debug: {self.code.unavailable}")

    def start_with_dynamo(self) -> None:
        """Hook Dynamo once the program imports it (run --debug-dir: never imported by us)."""
        import compilescope.record.torch_adapter as torch_adapter
        from compilescope.record import import_hook

        os.makedirs(self.folder, exist_ok=True)
        self._finder = import_hook.when_imported(torch_adapter.DYNAMO_MODULE, self.code.start)

    def finish(self) -> str:
        """Stop writing, add each file's guard and the index; what to tell the user (the same
        again when called again)."""
        if self._said is None:
            self._said = self._finish()
        return self._said

    def _finish(self) -> str:
        self.code.stop()
        if self._finder is not None:
            from compilescope.record import import_hook

            import_hook.remove(self._finder)
        written = self.written
        if self.code.unavailable is not None:
            return f"No files written to {self.shown}/ for the debugger: {self.code.unavailable}"
        problems = [f"compilescope: {line}" for line in self.code.failures.facts().get("failures", [])]
        if not written:
            return "\n".join([*problems, f"Dynamo made no code while debugging: no files written to {self.shown}/"])
        for item in written:
            with contextlib.suppress(OutputError, OSError):
                _add_guard(item)
        with contextlib.suppress(OutputError, OSError):
            write_text(os.path.join(self.folder, INDEX), index(written), "the debug folder's index")
        running = sum(1 for item in written if item.runs is not None)
        lines = [
            f"Wrote {len(written)} file{'s' if len(written) != 1 else ''} of Dynamo's code to {self.shown}/ "
            f"({running} of them run from their file: set breakpoints there; docs/debugging.md):"
        ]
        lines += [f"  {os.path.basename(item.path)}" + ("" if item.runs is not None else f"  (not run: {item.note})") for item in written]
        return "\n".join([*problems, *lines])


@contextlib.contextmanager
def debug(folder: str | Path) -> Iterator[DebugFolder]:
    """The context manager compilescope.debug returns (see there)."""
    try:
        files = DebugFolder(folder)
    except CommandError as error:
        raise ValueError(f"compilescope.debug: {error}") from None
    files.start_now()
    try:
        yield files
    finally:
        files.finish()


def _add_guard(item: WrittenCode) -> None:
    """The guard of the file's compiled version, written after its code (the code's line
    numbers stay as they were compiled)."""
    import compilescope.record.torch_adapter as torch_adapter
    from compilescope.render.pyfiles import guard_function, safe_name
    from compilescope.session.guards import parse_guard_tree

    with open(item.path, encoding="utf-8") as handle:
        text = handle.read()
    tree = torch_adapter.guard_tree(item.original, item.runs or item.dynamo_code)
    heading = (
        f"# ---- The guard of compile {item.compile_id}, written as Python to read: it never runs ----\n"
        f"# torch {torch_adapter.torch_version()} checks guards in C++ (its guard managers), not in Python: there is\n"
        "# no guard function to step into. These are the checks it makes before it runs the code above,\n"
        "# as torch writes them: L is the frame's locals, G its globals.\n"
    )
    if tree is None:
        guard = f"# The guard of compile {item.compile_id}: not available (torch holds no cache entry for this code now).\n"
    else:
        name = f"__guard_{safe_name(item.compile_id)}_for_{safe_name(item.function)}"
        guard = heading + guard_function(name, parse_guard_tree(tree), item.compile_id) + "\n"
    write_text(item.path, text.rstrip("\n") + "\n\n\n" + guard, "a file of Dynamo's code for the debugger")


def index(written: list[WrittenCode]) -> str:
    """The folder's README.md: each file, what it is, and whether it ran."""
    lines = [
        "# compilescope: Dynamo's code, written for a debugger",
        "",
        "Each file is the code Dynamo made for one compiled version of a function (or of a resume function, which",
        "continues a function after a graph break), decompiled. Where a file says RUNS FROM THIS FILE, torch ran that",
        "code, compiled from the file: a breakpoint set in it stops there. Guards are checked by torch in C++; each",
        "file ends with its guard written as Python, to read only. See compilescope's docs/debugging.md.",
        "",
        "| file | function | compile | runs from the file |",
        "|---|---|---|---|",
    ]
    for item in written:
        runs = "yes" if item.runs is not None else f"no: {item.note}"
        where = f"{item.original.co_filename}:{item.original.co_firstlineno}"
        cells = [os.path.basename(item.path), f"{item.function} ({where})", item.compile_id, runs]
        lines.append("| " + " | ".join(" ".join(c.split()).replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def _path(folder: str) -> Path:
    from pathlib import Path

    return Path(folder)
