"""`async def` decompiled: awaits, async for, async with, async generators and async
comprehensions come back as async source that runs to the same result and is verified against
the bytecode (decompiler/verify.py).

Why this test exists: the decompiler refused every async function (a stub raising
NotImplementedError). Each function below is decompiled on this Python, the source executed,
and the copy run with asyncio beside the original. (The four Pythons: the corpus,
tests/programs/decompile_corpus.py.)
"""

from __future__ import annotations

import asyncio
import types
from collections.abc import Callable
from typing import Any

import pytest

from compilescope.decompiler.api import decompile_code


async def _double(x):  # noqa: ANN001, ANN202
    await asyncio.sleep(0)
    return x * 2


async def _items(n):  # noqa: ANN001, ANN202
    for i in range(n):
        yield i


class _Context:
    def __init__(self) -> None:
        self.log: list[str] = []

    async def __aenter__(self):  # noqa: ANN204
        self.log.append("enter")
        return self.log

    async def __aexit__(self, kind, value, traceback):  # noqa: ANN001, ANN204
        self.log.append(f"exit {kind.__name__ if kind else None}")
        return kind is KeyError  # suppresses KeyError only


async def awaits_in_expressions(x):  # noqa: ANN001, ANN201
    a = await _double(x)
    return await _double(await _double(a) + 1) + 1, f"<{await _double(x)}>"


async def await_in_condition(x):  # noqa: ANN001, ANN201
    if await _double(x) > 4 and x:
        return "big"
    return "small"


async def async_for_break_else(n):  # noqa: ANN001, ANN201
    seen = []
    async for item in _items(n):
        if item == 3:
            break
        seen.append(item)
    else:
        seen.append("done")
    return seen


async def async_with_raising(kind):  # noqa: ANN001, ANN201
    context = _Context()
    try:
        async with context as log:
            log.append("body")
            if kind is not None:
                raise kind("boom")
    except ValueError:
        context.log.append("caught")
    return context.log


async def async_generator(n):  # noqa: ANN001, ANN201
    total = 0
    for i in range(n):
        got = yield await _double(i)
        if got is not None:
            total += got
    yield total


async def async_comprehensions(n):  # noqa: ANN001, ANN201
    listed = [x async for x in _items(n) if x % 2]
    doubled = {x: await _double(x) for x in range(n)}
    return listed, doubled


async def nested_closure(n):  # noqa: ANN001, ANN201
    async def inner(v):  # noqa: ANN001, ANN202
        return await _double(v) + n

    return [await inner(i) for i in range(n)]


async def try_around_async_for(n):  # noqa: ANN001, ANN201
    seen = []
    try:
        async for item in _items(n):
            seen.append(10 // (2 - item))
    except ZeroDivisionError:
        return "stopped", seen
    return "done", seen


async def async_generator_returns(n):  # noqa: ANN001, ANN201
    if n == 0:
        return
    async with _Context() as log:
        async for item in _items(n):
            if item > 1:
                return
            yield item, list(log)
        else:
            yield None


def class_with_async_methods(n):  # noqa: ANN001, ANN201
    class Box:
        async def get(self, k=n):
            return await _double(k)

        async def __aiter__(self):
            yield await self.get()

    return asyncio.run(Box().get()), asyncio.run(_run(Box().__aiter__()))


async def _run(value: Any) -> Any:
    """What a coroutine returns; an async generator's items, sent back each as asend's value."""
    if isinstance(value, types.AsyncGeneratorType):
        out = [await value.asend(None)]
        try:
            while True:
                out.append(await value.asend(out[-1]))
        except StopAsyncIteration:
            return out
    return await value


def _outcome(function: Callable[..., Any], *args: Any) -> Any:
    try:
        made = function(*args)
        return ("returned", asyncio.run(_run(made)) if isinstance(made, (types.CoroutineType, types.AsyncGeneratorType)) else made)
    except Exception as error:
        return ("raised", type(error).__name__, str(error))


CASES: list[tuple[Callable[..., Any], list[tuple[Any, ...]]]] = [
    (awaits_in_expressions, [(1,), (3,)]),
    (await_in_condition, [(0,), (1,), (3,)]),
    (async_for_break_else, [(2,), (5,)]),
    (async_with_raising, [(None,), (KeyError,), (ValueError,), (TypeError,)]),
    (async_generator, [(3,)]),
    (async_comprehensions, [(5,)]),
    (nested_closure, [(3,)]),
    (try_around_async_for, [(2,), (4,)]),
    (async_generator_returns, [(0,), (1,), (4,)]),
    (class_with_async_methods, [(3,)]),
]


@pytest.mark.parametrize(("function", "inputs"), CASES, ids=[c[0].__name__ for c in CASES])
def test_async_function_round_trips_verified(function: Callable[..., Any], inputs: list[tuple[Any, ...]]) -> None:
    # GIVEN an async function of this module
    # WHEN it is decompiled
    done = decompile_code(function.__code__, function)
    # THEN the source is verified against the bytecode, its async defs written so
    assert done.complete, done.note
    assert done.verified, (done.difference, done.source)
    assert "async def" in done.source, done.source
    # AND executed, it gives what the original gives on each input
    namespace = dict(globals())
    exec(compile(done.source, "<decompiled>", "exec"), namespace)
    copy = namespace[function.__name__]
    for args in inputs:
        assert _outcome(copy, *args) == _outcome(function, *args), args


def test_types_coroutine_is_still_refused() -> None:
    # GIVEN a generator that types.coroutine marked iterable-coroutine at run time (no source
    # makes that flag)
    @types.coroutine
    def legacy():  # noqa: ANN202
        yield 1

    # WHEN it is decompiled THEN it is refused, never printed as something else
    done = decompile_code(legacy.__code__, legacy)
    assert not done.complete
    assert "iterable coroutine" in (done.note or "")
