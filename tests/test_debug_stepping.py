"""Stepping through Dynamo's code: compilescope.debug(folder) and `run --debug-dir FOLDER` write
the code Dynamo makes as .py files and run it from them, so that pdb stops at a breakpoint set
in one, with the frame's real locals; the program's output is the same as without them.

One small program, compiled with backend="eager", with a graph break (a print) in the middle:
its transformed code and the resume function after the break are each written and run from
their file. The program runs plain, under debug() (with a trace function on its second call),
under pdb, and under `compilescope run --debug-dir`; on each Python that has torch (the main
venv's 3.11 here; 3.10, 3.12 and 3.13 where COMPILESCOPE_PY310/312/313 name one, else they skip:
conftest.python_with_torch).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, TORCH_PYTHONS, free_port, python_with_torch, run_cli
from dap import DapClient

PROGRAM = """\
import json
import sys

import torch

import compilescope


def f(x, n=2):
    y = x * n
    print("between")
    z = y + 1
    return z.sum()


compiled = torch.compile(f, backend="eager")


def closes_over(x):
    k = x + 1

    def inner(t):
        return t * k

    y = inner(x)
    print("between, k is a cell")
    return y + k


def makes_a_lambda(x):
    h = lambda t: t * 3
    print("between, h is a lambda")
    return h(x) + 1


def closures():
    print("closes_over", torch.compile(closes_over, backend="eager")(torch.ones(3)).tolist())
    print("makes_a_lambda", torch.compile(makes_a_lambda, backend="eager")(torch.ones(3)).tolist())


def calls():
    print("first", compiled(torch.ones(3)).item())
    lines = []
    if "--trace-lines" in sys.argv:
        def local(frame, event, arg):
            if event == "line":
                lines.append([frame.f_code.co_filename, frame.f_lineno])
            return local

        def tracer(frame, event, arg):
            return local if "dynamo_code" in frame.f_code.co_filename else None

        sys.settrace(tracer)
    print("second", compiled(torch.arange(3.0)).item())  # the second call
    sys.settrace(None)
    return lines


if sys.argv[1] == "debug":
    with compilescope.debug("dynamo_code"):
        lines = calls()
    with open("lines.json", "w") as out:
        json.dump(lines, out)
    if "--closures" in sys.argv:
        with compilescope.debug("closure_code"):
            closures()
else:
    calls()
    if "--closures" in sys.argv:
        closures()
"""
FIRST_CALL = PROGRAM.splitlines().index('    print("first", compiled(torch.ones(3)).item())') + 1
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "src")}


def _python(python: Path, folder: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(python), *args], cwd=folder, env=ENV, input=stdin, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


@pytest.fixture(scope="module", params=TORCH_PYTHONS, ids=lambda version: f"py{version}")
def runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The program run plain, and under debug() with its second call traced, on one Python."""
    python = python_with_torch(request.param)
    folder = tmp_path_factory.mktemp(f"debug{request.param}")
    (folder / "prog.py").write_text(PROGRAM)
    plain = _python(python, folder, "prog.py", "plain", "--closures")
    debugged = _python(python, folder, "prog.py", "debug", "--trace-lines", "--closures")
    return {"folder": folder, "plain": plain.stdout, "debug": debugged.stdout, "python": python}


def _files(folder: Path) -> tuple[Path, Path]:
    code = folder / "dynamo_code"
    transformed = code / "__transformed_code_0_0_for_f.py"
    (resume,) = code.glob("__transformed_code_*_for_torch_dynamo_resume_in_f_at_*.py")
    return transformed, resume


def _graph_call(path: Path) -> int:
    """The line that calls the compiled graph."""
    (line,) = [n for n, text in enumerate(path.read_text().splitlines(), 1) if " = __compiled_fn_" in text]
    return line


def test_the_program_prints_the_same_with_debug_as_without(runs: dict) -> None:
    assert runs["debug"] == runs["plain"]
    assert "first 9.0\nbetween\nsecond 9.0" in runs["plain"]


def test_each_code_runs_from_its_file_and_the_files_stay(runs: dict) -> None:
    transformed, resume = _files(runs["folder"])
    for path in (transformed, resume):
        text = path.read_text()
        assert text.startswith("# compilescope: Dynamo's transformed code of ")
        assert "# RUNS FROM THIS FILE" in text
        assert "no guard function to step into" in text  # torch checks guards in C++
        assert "def __guard_" in text  # the guard, as Python to read
        compile(text, str(path), "exec")  # valid Python
    index = (runs["folder"] / "dynamo_code" / "README.md").read_text()
    assert transformed.name in index and resume.name in index


