"""record/compile_like.py: a decompiled function compiled back from its file so that it can run
in place of the code it was read from: the frame's arguments, cells and free variables where
Dynamo copies them, the file's line numbers, and a reason instead of a code wherever what it
does could differ. Stdlib only, so checked on every Python 3.10 to 3.13 found here (the torch
end to end is tests/test_debug_stepping.py, on the venv's Python)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conftest import python_version

SRC = Path(__file__).resolve().parents[2] / "src"

CHECKS = """
import types
from compilescope.decompiler import decompile_code
from compilescope.record.compile_like import compile_like

HEADER = "# line 1\\n# line 2\\n\\n"

def outer():
    k = 3
    def g(x, *rest, scale=2, **named):
        return (x + k) * scale + len(rest) + len(named)
    return g

g = outer()
source = HEADER + decompile_code(g.__code__).source
code = compile_like(source, "/folder/g.py", g.__code__, g.__code__)
assert isinstance(code, types.CodeType), code
# a free variable stays one: the function runs with the closure Dynamo's frame brings
assert code.co_freevars == ("k",) and code.co_filename == "/folder/g.py"
assert code.co_firstlineno == 4, code.co_firstlineno  # the file's line, after its header
run = types.FunctionType(code, globals(), "g", None, g.__closure__)
assert run(1, 5, 6, scale=3, a=1) == g(1, 5, 6, scale=3, a=1) == 15

# the arguments must be the reference's, in order: Dynamo copies them by position
assert "arguments" in compile_like("def g(y, *rest, scale=2, **named):\\n    return y + k\\n", "g.py", g.__code__, g.__code__)

# a global the code it replaces never reads
said = compile_like("def g(x, *rest, scale=2, **named):\\n    return print(x, k)\\n", "g.py", g.__code__, g.__code__)
assert "names it uses differ" in said and "print" in said, said

# the cell itself (to make a closure) is not its value, though source names both alike
def make(k):
    def inner():
        return k
    return inner

said = compile_like("def make(k):\\n    return k\\n", "make.py", make.__code__, make.__code__)
assert isinstance(said, str) and "cells" in said, said  # (the cell is made: it differs in how it is read)
print("ok")
"""


@pytest.mark.parametrize("version", ["3.10", "3.11", "3.12", "3.13"])
def test_a_decompiled_function_compiles_back_like_its_code(version: str) -> None:
    python = python_version(version)  # (skips where there is none)
    done = subprocess.run([python, "-c", CHECKS], capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(SRC)})
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]
