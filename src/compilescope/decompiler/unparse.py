"""`ast.unparse` without its extra parentheses in `and`/`or` chains.

The stdlib's unparser raises the precedence for each further operand of an `and`/`or`, so
`a and b == c and not d` comes out as `a and (b == c) and (not d)` on every Python up to 3.13.
Each operand only needs the precedence just above its operator's, so those parentheses go; a
nested `and`/`or` keeps its own (`a or (b and c)`: the tree is written exactly, and plainly),
and so does an `and`/`or` or conditional expression after `**` in a call.
The unparser class is private to `ast`; where a Python lacks it, the plain `ast.unparse` is
used (only the parentheses differ).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

_Unparser: Any = getattr(ast, "_Unparser", None)

# (declared once: the two definitions below name their parameter differently)
unparse: Callable[[ast.AST], str]


if _Unparser is not None and hasattr(_Unparser, "boolop_precedence") and hasattr(_Unparser, "require_parens"):

    class _PlainBoolOps(_Unparser):
        def visit_BoolOp(self, node: ast.BoolOp) -> None:
            operator = self.boolops[node.op.__class__.__name__]
            precedence = self.boolop_precedence[operator]
            with self.require_parens(precedence, node):
                self.set_precedence(precedence.next(), *node.values)
                # an `and` inside an `or` keeps its parentheses: `a or (b and c)` reads plainly
                self.set_precedence(precedence.next().next(), *[v for v in node.values if isinstance(v, ast.BoolOp)])
                self.interleave(lambda: self.write(f" {operator} "), self.traverse, node.values)

        def _write_constant(self, value: Any) -> None:
            # inside a tuple constant the stdlib writes each item's repr: `(Ellipsis,)` reads
            # the global `Ellipsis`, where `(...,)` is the constant
            if value is Ellipsis:
                self.write("...")
            elif type(value) is tuple:
                with self.delimit("(", ")"):
                    self.items_view(self._write_constant, value)
            else:
                super()._write_constant(value)

        def visit_keyword(self, node: ast.keyword) -> None:
            # `f(**(k or {}))`: valid without the parentheses, plainer with them
            if node.arg is None and isinstance(node.value, (ast.BoolOp, ast.IfExp)):
                self.write("**(")
                self.traverse(node.value)
                self.write(")")
                return
            super().visit_keyword(node)

    def unparse(node: ast.AST) -> str:
        return _PlainBoolOps().visit(node)

else:  # pragma: no cover - a Python whose ast has no _Unparser
    unparse = ast.unparse
