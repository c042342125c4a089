"""A corpus for the decompiler's round trip: plain functions, each with a few inputs.

    python decompile_corpus.py OUT.json

For every function in CASES: decompile it (compilescope.decompile), compile the output, run it and
the original on each input (each on a fresh copy of this module's globals, so that one's `global`
stores cannot feed the other), and compare what they return or raise; generators, coroutines and
async generators are run to the end. Writes per function: "pass", or what went wrong, and whether
the decompilation was verified against the bytecode (decompiler/verify.py). Stdlib only: run with
PYTHONPATH=src on any Python 3.10 to 3.13 (tests/test_decompile_corpus.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import functools
import json
import sys
import types
from collections.abc import Callable
from typing import Any

counter = 0
registry: dict[str, int] = {}
LIMIT = 10


# --- scopes -------------------------------------------------------------------------------------
def bump(x):
    global counter
    counter += x
    return counter


def reset_and_read(x):
    global counter
    counter = x
    return counter * 2


def forget_global(x):
    global LIMIT
    LIMIT = x
    del LIMIT
    return "LIMIT" in globals()


def reads_global(x):
    return x + LIMIT


def make_counter(start):
    count = start

    def step(by):
        nonlocal count
        count += by
        return count

    return [step(1), step(2), step(3)]


def nested_nonlocal(n):
    total = 0

    def outer():
        def inner(k):
            nonlocal total
            total += k

        for k in range(n):
            inner(k)

    outer()
    return total


def closure_reader(a):
    b = a * 2

    def read():
        return a + b

    return read()


def class_in_function(x):
    class Box:
        scale = 3

        def __init__(self, v):
            self.v = v

        def get(self):
            return self.v * self.scale

    return Box(x).get()


def shadowing(x):
    len = 5  # noqa: A001  (a local that shadows a builtin)
    return x + len


# --- comprehensions -----------------------------------------------------------------------------
def list_comp(xs):
    return [x * 2 for x in xs if x % 2]


def dict_and_set(xs):
    return {x: x * x for x in xs}, {x % 3 for x in xs}


def nested_comp(n):
    return [[i * j for j in range(i)] for i in range(n)]


def comp_two_fors(n):
    return [(i, j) for i in range(n) for j in range(i) if (i + j) % 2]


def walrus_comp(xs):
    return [y for x in xs if (y := x * 3) > 4]


def walrus_leaks(xs):
    found = [last := x for x in xs]
    return found, last


def generator_expression(xs):
    return sum(x * x for x in xs if x > 1)


def comp_uses_closure(xs, k):
    return [x + k for x in xs]


# --- exceptions and with ------------------------------------------------------------------------
def try_except(x):
    try:
        return 10 // x
    except ZeroDivisionError:
        return -1


def try_except_else_finally(x):
    log = []
    try:
        value = int(x)
    except (TypeError, ValueError) as error:
        log.append(type(error).__name__)
        value = None
    else:
        log.append("else")
    finally:
        log.append("finally")
    return value, log


def reraise(x):
    try:
        if x < 0:
            raise ValueError("negative")
        return x
    except ValueError:
        raise


def raise_from(x):
    try:
        return {"a": 1}[x]
    except KeyError as error:
        raise LookupError(f"no {x}") from error


def with_statement(x):
    out = []
    with contextlib.suppress(ZeroDivisionError):
        out.append(1 // x)
    return out


def nested_with(xs):
    with contextlib.nullcontext(xs) as a, contextlib.nullcontext(len(xs)) as b:
        return a[:b]


def with_tuple_target(xs):
    with contextlib.nullcontext(xs) as (a, *rest):
        if a:
            return rest
    with contextlib.nullcontext((a, xs)) as (b, (c, *_)):
        return b + c


def return_from_for_in_while(xs):
    while True:
        for x in xs:
            if x > 2:
                return x
        xs = [x + 1 for x in xs]


def return_from_fors_in_while(rows, n):
    while True:
        n -= 1
        for row in rows:
            for x in row:
                if x == n:
                    return row, x


def break_from_with_in_while(n, d):
    while n > 0:
        with contextlib.suppress(ZeroDivisionError):
            n -= 1
            if d // n > 5:
                raise ValueError(n)
            if n == 3:
                break


def break_from_with_in_while_true(items):
    while True:
        with contextlib.suppress(ValueError):
            int(items.pop())
            break
    return 1


def value_after_with(xs):
    with contextlib.suppress(IndexError):
        got = xs[0]
    return got


def values_after_with(xs):
    with contextlib.suppress(IndexError):
        first = xs[0]
        last = xs[-1]
    return first, last


def value_after_try_with(xs):
    try:
        with contextlib.suppress(IndexError):
            got = xs[0]
    except TypeError:
        got = -1
    return got


def value_after_try(text):
    try:
        got = int(text)
    except ValueError:
        got = 0
    return got


def gen_return_from_for_in_with(xs):
    with contextlib.nullcontext():
        for x in xs:
            yield x
            if x > 2:
                return
    yield 0


def gen_return_from_for_at_with_end(xs):
    with contextlib.nullcontext(xs) as items:
        for x in items:
            if x < 0:
                return
            yield x
        yield -1


def return_in_finally(x):
    try:
        return x
    finally:
        if x > 1:
            return -x  # noqa: B012


def break_in_finally(xs):
    total = 0
    for x in xs:
        try:
            total += x
        finally:
            if total > 5:
                break  # noqa: B012
    return total


def continue_in_finally(xs):
    total = 0
    for x in xs:
        try:
            if x < 0:
                raise ValueError
            total += x
        except ValueError:
            total -= 1
        finally:
            continue  # noqa: B012
    return total


def some_paths_return_in_finally(x):
    try:
        if x > 2:
            return 10 // (x - 3)
    except ZeroDivisionError:
        return "zero"
    finally:
        if x == 1:
            return "one"  # noqa: B012
    return "end"


def break_in_finally_over_return(xs):
    total = 0
    for x in xs:
        try:
            if x > 3:
                return x * 10
            total += 10 // x
        finally:
            if x < 0:
                break  # noqa: B012
    return total


def continue_in_finally_while(n):
    i = 0
    total = 0
    while i < n:
        i += 1
        try:
            total += 10 // (i - 2)
        finally:
            if i % 2:
                continue  # noqa: B012
            total -= i
    return i, total


def finally_each_time_round(n):
    log = []
    i = 0
    while True:
        try:
            i += 1
            if i > n:
                return i, log
            log.append(10 // (i - 2))
        finally:
            log.append("f")


def try_in_loop(xs):
    results = []
    for x in xs:
        try:
            results.append(10 / x)
        except ZeroDivisionError:
            continue
        finally:
            results.append("f")
    return results


# --- match (3.10+) ------------------------------------------------------------------------------
def match_literals(x):
    match x:
        case 0:
            return "zero"
        case 1 | 2:
            return "small"
        case str():
            return "text"
        case _:
            return "other"


def match_sequence(x):
    match x:
        case []:
            return "empty"
        case [a]:
            return f"one {a}"
        case [a, b, *rest]:
            return f"{a} {b} +{len(rest)}"
    return None


def match_mapping_guard(x):
    match x:
        case {"kind": "point", "x": px, "y": py} if px == py:
            return "diagonal"
        case {"kind": "point", **rest}:
            return sorted(rest)
        case _:
            return None


def match_class(x):
    match x:
        case int(n) if n > 10:
            return "big int"
        case float() | int():
            return "number"
        case (a, b) as pair:
            return pair[::-1]
    return "?"


# --- async and generators -----------------------------------------------------------------------
async def _double(x):
    return x * 2


async def awaits(x):
    a = await _double(x)
    b = await _double(a)
    return a + b


async def async_loop(xs):
    total = 0
    for x in xs:
        total += await _double(x)
    return total


async def async_gen(n):
    for i in range(n):
        yield await _double(i)


async def async_with_and_for(n):
    out = []
    async with _AsyncContext() as value:
        out.append(value)
    async for item in async_gen(n):
        out.append(item)
    return out


class _AsyncContext:
    async def __aenter__(self):
        return "entered"

    async def __aexit__(self, *exc_info):
        return False


async def async_comprehension(n):
    return [x async for x in async_gen(n) if x]


async def async_with_in_try(n):
    log = []
    try:
        async with _AsyncContext() as value:
            if n > 2:
                raise ValueError(value)
            log.append(value * n)
    except ValueError as error:
        log.append(str(error))
    log.append(n)
    return log


async def async_for_break_else(n):
    found = -1
    async for item in async_gen(n):
        if item > 4:
            found = item
            break
    else:
        found = 100
    return found


async def await_in_condition(x):
    if await _double(x) > 4:
        return "big"
    elif await _double(x) == 4:
        return "two"
    return "small"


async def async_gen_send(n):
    total = 0
    for i in range(n):
        got = yield i
        if got is not None:
            total += got
    yield total


async def await_in_call_args(x):
    label = f"value {await _double(x)}!"
    return max(await _double(x), await _double(x + 1), key=lambda v: -v), label


async def nested_async_closure(n):
    scale = 3

    async def inner(v):
        return await _double(v) * scale

    return [await inner(i) for i in range(n)]


async def async_comprehension_if(n):
    evens = {x: await _double(x) async for x in async_gen(n) if x % 4 == 0}
    return evens, [y for y in range(n) if y > 1]


async def await_nested_calls(x):
    return await _double(await _double(x) + 1) + 1


async def async_while(n):
    out = []
    while len(out) < n:
        out.append(await _double(len(out)))
    return out


async def async_gen_with_return(n):
    async with _AsyncContext() as value:
        for i in range(n):
            yield value, i
    async for item in async_gen(2):
        yield item


async def async_for_continue(n):
    kept = []
    async for item in async_gen(n):
        if item % 4:
            continue
        kept.append(item)
    return kept


async def try_around_async_for(n):
    seen = []
    try:
        async for item in async_gen(n):
            seen.append(10 // (2 - item))
    except ZeroDivisionError:
        return "stopped", seen
    return "done", seen


async def async_gen_early_return(n):
    if n == 0:
        return
    async for item in async_gen(n):
        if item > 1:
            return
        yield item
    else:
        async with _AsyncContext() as value:
            yield value


async def async_for_in_for(n):
    total = 0
    for i in range(n):
        async for item in async_gen(i):
            total += item
            if total > 20:
                return total
    return total


def gen_simple(n):
    for i in range(n):
        yield i * i


def gen_yield_from(n):
    yield from range(n)
    yield from gen_simple(n)
    return "done"


def gen_send(n):
    got = []
    value = yield "start"
    while value is not None and len(got) < n:
        got.append(value)
        value = yield len(got)
    return got


def gen_with_finally(n):
    try:
        for i in range(n):
            yield i
    finally:
        registry["closed"] = n


# --- decorators, arguments, lambdas -------------------------------------------------------------
def decorated_inner(x):
    def twice(f):
        @functools.wraps(f)
        def wrapper(*args):
            return f(f(*args))

        return wrapper

    @twice
    def add_one(v):
        return v + 1

    return add_one(x)


def class_decorators(x):
    class Thing:
        @staticmethod
        def s(v):
            return v + 1

        @classmethod
        def c(cls, v):
            return cls.__name__ + str(v)

        @property
        def p(self):
            return x

    return Thing.s(x), Thing.c(x), Thing().p


def defaults(a, b=2, c=(1, 2)):
    return a + b + len(c)


def star_args(*args, **kwargs):
    return args, sorted(kwargs.items())


def keyword_only(a, *, b, c=3):
    return a * b + c


def positional_only(a, b, /, c):
    return a - b + c


def all_kinds(a, /, b, *args, c, d=4, **kwargs):
    return a, b, args, c, d, sorted(kwargs)


def call_unpacking(xs, kw):
    return star_args(*xs, 9, **kw, extra=1)


def lambdas(xs):
    key = lambda x: -x  # noqa: E731
    adder = lambda a, b=1, *c, d=2, **e: a + b + d + len(c) + len(e)  # noqa: E731
    return sorted(xs, key=key), adder(1), adder(1, 2, 3, d=4, z=5)


def lambda_closure(n):
    fs = [lambda x, i=i: x + i for i in range(n)]
    return [f(10) for f in fs]


# --- expressions --------------------------------------------------------------------------------
def fstrings(x, width):
    return f"{x!r:>{width}}|{x:.2f}|{x!s}|{'{'}{x * 2}"


def chained_comparison(a, b, c):
    return a < b <= c, a == b != c, 0 < a < b < c < 100


def boolean_ops(a, b):
    return (a and b) or (not a and "neither"), a or b or None


def conditional_expression(x):
    return "pos" if x > 0 else "zero" if x == 0 else "neg"


def slicing(xs):
    return xs[1:], xs[:-1], xs[::2], xs[1:3], xs[-1]


def augmented(x):
    x += 1
    x *= 3
    x //= 2
    x **= 2
    x %= 1000
    x <<= 1
    return x


def unpacking(xs):
    a, *b, c = xs
    (d, e), f = (1, 2), 3
    return a, b, c, d + e + f


def subscripts_and_attributes(d):
    d["x"] = d.get("x", 0) + 1
    del d["x"]
    d.setdefault("y", []).append(1)
    return sorted(d.items())


def string_methods(s):
    return s.strip().upper().split(), " ".join(reversed(s)), s.count("a")


def dict_literals(k):
    base = {"a": 1, k: 2}
    return {**base, "b": 3}, [*base, *"xy"], (*range(2),)


def is_and_in(x, xs):
    return x is None, x is not None, x in xs, x not in xs, not x


def global_builtins(xs):
    return len(xs), max(xs, default=0), isinstance(xs, list), sorted(set(xs))


def asserts(x):
    assert x > 0, "must be positive"
    return x


# --- loops and branches -------------------------------------------------------------------------
def while_else(n):
    i = 0
    while i < n:
        if i == 7:
            break
        i += 1
    else:
        return "no break", i
    return "break", i


def for_else(xs):
    for x in xs:
        if x < 0:
            found = x
            break
    else:
        found = None
    return found


def nested_loops(n):
    pairs = []
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            if (i + j) % 2:
                continue
            pairs.append((i, j))
    return pairs


def while_true(n):
    steps = 0
    while True:
        steps += 1
        if steps >= n:
            return steps


def elif_chain(x):
    if x < 0:
        kind = "neg"
    elif x == 0:
        kind = "zero"
    elif x < 10:
        kind = "small"
    else:
        kind = "big"
    return kind


def early_returns(x):
    if not x:
        return None
    if isinstance(x, str):
        return x.upper()
    return x * 2


def delete_names(x):
    y = x + 1
    del y
    try:
        return y  # noqa: F821
    except UnboundLocalError:
        return "unbound"


def recursion(n):
    return 1 if n <= 1 else n * recursion(n - 1)


def imports_inside(x):
    import math
    from operator import add as plus

    return plus(math.floor(x), 1)


class _KW:
    """Keyword arguments for one input: CASES entries are argument tuples or _KW(args, kwargs)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args, self.kwargs = args, kwargs


