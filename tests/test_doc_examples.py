"""The docs' Python examples run as a reader would paste them: README.md's and docs/*.md's
```python blocks and the package docstring's example, each in a fresh python in an empty folder,
with real torch.compile. A block that defines `test_` functions is a pytest file and runs under
pytest; Jupyter cells (`%load_ext`, `%%compilescope`) run on a real kernel, after the README's
Python example that defines what they use."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from doc_examples import Example, markdown_examples, package_example

pytestmark = pytest.mark.slow

EXAMPLES = [e for e in markdown_examples() if not e.is_magic] + [package_example()]


def test_every_place_with_examples_is_read() -> None:
    places = {e.where.split(":")[0] for e in EXAMPLES}
    assert {"README.md", "docs/cli.md", "src/compilescope/__init__.py"} <= places


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.where for e in EXAMPLES])
def test_the_example_runs_as_written(example: Example, tmp_path: Path) -> None:
    is_pytest_file = re.search(r"^def test_", example.code, re.MULTILINE) is not None
    script = tmp_path / ("test_example.py" if is_pytest_file else "example.py")
    script.write_text(example.code, encoding="utf-8")
    command = (
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", script.name] if is_pytest_file else [sys.executable, script.name]
    )
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{example.where} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    if is_pytest_file:
        assert re.search(r"\b1 passed\b", done.stdout), done.stdout
    elif "compilescope.capture()" in example.code:
        # what it prints is the explanation: the compiled function, and no failure
        assert "1 function compiled" in done.stdout, done.stdout[-3000:]


def test_the_readme_jupyter_cells_run_on_a_kernel(tmp_path: Path) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    readme = [e for e in markdown_examples() if e.where.startswith("README.md:")]
    setup = next(e for e in readme if "compilescope.capture()" in e.code)
    cells = [setup.code] + [e.code for e in readme if e.is_magic]
    assert len(cells) >= 3, "the README's Jupyter cells were not found"
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    errors = [o for c in notebook.cells for o in c.outputs if o.get("output_type") == "error"]
    assert not errors, errors
    magic = notebook.cells[-1]
    html_out = "".join(o.get("data", {}).get("text/html", "") for o in magic.outputs)
    assert "compilescope" in html_out, magic.outputs
    assert (tmp_path / "cell.html").is_file()
