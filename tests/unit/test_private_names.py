"""No module of compilescope uses another module's private (_underscore) names: what modules
share is public, so a reader sees from a name alone whether other modules depend on it.

Checked from the source (ast), lazy imports inside functions included: every
`from compilescope.X import _name` and every `module._name` where `module` is a compilescope
module imported by name (`import compilescope.X as m`, `from compilescope import X`).
Dunder names (`__version__`) are public. A module's own names are its own business.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "compilescope"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def absolute(module: str, level: int, target: str | None, importer: str, is_package: bool) -> str:
    """The absolute name of `from <level dots><target> import ...` written in `importer`."""
    if not level:
        return target or ""
    base = importer.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def private_uses(path: Path, known: set[str]) -> list[str]:
    """Each use of another module's private name in `path`, as "file:line: what"."""
    importer = module_name(path)
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    aliases: dict[str, str] = {}  # a local name -> the compilescope module it names
    hits: list[str] = []
    where = path.relative_to(SRC.parent)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = absolute(importer, node.level, node.module, importer, is_package)
            if source != "compilescope" and not source.startswith("compilescope."):
                continue
            for alias in node.names:
                if f"{source}.{alias.name}" in known:  # a module: `from compilescope.render import html`
                    aliases[alias.asname or alias.name] = f"{source}.{alias.name}"
                    if is_private(alias.name) and source != importer:
                        hits.append(f"{where}:{node.lineno}: imports private module {source}.{alias.name}")
                elif is_private(alias.name) and source != importer:
                    hits.append(f"{where}:{node.lineno}: from {source} import {alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("compilescope") and alias.asname:
                    aliases[alias.asname] = alias.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and is_private(node.attr):
            target = dotted(node.value)
            if target is None:
                continue
            first, _, rest = target.partition(".")
            module = aliases.get(first) if first in aliases else (target if target.startswith("compilescope") else None)
            if module is None:
                continue
            if first in aliases and rest:
                module = f"{module}.{rest}"
            if module in known and module != importer:
                hits.append(f"{where}:{node.lineno}: {target}.{node.attr}")
    return hits


def dotted(node: ast.expr) -> str | None:
    """`a.b.c` as "a.b.c"; None for anything else (a call, a subscript)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = dotted(node.value)
        return None if inner is None else f"{inner}.{node.attr}"
    return None


def test_no_module_uses_another_modules_private_names() -> None:
    known = modules()
    hits = [hit for path in known.values() for hit in private_uses(path, set(known))]
    assert not hits, "private names used from another module:\n" + "\n".join(hits)


def test_the_checker_sees_each_way_of_using_a_private_name(tmp_path: Path) -> None:
    # GIVEN a module that reaches into others in each way the check knows
    source = (
        "import compilescope.render.html as page\n"
        "from compilescope.render import console\n"
        "from compilescope.render.console import _Escaped, show\n"
        "def f():\n"
        "    from compilescope.session import _private\n"
        "    return console._bounded(page._cut, __name__)\n"
    )
    module = PACKAGE / "render" / "_checked_example.py"
    known = set(modules()) | {"compilescope.render._checked_example"}
    module.write_text(source, encoding="utf-8")
    try:
        hits = private_uses(module, known)
    finally:
        module.unlink()
    # THEN each is named, and nothing public is
    said = "\n".join(hits)
    assert "import _Escaped" in said and "import _private" in said
    assert "console._bounded" in said and "page._cut" in said
    assert len(hits) == 4, said