# function name -> its inputs
CASES: dict[str, list[Any]] = {
    "bump": [(1,), (5,)],
    "reset_and_read": [(3,)],
    "forget_global": [(4,)],
    "reads_global": [(1,)],
    "make_counter": [(0,), (10,)],
    "nested_nonlocal": [(5,)],
    "closure_reader": [(3,)],
    "class_in_function": [(2,)],
    "shadowing": [(1,)],
    "list_comp": [([1, 2, 3, 4, 5],)],
    "dict_and_set": [([1, 2, 3, 4],)],
    "nested_comp": [(4,)],
    "comp_two_fors": [(5,)],
    "walrus_comp": [([1, 2, 3],)],
    "walrus_leaks": [([4, 5, 6],)],
    "generator_expression": [([1, 2, 3],)],
    "comp_uses_closure": [([1, 2], 10)],
    "try_except": [(2,), (0,)],
    "try_except_else_finally": [("12",), ("x",), (None,)],
    "reraise": [(1,), (-1,)],
    "raise_from": [("a",), ("b",)],
    "with_statement": [(1,), (0,)],
    "nested_with": [([1, 2, 3],)],
    "with_tuple_target": [([1, 2, 3],), ([0, 5],)],
    "break_from_with_in_while": [(5, 9), (1, 7), (2, 9), (8, 30)],
    "break_from_with_in_while_true": [(["x", "2"],), (["1", "x"],), ([],), (["x"],)],
    "value_after_with": [([5],), ([],)],
    "values_after_with": [([5, 6],), ([],)],
    "value_after_try_with": [([5],), ([],), (None,)],
    "value_after_try": [("4",), ("x",)],
    "gen_return_from_for_in_with": [([1, 5, 6],), ([1, 2],)],
    "gen_return_from_for_at_with_end": [([1, -1, 2],), ([1, 2],)],
    "return_from_for_in_while": [([1, 2, 3],), ([-1, 0],)],
    "return_from_fors_in_while": [([[1, 2], [3]], 5), ([[0], []], 9)],
    "return_in_finally": [(1,), (5,)],
    "break_in_finally": [([1, 2, 3, 4],), ([1],)],
    "continue_in_finally": [([1, -2, 3],)],
    "some_paths_return_in_finally": [(0,), (1,), (2,), (3,), (5,)],
    "continue_in_finally_while": [(0,), (1,), (3,), (6,)],
    "finally_each_time_round": [(0,), (1,), (4,)],
    "break_in_finally_over_return": [([1, 2, 5],), ([2, -1, 9],), ([0, 1],), ([1, 0, -2],), ([],)],
    "try_in_loop": [([1, 0, 2],)],
    "match_literals": [(0,), (2,), ("s",), (3.5,)],
    "match_sequence": [([],), ([1],), ([1, 2, 3, 4],), ("ab",), (5,)],
    "match_mapping_guard": [({"kind": "point", "x": 1, "y": 1},), ({"kind": "point", "x": 1, "y": 2},), ({},)],
    "match_class": [(11,), (3,), (2.5,), ((1, 2),), ("?",)],
    "awaits": [(3,)],
    "async_loop": [([1, 2, 3],)],
    "async_gen": [(4,)],
    "async_with_and_for": [(3,)],
    "async_comprehension": [(4,)],
    "async_with_in_try": [(1,), (3,)],
    "async_for_break_else": [(2,), (5,)],
    "await_in_condition": [(1,), (2,), (3,)],
    "async_gen_send": [(3,)],
    "await_in_call_args": [(2,)],
    "nested_async_closure": [(3,)],
    "async_comprehension_if": [(6,)],
    "await_nested_calls": [(1,)],
    "async_while": [(3,)],
    "async_gen_with_return": [(2,)],
    "async_for_in_for": [(3,), (8,)],
    "async_for_continue": [(5,)],
    "try_around_async_for": [(2,), (4,)],
    "async_gen_early_return": [(0,), (1,), (4,)],
    "gen_simple": [(4,)],
    "gen_yield_from": [(3,)],
    "gen_send": [(3,)],
    "gen_with_finally": [(3,)],
    "decorated_inner": [(1,)],
    "class_decorators": [(7,)],
    "defaults": [(1,), (1, 5, [1])],
    "star_args": [(1, 2), _KW(1, a=2, b=3)],
    "keyword_only": [_KW(2, b=3), _KW(2, b=3, c=0)],
    "positional_only": [(5, 2, 1)],
    "all_kinds": [_KW(1, 2, 3, c=5, z=1)],
    "call_unpacking": [([1, 2], {"k": 3})],
    "lambdas": [([3, 1, 2],)],
    "lambda_closure": [(3,)],
    "fstrings": [(3.14159, 8)],
    "chained_comparison": [(1, 2, 3), (2, 2, 3), (3, 2, 1)],
    "boolean_ops": [(0, 1), (1, 0), (2, 3), (0, 0)],
    "conditional_expression": [(1,), (0,), (-3,)],
    "slicing": [([1, 2, 3, 4, 5],)],
    "augmented": [(7,)],
    "unpacking": [([1, 2, 3, 4],)],
    "subscripts_and_attributes": [({"x": 1},)],
    "string_methods": [(" a banana ",)],
    "dict_literals": [("k",)],
    "is_and_in": [(None, [1]), (1, [1]), (0, [])],
    "global_builtins": [([3, 1, 3],), ([],)],
    "asserts": [(1,), (0,)],
    "while_else": [(3,), (10,)],
    "for_else": [([1, -2, 3],), ([1, 2],)],
    "nested_loops": [(4,)],
    "while_true": [(3,)],
    "elif_chain": [(-1,), (0,), (5,), (50,)],
    "early_returns": [(0,), ("ab",), (4,)],
    "delete_names": [(1,)],
    "recursion": [(5,)],
    "imports_inside": [(2.7,)],
}


