"""Shared test setup.

Every test run gets one fresh Inductor cache folder (TORCHINDUCTOR_CACHE_DIR), shared by all
tests and the subprocesses they start: a graph compiled by one test is a cache hit for the next,
which keeps the suite fast on two cores, and nothing from an earlier run leaks in. Under
pytest-xdist (`-n 2`) the controller makes it and its workers inherit it (Inductor's cache is
written atomically, for processes compiling side by side); the process that made it removes it
when the run ends.

The tests read nothing outside the repository: the lesson programs they run are this
repository's (tests/programs/lessons). Where the tutorial's own scripts lie beside it
(`../shared/tutorial`, as on this project's machines and in its CI), tests/test_lessons.py and
tests/test_doctor.py run those too; elsewhere those runs skip, saying why.

Tests marked `measure` measure time and need the machine to themselves: bench's full runs
(speedups, modes, backends, --profile), bench against a plain loop, the race against tlparse.
`scripts/test --measure` runs them alone; the default run (CI) leaves them out.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LESSONS = ROOT / "tests" / "programs" / "lessons"  # the lesson programs the tests run
TUTORIAL = ROOT.parent / "shared" / "tutorial"  # the tutorial's own, beside the repository on this project's machines

# An xdist worker starts with SIGINT ignored, and a child process inherits that: a program the
# tests run could then not be interrupted (Ctrl-C's tests send it a real SIGINT). Python's own
# handler again, as in a plain pytest run; a handled signal is reset to the default in a child.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# The run's Inductor cache: made by pytest's own process (under xdist, the controller: its workers
# start with its environment, and so share the folder), removed by it in pytest_sessionfinish.
_SHARED_CACHE = "COMPILESCOPE_TEST_INDUCTOR_CACHE"
if os.environ.get("PYTEST_XDIST_WORKER") and os.path.isdir(os.environ.get(_SHARED_CACHE, "")):
    _CACHE, _OWN_CACHE = os.environ[_SHARED_CACHE], False
else:
    _CACHE, _OWN_CACHE = tempfile.mkdtemp(prefix="compilescope-test-inductor-"), True
    os.environ[_SHARED_CACHE] = _CACHE
os.environ["TORCHINDUCTOR_CACHE_DIR"] = _CACHE


UNIT = Path(__file__).resolve().parent / "unit"


def pytest_sessionfinish(session, exitstatus) -> None:
    """The unit tier (tests/unit: plain Python over committed traces, seconds in all) run alone
    fails if anything it ran imported torch: the layers it tests must not. The run's Inductor
    cache goes, removed by the process that made it (under xdist, the controller, after its
    workers have finished)."""
    import pytest

    if _OWN_CACHE:
        shutil.rmtree(_CACHE, ignore_errors=True)
    items = getattr(session, "items", [])
    alone = items and all(Path(str(item.fspath)).is_relative_to(UNIT) for item in items)
    if alone and "torch" in sys.modules:
        print("\nthe unit tier imported torch: the layers it tests must not", file=sys.stderr)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def lesson(name: str, source: Path = LESSONS) -> Path:
    """A lesson program: this repository's (tests/programs/lessons), or the tutorial's own (source=tutorial())."""
    path = source / name
    if not path.exists():
        raise FileNotFoundError(f"lesson program {path} is missing")
    return path


def tutorial() -> Path:
    """The tutorial's own scripts, where they lie beside the repository (`../shared/tutorial`); the
    test skips elsewhere, where nothing needs them: every test runs this repository's lesson
    programs, and this one runs the originals too. CI sets COMPILESCOPE_REQUIRE_TUTORIAL (it has
    them beside its clone): there a missing folder fails the test instead."""
    import pytest

    if not (TUTORIAL / "recompile.py").exists():
        message = f"the tutorial's own lessons are not beside this repository ({TUTORIAL}): only this repository's lesson programs ran"
        if os.environ.get("COMPILESCOPE_REQUIRE_TUTORIAL"):
            pytest.fail(message)
        pytest.skip(message)
    return TUTORIAL


@dataclass
class CliRun:
    returncode: int
    stdout: str
    stderr: str
    cwd: Path

    def session_json(self, name: str) -> dict:
        return json.loads((self.cwd / name).read_text())


def run_cli(*args: str, cwd: Path, env: dict[str, str] | None = None, timeout: int = 900, python: str | Path | None = None) -> CliRun:
    """`python -m compilescope ARGS` in a real subprocess (this Python, or `python`)."""
    full_env = {**os.environ, "COLUMNS": "120", **(env or {})}
    result = subprocess.run(
        [str(python or sys.executable), "-m", "compilescope", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return CliRun(result.returncode, result.stdout, result.stderr, cwd)


def copy_lesson(name: str, folder: Path, source: Path = LESSONS) -> Path:
    target = folder / name
    shutil.copy(lesson(name, source), target)
    return target


def run_lesson(name: str, folder: Path, env: dict[str, str] | None = None, *extra: str, source: Path = LESSONS):
    """A lesson program through `compilescope run` in a subprocess, and the session it saved."""
    import compilescope

    copy_lesson(name, folder, source)
    result = run_cli("run", *extra, name, cwd=folder, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    return result, compilescope.load(folder / f"compilescope-{Path(name).stem}.json")


def python312() -> Path:
    """A Python 3.12 with torch 2.13 and compilescope, which `COMPILESCOPE_WITH_PY312=1 scripts/test`
    sets up in .venv-py312: run's call recording needs sys.monitoring, new in Python 3.12 (the main
    venv is 3.11). Without it the test skips (fails where COMPILESCOPE_REQUIRE_PY312 is set)."""
    import pytest

    path = Path(os.environ.get("COMPILESCOPE_PY312", ROOT / ".venv-py312" / "bin" / "python"))
    if not path.exists():
        message = (
            f"no Python 3.12 with torch at {path}: `COMPILESCOPE_WITH_PY312=1 ./scripts/test` sets it up"
            " (PyPI's torch for Python 3.12 is its CUDA build, about 2.8 GB to download), or COMPILESCOPE_PY312 names one"
        )
        if os.environ.get("COMPILESCOPE_REQUIRE_PY312"):
            pytest.fail(message)
        pytest.skip(message)
    return path


TORCH_PYTHONS = ("3.10", "3.11", "3.12", "3.13")  # the Pythons torch 2.13 supports, tested where here


def python_with_torch(version: str) -> Path:
    """A Python of this version (e.g. "3.13") with torch and compilescope: this one where it is
    that version, else the one COMPILESCOPE_PY313 (for 3.13; COMPILESCOPE_PY310 for 3.10, ...)
    names, else .venv-py313/bin/python in the repository. The main venv (CI's) is 3.11: elsewhere
    the test skips, saying how to name one (fails where COMPILESCOPE_REQUIRE_TORCH_PYTHONS is set:
    CI has torch for 3.11 only, so it does not)."""
    import pytest

    if f"{sys.version_info.major}.{sys.version_info.minor}" == version:
        return Path(sys.executable)
    digits = version.replace(".", "")
    variable = f"COMPILESCOPE_PY{digits}"
    path = Path(os.environ.get(variable, ROOT / f".venv-py{digits}" / "bin" / "python"))
    problem = None
    if not path.exists():
        problem = "not there"
    else:
        check = "import sys, importlib.util; print('%d.%d' % sys.version_info[:2], importlib.util.find_spec('torch') is not None)"
        done = subprocess.run([str(path), "-c", check], capture_output=True, text=True, timeout=60)
        if done.stdout.split() != [version, "True"]:
            problem = f"it is not Python {version} with torch ({(done.stdout or done.stderr).strip()[-200:]})"
    if problem is None:
        return path
    message = f"no Python {version} with torch at {path} ({problem}): set {variable} to one (with compilescope installed or on PYTHONPATH)"
    if os.environ.get("COMPILESCOPE_REQUIRE_TORCH_PYTHONS"):
        pytest.fail(message)
    pytest.skip(message)


def python_version(version: str) -> str:
    """A Python interpreter of this version (e.g. "3.10"): this one, python3.X on PATH, or one pyenv
    has; checked by running it. For stdlib-only parts (the decompiler) that must hold on every
    Python torch supports."""
    import glob

    import pytest

    if f"{sys.version_info.major}.{sys.version_info.minor}" == version:
        return sys.executable
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    for candidate in [f"python{version}", *sorted(glob.glob(f"{root}/versions/{version}*/bin/python{version}"))]:
        try:
            done = subprocess.run(
                [candidate, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"], capture_output=True, text=True, timeout=60
            )
        except OSError:
            continue
        if done.returncode == 0 and done.stdout.strip() == version:
            return candidate
    message = f"no Python {version} here (python{version} on PATH, or pyenv)"
    if os.environ.get("COMPILESCOPE_REQUIRE_ALL_PYTHONS"):
        pytest.fail(message)
    pytest.skip(message)


ARTIFACTS = ROOT / "test-artifacts"  # screenshots from the browser tests (ignored by git)


def free_port() -> int:
    """A TCP port free on loopback now, for a job's rendezvous."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def torchrun_traced(folder: Path, script: str, ranks: int, env: dict[str, str] | None = None) -> Path:
    """`script` (in `folder`) run by torchrun on `ranks` ranks, gloo on loopback, each rank
    writing its own TORCH_TRACE log into folder/traces, which is returned."""
    subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", f"--nproc_per_node={ranks}", f"--master_port={free_port()}", script],
        cwd=folder,
        check=True,
        capture_output=True,
        timeout=600,
        env={**os.environ, "TORCH_TRACE": str(folder / "traces"), "MASTER_ADDR": "127.0.0.1", **(env or {})},
    )
    assert len(list((folder / "traces").glob("*.log"))) == ranks
    return folder / "traces"
