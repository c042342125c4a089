"""compilescope run records which compiled version served each call, and how long calls took.

The recording uses sys.monitoring (Python 3.12+), so these runs use the Python 3.12 environment
scripts/test sets up (.venv-py312, torch 2.13); the main environment is Python 3.11, where the
session must say the calls were not recorded, and why.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import compilescope
from conftest import ROOT, python312, run_cli
from test_report_browser import Opened, browser  # noqa: F401  (browser is a fixture)

PROGRAM = ROOT / "tests" / "programs" / "calls_program.py"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> tuple[compilescope.Session, str, Path]:
    python = python312()
    folder = tmp_path_factory.mktemp("calls")
    target = folder / PROGRAM.name
    target.write_text(PROGRAM.read_text())
    result = run_cli("run", target.name, cwd=folder, python=python)
    assert result.returncode == 0, result.stderr[-3000:]
    plain = subprocess.run([str(python), target.name], cwd=folder, capture_output=True, text=True, timeout=600)
    assert plain.returncode == 0, plain.stderr[-3000:]
    # The program computes and prints exactly what it does without compilescope.
    assert result.stdout == plain.stdout
    return compilescope.load(folder / "compilescope-calls_program.json"), result.stderr, folder


def _calls(session, frame: str) -> dict[str, int]:
    found = session.frame(frame)
    served = {c.compile_id: c.calls.calls for c in found.compiles if c.calls is not None}
    if found.calls_without_compiled_code is not None and found.calls_without_compiled_code.calls:
        served["no compiled code"] = found.calls_without_compiled_code.calls
    return served


def test_calls_each_version_served(recorded):
    session, _, _ = recorded
    assert session.calls_recorded.startswith("sys.monitoring (Python 3.12)")
    # f: 0/0 (static size 4) x2, 0/1 (dynamic) x3 + 100 from two threads + 1; one call uncompiled.
    assert _calls(session, "f") == {"0/0": 2, "0/1": 104, "no compiled code": 1}
    assert session.frame("f").call_order == [["0/0", 2], ["0/1", 3], ["no compiled code", 1], ["0/1", 101]]
    assert _calls(session, "branchy") == {"1/0": 3}
    # Both sides of the branch continue in a resume function of the same name: one function to the
    # user, two code objects (and frame ids) to Dynamo.
    resume = next(f for f in session.frames if f.name.startswith("torch_dynamo_resume_in_branchy_at_"))
    assert [c.calls.calls for c in resume.compiles] == [2, 1]
    assert sum(count for _, count in resume.call_order) == 3


def test_call_times(recorded):
    session, _, _ = recorded
    slow = session.frame("slow").compiles[0].calls
    assert slow.calls == 3
    assert slow.median_us >= 20_000  # it sleeps 20 ms
    assert slow.total_ms >= 60
    assert slow.iqr_us[0] <= slow.median_us <= slow.iqr_us[1]
    fast = session.frame("f").compiles[1].calls
    assert fast.sampled == 104 and fast.median_us < 20_000
    assert fast.total_ms * 1000 >= fast.median_us


def test_calls_that_fell_back_and_raised(recorded):
    session, _, _ = recorded
    checked = session.frame("checked")
    assert [c.status for c in checked.compiles] == ["ok", "failed"]
    assert checked.compiles[0].calls.calls == 1
    assert checked.compiles[1].calls is None  # a failed compile has no code to run
    fallback = checked.calls_without_compiled_code
    assert (fallback.calls, fallback.raised) == (1, 1)


def test_calls_in_terminal_and_findings(recorded):
    session, stderr, _ = recorded
    assert "Calls per compiled version: sys.monitoring (Python 3.12)" in stderr
    assert "served 104 calls" in stderr
    assert "calls in order: 0/0 ×2 → 0/1 ×3 → no compiled code ×1 → 0/1 ×101" in stderr
    failed = next(f for f in session.explain() if f.kind == "compile failed" and f.frames == ("checked",))
    assert "1 of 2 calls of checked ran without compiled code (the function's original Python); 1 of them raised." in failed.detail
    assert "in 1 uncompiled call" in failed.cost
    recompile = next(f for f in session.explain() if f.kind == "recompile" and f.frames == ("f",))
    assert "Calls served: f: 0/0 2, 0/1 104, no compiled code 1 (of 107 calls)" in recompile.detail
    # branchy's break: the code after it ran in resume functions, 2 + 1 calls of their own
    branch = next(f for f in session.explain() if f.kind == "graph break" and f.frames and f.frames[0] == "branchy")
    assert "That code ran in 3 calls of its own (" in branch.detail


def test_no_calls_option(tmp_path):
    python = python312()
    target = tmp_path / "small.py"
    target.write_text("import torch\nf = torch.compile(lambda x: x + 1, backend='eager')\nf(torch.ones(2))\n")
    result = run_cli("run", "--no-calls", "--no-html", target.name, cwd=tmp_path, python=python)
    assert result.returncode == 0, result.stderr[-3000:]
    session = compilescope.load(tmp_path / "compilescope-small.json")
    assert session.calls_recorded is None
    assert all(c.calls is None for c in session.compiles)


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="checks what Python 3.11 and older say")
def test_older_python_says_not_recorded():
    import torch

    with compilescope.capture() as session:
        torch.compile(lambda x: x * 3, backend="eager")(torch.ones(2))
    said = session.calls_recorded or ""
    assert said.startswith(f"not recorded on Python 3.{sys.version_info.minor}") and "--profile" in said
    assert all(c.calls is None for c in session.compiles)
    assert f"Calls per compiled version: not recorded on Python 3.{sys.version_info.minor}" in str(session).replace("\n", " ")


def test_calls_in_the_report(recorded, browser):  # noqa: F811  (pytest's fixture, imported above)
    session, _, folder = recorded
    view = Opened(browser, folder / "compilescope-calls_program.html")  # run writes it by default
    runtime = view.page.inner_text("#runtime")
    assert "Calls each compiled version served" in runtime
    assert "Recorded by compilescope run: sys.monitoring (Python 3.12)" in runtime
    row = view.page.locator("#runtime tr", has_text="0/1").first.inner_text().split("\t")
    assert row[:3] == ["f", "0/1", "104"]
    fallback = view.page.locator("#runtime tr.eager", has_text="checked").inner_text().split("\t")
    assert fallback[1:3] == ["no compiled code", "1"] and fallback[-1] == "1"  # it raised
    view.page.click("#runtime summary:has-text('Which version served the calls')")
    view.page.wait_for_selector("#runtime details[open] li")
    assert "f: 0/0 ×2 → 0/1 ×3 → no compiled code ×1 → 0/1 ×101" in view.page.inner_text("#runtime")
    view.screenshot("calls.png")
    # the version's link opens it, with its calls in its header
    view.page.locator("#runtime a", has_text="0/1").first.click()
    assert "served 104 calls, median" in view.page.inner_text("#compile-view")
    view.assert_clean()
