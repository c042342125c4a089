"""Jupyter: `%load_ext compilescope`, then a cell magic that captures the cell.

    %%compilescope
    model(x)

runs the cell as usual and then displays what torch.compile did in it (the HTML report, with
the terminal text as the plain-text fallback). `%%compilescope --json run.json --html run.html`
also saves them (app/api.py runs the cell under capture). A Session displays itself the same
way when it is a cell's value.
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
        from compilescope.app.api import capture_cell

        session = capture_cell(lambda: ipython.run_cell(cell), options.json, options.html, say=print)
        if session is not None:
            display(session)

    ipython.register_magic_function(compilescope_magic, magic_kind="cell", magic_name="compilescope")
