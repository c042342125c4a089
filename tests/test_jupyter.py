"""Jupyter: a notebook executed with nbclient on a real kernel shows the Session's HTML and
runs the %%compilescope cell magic."""

from __future__ import annotations

import html
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

CELLS = [
    "import torch, compilescope\n%load_ext compilescope",
    "%%compilescope --json magic.json --html magic.html\n"
    "def double(x):\n    return torch.relu(x) * 2\n"
    "torch.compile(double, backend='eager')(torch.ones(3))",
    "session = compilescope.explain(torch.nn.Linear(4, 4), torch.ones(2, 4), backend='eager')\nsession",
    "%%compilescope --html notes.txt\nprint('this cell ran')",
]


def test_notebook_shows_the_report(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("my notes")
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}})
    client.execute()

    magic_outputs = notebook.cells[1].outputs
    (magic,) = [o for o in magic_outputs if o.output_type == "display_data"]
    assert magic.data["text/html"].startswith("<iframe srcdoc=")
    page = html.unescape(magic.data["text/html"].split('srcdoc="', 1)[1].split('" style=', 1)[0])
    assert page.startswith("<!DOCTYPE html>") and '"name":"double"' in page
    assert "%%compilescope cell" in magic.data["text/plain"]
    assert "1 function compiled" in magic.data["text/plain"] and "2 ops: relu, mul" in magic.data["text/plain"]
    assert (tmp_path / "magic.json").exists() and (tmp_path / "magic.html").exists()

    (value,) = [o for o in notebook.cells[2].outputs if o.output_type == "execute_result"]
    assert "<iframe srcdoc=" in value.data["text/html"]
    assert "function Linear" in value.data["text/plain"] and "1 op: linear" in value.data["text/plain"]

    # a path that is not compilescope's to write stops the magic before the cell runs
    (refused,) = [o.text for o in notebook.cells[3].outputs if o.output_type == "stream"]
    assert (
        refused
        == f"%%compilescope: will not write the report to {tmp_path / 'notes.txt'}: it is a file compilescope did not write; the cell was not run\n"
    )
    assert (tmp_path / "notes.txt").read_text() == "my notes"
