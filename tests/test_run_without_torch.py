"""`compilescope run` on a program in which nothing is compiled: it ends without rich, the rules
or the HTML report (and, where the program never imported torch, without the session model:
run.py, session/empty.py, render/plain.py), so that it costs little more than python, and says
and saves exactly what the whole path would.

Each test runs the real CLI in a subprocess. How much time this saves is measured by hand
(benchmarks/run_overhead.py, docs/cli.md); here, what decides it: the modules the run loads.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

import compilescope
from conftest import CliRun, run_cli

# What the end of a run that compiled nothing must not load: each costs milliseconds to import,
# the lot more than 5% of a short program's run.
HEAVY = (
    "rich",
    "dataclasses",
    "typing",
    "logging",
    "tempfile",
    "hashlib",
    "compilescope.session.model",
    "compilescope.findings.rules",
    "compilescope.render.console",
    "compilescope.render.html",
    "compilescope.trace.reader",
    "compilescope.decompiler",
)

PROGRAMS = {
    "ok": "print('hello')\n",
    "exits": "import sys\nprint('bye')\nsys.exit(4)\n",
    "raises": "raise ValueError('caf\\u00e9\\tand a tab')\n",
    "syntax": "import torch\ndef f(:\n    pass\n",
}


def write(folder: Path, name: str, source: str) -> None:
    (folder / name).write_text(textwrap.dedent(source))


def flat(text: str) -> str:
    return " ".join(text.split())


def header_and_finding(stderr: str) -> tuple[str, str]:
    """What run said, as words: its header (what ran, where), and its finding."""
    said = flat("compilescope · " + stderr.split("compilescope · ", 1)[1])  # (after any traceback)
    header, rest = said.split(" What to look at ", 1)
    finding = rest.split(" Saved the session", 1)[0]
    assert header.startswith("compilescope · script ") and finding
    return header, finding


def run_noting_modules(folder: Path, name: str, body: str) -> tuple[CliRun, set[str]]:
    """`compilescope run` of a program that writes down every module the process has loaded: those
    loaded as it starts, then each one imported to the interpreter's exit (an audit hook on
    "import", which sees compilescope's end of the run too); and those modules."""
    note = (
        "import sys\n"
        "_noted = open('loaded.txt', 'wb', buffering=0)\n"
        "_noted.write('\\n'.join(sys.modules).encode() + b'\\n')\n"
        "sys.addaudithook(lambda event, args: event == 'import' and _noted.write(args[0].encode() + b'\\n'))\n"
    )
    (folder / name).write_text(note + body)
    result = run_cli("run", name, cwd=folder)
    return result, set((folder / "loaded.txt").read_text().split())


def test_a_run_without_torch_loads_none_of_the_explanation_machinery(tmp_path: Path) -> None:
    # GIVEN a program that never imports torch
    result, loaded = run_noting_modules(tmp_path, "modules.py", "print('ran')\n")
    assert result.returncode == 0 and result.stdout == "ran\n"
    assert "compilescope.cli.run" in loaded  # (it did run under compilescope)
    heavy = sorted(name for name in loaded for prefix in HEAVY if name == prefix or name.startswith(prefix + "."))
    assert heavy == []
    # and it said and saved what it always does for such a program
    assert "Nothing was compiled: the program never imported torch" in flat(result.stderr)
    assert json.loads((tmp_path / "compilescope-modules.json").read_text())["environment"]["torch"] is None


def test_a_program_that_imports_torch_and_compiles_nothing_skips_the_rest(tmp_path: Path) -> None:
    # GIVEN a program that imports torch, computes, and compiles nothing
    result, loaded = run_noting_modules(tmp_path, "eager.py", "import torch\nprint(torch.ones(3).sum().item())\n")
    assert result.returncode == 0 and result.stdout == "3.0\n"
    # THEN rich, the rules and the report's renderer were never loaded
    assert "compilescope.session.model" in loaded  # (its session was built the whole way)
    assert not any(name == "rich" or name.startswith("rich.") for name in loaded)
    assert not loaded & {"compilescope.render.console", "compilescope.render.html", "compilescope.findings.rules"}
    # and it says what `compilescope report` says of the session it saved
    shown = flat(result.stderr)
    assert "torch 2." in shown and "● Nothing was compiled torch.compile compiled nothing while this ran." in shown
    assert "No HTML report" in shown and not (tmp_path / "compilescope-eager.html").exists()
    report = run_cli("report", "compilescope-eager.json", cwd=tmp_path)
    header, finding = header_and_finding(result.stderr)
    assert header in flat(report.stdout) and finding in flat(report.stdout)


