"""The examples the docs show, found where a reader meets them: the ```python blocks of README.md
and docs/*.md, and the indented example of the package's docstring.

Each is run as it is written, in tests/test_doc_examples.py (with torch); the `>>>` examples in
the code's docstrings need no torch and run in the unit tier (tests/unit/test_docstring_examples.py).
No torch is imported here.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "compilescope"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_FENCE = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Example:
    """One example: where it is (file:line) and its text."""

    where: str
    code: str

    @property
    def is_magic(self) -> bool:
        """A Jupyter cell (a line or cell magic), not plain Python."""
        return self.code.lstrip().startswith("%")


def markdown_examples() -> list[Example]:
    """Every ```python block of the README and docs/, in order."""
    found = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for match in _FENCE.finditer(text):
            line = text.count("\n", 0, match.start()) + 2
            found.append(Example(f"{path.relative_to(ROOT)}:{line}", match.group(1)))
    return found


def package_example() -> Example:
    """The indented example at the top of compilescope's docstring (read from the source: importing
    the package is not needed to read its docstring)."""
    source = (PACKAGE / "__init__.py").read_text(encoding="utf-8")
    doc = ast.get_docstring(ast.parse(source), clean=False) or ""
    lines = doc.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("    "))
    end = next((i for i in range(start, len(lines)) if lines[i] and not lines[i].startswith("    ")), len(lines))
    code = "\n".join(line[4:] for line in lines[start:end]).strip() + "\n"
    return Example(f"src/compilescope/__init__.py:{start + 2}", code)