def test_a_closure_cell_passed_over_a_graph_break_runs_from_its_file(runs: dict) -> None:
    # Dynamo's transformed code passes the cell of k itself (LOAD_CLOSURE; on 3.13 LOAD_FAST of
    # the cell's slot) to the code that makes the resume function: written as the source that
    # makes that cell, so the file runs (its output is compared above).
    assert "between, k is a cell\ncloses_over [4.0, 4.0, 4.0]" in runs["debug"]
    code = runs["folder"] / "closure_code"
    (transformed,) = code.glob("__transformed_code_*_for_closes_over.py")
    (resume,) = code.glob("__transformed_code_*_for_torch_dynamo_resume_in_closes_over_at_*.py")
    assert re.search(r"\(lambda ?: k\)\.__closure__\[0\]", transformed.read_text())  # (3.10 writes `lambda :`)
    for path in (transformed, resume):
        assert "# RUNS FROM THIS FILE" in path.read_text(), path.read_text()[:1500]


def test_a_lambda_made_over_a_graph_break_falls_back_to_dynamos_code(runs: dict) -> None:
    # Dynamo makes the lambda again after the break from its code object and the module's globals
    # dict, both constants of its code (torch._dynamo's _create_nested_fn): no source writes those
    # objects themselves, so the decompiler refuses, and Dynamo's own code runs, saying why.
    (transformed,) = (runs["folder"] / "closure_code").glob("__transformed_code_*_for_makes_a_lambda.py")
    status = transformed.read_text().splitlines()[1]
    assert status.startswith("# NOT RUN: ") and "expected a value on the stack, found Code" in status, status
    assert "makes_a_lambda [4.0, 4.0, 4.0]" in runs["debug"]


def test_the_lines_that_run_are_lines_of_the_files(runs: dict) -> None:
    lines = json.loads((runs["folder"] / "lines.json").read_text())
    transformed, resume = _files(runs["folder"])
    ran: dict[str, set[int]] = {}
    for filename, line in lines:
        ran.setdefault(filename, set()).add(line)
    assert set(ran) == {str(transformed), str(resume)}
    for path in (transformed, resume):
        text = path.read_text().splitlines()
        for line in ran[str(path)]:
            source = text[line - 1].strip()
            assert source and not source.startswith("#"), f"{path.name}:{line} is not a line of code: {source!r}"
        assert _graph_call(path) in ran[str(path)]
        assert len(ran[str(path)]) >= 3  # line by line, not one line for the whole function


def test_pdb_stops_in_the_written_files_with_the_real_locals(runs: dict) -> None:
    # As a user would: the files of the run before are there (the same names in every run of
    # the program), so breakpoints go in them before the program starts, and the call that
    # compiles stops there.
    folder = runs["folder"]
    transformed, resume = _files(folder)
    at, resumed_at = _graph_call(transformed), _graph_call(resume)
    commands = [
        f"break {transformed}:{at}",
        f"break {resume}:{resumed_at}",
        "continue",
        "p x",
        "p n",
        "bt",
        "next",
        "p graph_out_0",
        "continue",
        "p y",
        "bt",
        "disable 1 2",
        "continue",
        "quit",
    ]
    out = _python(runs["python"], folder, "-m", "pdb", "prog.py", "debug", stdin="\n".join(commands) + "\n").stdout
    stops = [
        f"> {transformed}({at})f()",
        "(Pdb) tensor([1., 1., 1.])",  # x
        "(Pdb) 2",  # n
        f"prog.py({FIRST_CALL})calls()",  # bt: the program's call ...
        f"{transformed}({at})f()",  # ... and the written file
        f"> {transformed}({at + 1})f()",  # next: the graph call stepped over, one line on
        "(Pdb) (tensor([2., 2., 2.]),)",  # the graph's output
        "between",  # the print that broke the graph, run by the transformed code
        f"> {resume}({resumed_at})torch_dynamo_resume_in_f_at_",
        "(Pdb) tensor([2., 2., 2.])",  # y, carried over the graph break
        f"{transformed}(",  # bt: the transformed code called the resume function
        "first 9.0",
        "second 9.0",
    ]
    position = 0
    for expected in stops:
        found = out.find(expected, position)
        assert found >= 0, f"{expected!r} not found after position {position} in:\n{out[-6000:]}"
        position = found + len(expected)


