"""How `compilescope run` starts and ends the user's program: as python does.

python starts a program in one of four ways (a script, `-m module`, a folder or a zip file with
a `__main__.py`), each with its own sys.argv[0], sys.path[0] and `__main__` globals, and it ends
one in steps that still run the program's code after its last line: the non-daemon threads are
joined (threading._shutdown, with the threading module's own exit functions), then the atexit
handlers run, newest first. Launch does all of it, so that the program sees and does what it
sees and does under python, and so that what compilescope records ends only after all of it.
Then it puts back what is compilescope's: sys.argv, sys.path, `__main__`, and the modules the
program's folder shadowed (a `rich.py` beside the script must not stand in for rich when the
explanation is printed).
"""

from __future__ import annotations

import builtins
import contextlib
import importlib.machinery
import os
import sys
import types

from compilescope.app.errors import CommandError
from compilescope.outputs import stem_and_suffix
from compilescope.session import error_summary

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType
    from typing import Any

    from compilescope.app.plan import RunPlan

# The globals python's own __main__ starts with, besides its name, doc, package, loader and spec
# (pylifecycle.c's add_main_module): `__builtins__`, the module, and, before Python 3.14's lazy
# annotations, an empty `__annotations__`.
_MAIN_HAS_ANNOTATIONS = sys.version_info < (3, 14)


class NotRunnable(Exception):
    """What python says after its own name, exiting 1, where it finds nothing to run: `-m` of a
    module that is not there, a package or a folder without `__main__`."""


def _adds_path0() -> bool:
    """Whether python puts the script's folder (or, for -m, the current one) first on sys.path:
    not under -P or PYTHONSAFEPATH. Where it does, sys.path[0] is the slot it made for us."""
    return not getattr(sys.flags, "safe_path", False)


class Launch:
    """What to run and how, resolved as python resolves it, before anything runs."""

    def __init__(self, args: RunPlan) -> None:
        self.args = args
        self.module = bool(args.module)
        self.kind = "module" if self.module else "script"
        self.target = args.target
        self.argv0 = args.target  # sys.argv[0] as python sets it
        self.spec: Any = None  # a module's (-m) or a folder's or zip file's __main__
        self.path0: str | None = None
        if self.module:
            # python -m puts the current folder first on sys.path, then finds the module there.
            self.path0 = os.getcwd() if _adds_path0() else None
            with _first_on_path(self.path0):
                self.spec = _module_spec(args.target)
            self.name = args.target.rsplit(".", 1)[-1]
            self.file = self.spec.origin
            self.argv0 = self.spec.origin
            return
        if not os.path.exists(args.target):
            raise CommandError(f"no such script: {args.target}")
        # As python: __file__ and tracebacks name the program by the path as typed, joined to
        # the current folder (not normalised); sys.argv[0] is as typed.
        self.file = os.path.join(os.getcwd(), args.target)
        self.name = stem_and_suffix(os.path.normpath(args.target))[0]
        if os.path.isdir(args.target) or _is_zip(args.target):
            # A folder or a zip application: python puts it first on sys.path (also under -P)
            # and runs the __main__ module it finds there.
            self.path0 = self.file
            self.spec = importlib.machinery.PathFinder.find_spec("__main__", [self.file])
            if self.spec is None or self.spec.loader is None:
                raise NotRunnable(f"can't find '__main__' module in {self.file!r}")
        elif _adds_path0():
            # the folder of the script the path links to
            self.path0 = os.path.dirname(os.path.realpath(args.target))

    def run(self) -> tuple[int, str | None, bool]:
        """Run the program to its end as python ends it (its non-daemon threads joined, its
        atexit handlers run); its exit status, its exception ("ValueError: ..."), and whether it
        ended by Ctrl-C (KeyboardInterrupt), which python answers by dying of SIGINT."""
        ours = _Ours()
        exit_status, exception, interrupted = 0, None, False
        try:
            sys.argv = [self.argv0, *self.args.args]
            if self.path0 is not None:
                if _adds_path0() and sys.path:
                    sys.path[0] = self.path0
                else:
                    sys.path.insert(0, self.path0)
                ours.give_way(self.path0)
            main = self._main_module()
            sys.modules["__main__"] = main
            try:
                exec(self._code(), main.__dict__)
            except SystemExit as stop:
                exit_status = _exit_status(stop)
            except BaseException as error:  # the program's own error: report it as Python would
                _report_exception(error)
                interrupted = isinstance(error, KeyboardInterrupt)
                exit_status = 130 if interrupted else 1
                exception = error_summary(error)
            end_as_python_ends()
        finally:
            ours.restore()
        return exit_status, exception, interrupted

    def _main_module(self) -> types.ModuleType:
        """A fresh `__main__` with the globals python gives the program (sorted(globals()) and
        their values as under python)."""
        main = types.ModuleType("__main__")
        namespace = main.__dict__
        namespace["__builtins__"] = builtins
        if _MAIN_HAS_ANNOTATIONS:
            namespace["__annotations__"] = {}
        spec = self.spec
        if spec is None:  # a script: what python sets on its __main__ before running it
            if self.file.endswith(".pyc") or _is_compiled(self.file):
                loader: Any = importlib.machinery.SourcelessFileLoader("__main__", self.file)
            else:
                loader = importlib.machinery.SourceFileLoader("__main__", self.file)
            namespace.update(__file__=self.file, __cached__=None, __loader__=loader)
        else:  # -m, a folder, a zip file: as runpy's _run_code sets them
            namespace.update(
                __file__=spec.origin,
                __cached__=spec.cached,
                __doc__=None,
                __loader__=spec.loader,
                __package__=spec.parent,
                __spec__=spec,
            )
        return main

    def _code(self) -> types.CodeType:
        """The program's code (a SyntaxError in it is the program's error, raised here)."""
        if self.spec is not None:
            code = self.spec.loader.get_code(self.spec.name)
            if code is None:
                raise ImportError(f"No code object available for {self.spec.name}")
            return code
        with open(self.file, "rb") as handle:
            source = handle.read()
        if _is_magic(source[:4]):  # a .pyc file
            return importlib.machinery.SourcelessFileLoader("__main__", self.file).get_code("__main__")  # type: ignore[return-value]
        return compile(source, self.file, "exec", dont_inherit=True)


