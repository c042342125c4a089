"""Jupyter: `%load_ext compilescope`, then a cell magic that captures the cell.

    %%compilescope
    model(x)

runs the cell as usual and then displays what torch.compile did in it (the HTML report, with
the terminal text as the plain-text fallback). `%%compilescope --json run.json --html run.html`
also saves them. A Session displays itself the same way when it is a cell's value.
"""

from __future__ import annotations

import argparse
import shlex
from typing import Any


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="%%compilescope", add_help=False)
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument("--html", metavar="PATH")
    return parser


def load_ipython_extension(ipython: Any) -> None:
    from IPython.display import display

    def compilescope_magic(line: str, cell: str) -> None:
        options = _parser().parse_args(shlex.split(line))
        from compilescope.outputs import OutputError, absolute, check_writable
        from compilescope.record import capture

        # Paths are fixed and checked before the cell runs (a cell may change folder).
        targets = {what: absolute(path) for what, path in (("the session", options.json), ("the report", options.html)) if path}
        try:
            for what, path in targets.items():
                check_writable(path, what)
        except OutputError as error:
            print(f"%%compilescope: {error}; the cell was not run")
            return
        # The cell's own error, if any, is shown by IPython as usual; what it compiled is still shown.
        with capture(label="%%compilescope cell") as session:
            ipython.run_cell(cell)
        try:
            if "the session" in targets:
                session.save(str(targets["the session"]))
            if "the report" in targets:
                from compilescope.render.html import write_html

                write_html(session, targets["the report"])
        except OutputError as error:  # the cell wrote a file of its own there meanwhile
            print(f"%%compilescope: {error}")
        display(session)

    ipython.register_magic_function(compilescope_magic, magic_kind="cell", magic_name="compilescope")
