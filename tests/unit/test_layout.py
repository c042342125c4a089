"""The package's shape, read from its source with ast (no import, no torch): modules small
enough to read, the command line's thin, and no import circle among compilescope's modules.

- outside decompiler/: no module over 600 lines, no class over 300;
- decompiler/ (one construct per place, its own guide: docs/decompiler.md): modules of at most
  800 lines;
- cli/: modules under 250 lines (a command parses its options and drives the layers below);
- no cycle in the graph of imports between compilescope's modules, lazy ones inside functions
  and those under TYPE_CHECKING included. `from compilescope.x import y` is an edge to the
  package `compilescope.x` (its __init__ runs, and may define y) and to `compilescope.x.y` where
  that is a module; `import compilescope.x.y` is an edge to `compilescope.x.y`.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SOURCE / "compilescope"

MODULE_LINES = 600
CLASS_LINES = 300
DECOMPILER_MODULE_LINES = 800
CLI_MODULE_LINES = 250  # under


@cache
def _modules() -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its own name)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(SOURCE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


@cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def _in(module: str, part: str) -> bool:
    return module == f"compilescope.{part}" or module.startswith(f"compilescope.{part}.")


def _imported(module: str, path: Path) -> set[str]:
    """The compilescope modules `module` imports, anywhere in it: each name an import statement
    gives, cut back to the nearest module that exists (a name a module defines is its module)."""
    modules = _modules()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    named: list[str] = []
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            named += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package, one level up per dot after the first
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            named += [base, *(f"{base}.{alias.name}" for alias in node.names)]
    edges = set()
    for name in named:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if name and name != module:
            edges.add(name)
    return edges


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, without
    recursion): each is a set of modules that import each other, through a circle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_module_outside_the_decompiler_is_over_600_lines() -> None:
    too_long = [
        f"{module}: {lines} lines"
        for module, path in _modules().items()
        if not _in(module, "decompiler") and (lines := _lines(path)) > MODULE_LINES
    ]
    assert not too_long, f"modules over {MODULE_LINES} lines:\n" + "\n".join(too_long)


def test_no_class_outside_the_decompiler_is_over_300_lines() -> None:
    too_long = [
        f"{module}.{node.name}: {size} lines"
        for module, path in _modules().items()
        if not _in(module, "decompiler")
        for node in ast.walk(_tree(path))
        if isinstance(node, ast.ClassDef) and (size := (node.end_lineno or node.lineno) - node.lineno + 1) > CLASS_LINES
    ]
    assert not too_long, f"classes over {CLASS_LINES} lines:\n" + "\n".join(too_long)


def test_no_decompiler_module_is_over_800_lines() -> None:
    too_long = [
        f"{module}: {lines} lines"
        for module, path in _modules().items()
        if _in(module, "decompiler") and (lines := _lines(path)) > DECOMPILER_MODULE_LINES
    ]
    assert not too_long, f"decompiler modules over {DECOMPILER_MODULE_LINES} lines:\n" + "\n".join(too_long)


def test_each_cli_module_is_under_250_lines() -> None:
    too_long = [
        f"{module}: {lines} lines"
        for module, path in _modules().items()
        if _in(module, "cli") and (lines := _lines(path)) >= CLI_MODULE_LINES
    ]
    assert not too_long, f"cli modules of {CLI_MODULE_LINES} lines or more:\n" + "\n".join(too_long)


def test_no_import_cycle_among_the_packages_modules() -> None:
    graph = {module: _imported(module, path) for module, path in _modules().items()}
    cycles = _cycles(graph)
    assert not cycles, "modules that import each other through a circle (lazy imports included):\n" + "\n".join(
        " <-> ".join(cycle) for cycle in cycles
    )


def test_the_cycle_finder_finds_a_circle_through_a_package_and_none_in_a_line() -> None:
    # GIVEN a package whose __init__ imports a submodule that imports the package back, and a
    # chain that goes one way
    circle = {"p": {"p.a"}, "p.a": {"p.b"}, "p.b": {"p"}, "q": {"r"}, "r": set()}
    # THEN the circle is found, as its modules, and the chain is not
    assert _cycles(circle) == [["p", "p.a", "p.b"]]
    assert _cycles({"q": {"r"}, "r": {"s"}, "s": set()}) == []