def test_run_debug_dir_writes_the_files_and_keeps_the_output(runs: dict) -> None:
    folder = runs["folder"]
    result = run_cli("run", "--no-save", "--debug-dir", "cli_code", "prog.py", "plain", cwd=folder, env=ENV, python=runs["python"])
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout == runs["plain"][: runs["plain"].index("between, k is a cell")]  # (no --closures here)
    written = sorted(p.name for p in (folder / "cli_code").glob("*.py"))
    assert written[0] == "__transformed_code_0_0_for_f.py" and len(written) == 2
    assert "Wrote 2 files of Dynamo's code to cli_code/" in result.stderr
    assert all("# RUNS FROM THIS FILE" in (folder / "cli_code" / name).read_text() for name in written)


def test_vs_code_launch_configuration_stops_in_the_written_file(runs: dict) -> None:
    # As VS Code does with docs/debugging.md's second launch configuration: debugpy's adapter,
    # a client on its socket sending the configuration as its launch request, a breakpoint set
    # in the file a run before wrote (the same name in every run), then configurationDone.
    python = runs["python"]
    has_debugpy = subprocess.run([str(python), "-c", "import debugpy"], capture_output=True).returncode == 0
    if not has_debugpy:
        pytest.skip(f"debugpy is not installed for {python} (pip install debugpy, or compilescope's test extra)")
    folder = runs["folder"]
    transformed, _ = _files(folder)
    at = _graph_call(transformed)
    port = free_port()
    adapter = subprocess.Popen([str(python), "-m", "debugpy.adapter", "--host", "127.0.0.1", "--port", str(port)], cwd=folder, env=ENV)
    client = DapClient(port)
    try:
        client.request("initialize", clientID="vscode", adapterID="debugpy", pathFormat="path", linesStartAt1=True, columnsStartAt1=True)
        launched = client.send(
            "launch",
            name="prog.py under compilescope run --debug-dir",
            type="debugpy",
            request="launch",
            module="compilescope",
            args=["run", "--debug-dir", "dynamo_code", "prog.py", "plain"],
            console="internalConsole",  # (integratedTerminal needs VS Code's terminal)
            justMyCode=False,
            cwd=str(folder),
            python=[str(python)],
            env={"PYTHONPATH": str(ROOT / "src")},
        )
        client.event("initialized")
        (placed,) = client.request("setBreakpoints", source={"path": str(transformed)}, breakpoints=[{"line": at}])["breakpoints"]
        client.request("configurationDone")
        client.response(launched)
        stopped = client.event("stopped")
        assert stopped["reason"] == "breakpoint" and placed["line"] == at, stopped
        where, values = _top_frame(client, stopped["threadId"])
        assert where == (str(transformed), at, "f")
        assert values["x"] == "tensor([1., 1., 1.])" and values["n"] == "2", values
        # the second call runs the same code (Dynamo's cache): it stops again, with its own x
        client.request("continue", threadId=stopped["threadId"])
        again = client.event("stopped")
        where, values = _top_frame(client, again["threadId"])
        assert where == (str(transformed), at, "f") and values["x"] == "tensor([0., 1., 2.])", values
        client.request("setBreakpoints", source={"path": str(transformed)}, breakpoints=[])
        client.request("continue", threadId=again["threadId"])
        client.event("terminated")
        assert "first 9.0\nbetween\nsecond 9.0" in client.output(), client.output()
    finally:
        client.close()
        adapter.kill()
        adapter.wait()


def _top_frame(client: DapClient, thread: int) -> tuple[tuple[str, int, str], dict[str, str]]:
    """Where the thread stopped (file, line, function) and its frame's locals, as the debugger shows them."""
    top = client.request("stackTrace", threadId=thread)["stackFrames"][0]
    local = next(scope for scope in client.request("scopes", frameId=top["id"])["scopes"] if scope["name"] == "Locals")
    variables = client.request("variables", variablesReference=local["variablesReference"])["variables"]
    return (top["source"]["path"], top["line"], top["name"]), {v["name"]: v["value"] for v in variables}
