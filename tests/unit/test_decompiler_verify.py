"""The check behind `verified` (decompiler/verify.py): a decompilation compiled again is compared
with the original's code. What the compiler may vary is alike (block order, a test with its ways
swapped, closures, super()); anything that runs differently is a difference, named."""

from __future__ import annotations

import types

import compilescope
from compilescope.decompiler import decompile_code
from compilescope.decompiler.verify import difference


def _code(source: str, name: str) -> types.CodeType:
    """The code object of function `name` in `source` (searched through nested code)."""
    todo = [compile(source, "<test>", "exec", dont_inherit=True)]
    while todo:
        code = todo.pop()
        if code.co_name == name:
            return code
        todo += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    raise LookupError(name)


def test_the_same_function_written_otherwise_is_verified() -> None:
    # GIVEN a function, and the same written with its if/else swapped and its test inverted
    original = _code("def f(x):\n    if x is not None:\n        y = 1\n    else:\n        y = 2\n    return y\n", "f")
    swapped = "def f(x):\n    if x is None:\n        y = 2\n    else:\n        y = 1\n    return y\n"
    # THEN the check finds them alike
    assert difference(original, swapped) is None


def test_a_missing_global_is_named() -> None:
    original = _code("counter = 0\ndef bump(x):\n    global counter\n    counter += x\n    return counter\n", "bump")
    said = difference(original, "def bump(x):\n    counter += x\n    return counter\n")
    assert said == "stores `counter` as a local where the original stores a global"


def test_another_constant_operator_or_target_differs() -> None:
    original = _code("def f(a, b):\n    if a < b:\n        return a + 1\n    return b\n", "f")
    assert "constants" in (difference(original, "def f(a, b):\n    if a < b:\n        return a + 2\n    return b\n") or "")
    assert "instructions" in (difference(original, "def f(a, b):\n    if a < b:\n        return a - 1\n    return b\n") or "")
    assert "instructions" in (difference(original, "def f(a, b):\n    if a <= b:\n        return a + 1\n    return b\n") or "")
    assert "instructions" in (difference(original, "def f(a, b):\n    if a < b:\n        return b\n    return a + 1\n") or "")
    assert difference(original, "def f(b, a):\n    if b < a:\n        return b + 1\n    return a\n") is not None  # (its parameters)


def test_nested_code_is_compared() -> None:
    original = _code("def f(xs):\n    return [x * 2 for x in xs]\n", "f")
    said = difference(original, "def f(xs):\n    return [x * 3 for x in xs]\n")
    assert said is not None and "<listcomp>" in said or said is not None and "constants" in said


def test_closures_and_super_are_compiled_where_they_belong() -> None:
    # GIVEN an inner function that rebinds its enclosing function's variable, and a method
    # calling super(): compiled alone, neither would be the same code
    source = (
        "def outer():\n    n = 0\n    def inner(b):\n        nonlocal n\n        n += b\n        return n\n    return inner\n"
        "class A:\n    def m(self):\n        return super().m()\n"
    )
    inner, method = _code(source, "inner"), _code(source, "m")
    assert difference(inner, "def inner(b):\n    nonlocal n\n    n += b\n    return n\n") is None
    assert difference(method, "def m(self):\n    return super().m()\n") is None


def test_the_api_says_so_at_the_top_of_the_source() -> None:
    namespace: dict = {}
    exec("counter = 0\ndef bump(x):\n    global counter\n    counter += x\n    return counter\n", namespace)
    result = decompile_code(namespace["bump"].__code__)
    source = compilescope.decompile(namespace["bump"])
    # (this branch writes no `global` yet: once it does, both are verified and the rest is moot)
    assert result.verified is source.verified and isinstance(source, str)
    if not source.verified:
        assert source.startswith("# compilescope: this decompilation differs from the bytecode in: stores `counter`")
        assert source.difference == result.difference
    right = compilescope.decompile(lambda q: q + 1)
    assert right.verified is True and right.difference is None and not right.startswith("#")


def test_an_and_inside_an_or_is_alike_on_one_line_or_several() -> None:
    # GIVEN `a or b and c or d` written over several lines, as the stdlib writes it: 3.10 and
    # 3.11 thread its jumps only where the parts share a line, and a decompilation is one line
    original = _code("def f(a, b, c, d):\n    return (a or\n            b and\n            c or\n            d)\n", "f")
    # THEN the same on one line is alike, and so is an `is` test in it
    assert difference(original, "def f(a, b, c, d):\n    return a or (b and c) or d\n") is None
    tested = _code("def f(a, b, c):\n    return (a is None or\n            b and\n            c)\n", "f")
    assert difference(tested, "def f(a, b, c):\n    return a is None or (b and c)\n") is None
    # AND another operator in its place still differs
    assert difference(original, "def f(a, b, c, d):\n    return a or b or c or d\n") is not None
    assert difference(original, "def f(a, b, c, d):\n    return a or (b and c) and d\n") is not None
    assert difference(tested, "def f(a, b, c):\n    return a is not None or (b and c)\n") is not None
