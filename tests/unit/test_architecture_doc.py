"""docs/architecture.md names files and folders as a map; every one it names exists, so the map
stays true when code moves (a moved module fails here until the map follows it)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "compilescope"
MAP = ROOT / "docs" / "architecture.md"

# a path in backticks or in the drawing: words with slashes ending in .py, .js or a slash
_PATH = re.compile(r"(?<![\w./-])((?:[\w-]+/)*[\w-]+(?:\.py|\.js|/))(?![\w/])")


def _places(name: str) -> list[Path]:
    """Where a name the map uses may be: from the repository, the package, a package's folder
    (`records/kinds.py` is session/records/kinds.py), or render's static files."""
    return [ROOT / name, PACKAGE / name, *(folder / name for folder in PACKAGE.iterdir() if folder.is_dir()), PACKAGE / "render" / name]


def test_every_file_the_map_names_exists() -> None:
    text = MAP.read_text(encoding="utf-8")
    names = sorted({m.group(1) for m in _PATH.finditer(text)} - {"shared/", "train.py", "cli/NAME.py"})  # (examples)
    assert len(names) > 40, names  # (the pattern still finds the map's paths)
    missing = [n for n in names if not any(p.exists() for p in _places(n))]
    assert not missing, f"docs/architecture.md names what is not there: {missing}"
