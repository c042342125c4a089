"""Decompile straight-line functions, compile the source again, and call both: same results?

Run by tests/test_decompile.py with each Python 3.10-3.13 (stdlib only, PYTHONPATH=src).
Prints JSON: per function, "pass", "differs: ..." or "unsupported: ...", and the source."""

import copy
import enum
import functools
import inspect
import io
import json
import math
import os
import sys

from compilescope.decompiler.values import Unsupported
from decompile_generated import Point, Recorder
from compilescope.decompiler.building import function_source

SCALE = 3


class Box:
    def __init__(self):
        self.items = [1, 2, 3]
        self.size = 2


def arithmetic(a, b):
    return (a + b) * (a - b) / b - a // 3 % 5 + a ** 2 - -b + +a


def bitwise(a, b):
    return (a & b) | (a ^ b) << 2 >> 1, ~a


def comparisons(a, b):
    return a < b, a <= b, a == b, a != b, a is b, a is not None, a in [b], a not in (b,)


def calls(a, b):
    x = max(a, b)
    y = round(math.sqrt(abs(x)), 2)
    z = sorted([b, a], reverse=True)
    return x, y, z, divmod(a, 3), int("12", base=10)


def methods(items):
    items = list(items)
    items.append(4)
    items.extend([5, 6])
    text = " ".join(str(i) for i in items) if False else "-".join(map(str, items))
    return text.upper().split("-"), items.count(4)


def attributes(box):
    box.size = box.size + 1
    box.items[0] = box.size * SCALE
    return box.items, box.size


def augmented(a, b):
    a += b
    a *= 2
    b -= 1
    b **= 2
    a //= 3
    return a, b


def containers(a, b):
    t = (a, b)
    l = [a, b, 3]
    s = {a, b}
    d = {"a": a, "b": b}
    d2 = {a: b, b: a}
    return t, l, sorted(s), d, d2, [1, 2, 3], {4, 5}


def subscripts(seq):
    first = seq[0]
    last = seq[-1]
    middle = seq[1:-1]
    every = seq[::2]
    head = seq[:2]
    seq[1:2] = [9]
    return first, last, middle, every, head, seq


def unpacking(pair):
    a, b = pair
    c, (d, e) = a, (b, a)
    return a, b, c if False else c, d, e


def fstrings(name, value):
    return f"{name}={value!r} {value:>8.2f} {name!s:>{value:.0f}} end"


def keyword_only(a, *, scale, shift=0):
    return a * scale + shift


def variadic(*args, **kwargs):
    return len(args), sorted(kwargs), args[0]


def positional_only(a, b, /, c):
    return a - b - c


def sequential(a):
    b = a * 2
    c = b + 1
    return c


def nothing(a):
    a.append(1)


def swap(a, b):
    a, b = b, a
    return a, b


def branches(x):
    if x > 0:
        y = "positive"
    elif x < 0:
        y = "negative"
    else:
        y = "zero"
    return y


def early_return(items, limit):
    if not items:
        return None
    if len(items) > limit:
        return items[:limit]
    return items


def conditions(a, b, c):
    result = []
    if a and b:
        result.append("a and b")
    if a or b:
        result.append("a or b")
    if a and b and c:
        result.append("all")
    if not a or c:
        result.append("not a or c")
    if a is None:
        result.append("a is None")
    if b is not None and b > 1:
        result.append("b > 1")
    if a and (b or c):
        result.append("a and (b or c)")
    return result


def nested(a, b):
    if a:
        if b:
            return 1
        else:
            x = 2
    else:
        x = 3
        if b:
            x += 1
    return x


def raises(value):
    if value < 0:
        raise ValueError(f"negative: {value}")
    return value


def simple_loop(n):
    total = 0
    for i in range(n):
        total += i
    return total


def for_loops(items, limit):
    total = 0
    for item in items:
        if item is None:
            continue
        if item > limit:
            break
        total += item
    count = 0
    for i, item in enumerate(items):
        count += i
    else:
        count = -count
    for row in [items, items]:
        for cell in row:
            if cell == limit:
                return total, count, "found"
    return total, count


def for_else_break(items):
    for item in items:
        if item < 0:
            found = item
            break
    else:
        found = None
    return found


def value_across_blocks(a, b):
    return a or b


def while_loop(n):
    i = 0
    total = 0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        if total > 20:
            break
        total += i
    return total, i


def while_true(items):
    items = list(items)
    seen = []
    while True:
        x = items.pop()
        if x is None:
            break
        seen.append(x)
    return seen, items


def while_else(n, stop):
    found = None
    while n > 0:
        n -= 1
        if n == stop:
            found = n
            break
    else:
        found = -1
    return found, n


def while_condition(a):
    steps = 0
    while a > 0 and a % 7:
        a -= 2
        steps += 1
    return a, steps


def loops_nested(rows):
    out = []
    for row in rows:
        j = 0
        while j < len(row):
            if row[j] < 0:
                break
            out.append(row[j] * 2)
            j += 1
        else:
            out.append("done")
    return out


def generator(n):
    total = 0
    for i in range(n):
        sent = yield i * 2
        if sent:
            total += sent
            yield -sent
    return total


def delegating(n):
    got = yield from generator(n)  # what is sent goes to generator(); its return value comes back
    yield from [got, "end"]
    return got


def never_yields(n):
    if n > 100:
        return n
    return -n
    yield n


def asserts(a, b):
    assert a, "a is needed"
    assert b > a
    return b - a


def imports(x):
    import math
    import os.path
    import json as j
    import xml.dom as dom
    from collections import OrderedDict as OD, deque
    return math.floor(x), os.path.basename("/a/b"), j.dumps([x]), dom.__name__, OD(a=1), deque([x])


def comprehensions(y, z, scale=2):
    x = "outer"  # a comprehension's variable is its own: this x survives it
    a = [x * 2 for x in y if x > 1]
    b = {k: v * scale for k, v in z.items()}
    c = list(x + scale for x in y)
    d = [i * j for i in y for j in y if i != j]
    e = {x % 3 for x in y}
    odd_squares = [i * i for i in range(len(y)) if i % 2]  # depyf once wrote this as (i % 2).append(i * i)
    return a, b, c, d, sorted(e), odd_squares, x


def nested_functions(values, scale=2):
    key = lambda item, k=1: -item if item > k else item

    def inner(v, *, w=3):
        return v * scale + w

    @functools.lru_cache(maxsize=None)
    def cached(n):
        return n * scale

    counter = 0

    def bump(by=1):
        nonlocal counter
        counter += by
        return counter

    bump()
    bump(5)
    return sorted(values, key=key), inner(2), cached(3), counter, list(map(lambda v: v * scale, values))


def try_except(x):
    try:
        y = 10 / x
    except ZeroDivisionError as error:
        y = str(error)
    except (TypeError, ValueError):
        y = -1
    return y


def try_in_loop(items):
    total = 0
    for item in items:
        try:
            total += int(item)
        except ValueError:
            continue
        except Exception:
            break
        else:
            total += 1
    return total


def try_return(d, k):
    try:
        return d[k]
    except:
        return None


def try_nested(a, b):
    try:
        try:
            r = a / b
        except ZeroDivisionError:
            r = a["x"]
    except TypeError as e:
        r = type(e).__name__
    return r


def try_finally(x, log):
    try:
        y = 10 / x
    finally:
        log.append("done")
    return y, log


def try_finally_return(x, log):
    try:
        return 10 / x
    finally:
        log.append(("done", x))


def with_block(path_like):
    import io

    with io.StringIO(path_like) as handle:
        text = handle.read()
    return text


def after_except(x):
    try:
        return 1 / x
    except ZeroDivisionError:
        pass
    try:  # runs after the first handler has ended: no exception is being handled here
        raise ValueError("second")
    except ValueError as error:
        return repr(error.__context__)


def with_statements(items, suppress):
    log = []
    for i in items:
        with Recorder(log, suppress) as outer, Recorder(log):
            if i == 0:
                continue
            if i < 0:
                break
            log.append(10 / (i - 1))
        log.append(outer.suppress)
    return log


def finally_return(x, log):
    try:
        return 10 // x
    finally:
        log.append("cleanup")


