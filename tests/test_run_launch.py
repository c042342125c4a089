"""How `compilescope run` starts and ends the program is python's: each case run both ways.

As in test_run_as_python.py: the same program under plain `python` and under `python -m
compilescope run` (real subprocesses), comparing what the program printed, how it ended and the
status its parent saw; compilescope's explanation comes after the program's stderr. Here: our own
imports after the program never resolve to the program's files (a rich.py beside it), the run
ends after python's own last steps (non-daemon threads, atexit handlers), and python's other ways
in (a folder, a zip app, -m's errors, __main__'s globals, a file name that is not UTF-8).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

from test_run_as_python import ENV, both, write

# Each probe prints its globals as python gives them: names, types, and the values that carry no
# object address.
GLOBALS_PROBE = """
import sys
import time
for name, value in sorted(globals().items()):
    shown = repr(value) if value is None or isinstance(value, (str, dict)) else type(value).__name__
    print(name, type(value).__name__, shown)
print("argv", sys.argv)
print("path0", sys.path[0])
print("spec", getattr(__spec__, "name", None), getattr(__spec__, "origin", None), __spec__ and __spec__.parent)
"""


def _explained(stderr: str) -> bool:
    return "What to look at" in stderr or "function compiled" in stderr or "functions compiled" in stderr


def test_files_named_like_our_imports_stay_the_programs(tmp_path: Path) -> None:
    # GIVEN, beside the script, files named like what compilescope imports (each prints as it is
    # imported): the script one of them, or a script that imports nothing
    for name in ("rich", "pygments", "json", "compilescope"):
        # (compilescope.py in the current folder would be what `python -m compilescope` runs:
        # python's own rule; beside a script elsewhere it must stay the program's)
        folder = tmp_path / name / ("app" if name == "compilescope" else "")
        cwd = tmp_path / name
        write(folder, f"{name}.py", f"print('top of {name}.py', __name__)\n")
        write(folder, "plain.py", "print('plain runs')\n")
        for script in (f"{name}.py", "plain.py"):
            typed = f"app/{script}" if name == "compilescope" else script
            # WHEN it runs under python and under compilescope run, in its folder
            plain, ours = both(cwd, typed)
            # THEN the program's output and status are python's, each file's top-level code runs as
            # often as under python, and the explanation follows
            assert ours.returncode == plain.returncode == 0, (typed, ours.stderr[-2000:])
            assert ours.stdout == plain.stdout, (typed, ours.stdout)
            assert ours.stderr.startswith(plain.stderr), (typed, ours.stderr[-2000:])
            assert _explained(ours.stderr), (typed, ours.stderr[-2000:])


def test_the_programs_own_module_named_like_one_of_ours_is_the_one_it_imports(tmp_path: Path) -> None:
    # GIVEN a program that imports json and tempfile, with a json.py and a tempfile.py of its own
    # beside it (compilescope has imported both before the program starts; python has not)
    write(tmp_path, "json.py", "print('the program json.py')\ndef dumps(value):\n    return 'its own dumps'\n")
    write(tmp_path, "tempfile.py", "print('the program tempfile.py')\n")
    write(tmp_path, "prog.py", "import json, tempfile\nprint(json.dumps(1))\n")
    plain, ours = both(tmp_path, "prog.py")
    # THEN it gets its own, as under python, and compilescope still saves its session with its own
    assert plain.stdout == "the program json.py\nthe program tempfile.py\nits own dumps\n"
    assert (ours.returncode, ours.stdout) == (plain.returncode, plain.stdout), ours.stderr
    assert json.loads((tmp_path / "compilescope-prog.json").read_text())["program"]["exit_status"] == 0


def test_a_compiling_program_named_rich_is_explained(tmp_path: Path) -> None:
    # GIVEN a program named rich.py that compiles, and one that imports the pygments.py beside it
    # before it compiles (what rich, which the explanation uses, imports)
    compiles = 'import torch\nprint("top of", __name__)\nif __name__ == "__main__":\n    torch.compile(lambda x: x.sin() + 1, backend="eager")(torch.ones(2))\n'
    write(tmp_path, "rich.py", compiles)
    write(tmp_path, "pygments.py", "print('top of pygments.py', __name__)\n")
    write(tmp_path, "uses.py", "import pygments\n" + compiles)
    for script in ("rich.py", "uses.py"):
        # WHEN each runs in its folder, under python and under compilescope run
        plain, ours = both(tmp_path, script)
        # THEN the program's part is python's (its top-level code ran once) and the explanation
        # names what was compiled
        assert ours.returncode == plain.returncode == 0, ours.stderr[-3000:]
        assert ours.stdout == plain.stdout
        assert ours.stdout.count("top of") == plain.stdout.count("top of") == (1 if script == "rich.py" else 2)
        assert ours.stderr.startswith(plain.stderr)
        assert "2 ops: sin, add" in ours.stderr, ours.stderr[-3000:]
        assert "Traceback" not in ours.stderr


LATE = """
import atexit, sys, threading, time
import torch

