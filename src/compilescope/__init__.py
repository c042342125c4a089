"""compilescope: what torch.compile did to your program, whether it paid off, what to change.

    import torch
    import compilescope

    model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU())
    compiled = torch.compile(model)
    x = torch.randn(8, 64)

    with compilescope.capture() as session:     # any code that calls torch.compile'd things
        compiled(x)
    print(session)                              # the explanation `compilescope run` prints

    session = compilescope.explain(model, x)    # compile one call and explain it
    session.save("run.json")
    session = compilescope.load("run.json")     # a saved session, or a TORCH_TRACE log

Importing compilescope does not import torch; capture() and explain() do, when called. The
decompiler needs no torch: Python source for any function, module or code object.

>>> def scale(xs, k=2):
...     return [x * k for x in xs if x > 0]
>>> print(compilescope.decompile(scale), end="")
def scale(xs, k=2):
    return [x * k for x in xs if x > 0]
"""

from __future__ import annotations

import os

from compilescope import (
    _startup,  # noqa: F401  (first: what python loaded before us)
    _views,  # noqa: F401  (registers the Session's views: views.py)
)
from compilescope._version import __version__

TYPE_CHECKING = False  # (typing itself is not imported: `import compilescope` stays light)
if TYPE_CHECKING:
    from contextlib import AbstractContextManager
    from pathlib import Path
    from typing import Any

    from compilescope.decompiler.api import Source
    from compilescope.session.model import Session

__all__ = ["Session", "bench", "capture", "check", "debug", "decompile", "diff", "explain", "load", "load_all", "__version__"]


def capture(trace_path: str | Path | None = None, label: str = "with compilescope.capture()") -> AbstractContextManager[Session]:
    """Record what torch.compile does inside a `with` block (see compilescope.record.capture)."""
    from compilescope.app import api

    return api.capture(trace_path, label)


def explain(fn: Any, *args: Any, **kwargs: Any) -> Session:
    """Compile `fn` once with the given arguments and return what torch.compile did
    (see compilescope.record.explain for the options: backend, mode, dynamic, fullgraph)."""
    from compilescope.app import api

    return api.explain(fn, *args, **kwargs)


def bench(target: Any, *args: Any, **options: Any) -> Session:
    """Eager against torch.compile: a "file.py:make" target, or a model or function and its
    inputs (see compilescope.benchmark.bench for the options). Imports torch."""
    from compilescope.benchmark import bench as run_bench

    return run_bench(target, *args, **options)


def decompile(target: Any) -> Source:
    """Python source for a function, method (bound, static or class), functools.partial (its
    function, with the arguments it binds), callable object (its __call__), nn.Module (its
    forward), torch.compile wrapper or code object, read from its bytecode: valid, readable, and
    equivalent. Where this process compiled the code with torch.compile, each compiled version
    (Dynamo's transformed code) follows it. What the decompiler
    does not understand yet comes out as the annotated bytecode in a function that raises if
    run, never as a guess. The result is a str that also says whether it was checked against the
    bytecode: `.verified` (True: compiled again, it does what the bytecode does) and, where not,
    `.difference` (in what it differs, also said in a comment at its top: such an output is not
    the function). Stdlib only; Python 3.10 to 3.13."""
    from compilescope.app import api

    return api.decompile(target)


def debug(folder: str | Path) -> AbstractContextManager[Any]:
    """Step through the code torch.compile runs in a debugger (docs/debugging.md):

        with compilescope.debug("dynamo_code"):
            compiled(x)          # a breakpoint in dynamo_code/__transformed_code_0_0_for_f.py stops

    While the block runs, each code object Dynamo makes (the transformed function, the resume
    functions after a graph break) is decompiled into a .py file under `folder`, and the code
    torch runs is compiled from that file: breakpoints set there stop with the frame's real
    locals. Where a code object cannot be written faithfully, Dynamo's own code runs and its file
    says why; the program computes what it computes without this. Code compiled in the block
    keeps running from its file after it (Dynamo caches it). At the end each file gets its guard
    written as Python to read (torch checks guards in C++: there is no guard function to step
    into), and the folder a README.md listing the files. Imports torch."""
    from compilescope.app.debug import debug as debug_in

    return debug_in(folder)


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext compilescope`: adds the `%%compilescope` cell magic (see compilescope.jupyter)."""
    from compilescope.jupyter import load_ipython_extension as load

    load(ipython)


def load_all(path: str | Path) -> list[Session]:
    """Every session at `path`: a saved session (.json), a trace file, or a TORCH_TRACE folder
    (one session per rank's log). A file from elsewhere is checked before use: anything but a
    regular file or a folder is refused (trace.reader.UnreadableInput), and a session's values
    are checked against the model (session.jsonio.SessionFormatError)."""
    from compilescope.session.loading import load_all as load_sessions

    return load_sessions(path)


def check(
    run: Session | str | Path,
    max_graph_breaks: int | None = None,
    max_recompiles: int | None = None,
    max_compile_s: float | None = None,
    baseline: Session | str | Path | None = None,
    allow_incomplete: bool = False,
) -> list[str]:
    """What in `run` (a Session, or a path compilescope reads) breaks the limits, or is new
    compared with `baseline` (graph breaks, recompiles, compiled functions): one sentence each,
    an empty list where nothing does. In a test: `assert compilescope.check(session,
    max_graph_breaks=0) == []` (pytest then prints the sentences). A value a limit cannot be
    compared with (NaN, missing) is one such sentence, and so is a partial run (it stopped
    mid-compile, or was killed) unless `allow_incomplete`."""
    from compilescope.findings.check import Limits, violations

    session = run if not isinstance(run, str | os.PathLike) else load(run)
    old = baseline if baseline is None or not isinstance(baseline, str | os.PathLike) else load(baseline)
    return violations(
        session,
        Limits(max_graph_breaks, max_recompiles, max_compile_s, allow_incomplete),
        old,
        name=str(run) if isinstance(run, str | os.PathLike) else "the run",
        baseline_name=str(baseline) if isinstance(baseline, str | os.PathLike) else "the baseline",
    )


def diff(before: Session | str | Path, after: Session | str | Path) -> Any:
    """What changed between two runs (findings.diff.Diff: each aspect's added and removed, the
    times before and after); print it with compilescope.render.diff."""
    from compilescope.findings.diff import diff as run_diff

    first = before if not isinstance(before, str | os.PathLike) else load(before)
    second = after if not isinstance(after, str | os.PathLike) else load(after)
    return run_diff(
        first,
        second,
        str(before) if isinstance(before, str | os.PathLike) else "before",
        str(after) if isinstance(after, str | os.PathLike) else "after",
    )


def __getattr__(name: str) -> Any:
    # Session is imported when first asked for: `import compilescope` stays light (a child
    # process's start-up hook imports it before the program runs).
    if name == "Session":
        from compilescope.session.model import Session

        return Session
    raise AttributeError(f"module 'compilescope' has no attribute {name!r}")


def load(path: str | Path) -> Session:
    """The session at `path` (for a folder of several ranks' traces, the first; see load_all)."""
    return load_all(path)[0]
