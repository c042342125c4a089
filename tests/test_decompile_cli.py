"""What a user gets from the decompiler: compilescope.decompile(), `compilescope decompile`,
`run --decompile DIR`, and guards as Python that answer as torch's guards do."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest
import torch

import compilescope
from conftest import ROOT, run_cli

BREAKS = ROOT / "tests" / "programs" / "dynamo_breaks.py"


# ---- compilescope.decompile() -----------------------------------------------------------------
def test_decompile_takes_functions_methods_modules_and_code() -> None:
    def scale(x, factor=2, kind=int, *, shift=(0, 1.5), unknown=object(), label="s"):  # noqa: B008  (every kind of default)
        total = 0
        for item in x:
            if item is None:
                continue
            total += item * factor
        return total or shift

    class Net(torch.nn.Module):
        def forward(self, x):
            return torch.relu(x) + 1

    source = compilescope.decompile(scale)
    # a default no literal writes is named, and the note above says what it is: never dropped
    assert source.startswith("# __default_unknown is the default <object object at ")
    assert "def scale(x, factor=2, kind=int, *, shift=(0, 1.5), unknown=__default_unknown, label='s'):" in source
    assert "    for item in x:\n        if item is" in source and "total += item * factor" in source
    assert "return total or shift" in source
    assert compilescope.decompile(scale.__code__).startswith(
        "def scale(x, factor, kind, *, shift, unknown, label):"
    )  # a code object has no defaults
    net = Net()
    expected = "def forward(self, x):\n    return torch.relu(x) + 1\n"
    assert compilescope.decompile(net) == "# Net.forward: what calling the module runs\n" + expected
    assert compilescope.decompile(net.forward) == "# Net.forward, a method bound to a Net object (self)\n" + expected
    said = "# Net.forward: what calling the module runs (compiled with torch.compile: the original module's)\n"
    assert compilescope.decompile(torch.compile(net)) == said + expected
    assert compilescope.decompile(torch.compile(scale)) == "# torch.compile's wrapper of scale: the original function\n" + source
    assert compilescope.decompile(lambda a, b: a if a > b else b).startswith("def _lambda_(a, b):")
    # the source compiles again and computes the same
    namespace: dict = {"__default_unknown": None}  # the named default, given by the reader
    exec(source, namespace)
    assert namespace["scale"]([1, None, 3], unknown=None) == scale([1, None, 3]) == 8
    assert namespace["scale"]([], unknown=None) == scale([]) == (0, 1.5)
    with pytest.raises(TypeError, match="takes a function, method, module or code object, not int"):
        compilescope.decompile(3)


def test_what_is_not_understood_is_shown_as_bytecode_never_guessed() -> None:
    @types.coroutine  # a generator made a coroutine: no source gives its code that flag
    def numbers(n):
        return [(yield n)]

    source = compilescope.decompile(numbers)
    ast.parse(source)  # still valid Python
    assert source.startswith(
        "def numbers(n):\n    # compilescope could not decompile numbers: this code: iterable coroutines are not decompiled"
    )
    assert re.search(r"^    #  +\d+ RETURN_VALUE", source, re.M), source  # its bytecode, in the comments
    namespace: dict = {"__default_unknown": None}  # the named default, given by the reader
    exec(source, namespace)
    with pytest.raises(NotImplementedError, match="could not decompile numbers"):
        namespace["numbers"](3)  # run, it says so: it never passes for the program

    def clauses(b, items, log):  # a shape not decompiled yet on 3.11: the place it stopped is marked
        n = 0
        while n < len(items) + 1:
            n += 1
            try:
                log.append(10 // (b - 3))
            except ZeroDivisionError:
                log.append("zero")
            except (IndexError, ValueError) as error:
                log.append(type(error).__name__)
                break
            else:
                log.append("else")
                continue
            log.append("after")
        return b

    source = compilescope.decompile(clauses)
    ast.parse(source)
    assert "# compilescope could not decompile clauses: PUSH_EXC_INFO" in source and "NotImplementedError" in source, source
    assert re.search(r"^    # >> +\d+ PUSH_EXC_INFO", source, re.M), source  # the instruction it stopped at, marked


# ---- compilescope decompile / run --decompile --------------------------------------------------
def _functions(text: str) -> list[str]:
    return [node.name for node in ast.parse(text).body if isinstance(node, (ast.FunctionDef, ast.ClassDef))]


def test_decompile_command_writes_one_readable_file_per_compiled_function(tmp_path: Path) -> None:
    shutil.copy(BREAKS, tmp_path / "breaks.py")
    result = run_cli("decompile", "--out", "generated", "breaks.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.count("halfway") == 1  # the program ran once, unchanged, its output its own
    files = sorted((tmp_path / "generated").glob("*.py"))
    names = [f.name for f in files]
    assert names[0] == "01_toy_example.py" and "Wrote 6 .py files to generated/" in result.stderr, result.stderr
    for path in files:
        assert path.name in result.stderr
        ast.parse(path.read_text())  # every file is valid Python
    toy = (tmp_path / "generated" / "01_toy_example.py").read_text()
    defined = _functions(toy)
    # in the order it runs: the function, the guard, Dynamo's code, its graph, the resume functions
    assert defined[:3] == ["toy_example", "__guard_0_0_for_toy_example", "__transformed_code_0_0_for_toy_example"]
    assert defined[3].startswith("__compiled_fn_")
    assert "def toy_example(a, b):\n    x = a / (torch.abs(a) + 1)\n    if b.sum() < 0:\n        b = b * -1\n    return x * b" in toy
    assert "__guard_hit = __guard_hit and (check_tensor(L['a'], Tensor," in toy
    # the transformed code calls the graph by the name its class has below, and the resume
    # functions by the names they are defined under
    transformed = toy[toy.index("def __transformed_code_0_0_for_toy_example") :]
    graph = defined[3]
    assert f"graph_out_0 = {graph}(a, b)" in transformed
    called = set(re.findall(r"return (__resume_at_\d+_\d+)\(", transformed))
    assert len(called) == 2
    # torch 2.13 passes the frame's values through lists it slices, extends, reorders and pops:
    # written out, each resume call reads as what it is passed (b, and x from the graph)
    transformed_code = transformed[: transformed.index("\n\n\n")]
    assert re.search(r"return __resume_at_\d+_\d+\(\[\], \[\], b, __temp\d+\)", transformed_code), transformed_code
    assert "[0:]" not in transformed_code and ".extend(" not in transformed_code
    compiled = {name for name in called if f"def {name}(" in toy}
    assert compiled, toy  # at least the side the run took is compiled and written out
    for name in called - compiled:
        assert f"# {name} (torch_dynamo_resume_in_toy_example_at_" in toy and "never compiled in this run" in toy
    for name in compiled:
        resume = toy[toy.index(f"def {name}(") :]
        assert "__transformed_code_" in resume and "__guard_" in resume
    looped = next(f for f in files if "looped" in f.name).read_text()
    assert "Dynamo generated no code for" in looped and "looped runs as plain Python" in looped
    forward = next(f for f in files if "forward" in f.name).read_text()
    assert "compiled again because:" in forward  # the recompile, and why, where it happens
    assert "(also called as __resume_at_" in forward  # one resume function under two names: written once


def test_run_decompile_and_decompile_of_a_saved_session_give_the_same_files(tmp_path: Path) -> None:
    shutil.copy(BREAKS, tmp_path / "breaks.py")
    result = run_cli("run", "--decompile", "from-run", "--no-html", "breaks.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Wrote 6 .py files to from-run/" in result.stderr
    saved = run_cli("decompile", "--out", "from-json", "compilescope-breaks.json", cwd=tmp_path)
    assert saved.returncode == 0, saved.stderr[-3000:]
    first = {p.name: p.read_text() for p in (tmp_path / "from-run").glob("*.py")}
    second = {p.name: p.read_text() for p in (tmp_path / "from-json").glob("*.py")}
    decompiled = [name for name in first if not name.startswith("repro_")]
    repros = sorted(name for name in first if name.startswith("repro_"))
    assert first == second and len(decompiled) == 6
    # AND a runnable repro per compile that made a graph, which runs alone in an empty folder
    # (a fresh interpreter, neither the program nor compilescope on its path) and matches eager
    assert "repro_0_0.py" in repros, repros
    clean = tmp_path / "clean"
    clean.mkdir()
    for name in repros:
        shutil.copy(tmp_path / "from-run" / name, clean / name)
        ran = subprocess.run([sys.executable, "-I", name], cwd=clean, capture_output=True, text=True, timeout=300)
        assert ran.returncode == 0 and ran.stdout.rstrip().endswith("match"), (name, ran.stdout, ran.stderr[-2000:])


def test_decompile_command_refuses_bad_input_clearly(tmp_path: Path) -> None:
    missing = run_cli("decompile", "nowhere.py", cwd=tmp_path)
    assert missing.returncode != 0 and "no such script: nowhere.py" in missing.stderr
    (tmp_path / "taken").write_text("a file")
    shutil.copy(BREAKS, tmp_path / "breaks.py")
    clash = run_cli("decompile", "--out", "taken", "breaks.py", cwd=tmp_path)
    assert clash.returncode != 0 and "it is a file" in clash.stderr
    (tmp_path / "s.json").write_text('{"schema": "compilescope/1", "frames": []}')
    extra = run_cli("decompile", "s.json", "--epochs", "1", cwd=tmp_path)
    assert extra.returncode != 0 and "takes no program arguments" in extra.stderr
    nothing = run_cli("decompile", "s.json", cwd=tmp_path)
    assert nothing.returncode == 0 and "compiled nothing" in nothing.stderr


# ---- guards as Python ---------------------------------------------------------------------------
def scaled(n, x):  # noqa: ANN001, ANN201  (at module level: its globals hold torch, as a user's would)
    return torch.ones(3) * n + x


def test_guards_as_python_answer_as_torch_does() -> None:
    """Where torch's guard helpers are there to call (they live in the compiled program), the
    guard function compilescope writes gives torch's own answer on the same inputs."""
    from compilescope.render.pyfiles import guard_function

    torch._dynamo.reset()
    with compilescope.capture() as session:
        torch.compile(scaled, backend="eager")(3, 2.5)
    compile_ = session.frames[0].compiles[0]
    text = guard_function("guard", compile_.guards, compile_.compile_id)
    ast.parse(text)
    manager = torch._dynamo.eval_frame._debug_get_cache_entry_list(scaled.__code__)[0].guard_manager
    helpers, scope = manager.closure_vars, manager.global_scope
    assert helpers is not None and scope is not None
    namespace = dict(helpers)  # torch's helpers: ___check_obj_id, utils_device, ...
    exec(text, namespace)
    G = scope["G"]
    answers = []
    for n, x in [(3, 2.5), (4, 2.5), (3.0, 2.5), ("3", 2.5), (3, 2), (True, 2.5), (3, 2.5000001)]:
        frame_locals = {"n": n, "x": x}
        ours, torchs = namespace["guard"](frame_locals, G), manager.check(frame_locals)
        assert ours == torchs, (n, x, ours, torchs)
        answers.append(ours)
    assert answers.count(True) == 1  # the inputs it was compiled for, and only those
    assert "___check_obj_id(G['torch']" in text  # the guard on the global `torch` is evaluated too


