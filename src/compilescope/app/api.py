"""The Python API's runs: `compilescope.capture()`, `compilescope.explain()` and Jupyter's
`%%compilescope` cell, each the in-process form of run's steps (app/pipeline.py): capture what
torch reports while code runs, build the session, and, for the cell, write what was asked for.

The public names live in compilescope/__init__.py and compilescope/jupyter.py, which only
declare them and call here. Importing this module imports nothing heavy: torch comes in with
record/recorder.py, when a capture starts.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from contextlib import AbstractContextManager
    from pathlib import Path
    from typing import Any

    from compilescope.decompiler.api import Source
    from compilescope.session.model import Session


def capture(trace_path: str | Path | None = None, label: str = "with compilescope.capture()") -> AbstractContextManager[Session]:
    """Record what torch.compile does inside a `with` block: the capture step around the block,
    the build step at its end (see compilescope.record.capture)."""
    from compilescope.record import capture as record_capture

    return record_capture(trace_path, label)


def explain(fn: Any, *args: Any, **kwargs: Any) -> Session:
    """Compile `fn` once with the given arguments under capture and build its session (see
    compilescope.record.explain for the options: backend, mode, dynamic, fullgraph)."""
    from compilescope.record import explain as record_explain

    return record_explain(fn, *args, **kwargs)


def capture_cell(run_cell: Callable[[], object], json: str | None, html: str | None, say: Callable[[str], object]) -> Session | None:
    """A notebook cell run under capture: the paths to write checked first (made absolute: a
    cell may change folder), then the cell run, its session built, and saved where asked. The
    session; None where a path was refused and the cell not run. Problems are told with `say`,
    as one line each; the cell's own error is the notebook's to show."""
    from compilescope.outputs import OutputError, absolute, check_writable
    from compilescope.record import capture as record_capture

    targets = {what: absolute(path) for what, path in (("the session", json), ("the report", html)) if path}
    try:
        for what, path in targets.items():
            check_writable(path, what)
    except OutputError as error:
        say(f"%%compilescope: {error}; the cell was not run")
        return None
    # The cell's own error, if any, is shown by IPython as usual; what it compiled is still shown.
    with record_capture(label="%%compilescope cell") as session:
        run_cell()
    try:
        if "the session" in targets:
            session.save(str(targets["the session"]))
        if "the report" in targets:
            from compilescope.render.html import write_html

            write_html(session, targets["the report"])
    except OutputError as error:  # the cell wrote a file of its own there meanwhile
        say(f"%%compilescope: {error}")
    return session


def decompile(target: Any) -> Source:
    """The decompiler's source for `target` (compilescope.decompiler.decompile) and, where this
    process has compiled its code with torch.compile (torch already imported: never imported
    here), each compiled version: Dynamo's transformed code, which torch runs in its place when
    its guards pass, named as `run --decompile` names it. The str carries `.verified` and
    `.difference`: the check of the function's own decompilation (each compiled version's says
    its own in a comment at its top where it differs)."""
    import sys

    from compilescope.decompiler import code_of
    from compilescope.decompiler import decompile as run_decompile
    from compilescope.decompiler.api import decompile_code

    checked = run_decompile(target)
    text: str = checked
    if "torch" not in sys.modules:
        return checked
    from compilescope.record.torch_adapter import compiled_versions
    from compilescope.render.pyfiles import renamed, safe_name

    code = code_of(target)
    versions = compiled_versions(code)
    if isinstance(versions, str):
        return _keep_check(f"{text}\n\n# Its compiled versions: {versions}\n", checked)
    for compile_id, transformed in versions:
        name = f"__transformed_code_{safe_name(compile_id)}_for_{safe_name(code.co_name)}"
        source = renamed(decompile_code(transformed).source, name)
        text += (
            f"\n\n# Compiled version {compile_id}: Dynamo's transformed code of {code.co_name}, which torch runs in its\n"
            f"# place when that version's guards pass (the graph it calls is {_graph_names(transformed)})\n{source}"
        )
    return _keep_check(text, checked)


def _keep_check(text: str, checked: Source) -> Source:
    from compilescope.decompiler.api import Source

    result = Source(text)
    result.verified, result.difference = checked.verified, checked.difference
    return result


def _graph_names(code: Any) -> str:
    names = [n for n in code.co_names if n.startswith("__compiled_fn")]
    return ", ".join(names) if names else "none: this version runs without a graph"