def end_as_python_ends() -> None:
    """The steps of python's exit that run the program's code, in its order (Py_FinalizeEx):
    the threading module's exit functions and the join of every non-daemon thread
    (threading._shutdown), then the atexit handlers, newest first. An exception in them is
    printed as python prints it and changes nothing else."""
    threading = sys.modules.get("threading")
    shutdown = getattr(threading, "_shutdown", None)
    if shutdown is not None:
        try:
            shutdown()
        except BaseException as error:  # Ctrl-C while waiting for a thread
            _print_unraisable(error, threading)
    import atexit

    run_exit_functions = getattr(atexit, "_run_exitfuncs", None)
    if run_exit_functions is not None:
        try:
            run_exit_functions()  # each handler's exception: "Exception ignored in atexit callback"
        except BaseException as error:
            _print_unraisable(error, atexit)


def _print_unraisable(error: BaseException, where: object) -> None:
    """As python's default sys.unraisablehook prints an exception it cannot raise, from the frame
    below ours."""
    import traceback

    kind = type(error)
    name = kind.__qualname__ if kind.__module__ in ("builtins", "__main__") else f"{kind.__module__}.{kind.__qualname__}"
    tb = error.__traceback__.tb_next if error.__traceback__ is not None else None
    with contextlib.suppress(Exception):
        text = f"Exception ignored in: {where!r}\n"
        if tb is not None:
            text += "Traceback (most recent call last):\n" + "".join(traceback.format_tb(tb))
        print(f"{text}{name}: {error}", file=sys.stderr)


class _Ours:
    """What the program changes that compilescope needs back once it has ended."""

    def __init__(self) -> None:
        self.argv = sys.argv[:]
        self.path_list = sys.path  # (the program may set another list)
        self.path = sys.path[:]
        self.main = sys.modules.get("__main__")
        self.modules = dict(sys.modules)
        self.given_way: dict[str, Any] = {}

    def give_way(self, folder: str) -> None:
        """Before the program: take out of sys.modules what compilescope imported (python's own
        start-up had none of it) that a module in the program's folder shadows, so that the
        program's `import json` finds its json.py as under python. Our modules keep the ones they
        imported; `restore` puts them back. compilescope itself stays: the recorder imports its
        own parts while the program runs."""
        from compilescope._startup import MODULES_BEFORE_US

        ours = [n for n in sys.modules if "." not in n and n not in MODULES_BEFORE_US and n != "compilescope" and n != "__main__"]
        try:
            shadowed = {n for n in ours if _defines(folder, n)}
        except Exception:  # never let this stop the program from running
            return
        for name in list(sys.modules):
            if name.partition(".")[0] in shadowed:
                self.given_way[name] = sys.modules.pop(name)

    def restore(self) -> None:
        sys.argv = self.argv
        sys.path = self.path_list
        sys.path[:] = self.path
        if self.main is not None:
            sys.modules["__main__"] = self.main
        with contextlib.suppress(Exception):  # never let this change how the run ends
            self._unshadow()
        for name, module in self.given_way.items():
            if name not in sys.modules or _found_in(sys.modules[name]) not in {_folder(e) for e in self.path}:
                sys.modules[name] = module

    def _unshadow(self) -> None:
        """Take out of sys.modules each module the program imported from a folder that is not on
        our sys.path (its own) under a name our imports could want: one of the standard library
        or one found on our sys.path (the user's rich.py or json.py); ours, where we had one."""
        searched = {_folder(entry) for entry in self.path}
        shadowing = set()
        for name, module in list(sys.modules.items()):
            if "." in name or name == "__main__" or self.modules.get(name) is module:
                continue
            found_in = _found_in(module)
            if found_in is None or found_in in searched:
                continue
            if name in sys.stdlib_module_names or importlib.machinery.PathFinder.find_spec(name, self.path) is not None:
                shadowing.add(name)
        for name in list(sys.modules):
            if name.partition(".")[0] in shadowing:
                del sys.modules[name]
                if name in self.modules:
                    sys.modules[name] = self.modules[name]


