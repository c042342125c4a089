"""Where one `compilescope run` writes: decided, checked and made absolute before the program runs.

- Paths are absolute against the folder `run` started in, so a program that changes folder (Hydra
  does) changes nothing of ours.
- Each process gets its own files: under a launcher that sets RANK (torchrun), the rank is in
  every name (`compilescope-train.rank1.json`, or `out.rank1.json` for `--json out.json`); where
  another compilescope process is still writing the default trace, the process id is.
- Nothing is written over the program, over a file its arguments name, over a file compilescope
  did not write, or through a link: such a path stops `run` with one line, before the program
  runs. A file the program itself creates at one of our paths while it runs is left alone too:
  ours goes beside it, under another name, and the user is told.
"""

from __future__ import annotations

import contextlib
import os

from compilescope.app.errors import CommandError
from compilescope.app.view import open_command
from compilescope.outputs import (
    OutputError,
    absolute,
    being_written,
    leftovers,
    other_name,
    process_tag,
    refusal,
    stem_and_suffix,
)

# (No dataclasses, typing, pathlib or session model at run time: this module is loaded before
# the program runs, and a program that never imports torch is saved without them; app/pipeline.py says
# why. Paths are absolute strings.)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Protocol, TextIO

    from compilescope.app.plan import RunPlan
    from compilescope.session.model import Session

    class Launched(Protocol):
        name: str  # the script's stem or the module's last part: names the default outputs
        file: str | None  # the program's own file


def _tagged(path: str, tag: str) -> str:
    if not tag:
        return path
    stem, suffix = stem_and_suffix(path)
    return os.path.join(os.path.dirname(path), f"{stem}{tag}{suffix}")


def _paths_named(arguments: Iterable[str]) -> set[str]:
    """Every path the program's arguments could name: each argument, and the value of each
    --option=value."""
    named = set()
    for argument in arguments:
        if not argument:
            continue
        named.add(absolute(argument))
        if argument.startswith("-") and "=" in argument:
            value = argument.split("=", 1)[1]
            if value:
                named.add(absolute(value))
    return named


