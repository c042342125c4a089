"""`return`, `break` and `continue` inside `finally` (legal up to 3.13), decompiled on each Python
3.10-3.13 and run against the original.

Why this test exists: a finally that returns, breaks or continues on every way through it never
reaches its end, so Python's copies of it on the try body's ways out have no code after them;
the decompiler refused every such function (a raising stub), and wrote `while True: try: ...
finally: ...` with the loop inside the try (its finally run once, not each time round). Each
function of tests/programs/decompile_finally_check.py is decompiled by that Python (in a
subprocess, PYTHONPATH at this checkout's src), compiled again and called with inputs that raise
inside the try and inputs that do not: the results and what the function logged must be the same,
and verify.py must find the recompiled code the same as the original's.
What is still refused is listed exactly, per Python: refusing is allowed, a different meaning
never is.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import python_version

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "tests" / "programs" / "decompile_finally_check.py"

# Refused today, per Python (a raising stub, never a wrong function). A return inside an inner
# try whose outer finally may break: written in place, the break comes out as the return after
# the loop (right, but not verified), so the loop is refused
_EVERYWHERE = {"while_true_break_in_outer_finally"}
REFUSED = {"3.10": _EVERYWHERE, "3.11": _EVERYWHERE, "3.12": _EVERYWHERE, "3.13": _EVERYWHERE}


@pytest.mark.parametrize("version", sorted(REFUSED))
def test_return_break_continue_in_finally_round_trip(version: str) -> None:
    # GIVEN this version's Python, importing this checkout's decompiler
    python = python_version(version)  # (skips, or with COMPILESCOPE_REQUIRE_ALL_PYTHONS fails, where there is none)
    # WHEN it decompiles each function, compiles the source and calls both on the same inputs
    done = subprocess.run(
        [python, "-W", "ignore::SyntaxWarning", str(CHECK)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["python"] == version
    results = {name: entry["result"] for name, entry in found["functions"].items()}
    # THEN none means something else: each passes or is refused
    wrong = {name: result for name, result in results.items() if result != "pass" and not result.startswith("unsupported:")}
    assert not wrong, "\n".join(f"{name}: {result}\n{found['functions'][name]['source']}" for name, result in wrong.items())
    # AND the refused ones are exactly those listed; the rest, at least 12, give the same results
    refused = {name for name, result in results.items() if result.startswith("unsupported:")}
    assert refused == REFUSED[version], {name: results[name] for name in refused ^ REFUSED[version] if name in results}
    assert sum(result == "pass" for result in results.values()) >= 12
    # AND each is verified: recompiled, its code is the original's (verify.py), so the page says so
    unverified = {name: entry["difference"] for name, entry in found["functions"].items() if entry["difference"] is not None}
    assert unverified == {}, unverified
