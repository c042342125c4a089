"""The package's layers go one way: trace < session < findings < render < app < cli, with capture
(record/) and bench (benchmark/) beside them. Read from the source's import statements, lazy
ones inside functions included: an import that goes up fails here, naming the file and line."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "compilescope"

# What each part may import of compilescope (besides itself). The bottom: _version, _startup, outputs
# (writing files safely), stats, views (the Session's views, given from above), choices (the
# command line's choices); the decompiler is stdlib only.
BASE = {"_version", "_startup", "outputs", "stats", "views", "choices"}
MAY_IMPORT = {
    "_version": set(),
    "_startup": set(),
    "outputs": set(),
    "stats": set(),
    "views": set(),
    "choices": set(),
    "decompiler": set(),
    "trace": BASE,
    "session": BASE | {"trace"},
    "findings": BASE | {"trace", "session"},
    "render": BASE | {"trace", "session", "findings", "decompiler"},
    "record": BASE | {"trace", "session", "decompiler"},
    "benchmark": BASE | {"trace", "session", "record"},
    # the tour: its lessons run in processes of their own (under `compilescope run`); it reads
    # their sessions, and the command (cli) shows it
    "tour": BASE | {"trace", "session", "findings", "render"},
    # the application layer: a run's pipeline, the cluster view, the zoo's examination, the API's runs
    "app": BASE | {"trace", "session", "findings", "render", "record", "benchmark", "decompiler"},
    "cli": BASE | {"trace", "session", "findings", "render", "record", "benchmark", "decompiler", "tour", "app"},
    # the top: the public API, its views and Jupyter's, and python -m compilescope
    "__init__": {"*"},
    "_views": BASE | {"session", "findings", "render"},
    "jupyter": {"*"},
    "__main__": {"cli"},
}


def _part(path: Path) -> str:
    relative = path.relative_to(PACKAGE)
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


def _imports(path: Path) -> list[tuple[str, int]]:
    """(the compilescope part imported, line) for every import in the file, wherever it is."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] if node.module != "compilescope" else [f"compilescope.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            bits = name.split(".")
            if bits[0] == "compilescope":
                found.append((bits[1] if len(bits) > 1 else "__init__", node.lineno))
    return found


def test_every_part_of_the_package_has_a_place_in_the_layers() -> None:
    parts = {_part(p) for p in PACKAGE.rglob("*.py")}
    assert parts <= set(MAY_IMPORT), f"parts with no place in MAY_IMPORT: {sorted(parts - set(MAY_IMPORT))}"


@pytest.mark.parametrize("part", sorted(MAY_IMPORT))
def test_no_import_goes_up(part: str) -> None:
    allowed = MAY_IMPORT[part]
    going_up = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if _part(path) != part:
            continue
        for target, line in _imports(path):
            if target != part and "*" not in allowed and target not in allowed:
                going_up.append(f"{path.relative_to(PACKAGE)}:{line} imports compilescope.{target}")
    assert not going_up, "\n".join(going_up)


def _module_imports(path: Path) -> list[tuple[str, int]]:
    """(module, line) for every `compilescope.a.b` module the file imports, lazy ones included."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and node.module.startswith("compilescope."):
            found += [
                (f"{node.module}.{a.name}" if node.module.count(".") == 1 and a.name[:1].islower() else node.module, node.lineno)
                for a in node.names
            ]
        elif isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names if a.name.startswith("compilescope.")]
    return found


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph, as its modules in order, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for target in sorted(edges.get(node, ())):
            if state.get(target) == 1:
                return path[path.index(target) :] + [node, target] if target in path else [node, target]
            if target not in state and (found := visit(target, [*path, node])):
                return found
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (found := visit(node, [])):
            return found
    return None


@pytest.mark.parametrize("part", ["decompiler", "trace", "session", "findings", "render", "record", "benchmark", "app", "cli"])
def test_no_import_cycle_inside_a_part(part: str) -> None:
    # GIVEN every import between the modules of one part, lazy ones inside functions included
    modules = {".".join(("compilescope", *p.relative_to(PACKAGE).with_suffix("").parts)): p for p in (PACKAGE / part).rglob("*.py")}
    edges = {
        name: {target for target, _ in _module_imports(path) if target in modules and target != name}
        for name, path in modules.items()
        if not name.endswith("__init__")
    }
    # THEN no module reaches itself again: each can be read (and tested) on what is below it
    assert _cycle(edges) is None, " -> ".join(_cycle(edges) or [])


def test_the_decompiler_reads_python_versions_only_through_versions_py() -> None:
    # GIVEN every module of the decompiler but versions.py, which names each difference between
    # the Pythons it reads once, with what it changes
    testing = []
    for path in sorted((PACKAGE / "decompiler").glob("*.py")):
        if path.name == "versions.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Attribute) and node.attr == "version_info":
                testing.append(f"decompiler/{path.name}:{node.lineno}")
    # THEN none tests sys.version_info itself: a new Python means reading one list
    assert not testing, "name the difference in decompiler/versions.py: " + ", ".join(testing)
