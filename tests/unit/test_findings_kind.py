"""What a finding is about (findings/kinds.py's FindingKind): the same words in the JSON as
before it was an enum, the same words wherever it is printed, and a session file from another
version of compilescope, whatever kinds its findings name, still loads."""

from __future__ import annotations

import json
from pathlib import Path

import compilescope
from compilescope.findings.kinds import FindingKind
from recorded import TRACES, found, session

SCHEMA_DOC = Path(__file__).resolve().parents[2] / "docs" / "schema.md"


def test_a_findings_kind_is_written_as_its_words() -> None:
    # GIVEN the findings of a committed trace with recompiles and a graph break
    items = found("grad_mode")
    # THEN each kind is a member, and the session's JSON holds its words, as it always did
    assert all(isinstance(f.kind, FindingKind) for f in items)
    written = json.loads(session("grad_mode").to_json(items))["findings"]
    assert [f["kind"] for f in written] == [f.kind.value for f in items]
    assert "recompile" in [f["kind"] for f in written]


def test_a_kind_reads_and_compares_as_its_words() -> None:
    kind = FindingKind.GRAPH_BREAK
    assert kind == "graph break" and kind in {"graph break"} and kind in ("graph break",)
    assert str(kind) == "graph break" and f"{kind}" == "graph break" and f"{kind:>12}" == " graph break"
    assert FindingKind("recompile limit") is FindingKind.RECOMPILE_LIMIT


def test_a_session_whose_findings_name_a_kind_this_version_does_not_know_still_loads(tmp_path: Path) -> None:
    # GIVEN a session saved by a newer compilescope, one of its findings of a kind this one lacks
    data = json.loads((TRACES / "tiny-profiled.json").read_text())
    data["findings"][0]["kind"] = "a kind from a newer compilescope"
    saved = tmp_path / "newer.json"
    saved.write_text(json.dumps(data))
    # WHEN it is loaded and explained
    loaded = compilescope.load(saved)
    # THEN its findings are computed again from the facts (a finding is never read back), each of
    # a kind this version knows
    kinds = [f.kind for f in loaded.explain()]
    assert kinds and all(isinstance(kind, FindingKind) for kind in kinds)


def test_the_schema_names_every_kind() -> None:
    documented = next(line for line in SCHEMA_DOC.read_text().splitlines() if line.startswith("| `kind` | `recompile`"))
    missing = [kind.value for kind in FindingKind if kind is not FindingKind.OTHER and f"`{kind.value}`" not in documented]
    assert not missing, f"docs/schema.md's findings table does not name: {missing}"