def _defines(folder: str, name: str) -> bool:
    """Whether `folder` holds a module or a regular package `name` (a json.py, a rich/ with its
    __init__.py): what an import of `name` finds there first."""
    spec = importlib.machinery.PathFinder.find_spec(name, [folder])
    return spec is not None and spec.origin is not None


def _folder(entry: str) -> str:
    return os.path.abspath(entry or os.curdir)


def _found_in(module: Any) -> str | None:
    """The sys.path folder a top-level module was imported from (None where it has no file)."""
    try:
        file = vars(module).get("__file__")
    except TypeError:
        return None
    if not isinstance(file, str):
        return None
    folder = os.path.dirname(os.path.abspath(file))
    if os.path.basename(file).startswith("__init__."):  # a package: the folder above its own
        folder = os.path.dirname(folder)
    return folder


@contextlib.contextmanager
def _first_on_path(folder: str | None) -> Any:
    """sys.path[0] as python sets it for -m while the module is looked for, ours afterwards."""
    saved = sys.path[:]
    if folder is not None:
        if _adds_path0() and sys.path:
            sys.path[0] = folder
        else:
            sys.path.insert(0, folder)
    try:
        yield
    finally:
        sys.path[:] = saved


def _module_spec(name: str) -> Any:
    """The spec python -m runs for `name` (a package's __main__); NotRunnable with python's
    message where there is none."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, AttributeError, TypeError, ValueError) as error:
        raise NotRunnable(f"Error while finding module specification for {name!r} ({type(error).__name__}: {error})") from None
    if spec is None:
        raise NotRunnable(f"No module named {name}")
    if spec.submodule_search_locations is not None:
        if name == "__main__" or name.endswith(".__main__"):
            raise NotRunnable("Cannot use package as __main__ module")
        try:
            main = importlib.util.find_spec(f"{name}.__main__")
        except ImportError as error:
            raise NotRunnable(f"{error}; {name!r} is a package and cannot be directly executed") from None
        if main is None:
            raise NotRunnable(f"No module named {name}.__main__; {name!r} is a package and cannot be directly executed")
        return main
    if spec.loader is None:
        raise NotRunnable(f"No module named {name}")
    return spec


def _is_zip(path: str) -> bool:
    """Whether the file is a zip file (a zip application, which python runs from its
    __main__.py); zipfile is imported only where the bytes could be one: the end of a zip file's
    central directory lies in its last 64 KiB."""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - (65536 + 22)))
            tail = handle.read()
    except OSError:
        return False
    if b"PK\x05\x06" not in tail:
        return False
    import zipfile

    return zipfile.is_zipfile(path)


def _is_compiled(path: str) -> bool:
    """Whether the file starts with this Python's magic number (a .pyc file by another name)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(4)
    except OSError:
        return False
    return _is_magic(head)


def _is_magic(head: bytes) -> bool:
    """Whether these are this Python's magic number (importlib.util, imported only where they
    could be: a magic number ends in "\\r\\n")."""
    if len(head) != 4 or head[2:4] != b"\r\n":
        return False
    import importlib.util

    return head == importlib.util.MAGIC_NUMBER


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


_PACKAGE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def _is_ours(filename: str) -> bool:
    runpy = sys.modules.get("runpy")
    return filename in (getattr(runpy, "__file__", None), "<frozen runpy>") or os.path.abspath(filename).startswith(_PACKAGE)


def _program_traceback(error: BaseException) -> TracebackType | None:
    """The traceback python would show: from the program's first frame, without ours (none at
    all for a SyntaxError in the script itself, which python reports with no frame)."""
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