def finally_in_loop(xs, log):
    for x in xs:
        try:
            if x < 0:
                continue
            if x > 10:
                break
            log.append(10 // x)
        finally:
            log.append("f")
    return log


def finally_branches(x, log):
    try:
        y = 10 // x
    finally:
        if x:
            log.append("cleanup")
        else:
            log.append("zero")
    return y


def finally_around_except(x, log):
    try:
        try:
            return 10 // x
        except ZeroDivisionError:
            return -1
    finally:
        log.append("finally")


def with_return_suppressed(x, suppress, log):
    with Recorder(log, suppress):
        if x:
            return 10 // x
        log.append(1 // x)
    return "after"


def with_two_return(suppress, log):
    with Recorder(log, suppress) as outer, Recorder(log):
        return outer.suppress


def with_loop_break(xs, suppress, log):
    for x in xs:
        with Recorder(log, suppress):
            with Recorder(log):
                if x > 2:
                    break
                log.append(10 // x)
                continue
    return log


def call_of_comprehension(items, b):
    b = b + sum([v * 2 for v in items if v > 1])
    return max([v for v in items] or [b]), b


def loop_return_value(items, a):
    for x in items:
        if x % 2 == 0:
            return a or x
    n = 0
    while n < 3:
        n += 1
        for y in items:
            if not y:
                raise ValueError(a if n else 3)
        if a > 5:
            break
    return n


def try_in_except(a, b, log):
    try:
        a = 10 // a
    except ZeroDivisionError:
        try:
            log.append(10 // b)
        except ZeroDivisionError:
            log.append("zero")
        a = a + -1
    return a, log


def except_return_finally(a, b, log):
    try:
        log.append(10 // a)
    except ZeroDivisionError:
        return b
    finally:
        log.append("f")
    return log


def return_or_in_branch(a, items, log):
    if a:
        log.append(1)
    else:
        if a % 2 == 0:
            return a or 3
    log.append(sum([v * 2 for v in items if v > 2]))
    return log


def loop_in_except(a, log):
    try:
        a = 1 // a
    except ZeroDivisionError:
        n = 0
        while n < 3:
            n += 1
            log.append(n)
    return log


def with_in_while(n, suppress, log):
    while n < 3:
        n += 1
        with Recorder(log, suppress):
            log.append(10 // (n - 2))
    return log


def annotated_inner(x, kind=int):
    def inner(a: kind, b: "str" = "q", *rest: x, scale: float = 1.0, **extra: dict) -> list:
        return [a, b, *rest, scale, extra]

    return inner(x, "b", 1), sorted(inner.__annotations__.items(), key=repr)


def nested_unpacking(pairs):
    out = []
    for i, (x, (y, z)) in enumerate(pairs):
        out.append(i * x + y - z)
    (a, (b, c)), d = (1, (2, 3)), 4
    return out, a, b, c, d


def conditional_elements(lines, pairs):
    padded = [line + "!" if line.strip() else "" for line in lines if line is not None]
    signs = {"+" if v > 0 else "-" for v in pairs.values()}
    total = sum(n * d if d else n for d, n in pairs.items())
    return padded, sorted(signs), total, list(k if v else None for k, v in pairs.items())


def call_after_with(log, suppress, f):
    with Recorder(log, suppress):
        log.append(1 // len(log[1:]))
    return f(log)


def finally_sets_result(a, log):
    # the return after the finally reads what the finally set; the one inside the try does not
    try:
        x = 1
        if a:
            return x
    finally:
        x = 2
        log.append(x)
    return x


def return_in_try_in_except(a, b, log):
    try:
        log.append(len(log) // a)
    except ZeroDivisionError:
        try:
            if b == a:
                return len(log) + a
        finally:
            log.append("finally")


def long_except_clause(a, log):
    # a clause long enough that the jump to the next one needs EXTENDED_ARG
    try:
        log.append(10 // a)
    except ZeroDivisionError:
        log.append(len(log) + 0)
        log.append(len(log) + 1)
        log.append(len(log) + 2)
        log.append(len(log) + 3)
        log.append(len(log) + 4)
        log.append(len(log) + 5)
        log.append(len(log) + 6)
        log.append(len(log) + 7)
        log.append(len(log) + 8)
        log.append(len(log) + 9)
        log.append(len(log) + 10)
        log.append(len(log) + 11)
        log.append(len(log) + 12)
        log.append(len(log) + 13)
        log.append(len(log) + 14)
        log.append(len(log) + 15)
        log.append(len(log) + 16)
        log.append(len(log) + 17)
        log.append(len(log) + 18)
        log.append(len(log) + 19)
    except (IndexError, ValueError) as error:
        log.append(type(error).__name__)
    return a


def try_in_named_clause(a, log):
    # the inner try's end and its clause's end each get a copy of the outer clause's end
    try:
        log.append(a[0])
    except (IndexError, TypeError) as error:
        try:
            log.append(10 // len(log))
        except ZeroDivisionError:
            log.append(type(error).__name__)


def raise_or_in_loop(items, a, log):
    for x in items:
        if x is not None and x != 5:
            log.append(x)
            continue
        raise ValueError(a or 2)
    return log


def loop_never_repeats(items, a):
    for x in items:  # no way back to the next item
        if x:
            return x or a
        raise ValueError(a or x)
    return None


def with_return_in_named_clause(a, suppress, log):
    try:
        log.append(10 // a)
    except ZeroDivisionError as error:
        with Recorder(log, suppress) as manager:
            if log:
                return len(log), manager.suppress
            log.append(type(error).__name__)
    return a


def loop_return_in_finally(items, log):
    try:
        for x in items:
            if x > 1:
                return x
    finally:
        log.append(len(items))
    return -1


def loop_return_in_clause(items, a, log):
    try:
        log.append(10 // a)
    except ZeroDivisionError:
        for x in items:
            if x:
                return x
    return None


def while_else_raise(n, a, log):
    i = 0
    while i < n:
        i += 1
        if i > 2:
            log.append(i)
            break
    else:
        if a:
            raise ValueError(a or n)
    log.append("after")
    return i


def while_then_test_in_clause(a, n, log):
    try:
        log.append(10 // a)
    except ZeroDivisionError:
        i = 0
        while i < n:
            i += 1
        if n:
            pass
    return a


def try_in_finally(a, log):
    # the finally's copies (one per way out of the try) each have their own handler
    try:
        if a:
            return len(log)
        log.append(a)
    finally:
        try:
            log.append(10 // a)
        except ZeroDivisionError:
            log.append("zero")
    return -1


def finally_after_inner_try(a, b, items, log):
    # `return log` after the finally reads the log the finally set: not the try's own return
    if b > 3:
        try:
            try:
                if b > 4:
                    return 10 // a
            except ZeroDivisionError:
                log.append("zero")
        finally:
            log = [items[0]]
    return log


def clause_past_finally(a, b, log):
    # the except clause goes on past the enclosing finally: that code is not the clause's
    try:
        try:
            try:
                log.append(10 // (b - 3))
            except ZeroDivisionError:
                if b > 1 and b < 4:
                    return a or 3
            else:
                if a:
                    return a
        finally:
            log.append("finally")
    except ZeroDivisionError:
        pass
    log.append("after")


def else_return_past_finally(a, b, log):
    try:
        try:
            log.append(10 // (b - 3))
        except ZeroDivisionError:
            pass
        else:
            return a
        finally:
            log.append("finally")
    except ZeroDivisionError:
        pass
    log.append("after")


def continue_inside_then_with(items, a, log):
    # one side of the first `if` goes round again only later: both sides meet at the with
    for x in items:
        if x:
            log.append(x)
            if x > a:
                continue
        with Recorder(log, x < 0 or a):
            log.append(10 // x)
    return log


def finally_in_finally(a, log):
    try:
        if a:
            return 10 // a
    finally:
        try:
            log.append(len(log))
        finally:
            log.append("inner")
            a = 5
    return a


def return_from_finally_loop(items, a, log):
    for x in items:
        try:
            if x > a:
                return x
        finally:
            log.append(x)
            a = a + 1
        log.append(a)
    return a


def with_in_clause_in_finally(a, suppress, log):
    # 3.13 ends the clause in two copies that jump back to the return in two ways
    try:
        try:
            log.append(10 // a)
        except ZeroDivisionError:
            with Recorder(log, suppress):
                log.append(a[0])
    finally:
        a = 7
    return a


def first_item(items, log):
    # a loop that always breaks: its body never goes round
    for x in items:
        if x:
            log.append(x)
        break
    else:
        log.append("empty")
        return None
    return x


def while_one_continue(items, log):
    # `while 1:` keeps a NOP for its line: `continue` jumps to the NOP, the end of the body
    # past it (read as two loops, one inside the other)
    while 1:
        if not items:
            break
        elif items[-1] > 2:
            items.pop()
            continue
        log.append(items.pop())
    return log


def while_true_try(items, log):
    # the `try:` NOP starts the loop, outside the try's range: it stays the loop's start
    while True:
        try:
            value = items.pop()
        except IndexError as error:
            raise KeyError(str(error)) from None
        if value is None:
            return log
        log.append(value)


def spin_unless(a):
    # `while True: pass` is one block that jumps to itself (called only where it is not run)
    if not a:
        while True:
            pass
    return a


def walrus_in_generator(data, c):
    # `(d := e)` in a generator expression binds d in this function (a cell the generator sets)
    return sum((d := x - c) * d for x in data), [y for v in data if (y := v * 2) > 3]


def walrus_in_tests(items, log):
    while (x := len(items)) > 1:
        log.append(items.pop())
    if n := len(log):
        log.append(n)
    z = log[0:0] = [x]
    return x, n, z


def dotted_imports():
    # `import a.b.c as d` takes b from a.b.c, then c from that
    import xml.dom.minidom as m
    import os.path as p
    import xml.etree.ElementTree
    return m.__name__, p.__name__, xml.etree.ElementTree.__name__


def nested_except_in_finally(a, log):
    # 3.13: the inner clause's end is outside the outer handler's range, then jumps on
    try:
        try:
            log.append(10 // a)
        except ZeroDivisionError:
            log.append("inner")
    except ZeroDivisionError:
        pass
    finally:
        a = 7 - a
    return a


def empty_try_in_finally(a, log):
    # 3.12+: `try: pass` is NOPs outside every range, between the try's other blocks
    try:
        try:
            log.append(10 // a)
        except ZeroDivisionError:
            pass
        try:
            pass
        except ZeroDivisionError:
            pass
        else:
            log.append("else")
    finally:
        a = 7 - a
    return a


def empty_if_in_try_in_finally(a, log):
    # 3.13: the if's empty side is a NOP block, the other a jump: two ways out to one place
    try:
        if a:
            try:
                pass
            except ZeroDivisionError:
                pass
        log.append(10 // a)
    except ZeroDivisionError:
        log.append("caught")
    finally:
        a = 7 - a
    return a


def break_falls_in_clause(a, items, log):
    # 3.12+: the break pops the iterator and falls into the clause's end
    try:
        log.append(10 // a)
    except ZeroDivisionError:
        for x in items:
            if x:
                break
    return a


def break_in_clause_in_finally(a, items, log):
    # 3.13 copies the clause's end onto the break and the loop's end, jumping back to the
    # finally's copy in two kinds of jump: one place (else the loop's end read as `return a`
    # before the finally)
    try:
        log.append(10 // a)
    except (IndexError, ZeroDivisionError) as error:
        log.append(type(error).__name__)
        for x in items:
            if x:
                continue
            break
    finally:
        a = 7 - a
    return a


def finally_rebinds_returned(a, log):
    # 3.10 shares one return between the two; the way past both is `return log` after the
    # finally, which rebinds log (read inside the try, it returned the old list)
    try:
        try:
            if a > 1:
                return a
            if a:
                return a
        finally:
            log = [a]
    except ZeroDivisionError:
        pass
    return log


def while_return_in_try_finally(a, log):
    # both ways out of the loop return: the one past the finally (which rebinds a) is the
    # code after the loop, not a return inside it (3.10 read it so and returned the old a)
    try:
        n = 0
        while n < 3:
            n += 1
            if a > 5:
                return a if log is not None else 0
    finally:
        a = 7 - a
    return a


def finally_in_with_rebinds(a, log):
    # 3.12+ copies `return log` after the with's __exit__ call on the body's way out: it reads
    # log after the finally (which rebinds it), not inside the try
    with Recorder(log, a):
        try:
            log.append(10 // a)
        finally:
            log = [a]
    return log


def except_finally_in_with(a, log):
    # the same past an except clause: the return after the with reads a after the finally
    with Recorder(log, a > 1):
        try:
            log.append(10 // a)
        except ZeroDivisionError:
            log.append("zero")
        finally:
            a = 7 - a
    return a


def chained_comparisons(a, b, items, log):
    # each link keeps its right operand for the next comparison, in a block of its own
    if 0 <= a < 10 and b:
        log.append("in range")
    if not (a < b <= 5) or a is b is None:
        log.append("not")
    while 0 < a < len(items) > 1:
        a -= 1
    log.append([x for x in items if 1 < x in items])
    value = a < b in items if b else 0 <= a == b
    assert -100 < a < 100, a
    return value, 0 < len(log) < 3, a < b < items.count(a) < 5


def tuple_and_chained_assignments(p, i, log):
    # 3.11+ stores `a, b = f(), g()` straight off the stack, last first; `x = self.y = v`
    # copies v for each target
    head, tail = p[:i], p[i:]
    a, b, c = len(p), i + 1, log.pop()
    box = Box()
    box.first = first = {}
    first[a] = box.second = [b, c]
    box.size += 1
    return head, tail, box.first, box.second, box.size


def local_classes(a, log):
    # class bodies: their own code, run once; annotations, methods, super() (a __class__
    # cell the body returns), a decorator, a metaclass keyword, a name of this function
    class Point(Box):
        """A point."""

        scale: int = 2
        label: str

        def norm(self, v):
            return abs(v) * self.scale

        def __repr__(self):
            return f"Point({self.scale})"

    @functools.total_ordering
    class Child(Point, metaclass=type):
        offset = a

        def norm(self, v):
            return super().norm(v) + a

        def __lt__(self, other):
            return self.offset < other.offset

    class Empty:
        pass

    child = Child()
    log.append(sorted(Point.__annotations__))
    return child.norm(-3), repr(child), Child.__qualname__, Point.__doc__, Empty.__name__, child < Child()


def loops_in_with(a, items, log):
    # a return or break out of a for loop inside a with: the iterator is dropped first, then
    # __exit__ runs (3.10 copies the with's end onto the break)
    with Recorder(log, False):
        for x in items:
            log.append(x)
            if x == a:
                break
    with Recorder(log, False):
        for x in items:
            if x > a:
                return x
    with Recorder(log, False):
        for x in items:
            log.append(-x)
            break
    with Recorder(log, False):
        for x in items:
            return x * 10
    return log


def while_return_in_clause_in_finally(a, log):
    # the return's value goes below the clause's exception state (SWAP), the clause ends
    # (POP_EXCEPT), the finally's copy is taken out, then the return: one way out
    try:
        log.append(10 // a)
    except ZeroDivisionError:
        n = 0
        while n < 3:
            n += 1
            if log:
                return a
    finally:
        a = 7 - a
    return a


def with_if_in_finally(a, b, log):
    # 3.10 copies the with's end (__exit__) onto each side of the if that ends its body
    try:
        log.append(10 // a)
    finally:
        with Recorder(log, b):
            if a:
                log.append(1)
    return log


def while_in_finally(a, log):
    # a while loop in a finally: the exception state stays below the loop, and is there where
    # the loop's test sends control past it
    try:
        log.append(10 // a)
    finally:
        if a:
            n = 0
            while n < a:
                n += 1
            log.append(n)
    return log


def while_true_left_by_return(a, items, log):
    # every way out of the loop returns or raises: 3.12+ copies `return log` onto the break
    while True:
        try:
            log.append(items.pop())
        except IndexError as error:
            log.append(str(error))
        if len(log) > 2:
            break
        elif a:
            raise ValueError("x")
    return log


def raise_caught_in_branch(a, b, items, log):
    # one side of the if raises inside a try whose clause goes on: the sides meet after it
    if a:
        log.append(a)
    else:
        try:
            raise ValueError(b)
        except ValueError:
            log.append("caught")
    try:
        a = sum([v * 2 for v in items if v > 1])
    except TypeError:
        pass
    return a


def code_after_try_copied(a, log):
    # 3.12+ copies the short code after the try (`n = 0`, the return) onto each way out of
    # its body
    try:
        if a:
            log.append(a)
        else:
            log.append(10 // a)
    except ZeroDivisionError:
        log.append("zero")
    n = 0
    return n


def loop_else_break_and_raise(items, log):
    # a while loop left by a raise that two tests reach (an if before it) and by the last
    # test's else, which breaks (shlex.read_token's shape)
    while True:
        c = items.pop() if items else ""
        if c == "q":
            if log:
                if len(log) > 2:
                    log.append("long")
                raise ValueError(c)
        elif c:
            log.append(c)
        else:
            if log:
                log.append("end")
            break
    return log


def loop_break_and_raise_after_if(items, log):
    # a break jump out of a while loop, and a raise reached from two tests
    while True:
        c = items.pop() if items else ""
        if c == "x":
            log.append("x")
        if c == "!":
            if log:
                log.append("bang")
            raise ValueError(c)
        if not c:
            break
    result = len(log)
    return result


def loop_breaks_past_return(chunks, width, log):
    # a while loop that returns where it starts, and two breaks to the code after it (which
    # returns too): that code is written once, after the loop (textwrap._wrap_chunks' shape)
    lines = []
    while True:
        if not chunks:
            return lines
        cur = chunks.pop()
        if len(cur) > width:
            if log:
                break
            if width > 1:
                break
        lines.append(cur)
    while lines:
        log.append(lines.pop())
    return log


def nested_comprehension_in_try(rows, sep):
    # 3.12+ inlines both comprehensions: the inner one's cleanup handler is inside the outer's
    try:
        split = [[c for c in row.split(sep) if c] for row in rows]
        return split
    except (TypeError, AttributeError):
        return None


def unpack_discarded(rows):
    # 3.13 drops the stores the next one overwrites: `_, _` unpacks into POP_TOP, then `_`
    tags = [tag for tag, _, _, _ in rows if tag]
    out = []
    for a, _, _, b in rows:
        out.append((a, b))
    x, _, _, _ = rows[0]
    return tags, out, x, _


def retry_in_clause(first, second):
    # the code after the try (3.10+ copies it onto the end of the except clause) returns a
    # call; the inner clause's return leaves both clauses
    try:
        value = first()
    except OSError:
        try:
            value = second()
        except OSError:
            return -1
    return str(value)


def star_unpacking(rows, box):
    # UNPACK_EX: the starred name takes the rest, in assignments, loops, comprehensions and
    # nested targets
    first, *rest = rows
    *init, last = rows
    out = [(h, t) for h, *t in rows]
    for head, *_ in rows:
        box.first, *box.rest = head, len(rest)
    (p, *q), r = rows[0], last
    return first, rest, init, last, out, p, q, r


def else_returns_clauses_go_on(names, box, log):
    # an `else:` that returns, in an if and in a loop, where the except clauses go on
    # (ast.NodeVisitor.visit_Constant's shape)
    if names is not None:
        try:
            found = getattr(box, names[0])
        except AttributeError:
            pass
        except IndexError:
            log.append("none")
        else:
            return found
    for name in names or ():
        try:
            found = getattr(box, name)
        except AttributeError as error:
            log.append(str(error)[:10])
        except TypeError:
            continue
        else:
            return found
        log.append(name)
    return log


def clause_continues_or_breaks(items, table, log):
    # one except clause goes on into the code after the try, the others continue or break:
    # that code is not theirs (they were once written `pass`, falling into it)
    for item in items:
        try:
            value = 10 // table[item]
        except ZeroDivisionError:
            continue
        except TypeError:
            break
        except KeyError:
            log.append(item)
        else:
            return value
        log.append(-1)
    return log


def else_then_copied_return(box, log):
    # an `else:` whose if returns, and a clause that ends in 3.12+'s copy of the return after
    # the try (warnings._formatwarnmsg's shape)
    try:
        value = box.size
    except AttributeError:
        pass
    else:
        if value is not None:
            return len(log) + value
    return str(log)


def reraise_after_inner_try(divisor, log):
    # a bare raise after a try inside an except clause: 3.12+ copies it onto the inner
    # clause's end (subprocess.Popen.wait's shape)
    try:
        return 10 // divisor
    except ZeroDivisionError:
        try:
            log.append(log[0])
        except IndexError:
            pass
        raise


def threaded_and_or(a, b, c, log):
    # 3.10 threads the jumps of `(a and b) or c`: c reads as reached from two places
    x = len(log) or (a and b) or c
    y = (a or b) and (c or a) and (log or None)
    return x, y


def expand_user(path, environ):
    # posixpath.expanduser, with its environment passed in: clauses that return `path`, and
    # the same return later on (not a copy of it)
    path = os.fspath(path)
    if isinstance(path, bytes):
        tilde = b'~'
    else:
        tilde = '~'
    if not path.startswith(tilde):
        return path
    i = path.find('/', 1)
    if i < 0:
        i = len(path)
    if i == 1:
        if 'HOME' not in environ:
            try:
                import pwd
            except ImportError:
                return path
            try:
                userhome = pwd.getpwuid(os.getuid()).pw_dir
            except KeyError:
                return path
        else:
            userhome = environ['HOME']
    else:
        try:
            import pwd
        except ImportError:
            return path
        name = path[1:i]
        try:
            pwent = pwd.getpwnam(name)
        except KeyError:
            return path
        userhome = pwent.pw_dir
    if userhome is None and sys.platform == "vxworks":
        return path
    root = '/'
    userhome = userhome.rstrip(root)
    return (userhome + path[i:]) or root


def c3_merge(sequences):
    # functools._c3_merge: an inner for loop whose break skips its else (a break of the outer
    # loop) jumps straight to the start of the outer loop
    sequences = [list(s) for s in sequences]
    result = []
    while True:
        sequences = [s for s in sequences if s]
        if not sequences:
            return result
        for s1 in sequences:
            candidate = s1[0]
            for s2 in sequences:
                if candidate in s2[1:]:
                    candidate = None
                    break
            else:
                break
        if candidate is None:
            raise RuntimeError("Inconsistent hierarchy")
        result.append(candidate)
        for seq in sequences:
            if seq[0] == candidate:
                del seq[0]


def dispatch_match(mro, registry, own):
    # functools._find_impl: an if inside a for loop whose one side raises or breaks, in blocks
    # of their own (it never goes round again): the loop's way out is the break under it
    match = None
    for t in mro:
        if match is not None:
            if (t in registry and t not in own
                    and match not in own
                    and not t.startswith(match)):
                raise RuntimeError("Ambiguous dispatch: {} or {}".format(match, t))
            break
        if t in registry:
            match = t
    return registry.get(match)


def data_type_of(chains, log):
    # enum's _find_data_type: `candidate or base`, then a break, under an if in a for loop
    # (3.10, 3.11 keep the value on the stack across the jump)
    data_types = []
    for chain in chains:
        candidate = None
        for base in chain:
            log.append(base)
            if base == "object":
                continue
            elif base.startswith("enum"):
                if base != "enum":
                    data_types.append(base[4:])
                    break
            elif base.startswith("new"):
                if base.endswith("!"):
                    continue
                data_types.append(candidate or base)
                break
            else:
                candidate = candidate or base
    if len(data_types) > 1:
        raise TypeError("too many: %r" % data_types)
    elif data_types:
        return data_types.pop()
    else:
        return None


def positional_args(params, arguments):
    # inspect.BoundArguments.args: a clause that breaks beside an else that goes round (3.12+
    # copies the return after the loop onto the break, after the clause's end)
    args = []
    for name, kind in params:
        if kind in ("kw", "varkw"):
            break
        try:
            arg = arguments[name]
        except KeyError:
            break
        else:
            if kind == "var":
                args.extend(arg)
            else:
                args.append(arg)
    return tuple(args)


def members(obj, names, mro, predicate):
    # inspect._getmembers: an except clause holding a for loop whose else continues the outer
    # loop, while its break goes on after the try, where the body goes on too
    results = []
    processed = set()
    for key in names:
        try:
            value = obj[key]
            if key in processed:
                raise KeyError
        except KeyError:
            for base in mro:
                if key in base:
                    value = base[key]
                    break
            else:
                continue
        if not predicate or predicate(value):
            results.append((key, value))
        processed.add(key)
    return results


def bind_arguments(args, params, kwargs, partial):
    # inspect.Signature._bind: a while loop left by breaks in except clauses (one in a try
    # inside a clause), which never go round again, and by one in a try's else
    arguments = {}
    parameters_ex = ()
    arg_vals = iter(args)
    parameters = iter(params)
    while True:
        try:
            arg_val = next(arg_vals)
        except StopIteration:
            try:
                param = next(parameters)
            except StopIteration:
                break
            else:
                if param == "*":
                    break
                elif param in kwargs:
                    parameters_ex = (param,)
                    break
                else:
                    if partial:
                        parameters_ex = (param,)
                        break
                    else:
                        raise TypeError("missing " + param) from None
        else:
            try:
                param = next(parameters)
            except StopIteration:
                raise TypeError("too many") from None
            else:
                if param == "*":
                    arguments[param] = (arg_val, *arg_vals)
                    break
                arguments[param] = arg_val
    for name in kwargs:
        if name in arguments:
            raise TypeError("twice " + name)
        arguments[name] = kwargs[name]
    return arguments, parameters_ex


def conditional_tests(fields, options, c, a, b, log):
    # a conditional expression as a test: a comprehension's filter (dataclasses._hash_add), an
    # if, a while (3.10, 3.12+ test it again at the loop's end), a dict comprehension's value
    # (3.12+ keeps the key on the stack across it: inspect.get_annotations)
    picked = [f for f in fields if (f[0] if f[1] is None else f[1])]
    values = {key: value if not isinstance(value, str) else value.upper() for key, value in options.items()}
    if (a if c else b):
        log.append("if")
    while (a if c else b):
        log.append(a)
        a -= 1
        b -= 1
    for f in fields:
        if (f[0] if c else not f[0]):
            log.append(f)
    return picked, values, a, b


def and_or_idiom(conv, m, a, b, c):
    # `m and a or b` (3.10, 3.11: m's test jumps straight to b, past the `or`, with what is
    # below kept for both): as a value, an index (locale._group) and an argument
    x = m and a or b
    y = conv[m and "a" or "b"]
    z = str(m and a or b and c)
    return x, y, z


def element_or(members):
    # a comprehension whose element keeps values across an `or` (enum.Flag.__repr__); 3.12+
    # runs it inline, in the function's own temporaries
    return "|".join([str(m[0] or m[1]) for m in members]), {k: (v or k) for k, v in members}


def merged_keywords(args, kwargs, c):
    # keywords merged from a value chosen across blocks (weakref.finalize.__call__): the empty
    # dict the call builds waits on the stack, and each way adds to its own
    a = record_call(*args, **(kwargs or {}))
    b = record_call(1, **(kwargs if c else {}))
    box = Box()
    box.kwargs = kwargs
    d = record_call(*box.items, **(box.kwargs or {}))
    return a, b, d


def or_of_and(order, known, names, log):
    # `a or (b and c)`: the `and` is one condition before the `or` takes it (enum's _order_
    # filter); 3.12+ gives each of a comprehension's `continue`s a jump of its own
    kept = [o for o in order if (o not in known or (o in known and o in names))]
    for o in order:
        if o not in known or (o in known and o in names):
            log.append(o)
    return kept


def clause_loop_breaks(fn, errs, log):
    # shutil.copystat: a for loop in an except clause whose break goes to the clause's end (the
    # loop's else re-raises): past it only a return, yet the clause has to end first
    try:
        fn()
    except OSError as why:
        for err in errs:
            if why.errno == err:
                break
        else:
            raise
    log.append(1)
    return log


def finally_leaves(a, items, log):
    # a return inside a finally, and a break out of one: the handler drops the exception it
    # was running for first (it is swallowed), the copies have none to drop; 3.13 reads the
    # names restored in one instruction on one way out, in two on the other
    box = Box()
    hold = box.size
    try:
        box.size = a
        log.append(10 // a)
    finally:
        box.size = hold
    for x in items:
        try:
            log.append(10 // x)
        finally:
            if x == 5:
                break
    try:
        log.append(items[a])
    finally:
        if a > 1:
            return log, box.size
        log.append("end")
    return log


def sparse_structs(chunks):
    # tarfile.TarInfo._proc_sparse: a for loop (no else) in a while loop, left by a break in an
    # except clause: the clause never goes round, and where the loop ends is the while's code
    structs = []
    isext = True
    k = 0
    while isext:
        buf = chunks[k]
        k += 1
        pos = 0
        for i in range(3):
            try:
                offset = int(buf[pos])
            except ValueError:
                break
            if offset:
                structs.append(offset)
            pos += 1
        isext = bool(buf[-1] == "x")
    return structs


def zip_magic(filename):
    # zipfile.is_zipfile: a with inside a try whose clause goes on (3.10 copies `return result`
    # after the with's __exit__, past the try's POP_BLOCK, and where it suppresses)
    result = False
    try:
        if hasattr(filename, "read"):
            result = filename.read(2) == "PK"
        else:
            with io.StringIO(filename) as fp:
                result = fp.read(2) == "PK"
    except OSError:
        pass
    return result


def cached_enabled(cache, level, limit, log):
    # logging.Logger.isEnabledFor: a try/finally in an except clause, then a return (3.10
    # writes the finally and the return once per way out of the if)
    try:
        return cache[level]
    except KeyError:
        log.append("acquire")
        try:
            if limit >= level:
                is_enabled = cache[level] = False
            else:
                is_enabled = cache[level] = level >= 3
        finally:
            log.append("release")
        return is_enabled


def clause_passes(a, b, follow, log):
    # shutil.copy2: an except clause whose `pass`es (3.12+: a jump each) go on to its end, past
    # a condition joined through them
    if a is not None:
        try:
            log.append(a // b)
            return b
        except ZeroDivisionError as exc:
            if (exc.args[0].startswith("integer")
                    and not follow):
                pass
            elif len(exc.args) == 1:
                pass
            else:
                raise
    log.append("copy")
    return b


def os_error():
    raise OSError("none here")


def record_call(*args, **kwargs):
    return args, sorted(kwargs.items())


# ---- match statements (3.10+; Point: decompile_generated.py's) ----------------------------------
class Color(enum.Enum):
    RED = 1
    GREEN = 2


class Stream:
    """An iterator with a repr that is the same in every run."""

    def __next__(self):
        raise StopIteration

    def __iter__(self):
        return self

    def __repr__(self):
        return "Stream()"


def match_shapes(value):
    # class patterns (positional through __match_args__, keywords), sequences with and
    # without a star, mappings with a rest and a dotted key, or-patterns with and without
    # names (nested too), as-patterns, guards, singletons, literals and a default
    match value:
        case Point(0, 0):
            return "origin"
        case Point(x=0, y=y) if y > 0:
            return f"up {y}"
        case Point(x, y=0) | Point(0, x):
            return f"axis {x}"
        case [Point() as p, *rest] if not rest:
            return f"one point {p}"
        case [int(a) | float(a), str() as s, *_, None]:
            return f"number {a} word {s}"
        case [first, (second, third) | [second, third, _]]:
            return f"nested {first} {second} {third}"
        case (first, second):
            return f"pair {first} {second}"
        case [] | [*_, False]:
            return "empty or false"
        case {"kind": "circle", "r": r, **extra}:
            return f"circle {r} {sorted(extra)}"
        case {Color.RED: c}:
            return f"red {c}"
        case {}:
            return "mapping"
        case Color.GREEN | True:
            return "green or true"
        case str(text) if text.startswith("#"):
            return "comment"
        case -1 | 2.5 | 1 - 2j | b"x":
            return "literal"
        case _:
            return "other"


def match_slots(cls_dict):
    # dataclasses._get_slots: a capture with a guard, a raise in the default case
    match cls_dict.get("__slots__"):
        case None:
            yield from ()
        case str(slot):
            yield slot
        case iterable if not hasattr(iterable, "__next__"):
            yield from iterable
        case _:
            raise TypeError(f"Slots of '{cls_dict}' cannot be determined")


def match_falls_out(statement, log):
    # traceback._extract_caret_anchors_from_line_segment: cases that fall out of the match
    # (the last statement), `[*items]` with no length test
    match statement:
        case ("binop", left, right):
            log.append(("binop", left))
            if right:
                return right
        case ("subscript", value):
            log.append("subscript")
            return value
        case [*items] if len(items) > 3:
            log.append(len(items))
    return None


def match_in_loop(items):
    # a match in a for loop whose cases break, continue or go on after it
    out = []
    for item in items:
        match item:
            case None:
                break
            case 0 | "":
                continue
            case [x, y]:
                out.append(x + y)
            case {"skip": True}:
                continue
            case Point(x=px):
                out.append(px)
        out.append("after")
    else:
        out.append("end")
    return out


def match_nested(command):
    # a match in a case's body, the subject a tuple, code after both
    result = []
    match command.split():
        case [verb, *args]:
            match verb, len(args):
                case ("go", 1):
                    result.append(f"go {args[0]}")
                case ("look", 0) | ("see", 0):
                    result.append("look")
                case (_, n) if n > 2:
                    result.append("too many")
                case _:
                    result.append("?")
        case []:
            result.append("empty")
    result.append("done")
    return result


def match_one_case(value, log):
    # one case and no default: the pattern consumes the subject; the last case's own
    # as-pattern and or-pattern with names
    total = 0
    match value:
        case {"a": int(a), "b": [*bs]}:
            total = a + sum(bs)
    match log:
        case [_, *_] as whole:
            whole.append(total)
    match total:
        case int(n) | float(n) if n > 1:
            log.append(n)
    return total


def match_values(kernel, data):
    # statistics.kde: a match of values alone (no class, sequence or mapping), or-patterns,
    # a guard on a capture before other cases, and a default that raises
    match kernel:
        case "normal" | "gauss":
            scale = 1.0
        case "logistic":
            scale = 2.0
        case k if k in data:
            scale = data[k]
        case None:
            scale = 0.0
        case "rectangular" | "uniform":
            scale = 0.5
        case _:
            raise ValueError(f"Unknown kernel name: {kernel!r}")
    return scale


def match_while(queue, log):
    # a match in a while loop, in a try whose clause goes on
    while queue:
        try:
            match queue.pop():
                case ("add", int(x), int(y)):
                    log.append(x + y)
                case ("div", x, y):
                    log.append(x / y)
                case ("stop",):
                    break
                case other:
                    log.append(f"unknown {other}")
        except ZeroDivisionError:
            log.append("div by zero")
    return log


class FakeProcess:
    """What subprocess.Popen._wait needs: a lock that may be busy, a wait that reports the pid
    after some tries, a clock; everything it does is logged."""

    def __init__(self, returncode, busy, ready_after, log):
        self.returncode, self.busy, self.ready_after, self.log = returncode, list(busy), ready_after, log
        self.pid, self.args, self.tries, self.now = 42, ["cmd"], 0, 0.0

    def acquire(self, blocking=True):
        free = not self.busy.pop(0) if self.busy else True
        self.log.append(("acquire", free))
        return free

    def release(self):
        self.log.append("release")

    def __enter__(self):
        self.log.append("enter")

    def __exit__(self, *exc):
        self.log.append("exit")

    def try_wait(self, flags):
        self.tries += 1
        if self.tries == 2 and self.ready_after < 0:
            self.returncode = -9  # another thread waited meanwhile
        return (self.pid if self.tries >= self.ready_after > 0 else 0), self.tries * 256

    def remaining(self, end):
        self.now += 0.25
        return end - self.now


def wait_for_exit(proc, timeout):
    # subprocess.Popen._wait: a while True whose breaks leave a try/finally inside an if, after
    # which it may raise (3.10+ writes each break as a copy of the return after the loop); and
    # a while loop whose body is a with a break leaves (the same copy, after __exit__)
    if proc.returncode is not None:
        return proc.returncode
    if timeout is not None:
        endtime = timeout
        delay = 0.0005
        while True:
            if proc.acquire(False):
                try:
                    if proc.returncode is not None:
                        break
                    (pid, sts) = proc.try_wait(1)
                    assert pid == proc.pid or pid == 0
                    if pid == proc.pid:
                        proc.returncode = sts
                        break
                finally:
                    proc.release()
            remaining = proc.remaining(endtime)
            if remaining <= 0:
                raise TimeoutError(proc.args, timeout)
            delay = min(delay * 2, remaining, .05)
            proc.log.append(round(delay, 4))
    else:
        while proc.returncode is None:
            with proc:
                if proc.returncode is not None:
                    break
                (pid, sts) = proc.try_wait(0)
                if pid == proc.pid:
                    proc.returncode = sts
    return proc.returncode


def alias_search(names, mapping, values, seq, log):
    # enum._simple_enum: a for loop with a break in an if in an except clause, inside a for
    # loop; the loop's end, its break and the if's other side all end the clause (3.12+: the
    # exception state stays below the inner loop's iterator, and is there where they meet)
    for name in names:
        try:
            contained = mapping.get(name)
        except TypeError:
            contained = None
            if name in values:
                for m in seq:
                    if m == name:
                        contained = m
                        break
        if contained is not None:
            log.append(contained)
        else:
            log.append(name)
    return log


def keyword_comprehensions(options, box):
    # 3.12+ runs the comprehensions inside the call's arguments: the values before them (the
    # dict of keywords, the list) wait on the stack while they run
    a = record_call(**{k: v for k, v in options.items()})
    b = record_call(0, kind=box.size, **{k: v for k, v in options.items() if k != "kind"})
    c = record_call([box.size, 1], *[v for v in options.values()])
    return a, b, c


CASES = [
    (arithmetic, (7, 3)), (bitwise, (12, 10)), (comparisons, (1, 2)), (calls, (3, -8)),
    (methods, ((1, 2, 3),)), (attributes, (Box(),)), (augmented, (5, 4)), (containers, (1, 2)),
    (subscripts, ([1, 2, 3, 4, 5],)), (unpacking, ((1, 2),)), (fstrings, ("x", 3.14159)),
    (keyword_only, (2,), {"scale": 3, "shift": 1}), (variadic, (1, 2), {"z": 1, "a": 2}),
    (positional_only, (9, 3, 1)), (sequential, (4,)), (nothing, ([],)), (swap, (1, 2)),
    *[(branches, (x,)) for x in (5, -5, 0)],
    *[(early_return, (items, 2)) for items in ([], [1, 2, 3], [1])],
    *[(conditions, (a, b, c)) for a in (None, 0, 1) for b in (None, 0, 2) for c in (0, 1)],
    *[(nested, (a, b)) for a in (0, 1) for b in (0, 1)],
    *[(raises, (v,)) for v in (3, -1)],
    (simple_loop, (4,)), (value_across_blocks, (0, 5)),
    *[(for_loops, (items, limit)) for items in ([], [1, None, 3], [1, 20, 3], [5, 5]) for limit in (5, 10)],
    *[(for_else_break, (items,)) for items in ([], [1, 2], [1, -2, -3])],
    *[(while_loop, (n,)) for n in (0, 1, 5, 30)],
    *[(while_true, (items,)) for items in ([None], [None, 1, 2], [3, None, 4])],
    *[(while_else, (n, stop)) for n in (0, 3, 6) for stop in (2, 10)],
    *[(while_condition, (a,)) for a in (-1, 0, 7, 20, 23)],
    *[(loops_nested, (rows,)) for rows in ([], [[1, 2], [3, -1, 4]], [[-1], []])],
    *[(generator, (n,)) for n in (0, 1, 4)],
    *[(never_yields, (n,)) for n in (1, 200)],
    *[(delegating, (n,)) for n in (0, 3)],
    *[(asserts, (a, b)) for a, b in ((0, 1), (1, 0), (1, 5))],
    (imports, (2.5,)),
    *[(comprehensions, (y, z)) for y, z in (([], {}), ([1, 2, 3], {"a": 1}), ([5, 0, 2, 2], {"q": 2, "r": 3}))],
    *[(nested_functions, (values,)) for values in ([], [3, -1, 0, 2])],
    *[(try_except, (x,)) for x in (2, 0, "a", None)],
    *[(try_in_loop, (items,)) for items in ([], ["1", "x", "3"], ["2", None, "5"])],
    *[(try_return, (d, k)) for d, k in (({"a": 1}, "a"), ({}, "a"), (None, "a"))],
    *[(try_nested, (a, b)) for a, b in ((1, 2), (1, 0), ({"x": 7}, 0), ("s", 2))],
    *[(try_finally, (x, [])) for x in (2, 0)],
    *[(try_finally_return, (x, [])) for x in (2, 0, "s")],
    (with_block, ("abc",)),
    *[(after_except, (x,)) for x in (2, 0)],
    *[(with_statements, (items, suppress)) for items in ([], [3, 0, 2, -1, 5], [2, 1, 3]) for suppress in (False, True)],
    *[(finally_return, (x, [])) for x in (2, 0)],
    *[(finally_in_loop, (xs, [])) for xs in ([], [1, -1, 0, 5], [3, 11, 2])],
    *[(finally_branches, (x, [])) for x in (2, 0)],
    *[(finally_around_except, (x, [])) for x in (2, 0, "s")],
    *[(with_return_suppressed, (x, s, [])) for x in (0, 2, "s") for s in (False, True)],
    *[(with_two_return, (s, [])) for s in (False, True)],
    *[(with_loop_break, (xs, s, [])) for xs in ([], [1, 0, 3], [2, 5]) for s in (False, True)],
    *[(call_of_comprehension, (items, 1)) for items in ([], [0, 2, 3])],
    *[(loop_return_value, (items, a)) for items in ([], [1, 3], [1, 0, 2], [5, 0]) for a in (0, 7)],
    *[(try_in_except, (a, b, [])) for a, b in ((1, 1), (0, 2), (0, 0))],
    *[(except_return_finally, (a, 5, [])) for a in (1, 0, "s")],
    *[(return_or_in_branch, (a, [1, 3, 5], [])) for a in (0, 1, -2)],
    *[(loop_in_except, (a, [])) for a in (0, 2)],
    *[(with_in_while, (0, s, [])) for s in (False, True)],
    *[(annotated_inner, (x,)) for x in (1, "s")],
    *[(nested_unpacking, (pairs,)) for pairs in ([], [(1, (2, 3)), (4, (5, 6))])],
    *[(conditional_elements, (lines, pairs)) for lines, pairs in (([], {}), (["a", " ", None], {0: 3, 2: -1}))],
    *[(call_after_with, (log, s, f)) for log in ([], ["x"]) for s in (False, True) for f in (len, tuple)],
    *[(finally_sets_result, (a, [])) for a in (0, 1)],
    *[(return_in_try_in_except, (a, b, [])) for a, b in ((1, 1), (0, 0), (0, 1))],
    *[(long_except_clause, (a, [])) for a in (0, 1, "s")],
    *[(try_in_named_clause, (a, [])) for a in ([1], [], None)],
    *[(raise_or_in_loop, (items, a, [])) for items in ([], [1, 2], [1, 5], [None]) for a in (0, 3)],
    *[(loop_never_repeats, (items, a)) for items in ([], [2, 1], [0, 1]) for a in (0, 3)],
    *[(with_return_in_named_clause, (a, s, log)) for a in (0, 1) for s in (False, True) for log in ([], [1])],
    *[(loop_return_in_finally, (items, [])) for items in ([], [1, 2], [0])],
    *[(loop_return_in_clause, (items, a, [])) for items in ([], [0, 3]) for a in (0, 1)],
    *[(while_else_raise, (n, a, [])) for n in (0, 2, 5) for a in (0, 1)],
    *[(while_then_test_in_clause, (a, n, [])) for a in (0, 1) for n in (0, 2)],
    *[(try_in_finally, (a, [])) for a in (0, 2, "s")],
    *[(finally_after_inner_try, (a, b, [7], [])) for a in (0, 1) for b in (0, 4, 5)],
    *[(clause_past_finally, (a, b, [])) for a in (0, 2) for b in (0, 3, 5)],
    *[(else_return_past_finally, (a, b, [])) for a in (0, 2) for b in (0, 3, 5)],
    *[(continue_inside_then_with, (items, a, [])) for items in ([], [1, 3], [2, -1]) for a in (0, 2)],
    *[(finally_in_finally, (a, [])) for a in (0, 2, "s")],
    *[(return_from_finally_loop, (items, a, [])) for items in ([], [1, 5, 2], [0, 0]) for a in (0, 3)],
    *[(with_in_clause_in_finally, (a, s, [])) for a in (0, 2) for s in (False, True)],
    *[(first_item, (items, [])) for items in ([], [0, 1], [3])],
    *[(code_after_try_copied, (a, [])) for a in (0, 2)],
    *[(while_one_continue, (items, [])) for items in ([], [1, 5, 2], [3])],
    *[(while_true_try, (items, [])) for items in ([], [1, None, 2], [3])],
    (spin_unless, (1,)),
    *[(walrus_in_generator, (data, 2)) for data in ([], [1, 5, 2])],
    *[(walrus_in_tests, (items, [])) for items in ([], [1, 5, 2], [3])],
    (dotted_imports, ()),
    *[(nested_except_in_finally, (a, [])) for a in (0, 2)],
    *[(empty_try_in_finally, (a, [])) for a in (0, 2)],
    *[(empty_if_in_try_in_finally, (a, [])) for a in (0, 2)],
    *[(break_falls_in_clause, (a, items, [])) for a in (0, 2) for items in ([], [0, 1])],
    *[(break_in_clause_in_finally, (a, items, [])) for a in (0, 2) for items in ([], [1, 0], [1])],
    *[(finally_rebinds_returned, (a, [])) for a in (0, 1, 2)],
    *[(while_return_in_try_finally, (a, [])) for a in (0, 9)],
    *[(finally_in_with_rebinds, (a, [])) for a in (0, 2)],
    *[(except_finally_in_with, (a, [])) for a in (0, 2)],
    *[(chained_comparisons, (a, b, items, [])) for a, b, items in ((0, 0, []), (3, 1, [1, 2, 3]), (2, 4, [4, 2]), (-1, 5, [5]))],
    *[(tuple_and_chained_assignments, (p, i, [1, 2])) for p, i in (("abc", 1), ("", 0))],
    *[(local_classes, (a, [])) for a in (1, 5)],
    *[(loops_in_with, (a, items, [])) for a, items in ((1, []), (2, [1, 2, 3]), (5, [1, 2]), (9, [3]))],
    *[(while_return_in_clause_in_finally, (a, log)) for a, log in ((0, []), (0, [1]), (2, []))],
    *[(with_if_in_finally, (a, b, [])) for a in (0, 2) for b in (False, True)],
    *[(while_in_finally, (a, [])) for a in (0, 3)],
    *[(while_true_left_by_return, (a, items, [])) for a, items in ((0, []), (1, [1]), (0, [1, 2]))],
    *[(raise_caught_in_branch, (a, 2, items, [])) for a, items in ((0, [1, 2]), (1, ["x"]))],
    *[(loop_else_break_and_raise, (items, log)) for items, log in (([], []), (["a", "q"], []), (["q", "b"], []), (["q", "b"], [1, 2, 3]))],
    *[(loop_break_and_raise_after_if, (items, log)) for items, log in (([], []), (["x", "a"], []), (["!"], []), (["!"], [1]))],
    *[(loop_breaks_past_return, (chunks, width, [])) for chunks, width in (([], 2), (["ab", "c"], 2), (["abc", "d"], 2), (["abc"], 1))],
    *[(nested_comprehension_in_try, (rows, ",")) for rows in ([], ["a,,b", "c"], [1])],
    *[(unpack_discarded, (rows,)) for rows in ([(1, 2, 3, 4)], [(0, 1, 2, 3), (5, 6, 7, 8)])],
    *[(retry_in_clause, (first, second)) for first, second in ((int, int), (os_error, int), (os_error, os_error))],
    *[(keyword_comprehensions, (options, Box())) for options in ({}, {"kind": 1, "z": 2})],
    *[(star_unpacking, (rows, Box())) for rows in ([(1, 2), (3, 4, 5)], [(6, 7, 8)], [])],
    *[(else_returns_clauses_go_on, (names, Box(), [])) for names in (None, [], ["x", "size"], ["x", 3])],
    *[(clause_continues_or_breaks, (items, {"a": 0, "b": "x", "c": 5}, [])) for items in (["a", "z", "c"], ["z", "b", "c"], ["a"], ["z"])],
    *[(else_then_copied_return, (box, log)) for box, log in ((Box(), [1]), (3, []))],
    *[(reraise_after_inner_try, (divisor, log)) for divisor, log in ((1, []), (0, []), (0, [1]))],
    *[(threaded_and_or, (a, b, c, log)) for a in (0, 1) for b in (0, 2) for c in (0, 3) for log in ([], [1])],
    *[(expand_user, (path, environ)) for path, environ in (("~", {"HOME": "/h/"}), ("~", {}), ("~root/x", {}), ("~no_such_user_zz/x", {}), ("abc", {}), (b"abc", {}))],
    *[(c3_merge, (sequences,)) for sequences in ([], [["a", "b"], ["b", "c"]], [["a", "b"], ["b", "a"]], [["x", "o"], ["y", "o"], ["x", "y", "o"]])],
    *[(dispatch_match, (mro, registry, own)) for mro, registry, own in (([], {}, []), (["a", "b", "c"], {"b": 1, "c": 2}, ["b"]), (["a", "b", "c"], {"b": 1, "c": 2}, []), (["x", "xy"], {"x": 1, "xy": 2}, []), (["q"], {"q": 3}, []))],
    *[(positional_args, (params, arguments)) for params, arguments in (([], {}), ([("a", "pos"), ("b", "var"), ("c", "kw")], {"a": 1, "b": [2, 3]}), ([("a", "pos"), ("b", "pos")], {"b": 2}), ([("a", "pos")], {"a": 0}))],
    *[(members, (obj, names, mro, predicate)) for obj, names, mro, predicate in (({}, [], [], None), ({"a": 1}, ["a", "b", "a"], [{"b": 2}], None), ({"a": 1}, ["a", "z"], [{"b": 2}, {"z": 0}], bool), ({}, ["q"], [], callable))],
    *[(bind_arguments, (args, params, kwargs, partial)) for args, params, kwargs, partial in (((), [], {}, False), ((1, 2), ["a", "b"], {"c": 3}, False), ((1, 2, 3), ["a"], {}, False), ((), ["a", "*"], {}, False), ((), ["a"], {"a": 1}, False), ((), ["a"], {}, True), ((), ["a"], {}, False), ((1,), ["a"], {"a": 2}, False), ((1, 2, 3), ["a", "*"], {"b": 0}, False))],
    *[(conditional_tests, (fields, options, c, a, b, [])) for fields, options, c, a, b in (([], {}, 0, 0, 0), ([(1, None), (0, 2), (0, 0), (3, 0)], {"x": "s", "y": 2}, 1, 3, 0), ([(0, None)], {"k": None}, 0, 5, 2), ([(1, 1)], {}, 1, 0, 4))],
    *[(and_or_idiom, ({"a": 1, "b": 2}, m, a, b, c)) for m in (0, 1) for a in (0, 3) for b in ("", "x") for c in (None, 5)],
    *[(element_or, (members,)) for members in ([], [(0, "a"), ("b", 0)], [(None, None)])],
    *[(merged_keywords, (args, kwargs, c)) for args, kwargs, c in (((), None, 0), ((1, 2), {"k": 3}, 1), ([4], {}, 1), ((), {"z": 0}, 0))],
    *[(or_of_and, (order, known, names, [])) for order, known, names in (([], {}, []), (["a", "b", "c"], {"b": 1, "c": 2}, ["c"]), (["x"], {"x": 0}, []))],
    *[(clause_loop_breaks, (fn, errs, [])) for fn in (int, os_error) for errs in ([], [0, None], [5])],
    *[(finally_leaves, (a, items, [])) for a, items in ((0, []), (1, [1, 2]), (1, [2, 0, 5, 0]), (2, [5, 1]), (3, [1]), (1, [0]))],
    *[(sparse_structs, (chunks,)) for chunks in ([""], ["12x", "3a-"], ["x0x", "1", "22x", "q"], ["xyz"])],
    *[(zip_magic, (filename,)) for filename in ("PKzip", "no", io.StringIO("PK.."), 3)],
    *[(cached_enabled, (cache, level, limit, [])) for cache, level, limit in (({1: True}, 1, 0), ({}, 2, 5), ({}, 4, 0), ({}, 1, 0))],
    *[(clause_passes, (a, b, follow, [])) for a, b, follow in ((None, 1, 0), (4, 2, 0), (4, 0, 0), (4, 0, 1))],
    *[(data_type_of, (chains, [])) for chains in ([], [[]], [["object"]], [["mix", "new1"]], [["new!", "enumX"]], [["a", "b", "new"], ["enumY"]], [["enum", "object", "new2"]], [["c", "d"]])],
    *[(match_shapes, (value,)) for value in (Point(0, 0), Point(0, 3), Point(0, -3), Point(5, 0), Point(1, 1), [Point(1, 2)], [Point(1, 2), 3], [1, "a", None], [1.5, "b", 3, None], [1, "a", 2], [0, (1, 2)], [0, [1, 2, 3]], (1, 2), [], [1, 2, 3, False], {"kind": "circle", "r": 2, "z": 1}, {Color.RED: 4}, {"q": 1}, Color.GREEN, True, "#x", "x", -1, 2.5, 1 - 2j, b"x", None, 7)],
    *[(match_slots, (cls_dict,)) for cls_dict in ({}, {"__slots__": "a"}, {"__slots__": ["a", "b"]}, {"__slots__": Stream()}, {"__slots__": 3})],
    *[(match_falls_out, (statement, [])) for statement in (("binop", 1, 2), ("binop", 1, 0), ("subscript", 5), [1, 2, 3, 4], [1], 3)],
    *[(match_in_loop, (items,)) for items in ([], [[1, 2], 0, "", {"skip": True}, Point(3, 4), 7], [[1, 2], None, 5], [{"skip": False}])],
    *[(match_nested, (command,)) for command in ("go north", "look", "see", "go a b c", "go", "", "x y")],
    *[(match_one_case, (value, log)) for value in ({"a": 1, "b": [2, 3]}, {"a": "1", "b": []}, {"a": 1, "b": (4,)}, 5) for log in ([], [0])],
    *[(match_values, (kernel, {"k": 3.0, None: 9})) for kernel in ("normal", "gauss", "logistic", "k", None, "uniform", "other")],
    *[(match_while, (queue, [])) for queue in ([], [("add", 1, 2), ("div", 1, 0), ("div", 1, 2), ("zz",)], [("add", 1, 2), ("stop",), ("add", 3, 4)])],
    *[(alias_search, (names, {"a": "A", 1: "one"}, values, seq, [])) for names, values, seq in (([], [], []), (["a", [1], "z"], [[1]], [[0], [1]]), ([[2], 1], [[2]], [[3]]), ([[5]], [], [[5]]))],
    *[(wait_for_exit, (FakeProcess(returncode, busy, ready_after, []), timeout)) for returncode, busy, ready_after, timeout in ((0, [], 1, None), (None, [], 3, None), (None, [], -1, None), (None, [True, False], 2, 5.0), (None, [], -1, 5.0), (None, [True], 99, 1.0), (None, [], 1, 0.1))],
]


def _call(function, args, kwargs):
    arguments = copy.deepcopy(args)  # the call may change them: what it left is compared too
    try:
        result = function(*arguments, **kwargs)
        if inspect.isgenerator(result):  # a generator: what it yields, and what sending gives
            result = _drive(result)
        outcome = repr(result)
    except Exception as error:  # the same exception is the same result
        outcome = f"raised {type(error).__name__}: {error}"
    return f"{outcome}; arguments after: {_state(arguments)}"


def _state(value):
    """A repr of the arguments that sees inside plain objects (Box) as well."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_state(v) for v in value) + "]"
    if hasattr(value, "__dict__") and not isinstance(value, type) and not callable(value):
        return f"{type(value).__name__}{_state(sorted(vars(value).items()))}"
    return repr(value)


def _drive(generator):
    """Everything a generator yields when sent 0, 1, 2, ... (its first next() sends None)."""
    out = []
    try:
        out.append(next(generator))
        for sent in range(50):
            out.append(generator.send(sent))
    except StopIteration as stop:
        out.append(("returned", stop.value))
    return out


def run(cases, namespace_of) -> dict:
    """Per function: "pass", "differs for ARGS: EXPECTED vs GOT", or "unsupported: WHY"."""
    functions = {}
    sources = {}
    for case in cases:
        function, args = case[0], case[1]
        kwargs = case[2] if len(case) > 2 else {}
        name = function.__name__
        if name not in sources:
            try:
                sources[name] = function_source(function.__code__, function.__defaults__, function.__kwdefaults__)
            except Unsupported as error:
                sources[name] = error
        source = sources[name]
        if isinstance(source, Unsupported):
            functions.setdefault(name, {"result": f"unsupported: {source}", "source": None})
            continue
        namespace = dict(namespace_of(function))
        try:
            exec(compile(source, f"<decompiled {name}>", "exec", dont_inherit=True), namespace)
        except SyntaxError as error:
            functions[name] = {"result": f"differs: not valid Python: {error}", "source": source}
            sources[name] = Unsupported(None, "already counted")
            continue
        expected = _call(function, args, kwargs)
        got = _call(namespace[name], args, kwargs)
        previous = functions.get(name, {}).get("result", "pass")
        outcome = "pass" if expected == got else f"differs for {args!r}: {expected} vs {got}"
        functions[name] = {"result": outcome if previous == "pass" else previous, "source": source}
    return functions


def generated_cases(count: int) -> list:
    """The written functions of decompile_generated.py (`count` of each kind: g large, s small,
    c except clauses, m match statements), each called with every one of its inputs."""
    import decompile_generated

    namespace = {"Recorder": decompile_generated.Recorder, "__name__": "generated", **decompile_generated.MATCH_NAMESPACE}
    exec(compile(decompile_generated.source(count), "<generated>", "exec", dont_inherit=True), namespace)
    exec(compile(decompile_generated.small_source(count), "<generated>", "exec", dont_inherit=True), namespace)
    exec(compile(decompile_generated.clause_source(count), "<generated>", "exec", dont_inherit=True), namespace)
    exec(compile(decompile_generated.match_source(count), "<generated>", "exec", dont_inherit=True), namespace)
    cases = [(namespace[f"{kind}{i}"], args) for kind in "gscm" for i in range(count) for args in decompile_generated.INPUTS]
    # every call must reach the function's code: a call that fails on its arguments fails the
    # same way for any decompiled function, and would check nothing
    assert all(len(args) == function.__code__.co_argcount for function, args in cases), "INPUTS do not fit the generated functions"
    return cases


def main() -> None:
    """python decompile_check.py [GENERATED_COUNT]: the written corpus, and as many generated
    functions as asked for (their results under "generated")."""
    results = {"python": f"{sys.version_info.major}.{sys.version_info.minor}", "functions": run(CASES, lambda f: globals())}
    if len(sys.argv) > 1:
        results["generated"] = run(generated_cases(int(sys.argv[1])), lambda f: f.__globals__)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
