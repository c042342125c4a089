"""The `>>>` examples in compilescope's docstrings run as doctests here, without torch. The docs'
Python examples (README.md, docs/*.md, the package docstring's) import torch and run as they are
written in tests/test_doc_examples.py."""

from __future__ import annotations

import doctest
import importlib
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for doc_examples
from doc_examples import PACKAGE  # noqa: E402


def _modules_with_doctests() -> list[str]:
    """compilescope's modules whose source holds a `>>>` example, by dotted name; record/ and
    benchmark/ import torch, and their examples (none today) would belong to the torch tier."""
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if ">>> " not in path.read_text(encoding="utf-8"):
            continue
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join(parts))
    return names


DOCTESTED = _modules_with_doctests()


def test_the_package_docstring_has_a_doctest() -> None:
    # (guards the finder itself: a change that found no module would pass every case below)
    assert "compilescope" in DOCTESTED


@pytest.mark.parametrize("name", DOCTESTED)
def test_docstring_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = [t for t in finder.find(module, name, globs={"compilescope": importlib.import_module("compilescope")}) if t.examples]
    assert tests, f"{name}: its source has '>>> ' but doctest found no example in a docstring"
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed (doctest's report above)"