def late():
    time.sleep(0.3)
    print("thread compiles", flush=True)
    print(torch.compile(lambda x: x.cos() * 2, backend="eager")(torch.ones(2)))

def fails():
    raise ValueError("in an atexit handler")

atexit.register(print, "atexit registered first")
atexit.register(fails)
atexit.register(lambda: print("atexit registered last", file=sys.stderr))
threading.Thread(target=late).start()
print("main ends")
sys.exit(3)
"""


def test_late_threads_and_atexit_run_before_the_explanation(tmp_path: Path) -> None:
    # GIVEN a program whose main ends (exit status 3) while a non-daemon thread still has to
    # compile, and whose atexit handlers print, one of them failing
    write(tmp_path, "late.py", LATE)
    plain, ours = both(tmp_path, "late.py")
    # THEN its output, in python's order, and its exit status are python's
    assert ours.returncode == plain.returncode == 3
    assert plain.stdout == "main ends\nthread compiles\ntensor([1.0806, 1.0806])\natexit registered first\n"
    assert ours.stdout == plain.stdout
    # the handlers' stderr (the failing one as python prints it) comes before our explanation
    address = re.compile(r" at 0x[0-9a-f]+")
    assert "Exception ignored in atexit callback" in plain.stderr
    assert address.sub("", ours.stderr).startswith(address.sub("", plain.stderr)), ours.stderr[:3000]
    # and the thread's compile, after main ended, is recorded and explained
    assert "2 ops: cos, mul" in ours.stderr, ours.stderr[-3000:]
    session = json.loads((tmp_path / "compilescope-late.json").read_text())
    assert session["frames"][0]["compiles"][0]["graphs"][0]["ops"] == ["cos", "mul"]
    assert session["program"]["exit_status"] == 3


def test_a_folder_and_a_zip_app_run_as_python_runs_them(tmp_path: Path) -> None:
    # GIVEN a folder with a __main__.py, and a zip app whose __main__.py compiles
    write(tmp_path, "appdir/__main__.py", GLOBALS_PROBE)
    with zipfile.ZipFile(tmp_path / "app.pyz", "w") as archive:
        archive.writestr(
            "__main__.py",
            GLOBALS_PROBE + 'import torch\nprint(torch.compile(lambda x: x.sin() + 1, backend="eager")(torch.ones(2)))\n',
        )
    for typed in ("appdir", "./appdir/", "app.pyz"):
        # WHEN python and compilescope run them
        plain, ours = both(tmp_path, typed, "an argument")
        # THEN they see the same __main__ globals, sys.argv and sys.path[0], and end the same way
        assert plain.returncode == ours.returncode == 0, ours.stderr[-3000:]
        assert ours.stdout == plain.stdout, typed
        assert ours.stderr.startswith(plain.stderr)
        assert f"path0 {tmp_path}/{typed}" in plain.stdout
    # and the zip app's compile is explained
    assert "2 ops: sin, add" in ours.stderr, ours.stderr[-3000:]


def test_nothing_to_run_is_said_as_python_says_it(tmp_path: Path) -> None:
    # GIVEN a package without __main__ and an empty folder
    write(tmp_path, "nomain/__init__.py", "")
    (tmp_path / "empty").mkdir()
    for command in (["-m", "no_such_module"], ["-m", "nomain"], ["-m", "no_such.sub"], ["empty"]):
        plain, ours = both(tmp_path, *command)
        # THEN python's message and exit status, and nothing written
        assert ours.returncode == plain.returncode == 1, command
        assert ours.stderr == plain.stderr, command
        assert ours.stdout == plain.stdout == ""
    assert sorted(os.listdir(tmp_path)) == ["empty", "nomain"]


def test_the_programs_globals_are_pythons(tmp_path: Path) -> None:
    # GIVEN scripts with and without annotations at top level, a module and a package for -m
    write(tmp_path, "plain.py", GLOBALS_PROBE)
    write(tmp_path, "annotated.py", "x: int = 1\n" + GLOBALS_PROBE)
    write(tmp_path, "probe_module.py", GLOBALS_PROBE)
    write(tmp_path, "probe_package/__init__.py", "")
    write(tmp_path, "probe_package/__main__.py", GLOBALS_PROBE)
    for command in (["plain.py"], ["./annotated.py"], ["-m", "probe_module"], ["-m", "probe_package"]):
        plain, ours = both(tmp_path, *command)
        # THEN sorted(globals()), their types and values, argv, path0 and the spec are python's
        assert ours.returncode == plain.returncode == 0, ours.stderr[-2000:]
        assert ours.stdout == plain.stdout, command
        assert "__annotations__ dict" in plain.stdout and "__builtins__ module" in plain.stdout


def test_a_script_whose_name_is_not_utf8_is_run_and_reported(tmp_path: Path) -> None:
    # GIVEN a script named b"caf\xe9.py" (not UTF-8) that compiles in a thread (torch cannot
    # compile with such a file name on its stack, under python as under compilescope)
    write(
        tmp_path, "helper.py", 'import torch\ndef go():\n    print(torch.compile(lambda x: x.sin() + 1, backend="eager")(torch.ones(2)))\n'
    )
    name = os.fsdecode(b"caf\xe9.py")
    (tmp_path / name).write_bytes(
        b'import threading, helper\nthreading.Thread(target=helper.go).start()\nprint(__file__.encode("utf-8", "surrogateescape"))\n'
    )
    plain = subprocess.run([sys.executable, name], cwd=tmp_path, capture_output=True, env=ENV, timeout=300)
    ours = subprocess.run([sys.executable, "-m", "compilescope", "run", name], cwd=tmp_path, capture_output=True, env=ENV, timeout=300)
    # THEN the program's part is python's
    assert ours.returncode == plain.returncode == 0, ours.stderr[-3000:]
    assert ours.stdout == plain.stdout
    assert b"/caf\\xe9.py'" in plain.stdout
    assert ours.stderr.startswith(plain.stderr)
    # and the report is written, naming the script escaped
    report = (tmp_path / os.fsdecode(b"compilescope-caf\xe9.html")).read_bytes().decode("utf-8")
    assert "<title>compilescope · caf\\udce9.py</title>" in report
    assert b"compilescope-caf\\udce9.html" in ours.stderr


def test_ctrl_c_while_python_waits_for_a_thread_is_said_as_python_says_it(tmp_path: Path) -> None:
    # GIVEN a program whose main ends while a non-daemon thread still sleeps, and an atexit handler
    write(
        tmp_path,
        "waits.py",
        """
        import atexit, threading, time
        atexit.register(print, "atexit ran")
        threading.Thread(target=time.sleep, args=(5,)).start()
        print("main ends", flush=True)
        """,
    )
    ended = []
    for command in (["waits.py"], ["-m", "compilescope", "run", "waits.py"]):
        program = subprocess.Popen(
            [sys.executable, *command], cwd=tmp_path, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        assert program.stdout is not None and program.stdout.readline() == "main ends\n"
        time.sleep(0.5)  # python is waiting for the thread now
        # WHEN Ctrl-C interrupts that wait
        program.send_signal(signal.SIGINT)
        out, err = program.communicate(timeout=60)
        ended.append((program.returncode, "main ends\n" + out, err))
    (plain_status, plain_out, plain_err), (status, out, err) = ended
    # THEN as under python: the interrupted wait is printed, the atexit handler still runs, the
    # status is the program's, and the explanation comes after
    assert plain_err.startswith("Exception ignored in: <module 'threading'") and plain_err.endswith("KeyboardInterrupt: \n")
    assert status == plain_status == 0
    assert out == plain_out == "main ends\natexit ran\n"
    assert err.startswith(plain_err) and _explained(err), err
