"""Where capturing a scalar (torch._dynamo.config.capture_scalar_outputs = True, torch's own hint
for a break at .item() or .tolist()) stops the program instead of removing the break: the value
then indexes a Python list, tuple, dict or string (`names[i]` for `i` in `idx = x.tolist()`).
Captured, the value has no number while torch compiles, a Python container cannot be indexed by
it, and torch 2.13 raises GuardOnDataDependentSymNode out of the call: the program stops (seen
here with tests/traces/programs/label_lookup.py; a tensor indexed by the value compiles).

Decided from the code after the break (the version's code as the run recorded it, else the
source lines the trace holds) and from the guards' types: the indexed object must be one the
guards name as a list, tuple, dict or str (`source=L['names'] ... type=<class 'list'>`). Where
its type is not in the guards, nothing is said.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence

from compilescope.findings.skipped import break_statement, lines_from_break, parsed_function
from compilescope.session.model import Compile, GraphBreak

_READ = re.compile(r"\.(item|tolist)\(\)")
_TYPED = re.compile(r"source=(?P<source>.+?), accessed_by=.*?, type=<class '(?P<type>\w+)'>")
_CONTAINERS = {"list": "list", "tuple": "tuple", "dict": "dict", "str": "string"}


def scalar_indexes_container(brk: GraphBreak, versions: Sequence[Compile]) -> str | None:
    """How the value read at the break indexes a Python container ("`names[i]` after it indexes
    a Python list with it"), or None where the code and the guards show no such use."""
    code = brk.code or ""
    if not _READ.search(code):
        return None
    types = _guarded_types(versions)
    if not types:
        return None
    try:
        here = ast.parse(code.strip())
    except SyntaxError:
        here = None
    if here is not None:  # on the same line: `label = names[x.argmax().item()]`
        for node in ast.walk(here):
            if isinstance(node, ast.Subscript) and any(_reads(n) for n in ast.walk(node.slice)):
                if kind := _container(node.value, types):
                    return f"`{ast.unparse(node)}` on the same line indexes a Python {kind} with it"
    target = re.match(r"^\s*([A-Za-z_]\w*)\s*=[^=]", code)
    if target is None:
        return None
    names = {target.group(1)}
    for statement in _after(brk, versions):
        # (a name bound by iterating over the value: `for i in idx`, `[names[i] for i in idx]`)
        for node in ast.walk(statement):
            if isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.iter, ast.Name) and node.iter.id in names:
                names |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
        for node in ast.walk(statement):
            if isinstance(node, ast.Subscript) and {n.id for n in ast.walk(node.slice) if isinstance(n, ast.Name)} & names:
                if kind := _container(node.value, types):
                    return f"`{ast.unparse(node)}` after it indexes a Python {kind} with it"
    return None


def _reads(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("item", "tolist")


def _guarded_types(versions: Sequence[Compile]) -> dict[str, str]:
    """Each guarded source's Python type, from the guards' text: {"L['names']": "list"}."""
    found: dict[str, str] = {}
    for version in versions:
        for m in _TYPED.finditer(version.guards_text or ""):
            found.setdefault(m.group("source"), m.group("type"))
    return found


def _container(node: ast.expr, types: dict[str, str]) -> str | None:
    """ "list" (and so on) where the guards say the indexed object is a Python container."""
    if isinstance(node, ast.Name):
        sources = [f"L['{node.id}']", f"G['{node.id}']"]
    elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        sources = [f"L['self'].{node.attr}"]
    else:
        return None
    return next((_CONTAINERS[t] for s in sources if (t := types.get(s)) in _CONTAINERS), None)


def _after(brk: GraphBreak, versions: Sequence[Compile]) -> Iterator[ast.AST]:
    """The statements after the break's: from the first version's recorded code that holds the
    break's statement, else each source line after it that parses alone."""
    for version in versions:
        source = version.original_code.source if version.original_code is not None and version.original_code.complete else None
        function = parsed_function(source) if source else None
        statement = break_statement(function, brk.code or "") if function is not None else None
        if function is None or statement is None:
            continue
        yield from (node for node in ast.walk(function) if isinstance(node, ast.stmt) and node.lineno > statement.lineno)
        return
    for line in lines_from_break(brk)[1:]:
        try:
            yield from ast.parse(line).body
        except SyntaxError:
            continue