def _finish(value: Any) -> Any:
    """A generator's, coroutine's or async generator's whole run; anything else as it is."""
    if isinstance(value, types.GeneratorType):
        out, sent = [], None
        try:
            out.append(next(value))
            while True:  # (gen_send: sends what it was given back, three times, then None)
                sent = out[-1] if len(out) < 4 else None
                out.append(value.send(sent))
        except StopIteration as stop:
            out.append(("returned", stop.value))
        return out
    if isinstance(value, types.CoroutineType):
        return asyncio.run(value)
    if isinstance(value, types.AsyncGeneratorType):

        async def collect() -> list[Any]:
            return [item async for item in value]

        return asyncio.run(collect())
    return value


def _outcome(function: Callable[..., Any], case: Any) -> Any:
    args, kwargs = copy.deepcopy((case.args, case.kwargs) if isinstance(case, _KW) else (case, {}))  # (it may change them)
    try:
        return ("returned", repr(_finish(function(*args, **kwargs))))
    except Exception as error:  # what it raises is part of what it does
        return ("raised", type(error).__name__, str(error))


def _fresh(function: Any, namespace: dict[str, Any]) -> Any:
    """The function over `namespace` as its globals."""
    fresh = types.FunctionType(function.__code__, namespace, function.__name__, function.__defaults__, function.__closure__)
    fresh.__kwdefaults__ = function.__kwdefaults__
    return fresh


