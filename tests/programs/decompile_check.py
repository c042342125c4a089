"""Decompile straight-line functions, compile the source again, and call both: same results?

Run by tests/test_decompile.py with each Python 3.10-3.13 (stdlib only, PYTHONPATH=src).
Prints JSON: per function, "pass", "differs: ..." or "unsupported: ...", and the source."""

import copy
import json
import math
import sys

from compilescope.decompile.expressions import Unsupported, function_source

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


CASES = [
    (arithmetic, (7, 3)), (bitwise, (12, 10)), (comparisons, (1, 2)), (calls, (3, -8)),
    (methods, ((1, 2, 3),)), (attributes, (Box(),)), (augmented, (5, 4)), (containers, (1, 2)),
    (subscripts, ([1, 2, 3, 4, 5],)), (unpacking, ((1, 2),)), (fstrings, ("x", 3.14159)),
    (keyword_only, (2,), {"scale": 3, "shift": 1}), (variadic, (1, 2), {"z": 1, "a": 2}),
    (positional_only, (9, 3, 1)), (sequential, (4,)), (nothing, ([],)), (swap, (1, 2)),
]


def main() -> None:
    results = {"python": f"{sys.version_info.major}.{sys.version_info.minor}", "functions": {}}
    for case in CASES:
        function, args = case[0], case[1]
        kwargs = case[2] if len(case) > 2 else {}
        try:
            source = function_source(function.__code__)
        except Unsupported as error:
            results["functions"][function.__name__] = {"result": f"unsupported: {error}", "source": None}
            continue
        namespace = dict(globals())
        exec(compile(source, f"<decompiled {function.__name__}>", "exec"), namespace)
        again = namespace[function.__name__]
        # Each call gets its own copy of the arguments: some functions change them.
        expected = function(*copy.deepcopy(args), **kwargs)
        got = again(*copy.deepcopy(args), **kwargs)
        expected_repr = repr(expected if not isinstance(expected, Box) else vars(expected))
        got_repr = repr(got if not isinstance(got, Box) else vars(got))
        outcome = "pass" if expected_repr == got_repr else f"differs: {expected_repr} vs {got_repr}"
        results["functions"][function.__name__] = {"result": outcome, "source": source}
    print(json.dumps(results))


if __name__ == "__main__":
    main()