def test_decompile_of_a_compiled_function_follows_it_with_each_compiled_version() -> None:
    def shifted(x):  # noqa: ANN001, ANN202
        y = x.sin()
        print("a graph break")
        return y + 1

    torch._dynamo.reset()
    compiled = torch.compile(shifted, backend="eager")
    compiled(torch.randn(3))
    compiled(torch.randn(3, 3))  # a second version: the rank changed
    source = compilescope.decompile(compiled)
    # THEN the original function, said to be torch.compile's, and both versions Dynamo made of it,
    # each calling its own graph and handing the rest to the resume function
    assert source.startswith("# torch.compile's wrapper of shifted: the original function\ndef shifted(x):")
    assert "def shifted(x):\n    y = x.sin()\n    print('a graph break')\n    return y + 1" in source
    versions = re.findall(r"# Compiled version (\d+/\d+): Dynamo's transformed code of shifted", source)
    assert len(versions) == 2 and versions[0].endswith("/0") and versions[1].endswith("/1"), source
    assert source.count("(the graph it calls is __compiled_fn_") == 2 and source.count("return __resume_at_") == 2
    ast.parse(source)
    # AND a function never compiled in this process has none
    assert "Compiled version" not in compilescope.decompile(BREAKS_FUNCTION)


def BREAKS_FUNCTION(x):  # noqa: ANN001, ANN201, N802
    return x + 1
