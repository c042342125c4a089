"""Faults on the way out never change the user's program, and lose nothing that can be kept.

Real `compilescope run` subprocesses against the same program under plain python: a program that
writes a file named like our trace, a read-only folder (a read-only bind mount: root ignores a
folder's permissions), a full disk (a 64 KiB tmpfs), a file size limit (`ulimit -f`), and a run
killed mid-compile, whose trace the next run keeps. Mounting needs root (CI runs as root here);
elsewhere those tests skip and say why.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from conftest import run_cli

# A program that compiles twice (a recompile), printing what it sees.
COMPILES = textwrap.dedent(
    """
    import torch

    @torch.compile(backend="eager")
    def f(x):
        return x.sin() + 1

    print(f(torch.ones(3)).sum().item())
    print(f(torch.ones(3, 4)).sum().item())
    """
)


def python(*args: str, cwd: Path, preexec: Callable[[], object] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=600, preexec_fn=preexec)


def compilescope(*args: str, cwd: Path, preexec: Callable[[], object] | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "120"}
    return subprocess.run(
        [sys.executable, "-m", "compilescope", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        preexec_fn=preexec,
    )


@contextlib.contextmanager
def mounted(folder: Path, *options: str) -> Iterator[Path]:
    """`mount OPTIONS folder`, undone afterwards; the test skips where mounting is not allowed."""
    folder.mkdir(exist_ok=True)
    done = subprocess.run(["mount", *options, str(folder)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount here (needs root): {done.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


# ---- the trace is private while the program runs -------------------------------------------


@pytest.mark.parametrize("mode", ["w", "x"])
def test_a_program_that_writes_a_file_named_like_our_trace_keeps_its_file(tmp_path: Path, mode: str) -> None:
    # GIVEN a program that, after its first compile, writes (or creates exclusively) a file
    # named like our trace, and reads it back
    program = COMPILES.replace(
        "print(f(torch.ones(3, 4))",
        f"with open('compilescope-prog.log', {mode!r}) as out:\n    out.write('the program wrote this\\n')\n"
        "print(repr(open('compilescope-prog.log', 'rb').read()))\nprint(f(torch.ones(3, 4))",
    )
    (tmp_path / "prog.py").write_text(program)
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "prog.py").write_text(program)
    expected = python("prog.py", cwd=alone)
    assert expected.returncode == 0, expected.stderr
    # WHEN it runs under compilescope
    result = compilescope("run", "prog.py", cwd=tmp_path)
    # THEN it behaves as under python: same output, same exit status, its file holds its bytes
    assert (result.returncode, result.stdout) == (0, expected.stdout)
    assert (tmp_path / "compilescope-prog.log").read_bytes() == b"the program wrote this\n"
    # and nothing of ours is lost: the trace is saved beside it, named, with both compiles
    saved = tmp_path / f"compilescope-prog.pid{_pid_of(result.stderr)}.log"
    assert f"torch's trace is saved as {saved.name}" in result.stderr
    session = json.loads((tmp_path / "compilescope-prog.json").read_text())
    assert session["trace_files"] == [str(saved)]
    assert [c["compile_id"] for f in session["frames"] for c in f["compiles"]] == ["0/0", "0/1"]
    assert "could not be read" not in result.stderr
    assert not list(tmp_path.glob(".*.partial"))


def _pid_of(stderr: str) -> str:
    import re

    found = re.search(r"compilescope-prog\.pid(\d+)\.log", stderr)
    assert found, stderr[-2000:]
    return found[1]


# ---- read-only folders ---------------------------------------------------------------------


def test_a_read_only_folder_sends_the_defaults_elsewhere_and_refuses_named_paths(tmp_path: Path) -> None:
    (tmp_path / "ro").mkdir()
    (tmp_path / "ro" / "prog.py").write_text(COMPILES)
    expected = python("prog.py", cwd=tmp_path / "ro")
    with mounted(tmp_path / "ro", "--bind", "-o", "ro", str(tmp_path / "ro")) as folder:
        # WHEN the current folder is read-only, the defaults go to a folder of ours, named
        result = compilescope("run", "prog.py", cwd=folder)
        assert (result.returncode, result.stdout) == (0, expected.stdout), result.stderr
        first = result.stderr.splitlines()[0]
        assert first.startswith(f"compilescope: the current folder {folder} cannot be written (a read-only file system): ")
        elsewhere = Path(first.rsplit(" go to ", 1)[1])
        assert elsewhere != folder and (elsewhere / "compilescope-prog.json").is_file()
        assert json.loads((elsewhere / "compilescope-prog.json").read_text())["trace_files"] == [str(elsewhere / "compilescope-prog.log")]
        # AND a path the user names there is refused before the program runs: one line, exit 2
        for option in ("--trace", "--json", "--html"):
            refused = compilescope("run", option, str(folder / "out"), "prog.py", cwd=folder)
            assert refused.returncode == 2 and refused.stdout == "", (option, refused.stderr)
            assert refused.stderr.strip() == (
                f"compilescope run: will not write to {folder / 'out'}: its folder {folder} cannot be written "
                f"(a read-only file system); choose another path with {option}"
            )


# ---- a full disk and a file size limit -----------------------------------------------------


def _small_file_limit() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (20 * 1024, 20 * 1024))


@pytest.mark.parametrize("fault", ["full disk", "ulimit -f"])
def test_a_write_that_fails_never_changes_the_program(tmp_path: Path, fault: str) -> None:
    (tmp_path / "prog.py").write_text(COMPILES)
    expected = python("prog.py", cwd=tmp_path)
    assert expected.returncode == 0
    if fault == "full disk":
        context: contextlib.AbstractContextManager[Path] = mounted(tmp_path / "small", "-t", "tmpfs", "-o", "size=64k", "tmpfs")
        preexec: Callable[[], object] | None = None
        reason = "No space left on device"
    else:
        context, reason = contextlib.nullcontext(tmp_path / "limited"), "File too large"
        preexec = _small_file_limit
        (tmp_path / "limited").mkdir()
    with context as folder:
        (folder / "prog.py").write_text(COMPILES)
        result = compilescope("run", "prog.py", cwd=folder, preexec=preexec)
        # THEN the program's output and exit status are python's, and no traceback of ours
        assert (result.returncode, result.stdout) == (0, expected.stdout), result.stderr[-3000:]
        assert "Traceback" not in result.stderr
        # the explanation is there, built from what was kept in memory: both compiles
        assert "0/0" in result.stderr and "0/1" in result.stderr and "why compiled again" in result.stderr
        # one line says what was not saved and why
        assert f"compilescope: torch's trace was not saved: it could not be written in full to {folder}: {reason}" in result.stderr
        # no half-written trace passes for a whole one, and nothing hidden is left behind
        assert not (folder / "compilescope-prog.log").exists()
        assert not list(folder.glob(".*.partial"))


# ---- killed runs ---------------------------------------------------------------------------


KILLED = textwrap.dedent(
    """
    import os, signal, torch

    def backend(gm, inputs):  # killed mid-compile, as by the OOM killer or `kill -9`
        os.kill(os.getpid(), signal.SIGKILL)

    f = torch.compile(lambda x: x.sin() + 1, backend=backend)
    print("started", flush=True)
    f(torch.ones(3))
    """
)


def test_the_trace_of_a_killed_run_is_kept_by_the_next_run(tmp_path: Path) -> None:
    (tmp_path / "killed.py").write_text(KILLED)
    (tmp_path / "other.py").write_text("print('hello')\n")
    # GIVEN a run killed mid-compile: its trace is the hidden file it was writing
    killed = compilescope("run", "killed.py", cwd=tmp_path)
    assert killed.returncode == -9 and killed.stdout == "started\n"
    left = list(tmp_path.glob(".compilescope-killed.log.*.partial"))
    assert len(left) == 1 and not (tmp_path / "compilescope-killed.log").exists()
    size = left[0].stat().st_size
    # which `report`, asked for the trace by its name, reads, saying where it is
    asked = run_cli("report", "compilescope-killed.log", cwd=tmp_path)
    assert asked.returncode == 0, asked.stderr
    assert asked.stderr.startswith(
        "compilescope: compilescope-killed.log was never named: the run that wrote it stopped before its end "
        f"(os._exit, or killed); reading {left[0].name} (the next compilescope run in that folder keeps it as its .unfinished.log)\n"
    )
    assert "the run stopped during compile 0/0" in asked.stdout
    # and a session half-written by an earlier run killed while saving (a hidden file of ours)
    half = tmp_path / ".compilescope-other.json.0123456789ab.partial"
    half.write_text('{"schema": "compilescope/1", "comp')
    # and a file of the user's that only looks like ours by its name
    theirs = tmp_path / ".compilescope-notes.txt.0123456789ab.partial"
    theirs.write_text("my notes\n")
    # WHEN the next run starts in that folder
    result = run_cli("run", "other.py", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout == "hello\n"
    # THEN the killed run's trace is kept under a name of its own, and said so
    kept = tmp_path / "compilescope-killed.unfinished.log"
    assert (
        "compilescope: an earlier run stopped before its end (killed?); its trace is kept as "
        "compilescope-killed.unfinished.log: compilescope report compilescope-killed.unfinished.log"
    ) in result.stderr
    assert kept.stat().st_size == size and not left[0].exists()
    # the half-written session is removed, the user's file is not
    assert not half.exists() and theirs.read_text() == "my notes\n"
    assert not list(tmp_path.glob(".compilescope-*.log.*.partial"))
    # and the kept trace reads: the compile it stopped in is there
    report = run_cli("report", str(kept), cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert "0/0" in report.stdout
