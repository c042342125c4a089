"""Decompile functions that declare `global` and `nonlocal` (and the comprehensions and class
bodies that bind through them), run the source in a fresh namespace and compare with the
original: the same results, and the same globals and enclosing variables afterwards.

Run by tests/unit/test_decompile_scopes.py with each Python 3.10-3.13 (stdlib only,
PYTHONPATH=src). Prints JSON: per case, its status ("pass", "differs: ...", "unsupported:
...") and the decompiled source."""

import json
import sys
import textwrap
import types

from compilescope.decompiler.api import decompile_code

# (name, the module's source, the function to decompile, the calls' arguments)
CASES = [
    (
        "bump",
        """
counter = 0
def f(x):
    global counter
    counter += x
    return counter
""",
        "f",
        ["(2,)", "(3,)"],
    ),
    (
        "reads_only",  # a function that only reads a global declares nothing
        """
counter = 7
def f(x):
    return counter + x
""",
        "f",
        ["(1,)"],
    ),
    (
        "declared_and_read",  # declared, only read: the same without the declaration
        """
counter = 7
def f():
    global counter
    return counter * 2
""",
        "f",
        ["()"],
    ),
    (
        "delete_global",
        """
gone = 1
kept = 2
def f(x):
    global gone, made
    made = x * 2
    del gone
    return made
""",
        "f",
        ["(4,)"],
    ),
    (
        "global_loop_import_targets",
        """
def f():
    global last, jsonmodule
    import json as jsonmodule
    for last in range(3):
        pass
    return last, jsonmodule.dumps([last])
""",
        "f",
        ["()"],
    ),
    (
        "nested_nonlocal",
        """
def f(k):
    n = 0
    def inc():
        nonlocal n
        n += k
        return n
    inc()
    inc()
    return n
""",
        "f",
        ["(3,)"],
    ),
    (
        "nested_own_global",  # the nested def carries its own declaration
        """
g = 0
def f(v):
    def setg(w):
        global g
        g = w
    setg(v)
    return g
""",
        "f",
        ["(5,)"],
    ),
    (
        "nested_global_read_shadowed",  # without `global`, inner would read f's local
        """
counter = 'global'
def f():
    counter = 'local'
    def inner():
        global counter
        return counter
    return inner(), counter
""",
        "f",
        ["()"],
    ),
    (
        "global_and_nonlocal",
        """
counter = 10
def f(x):
    n = 0
    def both(y):
        global counter
        nonlocal n
        counter += y
        n += 1
    both(x)
    both(x)
    return n, counter
""",
        "f",
        ["(2,)"],
    ),
    (
        "nonlocal_delete",
        """
def f():
    v = 1
    def drop():
        nonlocal v
        del v
    drop()
    def look():
        return v
    try:
        return look()
    except NameError:
        return 'gone'
""",
        "f",
        ["()"],
    ),
    (
        "closure_itself",  # the closure decompiled on its own, run with the original's cells
        """
def make():
    n = 0
    def step(k):
        nonlocal n
        n += k
        return n
    return step
""",
        "make()",
        ["(2,)", "(5,)"],
    ),
    (
        "walrus_global_listcomp",
        """
total = 0
def f(xs):
    global total
    return [(total := total + x) for x in xs]
""",
        "f",
        ["([1, 2, 3],)"],
    ),
    (
        "walrus_global_nested_comprehension",
        """
total = 100
def f(rows):
    global total
    return [[(total := total + y) for y in row] for row in rows]
""",
        "f",
        ["([[1], [2, 3]],)"],
    ),
    (
        "walrus_global_genexpr",
        """
last = None
def f(xs):
    global last
    return sum((last := x) for x in xs)
""",
        "f",
        ["([4, 5],)"],
    ),
    (
        "walrus_nonlocal_comprehension",
        """
def f(xs):
    total = 0
    def inner():
        nonlocal total
        return [(total := total + x) for x in xs]
    got = inner()
    return got, total
""",
        "f",
        ["([1, 2, 3],)"],
    ),
    (
        "walrus_local_comprehension",  # binds f's own variable: nothing to declare
        """
def f(xs):
    last = None
    got = [(last := x) for x in xs if x]
    return got, last
""",
        "f",
        ["([0, 1, 2],)"],
    ),
    (
        "class_body_global",
        """
made = None
def f():
    class C:
        global made
        made = 'in class'
        x = 2
    return C.x, made
""",
        "f",
        ["()"],
    ),
    (
        "class_body_nonlocal_with_docstring",
        """
def f():
    n = 0
    class K:
        "The docstring stays first."
        nonlocal n
        n = 5
    return n, K.__doc__
""",
        "f",
        ["()"],
    ),
    (
        "class_body_global_read_shadowed",
        """
y = 'global'
def f():
    y = 'local'
    class C:
        global y
        z = y
    return C.z, y
""",
        "f",
        ["()"],
    ),
    (
        "lambda_and_comprehension_read_shadowed_global",  # they cannot declare: the def around them does
        """
x = 'global'
def f():
    x = 'local'
    def g():
        global x
        get = lambda: x
        return get(), [x for _ in range(2)], list(x for _ in range(1))
    return g(), x
""",
        "f",
        ["()"],
    ),
    (
        "lambda_reads_global",  # a lambda cannot declare: it only reads
        """
counter = 3
def f():
    global counter
    counter = 4
    get = lambda: counter
    return get()
""",
        "f",
        ["()"],
    ),
]


