"""Shapes the decompiler once wrote otherwise than the source: each is written as the source
writes it, compiles back to the same bytecode (verified), and does what the function does."""

from __future__ import annotations

import copy
import re
import types
from collections.abc import Callable
from typing import Any

from compilescope.decompiler import decompile_code


class _Object:
    """An object whose attributes a test function sets; equal where those are."""

    a = 7

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Object) and vars(self) == vars(other)


def _function(source: str) -> types.FunctionType:
    namespace: dict[str, Any] = {}
    exec(compile(source, "<test>", "exec", dont_inherit=True), namespace)
    return namespace["f"]


def _decompiled(source: str, *calls: tuple[Any, ...]) -> str:
    """The decompilation of `f` in `source`, checked: verified, and each call of the function it
    defines gives what the original gives (or raises the same error)."""
    original = _function(source)
    result = decompile_code(original.__code__)
    assert result.verified, result.source
    again = _function(result.source)
    for args in calls:
        assert _outcome(again, copy.deepcopy(args)) == _outcome(original, copy.deepcopy(args)), result.source
    return result.source


def _outcome(function: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    try:
        return ("returned", function(*args))
    except Exception as error:  # (the same error, with the same message, is the same outcome)
        return ("raised", type(error), str(error))


def test_assert_false_stays_an_assert() -> None:
    # GIVEN `assert False, message`, whose test Python drops (under -O nothing is raised)
    source = _decompiled("def f(x):\n    x.append(1)\n    assert False, 'never'\n", ([],))
    # THEN it comes out as an assert, not as `raise AssertionError(...)`
    assert "assert False, 'never'" in source
    assert "raise" not in source


def test_membership_in_a_set_display_is_a_set_display() -> None:
    source = _decompiled("def f(x):\n    return x in {'a', 'b'} or x not in {3, 4}\n", ("a",), (3,), ("z",))
    assert "x in {'a', 'b'}" in source and "x not in {3, 4}" in source
    assert "frozenset" not in source


def test_a_loop_over_a_set_display_is_a_set_display() -> None:
    source = _decompiled("def f():\n    n = 0\n    for x in {1, 2}:\n        n += x\n    return n, [y for y in {5, 6}]\n", ())
    assert "for x in {1, 2}" in source and "for y in {5, 6}" in source


def test_ellipsis_in_a_tuple_is_written_as_dots() -> None:
    source = _decompiled("def f():\n    return (..., 1, (2, ...))\n", ())
    assert "(..., 1, (2, ...))" in source
    assert "Ellipsis" not in source


def test_a_chained_assignment_of_a_constant_stays_chained() -> None:
    # GIVEN chained assignments of a constant and of a local, to names, attributes and items
    source = _decompiled(
        "def f(o, d):\n    o.x = o.y = None\n    i = j = k = 0\n    d['a'] = d['b'] = i\n    return (o.x, o.y, i, j, k, d)\n",
        (_Object(), {}),
    )
    # THEN each is one statement, as written (two statements would load the value twice)
    assert "o.x = o.y = None" in source
    assert "i = j = k = 0" in source
    assert "d['a'] = d['b'] = i" in source


def test_a_swap_of_items_is_one_tuple_assignment() -> None:
    # GIVEN swaps of items and attributes (values the bytecode holds on its stack, no names)
    source = _decompiled(
        "def f(x, o, i, j):\n    x[i], x[j] = x[j], x[i]\n    o.a, x[0], o.b = x[i], o.a, i\n    return (x, o.a, o.b)\n",
        ([1, 2, 3], _Object(), 0, 2),
    )
    # THEN each is the tuple assignment, with no temporaries
    assert re.search(r"^    \(?x\[i\], x\[j\]\)? = \(x\[j\], x\[i\]\)$", source, re.M), source
    assert re.search(r"^    \(?o\.a, x\[0\], o\.b\)? = \(x\[i\], o\.a, i\)$", source, re.M), source
    assert "__temp" not in source


def test_names_imported_from_one_module_are_one_import() -> None:
    source = _decompiled("def f():\n    from os import path, sep as s\n    from os import curdir\n    return (path, s, curdir)\n", ())
    assert "from os import path, sep as s\n" in source
    assert "from os import curdir\n" in source


def test_a_conditional_inside_an_f_string_keeps_the_f_string() -> None:
    # GIVEN f-strings whose parts need jumps (`or`, `if else`), and the `%` formatting Python
    # turns into one: the parts before the jump wait on the stack across blocks
    source = _decompiled(
        "def f(t, c, n):\n"
        "    a = '%s/%s' % (t.get('u') or 1, t.get('g') or 2)\n"
        "    return (f\"Too {'many' if c else 'few'} for {n}\", a)\n",
        ({"u": "x"}, True, 3),
        ({}, False, 0),
    )
    # THEN each is one f-string (3.11+ reads the `%` as one), its literal text written as text
    assert "Too {('many' if c else 'few')} for {n}" in source, source
    assert "/{t.get(" in source or "'%s/%s' % (" in source, source
    assert "__stack" not in source


def test_a_tuple_assignment_in_a_loop_stays_one() -> None:
    # GIVEN `a, b = c, d` of plain names inside a for loop (its iterator waits on the stack below)
    source = _decompiled(
        "def f(pairs):\n    a = b = 0\n    for c, d in pairs:\n        if c:\n            a, b = d, c\n    return (a, b)\n",
        ([(1, 2), (0, 5), (3, 4)],),
    )
    assert re.search(r"^            \(?a, b\)? = \(d, c\)$", source, re.M), source


def test_an_augmented_assignment_to_a_negative_index_stays_augmented() -> None:
    # GIVEN `x[-1] += v` on a list item: in place (a list item's list is extended, not replaced)
    source = _decompiled("def f(rows, extra):\n    alias = rows[-1]\n    rows[-1] += extra\n    return (alias, rows)\n", ([[1], [2]], [3]))
    assert "rows[-1] += extra" in source


def test_an_augmented_assignment_of_a_comprehension_stays_augmented() -> None:
    # GIVEN `x += [comprehension]`: 3.12+ runs the comprehension inline, x waiting on the stack
    source = _decompiled(
        "def f(rows, xs):\n    alias = rows\n    rows += [x * 2 for x in xs if x]\n    return (alias, rows)\n", ([1], [0, 2, 3])
    )
    # THEN it is still in place (the list `alias` also names is extended, not replaced)
    assert "rows += [x * 2 for x in xs if x]" in source
