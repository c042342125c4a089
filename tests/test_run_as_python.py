"""The program sees nothing different under `compilescope run`: each case run both ways.

Each test runs the same program with plain `python` and with `compilescope run` (real
subprocesses) and compares what the program printed, how it ended, and the status its parent
saw. compilescope's own explanation comes after the program's stderr, so the program's part is
compared as a prefix.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from conftest import run_cli

ENV = {**os.environ, "COLUMNS": "120"}


def both(folder: Path, *command: str) -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]:
    """The command under python, then under compilescope run (the same Python)."""
    plain = subprocess.run([sys.executable, *command], cwd=folder, capture_output=True, text=True, env=ENV, timeout=300)
    ours = subprocess.run(
        [sys.executable, "-m", "compilescope", "run", *command], cwd=folder, capture_output=True, text=True, env=ENV, timeout=300
    )
    return plain, ours


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def test_file_argv_path_and_traceback_are_pythons(tmp_path: Path) -> None:
    # GIVEN a script, reached through a link in another folder, that prints what python gives
    # it and then fails
    write(
        tmp_path,
        "real/probe.py",
        """
        import sys
        print("file", __file__)
        print("argv", sys.argv)
        print("path0", sys.path[0])
        print("main", __name__, __spec__, type(__loader__).__name__)
        def fail():
            raise ValueError("from the program")
        fail()
    """,
    )
    (tmp_path / "calls").mkdir()
    (tmp_path / "calls" / "probe.py").symlink_to(tmp_path / "real" / "probe.py")
    plain, ours = both(tmp_path, "calls/probe.py", "--flag", "x")
    assert ours.stdout == plain.stdout
    assert f"file {tmp_path}/calls/probe.py" in plain.stdout  # absolute, as python gives it
    assert "argv ['calls/probe.py', '--flag', 'x']" in plain.stdout
    assert f"path0 {tmp_path}/real" in plain.stdout
    assert ours.returncode == plain.returncode == 1
    # the traceback is python's, to the letter: absolute paths, no frame of ours or runpy's
    assert ours.stderr.startswith(plain.stderr), ours.stderr[:2000]
    assert f'File "{tmp_path}/calls/probe.py", line 9' in plain.stderr


def test_the_programs_own_excepthook_is_called(tmp_path: Path) -> None:
    write(
        tmp_path,
        "hooked.py",
        """
        import sys
        def hook(kind, error, tb):
            print("my hook saw", kind.__name__, error, "with a traceback:", tb is not None, file=sys.stderr)
        sys.excepthook = hook
        raise KeyError("lost")
    """,
    )
    plain, ours = both(tmp_path, "hooked.py")
    assert ours.returncode == plain.returncode == 1
    assert plain.stderr == "my hook saw KeyError 'lost' with a traceback: True\n"
    assert ours.stderr.startswith(plain.stderr)
    assert "Traceback" not in ours.stderr


def test_ctrl_c_ends_the_run_by_sigint_after_saving(tmp_path: Path) -> None:
    # GIVEN a program that compiles, then is interrupted (a real SIGINT, as Ctrl-C sends)
    write(
        tmp_path,
        "interrupted.py",
        """
        import os, signal, torch
        torch.compile(lambda x: x.cos() + 1, backend="eager")(torch.ones(2))
        print("compiled", flush=True)
        os.kill(os.getpid(), signal.SIGINT)
        print("never")
    """,
    )
    plain, ours = both(tmp_path, "interrupted.py")
    # THEN the parent sees death by SIGINT both ways (a shell loop stops), after the same output
    assert ours.returncode == plain.returncode == -signal.SIGINT
    assert ours.stdout == plain.stdout == "compiled\n"
    assert ours.stderr.startswith(plain.stderr) and "KeyboardInterrupt" in plain.stderr
    # and the session was saved before dying
    session = json.loads((tmp_path / "compilescope-interrupted.json").read_text())
    assert session["program"]["exception"] == "KeyboardInterrupt"
    assert session["frames"][0]["compiles"][0]["graphs"][0]["ops"] == ["cos", "add"]
    assert "Saved the session to compilescope-interrupted.json" in ours.stderr


def test_a_program_that_closes_stderr_still_exits_zero(tmp_path: Path) -> None:
    write(
        tmp_path,
        "closer.py",
        """
        import sys
        print("out")
        sys.stderr.close()
    """,
    )
    plain, ours = both(tmp_path, "closer.py")
    assert ours.returncode == plain.returncode == 0
    assert ours.stdout == plain.stdout == "out\n"
    assert "Saved the session to compilescope-closer.json" in ours.stderr  # run's own copy of stderr


def test_a_syntax_error_is_reported_as_python_reports_it(tmp_path: Path) -> None:
    write(tmp_path, "broken.py", "def f(:\n    pass\n")
    plain, ours = both(tmp_path, "broken.py")
    assert ours.returncode == plain.returncode == 1
    assert ours.stderr.startswith(plain.stderr), ours.stderr[:1000]
    assert "runpy" not in ours.stderr and "compilescope/cli" not in ours.stderr


def test_exit_statuses_are_pythons(tmp_path: Path) -> None:
    for code, status, message in (
        ("sys.exit('bad config')", 1, "bad config\n"),
        ("sys.exit(None)", 0, ""),
        ("sys.exit(300)", 300 % 256, ""),
        ("raise SystemExit(True)", 1, ""),
    ):
        write(tmp_path, "leave.py", f"import sys\n{code}\n")
        plain, ours = both(tmp_path, "leave.py")
        assert ours.returncode == plain.returncode == status, code
        assert plain.stderr == message and ours.stderr.startswith(message), code


def test_dash_m_finds_modules_in_the_current_folder(tmp_path: Path) -> None:
    # GIVEN a plain module and a package with __main__, in the folder the command runs in
    write(tmp_path, "plainmod.py", "import sys\nprint('plain', __name__, sys.argv[1:], sys.argv[0].endswith('plainmod.py'))\n")
    write(tmp_path, "pkg/__init__.py", "")
    write(tmp_path, "pkg/__main__.py", "import sys\nprint('package', __name__, sys.argv[1:], sys.path[0] == __import__('os').getcwd())\n")
    for module in ("plainmod", "pkg"):
        plain = subprocess.run([sys.executable, "-m", module, "a"], cwd=tmp_path, capture_output=True, text=True, env=ENV)
        ours = run_cli("run", "-m", module, "a", cwd=tmp_path)
        assert ours.returncode == plain.returncode == 0, ours.stderr
        assert ours.stdout == plain.stdout
    assert "package __main__ ['a'] True" in ours.stdout