class OutputPlan:
    def __init__(self, json: str | None, html: str | None, trace: str | None, folder: str) -> None:
        self.json = json  # None: --no-save
        self.html = html  # None: --no-html or --no-save
        self.trace = trace  # None: --no-save (a temporary trace, removed at the end)
        self.folder = folder  # where run started: paths are shown relative to it
        self._temporary: str | None = None
        # Set once the program has ended: where the trace was saved (None: not saved), and why
        # not, or why elsewhere (record/writer.py's problem).
        self.trace_saved: str | None = None
        self.trace_problem: str | None = None
        self.moved_from: str | None = None  # the folder the defaults would have gone to (read-only)

    @property
    def children_folder(self) -> str:
        """Where the program's child processes write their traces: beside the program's (a
        temporary folder with --no-save, removed at the end)."""
        if self.trace is None:
            if self._temporary is None:
                import tempfile

                self._temporary = tempfile.mkdtemp(prefix="compilescope-children-")
            return self._temporary
        return os.path.dirname(self.trace)

    @property
    def children_base(self) -> str:
        """The name children's traces start with: the program's trace's, without the rank (each
        child adds its own, and its process id)."""
        if self.trace is None:
            return "child"
        stem = stem_and_suffix(self.trace)[0]
        tag = process_tag()
        return stem[: -len(tag)] if tag and stem.endswith(tag) else stem

    @property
    def accuracy_folder(self) -> str | None:
        """Where --check-accuracy writes the minifier's script of each graph that differs:
        beside the trace, named as it is ("compilescope-train-accuracy"); None with --no-save."""
        if self.trace is None:
            return None
        return os.path.join(os.path.dirname(self.trace), stem_and_suffix(self.trace)[0] + "-accuracy")

    def forget_temporary(self) -> None:
        if self._temporary is not None:
            import shutil

            shutil.rmtree(self._temporary, ignore_errors=True)
            self._temporary = None

    @classmethod
    def of(cls, args: RunPlan, program: Launched) -> OutputPlan:
        folder = absolute(os.getcwd())
        if args.no_save:
            return cls(json=None, html=None, trace=None, folder=folder)
        tag = process_tag()
        base = f"compilescope-{program.name}"
        # The default files go to the current folder; where it cannot be written (a read-only
        # checkout, a container's root), to a new folder of our own, which the user is told.
        home, moved_from = folder, None
        if not (args.json and args.trace and (args.html or args.no_html)) and _unwritable(folder):
            import tempfile

            home, moved_from = tempfile.mkdtemp(prefix="compilescope-"), folder

        def place(given: str | None, suffix: str) -> str:
            return _tagged(absolute(given), tag) if given else os.path.join(home, f"{base}{tag}{suffix}")

        plan = cls(
            json=place(args.json, ".json"),
            html=None if args.no_html else place(args.html, ".html"),
            trace=place(args.trace, ".log"),
            folder=folder,
        )
        if not args.trace and plan.trace is not None and being_written(plan.trace):
            # Another compilescope process of the same program is writing here now: each keeps
            # its own files (ours get our process id) rather than one replacing the other's.
            mine = f"{tag}.pid{os.getpid()}"
            plan = cls(
                json=plan.json if args.json else os.path.join(home, f"{base}{mine}.json"),
                html=plan.html if (args.html or plan.html is None) else os.path.join(home, f"{base}{mine}.html"),
                trace=os.path.join(home, f"{base}{mine}.log"),
                folder=folder,
            )
        plan.moved_from = moved_from
        try:
            plan.check(args, program)
        except CommandError:
            if moved_from is not None:
                with contextlib.suppress(OSError):
                    os.rmdir(home)
            raise
        return plan

    def before_the_run(self) -> list[str]:
        """What to tell the user before the program starts: where the default files go when the
        current folder cannot be written, and what earlier runs that stopped before their end
        left (outputs.leftovers: their traces kept, their half-written files removed)."""
        lines = []
        if self.moved_from is not None and self.trace is not None:
            lines.append(
                f"compilescope: the current folder {self.moved_from} cannot be written ({_unwritable(self.moved_from) or 'refused'}): "
                f"the session, report and trace go to {os.path.dirname(self.trace)}"
            )
        folders: dict[str, list[str]] = {}
        for path in (self.json, self.html, self.trace):
            if path is not None:
                folders.setdefault(os.path.dirname(path), []).append(os.path.basename(path))
        for folder, names in folders.items():
            for kept in leftovers(folder, names):
                shown = _shown(kept, self.folder)
                lines.append(
                    f"compilescope: an earlier run stopped before its end (killed?); its trace is kept as {shown}: compilescope report {shown}"
                )
        return lines

    def _named(self, args: RunPlan) -> list[tuple[str, str, str]]:
        """(how the user named it, its option, the path) for each file to write."""
        options = [("--json", self.json, args.json), ("--html", self.html, args.html), ("--trace", self.trace, args.trace)]
        return [
            (option if given else f"the default {option[2:]} path", option, path) for option, path, given in options if path is not None
        ]

    def check(self, args: RunPlan, program: Launched) -> None:
        """Stop (CommandError) before the program runs where a path may not be written."""
        named = _paths_named(args.args)
        own_file = absolute(program.file) if program.file else None
        seen: dict[str, str] = {}
        for label, option, path in self._named(args):
            if path in seen:
                raise CommandError(f"{seen[path]} and {label} name the same file, {path}: give each its own")
            seen[path] = label
            if own_file is not None and (path == own_file or _same_file(path, own_file)):
                raise CommandError(f"{label} {path} is the program itself: compilescope never writes over it")
            if path in named:
                raise CommandError(
                    f"{label} {path} is named in the program's arguments: compilescope never writes a file the program may use"
                )
            reason = refusal(path)
            if reason is None and _unwritable(os.path.dirname(path)):
                reason = f"its folder {os.path.dirname(path)} cannot be written ({_unwritable(os.path.dirname(path))})"
            if reason is not None:
                hint = f"choose another path with {option}" if label == option else f"remove it, or choose another path with {option}"
                raise CommandError(f"will not write to {path}: {reason}; {hint}")

    def save(self, session: Session, stream: TextIO, found: list | None = None) -> str:
        """Write the session and the report (with the session's findings, `found`, where the
        caller has them); what to tell the user about them. Never raises: the program has run,
        and its exit status is what `run` returns."""
        if self.json is None:
            session.trace_files = []
            return ""
        lines = self._trace_lines()
        session.trace_files = [self.trace_saved] if self.trace_saved else []
        if found is None:
            found = session.explain()
        json_path = _write(lambda path: session.save(path, found), self.json, "the session", stream)
        html_path = None
        if self.html is not None:
            from compilescope.render.html import write_html

            html_path = _write(lambda path: write_html(session, path, found), self.html, "the report", stream)
        if json_path is None:
            return "\n".join(lines)
        trace = f" and torch's trace to {_shown(self.trace_saved, self.folder)}" if self.trace_saved else ""
        lines.insert(0, f"\nSaved the session to {_shown(json_path, self.folder)}{trace}.")
        if html_path is not None:
            lines.append(f"The report: {_shown(html_path, self.folder)}   open it with: {open_command(_shown(html_path, self.folder))}")
        lines.append(f"Every detail in the terminal: compilescope report {_shown(json_path, self.folder)} --show all")
        tag = process_tag()
        if tag and os.path.basename(json_path).count(tag) == 1:
            every = _shown(json_path, self.folder).replace(tag, ".rank*")
            lines.append(f"Every rank together: compilescope report {every}")
        return "\n".join(lines)

    def report_wanted(self, args: RunPlan) -> bool:
        """Whether a run in which nothing was compiled still writes the HTML report: the user
        named it (--html), or a file has its name (a report of an earlier run, which would
        otherwise pass for this one's)."""
        return self.html is not None and (bool(args.html) or os.path.lexists(self.html))

    def save_without_report(self, session_json: Callable[[list[str]], str], stream: TextIO) -> str:
        """For a run in which nothing was compiled: the session, whose JSON `session_json` makes
        from the trace files it names, beside the trace; no HTML report, which would show
        nothing more than the terminal (report_wanted says when one is written all the same).
        What to tell the user; never raises."""
        if self.json is None:
            return ""
        from compilescope.outputs import write_text

        lines = self._trace_lines()
        traces = [self.trace_saved] if self.trace_saved else []
        json_path = _write(lambda path: write_text(path, session_json(traces), "the session"), self.json, "the session", stream)
        if json_path is None:
            return "\n".join(lines)
        trace = f" and its trace to {_shown(self.trace_saved, self.folder)}" if self.trace_saved else ""
        lines.insert(0, f"\nSaved the session to {_shown(json_path, self.folder)}{trace}.")
        if self.html is not None:
            lines.append("No HTML report: with nothing compiled, it would show nothing more than this.")
        return "\n".join(lines)

    def _trace_lines(self) -> list[str]:
        """A line for the user where the trace was not saved (and why), or not where planned (the
        program made a file of that name while it ran)."""
        if self.trace is None:
            return []
        if self.trace_saved is None:
            why = self.trace_problem or "it could not be written"
            return [f"compilescope: torch's trace was not saved: {why}; the session holds everything recorded."]
        if self.trace_saved != self.trace:
            return [
                f"The program made a file of its own at {_shown(self.trace, self.folder)} while it ran: it is left as it is, "
                f"and torch's trace is saved as {_shown(self.trace_saved, self.folder)}."
            ]
        return []


