"""`compilescope run` and `compilescope report` as a user meets them: real subprocesses."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

import compilescope
from conftest import run_cli

SMALL = textwrap.dedent(
    """
    import sys
    import torch

    def step(x):
        return torch.sin(x) * 2.0

    compiled = torch.compile(step, backend="eager")
    print("result", float(compiled(torch.ones(3)).sum()))
    """
)


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def test_program_runs_exactly_as_under_python(tmp_path: Path) -> None:
    # GIVEN a script that prints what Python gives a script, and imports torch itself
    write(
        tmp_path,
        "probe.py",
        """
        import os, sys
        print("torch already imported:", "torch" in sys.modules)
        os.environ["TORCHINDUCTOR_FX_GRAPH_CACHE"] = "0"   # read by torch at import
        import torch
        print("name", __name__)
        print("argv", sys.argv)
        print("path0", sys.path[0])
        print("fx cache", torch._inductor.config.fx_graph_cache)
        """,
    )
    import subprocess

    plain = subprocess.run([sys.executable, "probe.py", "a", "--b"], cwd=tmp_path, capture_output=True, text=True)
    # WHEN it runs under compilescope
    ours = run_cli("run", "probe.py", "a", "--b", cwd=tmp_path)
    # THEN it printed exactly what it prints under python, torch was not imported early,
    # and the environment variable it set before importing torch still took effect
    assert ours.returncode == plain.returncode == 0
    assert ours.stdout == plain.stdout
    assert "torch already imported: False" in ours.stdout
    assert "fx cache False" in ours.stdout


def test_run_saves_session_and_says_how_to_see_more(tmp_path: Path) -> None:
    write(tmp_path, "small.py", SMALL)
    result = run_cli("run", "small.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    import math

    assert math.isclose(float(result.stdout.split()[1]), 3 * 2.0 * math.sin(1.0), rel_tol=1e-6)
    data = result.session_json("compilescope-small.json")
    assert data["schema"] == "compilescope/1"
    assert data["program"]["exit_status"] == 0
    (frame,) = data["frames"]
    assert (frame["name"], frame["lineno"]) == ("step", 5)
    assert frame["compiles"][0]["graphs"][0]["ops"] == ["sin", "mul"]
    assert (tmp_path / "compilescope-small.log").exists()
    assert "compilescope report compilescope-small.json" in result.stderr


def test_module_mode(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    write(package, "train.py", SMALL + "\nprint('module argv', sys.argv[1:])\n")
    result = run_cli("run", "--json", "out.json", "-m", "pkg.train", "--epochs", "1", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "module argv ['--epochs', '1']" in result.stdout
    data = result.session_json("out.json")
    assert data["program"]["kind"] == "module" and data["frames"][0]["name"] == "step"


def test_missing_script_and_module(tmp_path: Path) -> None:
    missing = run_cli("run", "nope.py", cwd=tmp_path)
    assert missing.returncode == 2
    assert "no such script: nope.py" in missing.stderr
    assert "Traceback" not in missing.stderr

    # (a module python -m cannot find: python's message and status, test_run_launch.py)
    no_module = run_cli("run", "-m", "no_such_module_here", cwd=tmp_path)
    assert no_module.returncode == 1
    assert no_module.stderr.endswith(": No module named no_such_module_here\n")
    assert "Traceback" not in no_module.stderr


def test_script_that_raises_keeps_status_traceback_and_session(tmp_path: Path) -> None:
    write(tmp_path, "crash.py", SMALL + "\nraise ValueError('bad batch <b>')\n")
    result = run_cli("run", "crash.py", cwd=tmp_path)
    assert result.returncode == 1
    # Python's own traceback, from the program's frames (not compilescope's or runpy's)
    assert "ValueError: bad batch <b>" in result.stderr
    assert 'File "' in result.stderr and "crash.py" in result.stderr
    assert "runpy" not in result.stderr and "compilescope/cli" not in result.stderr
    # what was compiled before the crash is explained and saved
    data = result.session_json("compilescope-crash.json")
    assert data["program"]["exit_status"] == 1
    assert data["program"]["exception"] == "ValueError: bad batch <b>"
    assert data["frames"][0]["name"] == "step"
    assert "raised ValueError: bad batch <b>" in result.stderr


def test_sys_exit_status_passes_through(tmp_path: Path) -> None:
    write(tmp_path, "leave.py", SMALL + "\nsys.exit(3)\n")
    result = run_cli("run", "leave.py", cwd=tmp_path)
    assert result.returncode == 3
    data = result.session_json("compilescope-leave.json")
    assert data["program"]["exit_status"] == 3 and data["frames"]


def test_program_without_torch_compile(tmp_path: Path) -> None:
    write(tmp_path, "plain.py", "import torch\nprint(torch.ones(2).sum().item())\n")
    result = run_cli("run", "plain.py", cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout.strip() == "2.0"
    assert "Nothing was compiled" in result.stderr
    assert "torch 2." in result.stderr  # it did import torch
    assert "No HTML report" in result.stderr and not (tmp_path / "compilescope-plain.html").exists()


def test_program_without_torch_at_all(tmp_path: Path) -> None:
    write(tmp_path, "hello.py", "print('hello')\n")
    result = run_cli("run", "hello.py", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout == "hello\n"
    assert "Nothing was compiled" in result.stderr
    assert "the program did not import torch" in result.stderr  # never imported, so never asked
    assert "compiled object" not in result.stderr  # no advice about calling the compiled one


def test_show_guards_of_a_compiled_sequential_names_each_guards_own_subject(tmp_path: Path) -> None:
    # GIVEN a compiled nn.Sequential: torch guards the keys of its submodules, '0' and '1'
    write(
        tmp_path,
        "sequential.py",
        """
        import torch
        from torch import nn

        model = torch.compile(nn.Sequential(nn.Linear(4, 4), nn.ReLU()), backend="eager")
        model(torch.ones(2, 4))
        """,
    )
    # WHEN it runs with its guards shown
    result = run_cli("run", "--no-save", "--show", "guards", "sequential.py", cwd=tmp_path)
    # THEN each key guard is about the Sequential's submodules, not the guard before it's subject,
    # and the managers of torch's tree (KeyManager, ValueManager) are not listed as guards
    assert result.returncode == 0, result.stderr[-3000:]
    text = " ".join(result.stderr.split())
    assert "EQUALS_MATCH the first key of fn's submodules is '0'" in text
    assert "EQUALS_MATCH the second key of fn's submodules is '1'" in text
    assert "the type of fn[0] is exactly Linear" in text
    assert "F.relu.__code__ == '0'" not in text
    assert "KeyManager" not in text and "ValueManager" not in text


# ---- report ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("saved")
    write(folder, "small.py", SMALL)
    result = run_cli("run", "small.py", cwd=folder)
    assert result.returncode == 0, result.stderr
    return folder


def test_report_on_session_and_trace_agree(saved: Path) -> None:
    from_json = run_cli("report", "compilescope-small.json", cwd=saved)
    from_trace = run_cli("report", "compilescope-small.log", "--show", "graph,guards", cwd=saved)
    assert from_json.returncode == from_trace.returncode == 0
    for output in (from_json.stdout, from_trace.stdout):
        assert "step" in output and "2 ops: sin, mul" in output
    assert "TENSOR_MATCH" in from_trace.stdout and "x is a float32 tensor of size [3]" in from_trace.stdout


def test_report_works_without_torch(saved: Path) -> None:
    # GIVEN a Python in which `import torch` fails
    code = textwrap.dedent(
        """
        import sys
        sys.modules["torch"] = None  # makes any `import torch` raise ImportError
        from compilescope.cli import main
        status = main(["report", "compilescope-small.log", "--show", "all", "--json", "again.json"])
        assert "torch" not in sys.modules or sys.modules["torch"] is None
        sys.exit(status)
        """
    )
    import subprocess

    result = subprocess.run([sys.executable, "-c", code], cwd=saved, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "2 ops: sin, mul" in result.stdout
    assert json.loads((saved / "again.json").read_text())["frames"][0]["name"] == "step"


def test_report_on_truncated_trace(saved: Path, tmp_path: Path) -> None:
    text = (saved / "compilescope-small.log").read_text()
    cut = text.index("dynamo_cpp_guards_str")
    cut = text.index("\n\t", cut) + 200  # in the middle of the guards' payload
    (tmp_path / "cut.log").write_text(text[:cut])
    result = run_cli("report", "cut.log", "--show", "guards", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "step" in result.stdout  # what came before the cut is explained
    assert "Skipped while reading (1)" in result.stdout
    assert "payload of 'dynamo_cpp_guards_str' is incomplete or damaged" in result.stdout


def test_report_on_garbled_trace(saved: Path, tmp_path: Path) -> None:
    lines = (saved / "compilescope-small.log").read_text().splitlines()
    lines.insert(5, "this is not a trace line")
    lines.insert(9, 'V1129 11:28:36.564000 1900 torch/x.py:1] {"dynamo_start": {broken json')
    (tmp_path / "garbled.log").write_text("\n".join(lines) + "\n")
    result = run_cli("report", "garbled.log", cwd=tmp_path)
    assert result.returncode == 0
    assert "line 6: not a structured-trace line" in result.stdout
    assert "line 10: record is not valid JSON" in result.stdout
    assert "2 ops: sin, mul" in result.stdout


def test_report_bad_paths(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello\nworld\n")
    (tmp_path / "other.json").write_text('{"a": 1}')
    missing = run_cli("report", "missing.json", cwd=tmp_path)
    not_trace = run_cli("report", "notes.txt", cwd=tmp_path)
    not_session = run_cli("report", "other.json", cwd=tmp_path)
    assert (missing.returncode, not_trace.returncode, not_session.returncode) == (2, 2, 2)
    assert "no such file or folder: missing.json" in missing.stderr
    assert "no torch structured-trace records could be read" in not_trace.stderr
    assert "not a compilescope session" in not_session.stderr


def test_report_on_torch_trace_folder(tmp_path: Path) -> None:
    # GIVEN a trace torch wrote itself, with TORCH_TRACE, without compilescope
    write(tmp_path, "small.py", SMALL)
    import os
    import subprocess

    subprocess.run(
        [sys.executable, "small.py"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
        env={**os.environ, "TORCH_TRACE": str(tmp_path / "traces")},
    )
    result = run_cli("report", "traces", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "trace" in result.stdout and "2 ops: sin, mul" in result.stdout
    session = compilescope.load(tmp_path / "traces")
    assert session.environment.torch and session.frames[0].name == "step"