@pytest.mark.parametrize("kind", sorted(PROGRAMS))
def test_the_saved_session_is_the_one_its_trace_builds(tmp_path: Path, kind: str) -> None:
    # GIVEN a program that never imports torch (or fails before it does), run with arguments
    write(tmp_path, "prog.py", PROGRAMS[kind])
    result = run_cli("run", "prog.py", "--flag", "a b", cwd=tmp_path)
    assert result.returncode in (0, 1, 4)
    saved = json.loads((tmp_path / "compilescope-prog.json").read_text(encoding="utf-8"))
    # WHEN the session is built the whole way, from the trace the run wrote beside it
    built = compilescope.load(tmp_path / "compilescope-prog.log")
    # THEN the JSON the run saved without the model is exactly what the model writes, with the
    # findings the rules find
    assert saved == json.loads(built.to_json())
    assert [f["kind"] for f in saved["findings"]] == ["nothing compiled"]
    assert saved["program"]["argv"] == ["--flag", "a b"]
    assert saved["children"] == []  # followed (by default), and none found
    assert saved["compilescope_version"] == compilescope.__version__
    # and `compilescope report` on it says what the run said
    report = run_cli("report", "compilescope-prog.json", cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    header, finding = header_and_finding(result.stderr)
    reported = flat(report.stdout + report.stderr)
    assert header in reported and finding in reported


def test_its_words_for_each_ending(tmp_path: Path) -> None:
    for kind, status, words in (
        ("ok", 0, "● Nothing was compiled: the program never imported torch"),
        ("exits", 4, "▲ The program exited with status 4 before torch.compile compiled anything"),
        ("raises", 1, "✖ The program failed before torch.compile compiled anything ValueError: café"),
        ("syntax", 1, "✖ The program failed before torch.compile compiled anything SyntaxError: invalid syntax"),
    ):
        folder = tmp_path / kind
        folder.mkdir()
        write(folder, "prog.py", PROGRAMS[kind])
        result = run_cli("run", "prog.py", cwd=folder)
        assert result.returncode == status, kind
        shown = flat(result.stderr)
        assert words in shown, (kind, shown)
        assert "Python 3." in shown and "the program did not import torch" in shown
        if kind in ("raises", "syntax"):
            assert "It had not imported torch." in shown and "Fix that error" in shown
        assert "Saved the session to compilescope-prog.json and its trace to compilescope-prog.log." in shown
        assert "No HTML report" in shown
        assert sorted(p.name for p in folder.iterdir()) == ["compilescope-prog.json", "compilescope-prog.log", "prog.py"]


def test_an_earlier_report_is_replaced_not_left_to_pass_for_this_run(tmp_path: Path) -> None:
    # GIVEN a report from an earlier run, asked for by name
    write(tmp_path, "prog.py", PROGRAMS["ok"])
    first = run_cli("run", "--html", "compilescope-prog.html", "prog.py", "run-one-of-two", cwd=tmp_path)
    assert first.returncode == 0 and "The report: compilescope-prog.html" in first.stderr
    report = tmp_path / "compilescope-prog.html"
    assert "run-one-of-two" in report.read_text()
    # WHEN the program runs again, with the default outputs
    second = run_cli("run", "prog.py", "run-two-of-two", cwd=tmp_path)
    # THEN the report is this run's, not the earlier one's
    assert second.returncode == 0 and "The report: compilescope-prog.html" in second.stderr
    text = report.read_text()
    assert "run-two-of-two" in text and "run-one-of-two" not in text
    assert "Nothing was compiled: the program never imported torch" in flat(second.stderr)


def test_no_save_leaves_nothing(tmp_path: Path) -> None:
    write(tmp_path, "prog.py", PROGRAMS["ok"])
    result = run_cli("run", "--no-save", "prog.py", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout == "hello\n"
    assert "Nothing was compiled: the program never imported torch" in flat(result.stderr)
    assert "Saved" not in result.stderr and "HTML" not in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["prog.py"]


def test_a_narrow_terminal_gets_whole_words(tmp_path: Path) -> None:
    write(tmp_path, "prog.py", PROGRAMS["raises"])
    result = run_cli("run", "prog.py", cwd=tmp_path, env={"COLUMNS": "50"})
    ours = result.stderr.split("compilescope · ", 1)[1]
    assert all(len(line) <= 50 for line in ours.splitlines() if not line.startswith(("Saved", "No HTML"))), ours
    assert "The program failed before torch.compile compiled anything" in flat(ours)