def _write(write: Callable[[str], object], path: str, what: str, stream: TextIO) -> str | None:
    """Write at `path`, or, where the program put a file of its own there while it ran, beside
    it under another name. None (and a line on `stream`) where neither can be written."""
    try:
        write(path)
        return path
    except OutputError as error:
        elsewhere = other_name(path, str(os.getpid()))
        try:
            write(elsewhere)
        except (OutputError, OSError) as again:
            print(f"compilescope: {what} was not saved: {error}; nor to {elsewhere}: {again}", file=stream)
            return None
        print(f"compilescope: {error}; saved {what} to {elsewhere} instead", file=stream)
        return elsewhere
    except OSError as error:
        print(f"compilescope: {what} was not saved to {path}: {error.strerror or error}", file=stream)
        return None


def _shown(path: str, folder: str) -> str:
    """A path as the user would type it: relative to the folder run started in, where it lies
    below it."""
    try:
        relative = os.path.relpath(path, folder)
    except ValueError:
        return str(path)
    return relative if not relative.startswith("..") else str(path)


def _unwritable(folder: str) -> str | None:
    """Why no new file can be made in `folder` ("a read-only file system"), or None where one can."""
    if os.access(folder, os.W_OK | os.X_OK):
        return None
    try:
        read_only = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):
        read_only = False
    return "a read-only file system" if read_only else "no permission to write in it"


def _same_file(first: str, second: str) -> bool:
    try:
        return os.path.samefile(first, second)
    except OSError:
        return False
