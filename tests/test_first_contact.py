"""A user's first runs: programs that never get as far as torch.compile are told so plainly,
with their own error and exit status, and never given advice about compiled objects; and
`compilescope --help` describes each command in a whole sentence.

Each test runs the real CLI in a subprocess and reads what the user would see.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

from compilescope.cli import COMMANDS, command, summary

MISLEADING = ("compiled object", "torch unknown", "the one called")


def compilescope(*args: str, cwd: Path, columns: int | None = None) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    if columns is not None:
        env["COLUMNS"] = str(columns)
    return subprocess.run(
        [sys.executable, "-m", "compilescope", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False
    )


def write(folder: Path, name: str, source: str) -> None:
    (folder / name).write_text(textwrap.dedent(source))


def flat(text: str) -> str:
    """The text as words, whatever the width it was wrapped at."""
    return " ".join(text.split())


def test_a_script_that_never_imports_torch_is_told_so(tmp_path: Path) -> None:
    # GIVEN a script with no torch in it
    write(tmp_path, "hello.py", "print('hello')\n")
    # WHEN it runs under compilescope
    result = compilescope("run", "hello.py", cwd=tmp_path)
    # THEN its output and status are its own, and the explanation says there is nothing to explain
    assert result.returncode == 0 and result.stdout == "hello\n"
    shown = flat(result.stderr)
    assert "Nothing was compiled: the program never imported torch" in shown
    assert "there is nothing to explain" in shown
    assert "the program did not import torch" in shown  # the header, instead of "torch unknown"
    for advice in MISLEADING:
        assert advice not in shown
    assert "Traceback" not in result.stderr


def test_a_syntax_error_is_the_programs_and_nothing_else(tmp_path: Path) -> None:
    # GIVEN a script that is not valid Python
    write(tmp_path, "broken.py", "import torch\ndef f(:\n    pass\n")
    result = compilescope("run", "broken.py", cwd=tmp_path)
    # THEN Python's own report of it, its exit status, and a finding that names the error
    assert result.returncode == 1 and result.stdout == ""
    assert "SyntaxError: invalid syntax" in result.stderr
    assert 'File "' in result.stderr and "broken.py" in result.stderr  # as python shows it
    shown = flat(result.stderr)
    assert "The program failed before torch.compile compiled anything" in shown
    assert "There is nothing compiled to explain." in shown
    assert re.search(r"failed before torch\.compile compiled anything SyntaxError: invalid syntax", shown)
    for advice in MISLEADING:
        assert advice not in shown


def test_an_import_error_before_compiling_is_reported_as_such(tmp_path: Path) -> None:
    # GIVEN a program that imports torch, then fails on a missing module before compiling anything
    write(
        tmp_path,
        "train.py",
        """\
        import torch
        import a_module_that_is_not_installed

        model = torch.compile(torch.nn.Linear(4, 4), backend="eager")
        model(torch.ones(2, 4))
        """,
    )
    result = compilescope("run", "train.py", cwd=tmp_path)
    assert result.returncode == 1
    assert "ModuleNotFoundError: No module named 'a_module_that_is_not_installed'" in result.stderr  # python's traceback
    shown = flat(result.stderr)
    assert (
        "The program failed before torch.compile compiled anything ModuleNotFoundError: No module named 'a_module_that_is_not_installed'"
        in shown
    )
    assert "There is nothing compiled to explain." in shown
    assert "torch 2." in shown  # it did import torch, so the header names it
    for advice in MISLEADING:
        assert advice not in shown


def test_an_early_exit_keeps_its_status_and_gets_no_advice(tmp_path: Path) -> None:
    write(tmp_path, "leave.py", "import sys\nprint('bye')\nsys.exit(4)\n")
    result = compilescope("run", "leave.py", cwd=tmp_path)
    assert result.returncode == 4 and result.stdout == "bye\n"
    shown = flat(result.stderr)
    assert "The program exited with status 4 before torch.compile compiled anything" in shown
    for advice in MISLEADING:
        assert advice not in shown


def test_help_describes_every_command_in_a_whole_sentence(tmp_path: Path) -> None:
    # argparse wraps at $COLUMNS; a narrow terminal must still show whole sentences
    for columns in (80, 60):
        result = compilescope("--help", cwd=tmp_path, columns=columns)
        assert result.returncode == 0
        listing = result.stdout.split("positional arguments:", 1)[1].split("options:", 1)[0]
        entries = _help_entries(listing, list(COMMANDS))
        assert set(entries) == set(COMMANDS)
        for name, text in entries.items():
            assert text == summary(command(name).__doc__ or ""), name
            assert text.endswith("."), f"{name}: {text!r} is cut"
            assert len(text.split()) > 4, name


def _help_entries(listing: str, names: list[str]) -> dict[str, str]:
    """Each command's help text in `compilescope --help`, its wrapped lines joined."""
    entries: dict[str, list[str]] = {}
    current = None
    for line in listing.splitlines():
        words = line.split()
        if words and words[0] in names and line.startswith("    ") and not line.startswith("     "):
            current = words[0]
            entries[current] = words[1:]
        elif current is not None and words:
            entries[current].extend(words)
    return {name: " ".join(words) for name, words in entries.items()}
