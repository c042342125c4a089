"""The decompiler never silently wrong, on a corpus of our own (issue 44): every function of
tests/programs/decompile_corpus.py (scopes, closures, comprehensions, try/except/finally/with,
match, async, generators, decorators, every kind of parameter, lambdas, f-strings, loops with
else, ...) decompiled on each Python 3.10 to 3.13 (one subprocess per Python, all at once, stdlib
only), its output compiled and run on the function's inputs: it must give the original's results,
and compilescope.decompile must say it is `verified` (checked against the bytecode).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, python_version

CORPUS = ROOT / "tests" / "programs" / "decompile_corpus.py"
VERSIONS = ["3.10", "3.11", "3.12", "3.13"]

# What fails, and why, on which Pythons (None: every one). An entry that passes fails the test,
# so that the change that fixes it removes it here. None fails today.
KNOWN_FAILING: dict[str, tuple[str, set[str] | None]] = {}

_RUNS: dict[str, tuple[subprocess.Popen[str], Path]] = {}


def _report(version: str, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The corpus's report on this Python; the first call starts every Python's run at once."""
    if not _RUNS:
        folder = tmp_path_factory.mktemp("corpus")
        for other in VERSIONS:
            try:
                python = python_version(other)
            except (pytest.skip.Exception, pytest.fail.Exception):
                continue
            out = folder / f"{other}.json"
            process = subprocess.Popen(
                [python, str(CORPUS), str(out)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
            )
            _RUNS[other] = (process, out)
    python_version(version)  # (skips or fails here, for a Python that is not here)
    process, out = _RUNS[version]
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr[-3000:]
    return json.loads(out.read_text())


@pytest.mark.parametrize("version", VERSIONS)
def test_corpus_round_trips_and_is_verified(version: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    # GIVEN the corpus's functions, decompiled on this Python
    report = _report(version, tmp_path_factory)
    assert report["python"] == version
    functions = report["functions"]
    assert len(functions) >= 60

    # THEN each runs as the original does and is verified, except the known failures, which fail
    def good(result: dict) -> bool:
        return result["result"] == "pass" and result["verified"] is True

    known = {name for name, (_, versions) in KNOWN_FAILING.items() if versions is None or version in versions}
    wrong = {name: (r["result"][:300], r["difference"]) for name, r in functions.items() if name not in known and not good(r)}
    assert wrong == {}, wrong
    fixed = sorted(name for name in known if good(functions[name]))
    assert fixed == [], f"these now round-trip and are verified on {version}: remove them from KNOWN_FAILING"
    # AND an unverified decompilation says so in the source it gives
    for name, result in functions.items():
        if result["verified"] is False and result["difference"] is not None:
            assert result["source"].startswith("# compilescope: this decompilation differs from the bytecode in: "), name
            assert "It is NOT the function" in result["source"], name
    round_trips = sum(r["result"] == "pass" for r in functions.values())
    verified = sum(r["verified"] is True for r in functions.values())
    print(f"corpus on Python {version}: {round_trips}/{len(functions)} round-trip, {verified}/{len(functions)} verified", file=sys.stderr)