def _state(namespace):
    """The module's variables afterwards (functions and classes by kind: they are remade)."""
    out = {}
    for name, value in namespace.items():
        if name.startswith("__"):
            continue
        simple = value is None or isinstance(value, (bool, int, float, str, list, tuple, dict))
        out[name] = repr(value) if simple else f"<{type(value).__name__}>"
    return out


def _cells(function):
    out = []
    for cell in function.__closure__ or ():
        try:
            out.append(repr(cell.cell_contents))
        except ValueError:
            out.append("<empty>")
    return out


def _rebuilt(source, original, namespace):
    """The decompiled function, defined in `namespace`; a closure's is compiled inside a
    function that binds its free variables and then given the original's cells."""
    code = original.__code__
    if not code.co_freevars:
        exec(compile(source, "<decompiled>", "exec"), namespace)
        return namespace[code.co_name]
    wrapper = f"def __enclosing():\n    {' = '.join(code.co_freevars)} = None\n" + textwrap.indent(source, "    ")
    (inner,) = [
        c
        for outer in compile(wrapper, "<decompiled>", "exec").co_consts
        if isinstance(outer, types.CodeType)
        for c in outer.co_consts
        if isinstance(c, types.CodeType) and c.co_name == code.co_name
    ]
    if inner.co_freevars != code.co_freevars:
        raise AssertionError(f"free variables {inner.co_freevars}, not {code.co_freevars}")
    return types.FunctionType(inner, namespace, code.co_name, original.__defaults__, original.__closure__)


def _run(source, target, calls, decompile):
    namespace = {"__name__": "scopes_case"}
    exec(compile(textwrap.dedent(source), "<case>", "exec"), namespace)
    function = eval(target, namespace)
    text = None
    if decompile:
        done = decompile_code(function.__code__, function)
        text = done.source
        if not done.complete:
            return None, text, done.note
        function = _rebuilt(text, function, namespace)
    results = []
    for arguments in calls:
        try:
            results.append(repr(function(*eval(arguments, namespace))))
        except Exception as error:
            results.append(f"raised {type(error).__name__}: {error}")
    return {"results": results, "globals": _state(namespace), "cells": _cells(function)}, text, None


def main():
    report = {}
    for name, source, target, calls in CASES:
        expected, _, _ = _run(source, target, calls, decompile=False)
        try:
            got, text, note = _run(source, target, calls, decompile=True)
        except Exception as error:  # the source did not compile or run
            report[name] = {"status": f"differs: {type(error).__name__}: {error}", "source": None}
            continue
        if got is None:
            status = f"unsupported: {note}"
        elif got != expected:
            status = f"differs: expected {expected}, got {got}"
        else:
            status = "pass"
        report[name] = {"status": status, "source": text}
    json.dump(report, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
