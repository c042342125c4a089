"""A cell passed as a value (Dynamo passes the cell of a captured variable to the code that makes
a resume function) is written as source that makes that very cell, even before the variable is
bound: `(lambda: k).__closure__[0]`."""

from __future__ import annotations

import ast

from compilescope.decompiler.values import cell_name, cell_of


def _cells(source_of_cell: str) -> tuple[object, object]:
    """Run a function that takes the cell before and after k is bound; the cell and k's closure cell."""
    namespace: dict[str, object] = {}
    exec(
        f"def f():\n    early = {source_of_cell}\n    k = 5\n    def reader():\n        return k\n    return early, reader.__closure__[0]\n",
        namespace,
    )
    return namespace["f"]()  # type: ignore[operator]


def test_the_written_cell_is_the_variables_own_cell_even_while_unbound() -> None:
    early, cell = _cells(ast.unparse(cell_of("k")))
    assert early is cell
    assert cell.cell_contents == 5  # type: ignore[attr-defined]


def test_the_written_cell_is_recognised_by_name() -> None:
    assert cell_name(cell_of("__class__")) == "__class__"
    assert cell_name(ast.parse("(lambda x: k).__closure__[0]", mode="eval").body) is None
    assert cell_name(ast.parse("(lambda: k).__closure__[1]", mode="eval").body) is None
