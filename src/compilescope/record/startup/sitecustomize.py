"""compilescope's start-up hook for the child processes of a program under `compilescope run`.

`run` puts this folder first on PYTHONPATH for the program's children, so that Python runs this
file as it starts (site.py imports `sitecustomize`), as coverage.py does for subprocesses. It:

1. takes its own folder off sys.path again, so that the child's sys.path is what it would be;
2. runs the sitecustomize it hides, where the Python has one;
3. has compilescope follow the child (compilescope.record.child), which records nothing until
   the child imports torch.

Nothing here may break the child: where compilescope cannot be imported (another Python), that is
written to the run's registry with the standard library alone, and the child runs as without us.
"""

import os
import sys


def _without_this_folder() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [entry for entry in sys.path if not entry or os.path.abspath(entry) != here]


def _run_hidden_sitecustomize() -> None:
    import importlib

    ours = sys.modules.pop("sitecustomize", None)
    try:
        importlib.import_module("sitecustomize")
    except ImportError as error:
        if error.name != "sitecustomize":
            raise  # the hidden one failed: python reports it as it would without us
    finally:
        if "sitecustomize" not in sys.modules and ours is not None:
            sys.modules["sitecustomize"] = ours


def _follow() -> None:
    if not os.environ.get("COMPILESCOPE_CHILDREN"):
        return
    try:
        from compilescope.record.child import start_child
    except Exception as error:  # not importable in this Python: say so, with the stdlib alone
        _say_not_followed(f"{sys.executable} cannot import compilescope ({type(error).__name__})")
        return
    try:
        start_child()
    except Exception as error:
        _say_not_followed(f"{type(error).__name__}: {error}")


def _say_not_followed(why: str) -> None:
    import json

    try:
        registry = json.loads(os.environ["COMPILESCOPE_CHILDREN"])["registry"]
        line = json.dumps(
            {
                "not_followed": {
                    "pid": os.getpid(),
                    "parent_pid": os.getppid(),
                    "argv": list(getattr(sys, "orig_argv", sys.argv))[:20],
                    "why": why,
                }
            }
        )
        fd = os.open(registry, os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0))
        try:
            os.write(fd, (line + "\n").encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except Exception:
        pass


_without_this_folder()
try:
    _run_hidden_sitecustomize()
finally:
    _follow()
