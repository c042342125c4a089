"""`try: ... except* E as eg:` (exception groups, 3.11+) decompiled: one and several clauses,
with and without a name, a tuple of types, an `else`, a `finally` around it, a clause body that
raises, re-raises or branches, a body or else that returns, inside a loop.

Why this test exists: the decompiler refused every except* (a stub raising NotImplementedError).
Each function below is decompiled on this Python, checked against the bytecode (verified), and
run beside the original on inputs that raise groups matching one, several or none of the
clauses, plain exceptions, and nothing. The functions are source text compiled here, since
3.10 cannot parse except* (and skips this file). Without pytest (3.12, 3.13 here), run it as a
script: `python tests/unit/test_decompile_except_star.py`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import pytest

from compilescope.decompiler.api import decompile_code

pytestmark = pytest.mark.skipif(sys.version_info < (3, 11), reason="except* is 3.11+ syntax")

SOURCE = """
def several(g, log):
    try:
        g()
    except* ValueError as eg:
        r = len(eg.exceptions)
    except* (TypeError, KeyError):
        r = -1
    return r

def one_unnamed(g, log):
    try:
        log.append(g())
    except* ValueError:
        log.append("v")
    return log

def named(g, log):
    try:
        log.append(g())
    except* OSError as eg:
        log.append(len(eg.exceptions))
    return log

def with_else(g, log):
    try:
        log.append(g())
    except* ValueError as eg:
        log.append(("v", len(eg.exceptions)))
    except* TypeError:
        log.append("t")
    else:
        log.append("else")
    log.append("end")
    return log

def with_finally(g, log):
    try:
        g()
    except* ValueError:
        log.append("v")
    finally:
        log.append("fin")
    return log

def clause_raises(g, log):
    try:
        g()
    except* ValueError as eg:
        raise KeyError("from clause")
    except* TypeError:
        pass
    return "done"

def clause_reraises(g, log):
    try:
        g()
    except* ValueError:
        log.append("v")
        raise
    return "ok"

def tuple_else_finally(g, log):
    try:
        log.append(g())
    except* (ValueError, TypeError) as eg:
        log.append(type(eg).__name__)
    except* KeyError:
        log.append("k")
    else:
        log.append("else")
    finally:
        log.append("fin")
    log.append("end")
    return log

def in_loop(g, log):
    for attempt in range(3):
        try:
            g()
        except* ValueError:
            log.append(("v", attempt))
        log.append(attempt)
    return log

def clause_branches(g, log):
    r = 0
    try:
        if log is not None:
            g()
        else:
            r = 5
    except* ValueError as eg:
        if len(eg.exceptions) > 1:
            r = 1
        else:
            r = 2
    return r

def body_returns(g, log):
    try:
        return g()
    except* ValueError:
        log.append("v")
    return 0

def else_returns(g, log):
    try:
        g()
    except* ValueError:
        log.append("v")
    else:
        return "else"
    return "after"

def raises_from(g, log):
    try:
        g()
    except* ValueError as eg:
        raise RuntimeError("wrapped") from eg

def try_in_clause(g, log):
    try:
        g()
    except* (ValueError, KeyError) as eg:
        try:
            log.append(eg.exceptions[1])
        except IndexError:
            log.append("one")
        log.append("v")
    return log
"""


def _raiser(error: BaseException | None) -> Callable[[], Any]:
    def g() -> Any:
        if error is not None:
            raise error
        return "value"

    return g


def _inputs() -> list[Callable[[], Any]]:
    group = ExceptionGroup  # noqa: F821 (a builtin from 3.11)
    return [
        _raiser(None),
        _raiser(group("one", [ValueError(1)])),  # one clause
        _raiser(group("two", [ValueError(1), ValueError(2), TypeError(3)])),  # several
        _raiser(group("none", [RuntimeError(4), OSError(5)])),  # none (or OSError)
        _raiser(group("nested", [group("inner", [ValueError(6)]), KeyError(7)])),
        _raiser(ValueError(8)),  # a plain exception, matched
        _raiser(RuntimeError(9)),  # a plain exception, not matched
    ]


def _described(error: BaseException) -> Any:
    """What an exception is, as comparable data: a group with its parts, its cause/context."""
    inner = getattr(error, "exceptions", None)
    parts = [_described(e) for e in inner] if inner is not None else None
    return (type(error).__name__, str(error), parts)


def _outcome(function: Callable[..., Any], g: Callable[[], Any]) -> Any:
    log: list[Any] = []
    try:
        return ("returned", function(g, log), log)
    except Exception as error:  # noqa: BLE001 (the raised exception is the result compared)
        return ("raised", _described(error), log)


def _functions() -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    if sys.version_info >= (3, 11):
        exec(compile(SOURCE, "<except_star>", "exec"), namespace)
    return {k: v for k, v in namespace.items() if callable(v) and hasattr(v, "__code__")}


def check(name: str) -> None:
    # GIVEN a function with except*, decompiled on this Python
    original = _functions()[name]
    done = decompile_code(original.__code__, original)
    # THEN it is decompiled, checked against the bytecode, and written with except*
    assert done.complete, done.note
    assert done.verified, done.difference
    assert "except*" in done.source, done.source
    copy_namespace: dict[str, Any] = {}
    exec(compile(done.source, "<decompiled>", "exec"), copy_namespace)
    copy = copy_namespace[name]
    # AND the copy returns or raises what the original does, for every input
    for g in _inputs():
        assert _outcome(copy, g) == _outcome(original, g), done.source


NAMES = [
    "several",
    "one_unnamed",
    "named",
    "with_else",
    "with_finally",
    "clause_raises",
    "clause_reraises",
    "tuple_else_finally",
    "in_loop",
    "clause_branches",
    "body_returns",
    "else_returns",
    "raises_from",
    "try_in_clause",
]


@pytest.mark.parametrize("name", NAMES)
def test_except_star_round_trip(name: str) -> None:
    check(name)


def test_every_function_is_checked() -> None:
    assert sorted(NAMES) == sorted(_functions())