def check(name: str) -> dict[str, Any]:
    import compilescope

    module = sys.modules[__name__]
    original = getattr(module, name)
    source = compilescope.decompile(original)
    result: dict[str, Any] = {"verified": getattr(source, "verified", None), "difference": getattr(source, "difference", None)}
    try:
        code = compile(source, f"<decompiled {name}>", "exec", dont_inherit=True)
    except SyntaxError as error:
        return {**result, "result": f"does not compile: {error}", "source": source}
    wrong = []
    for case in CASES[name]:
        theirs: dict[str, Any] = dict(vars(module))
        exec(code, theirs)
        decompiled = next(
            v for k, v in theirs.items() if isinstance(v, types.FunctionType) and v.__code__.co_filename.startswith("<decompiled")
        )
        expected = _outcome(_fresh(original, dict(vars(module))), case)
        got = _outcome(decompiled, case)
        if got != expected:
            wrong.append(
                f"on {case if not isinstance(case, _KW) else (case.args, case.kwargs)!r}: {got!r} where the original gives {expected!r}"
            )
    return {**result, "result": "pass" if not wrong else "differs: " + "; ".join(wrong), "source": source}


def main() -> None:
    report = {"python": f"{sys.version_info.major}.{sys.version_info.minor}", "functions": {name: check(name) for name in CASES}}
    with open(sys.argv[1], "w") as out:
        json.dump(report, out, indent=1)


if __name__ == "__main__":
    sys.modules.setdefault("decompile_corpus", sys.modules[__name__])
    main()
