"""`return`, `break` and `continue` inside `finally` (legal up to 3.13): decompile each function,
compile the source again, and call both on inputs that raise inside the `try` and inputs that do
not: same results, same arguments after? And does verify.py find the source's code the same?

Run by tests/unit/test_decompile_finally.py with each Python 3.10-3.13 (stdlib only,
PYTHONPATH=src). Prints JSON: per function, "pass", "differs: ..." or "unsupported: ...", the
source, and what verify.py finds different in its code (None: nothing)."""

import contextlib
import json
import signal
import sys

from compilescope.decompiler.building import function_source
from compilescope.decompiler.values import Unsupported
from compilescope.decompiler.verify import difference


def return_in_finally(x, log):
    try:
        log.append(10 // x)
    finally:
        log.append("finally")
        return x + 1


def return_in_try_and_finally(x, log):
    try:
        log.append(x)
        return 10 // x
    finally:
        return -x


def return_in_finally_with_except(x, log):
    try:
        log.append(10 // x)
    except ZeroDivisionError:
        log.append("zero")
    finally:
        return x * 2


def return_in_finally_of_try_except_returns(x, log):
    r = 0
    try:
        r = 10 // x
        return r
    except ZeroDivisionError:
        r = 99
        return r
    finally:
        if x > 3:
            return r + 1000


def return_in_try_except_and_finally(x, log):
    try:
        if x > 2:
            return 10 // (x - 3)
        log.append(x)
    except ZeroDivisionError:
        log.append("zero")
        return "zero"
    finally:
        log.append("finally")
        if x == 1:
            return "one"
    return "end"


def returns_in_try_finally_returns(x, log):
    try:
        if x > 2:
            return x * 2
        if x < 0:
            return log
        log.append(10 // x)
    finally:
        return len(log)


def except_returns_finally_returns(x, log):
    try:
        log.append(10 // x)
    except ZeroDivisionError:
        return "zero"
    finally:
        log.append("finally")
        return x


def conditional_return_in_finally(x, log):
    try:
        log.append(10 // x)
    finally:
        if x > 2:
            return "big"
    return "small"


def computed_in_finally(x, log):
    try:
        log.append(10 // x)
    finally:
        s = x * 3
        t = s + len(log)
        return s, t


def break_in_finally_for(xs, log):
    for v in xs:
        try:
            log.append(10 // v)
        finally:
            if v > 5:
                break
    return log


def break_in_finally_over_return(xs, log):
    for v in xs:
        try:
            if v > 3:
                return v * 10
            log.append(10 // v)
        finally:
            if v < 0:
                break
    return "end"


def continue_in_finally_for(xs, log):
    for v in xs:
        try:
            log.append(10 // v)
        finally:
            if v < 0:
                continue
            log.append(v)
    return log


def break_in_finally_while(n, log):
    i = 0
    while i < n:
        i += 1
        try:
            log.append(10 // (i - 2))
        finally:
            if i >= 4:
                break
    return i


def continue_in_finally_while(n, log):
    i = 0
    while i < n:
        i += 1
        try:
            log.append(10 // (i - 2))
        finally:
            if i % 2:
                continue
            log.append(-i)
    return i


def continue_in_finally_while_code_after(n, log):
    i = 0
    while i < n:
        i += 1
        try:
            log.append(10 // (i - 2))
        finally:
            if i == 3:
                continue
            log.append(i)
        log.append("after")
    return i


def while_true_break_in_finally(x, log):
    n = 0
    while True:
        try:
            n += 1
            log.append(10 // (x - n))
        finally:
            if n >= 3:
                break
    return n


def finally_each_time_round(x, log):
    n = 0
    while True:
        try:
            n += 1
            if n > 3:
                return n
            log.append(10 // (x - n))
        finally:
            log.append("finally")


def while_true_finally_break_in_body(x, log):
    n = 0
    while True:
        try:
            n += 1
            if n > 3:
                break
            log.append(10 // (x - n))
        finally:
            log.append(n)
    return n


def while_true_return_in_try_except_finally(x, log):
    n = 0
    while True:
        try:
            n += 1
            if n >= 3:
                return n * 10
            log.append(10 // (x - n))
        except ZeroDivisionError:
            log.append("zero")
        finally:
            log.append("f")


def while_true_return_from_finally(x, log):
    n = 0
    while True:
        try:
            n += 1
            log.append(10 // (x - n))
        finally:
            if n > 2:
                return n


def while_true_break_in_outer_finally(x, log):
    n = 0
    while True:
        try:
            n += 1
            try:
                if n > 2:
                    return n
            finally:
                log.append("inner")
        finally:
            log.append("outer")
            if n == x:
                break
    return -n


def return_in_finally_in_loop(xs, log):
    total = 0
    for v in xs:
        try:
            total += 10 // v
        finally:
            log.append(total)
            if total > 20:
                return total
    return total


def return_in_finally_inside_with(x, log):
    with contextlib.suppress(KeyError):
        try:
            log.append(10 // x)
        finally:
            return log + [x]


def with_inside_return_finally(x, log):
    try:
        with contextlib.suppress(ZeroDivisionError):
            log.append(10 // x)
        log.append("after with")
    finally:
        log.append("finally")
        return len(log)


def nested_return_in_finally(x, log):
    try:
        try:
            log.append(10 // x)
        finally:
            log.append("inner")
            if x > 2:
                return "inner returned"
    finally:
        log.append("outer")
        if x < 0:
            return "outer returned"
    return "end"


def return_in_inner_finally(x, log):
    try:
        try:
            log.append(10 // x)
        finally:
            return "inner"
    finally:
        log.append("outer")


def return_in_outer_finally(x, log):
    try:
        try:
            log.append(10 // x)
        finally:
            log.append("inner")
    finally:
        return len(log)


def break_in_nested_finally(xs, log):
    for v in xs:
        try:
            try:
                log.append(10 // v)
            finally:
                log.append("inner")
        finally:
            if v > 3:
                break
    return log


def continue_break_in_finally(xs, log):
    for v in xs:
        try:
            log.append(10 // v)
        finally:
            if v < 0:
                continue
            if v > 4:
                break
            log.append("kept")
    return log


def return_in_finally_swallows_raise(x, log):
    try:
        if x < 0:
            raise ValueError(x)
        log.append(x)
    finally:
        return "done"


_LISTS = ([1, 2, 0, 7, 3], [3, -1, 0, 8], [], [0], [6, 2], [-2, -3, 9, 1])
_NUMBERS = (0, 1, 2, 3, 5, -1, -4)
CASES = {
    name: (
        [(xs,) for xs in _LISTS]
        if name.startswith(("break", "continue")) and "while" not in name or "loop" in name
        else [(n,) for n in _NUMBERS]
    )
    for name in [n for n in list(globals()) if callable(globals()[n]) and globals()[n].__module__ == __name__ and not n.startswith("_")]
}


class _TooLong(BaseException):
    """A call still running after a second: a loop the decompiled code never leaves."""


def _too_long(signum, frame):
    raise _TooLong


def _call(function, arguments):
    log = []
    signal.signal(signal.SIGALRM, _too_long)
    signal.setitimer(signal.ITIMER_REAL, 1.0)
    try:
        outcome = repr(function(*arguments, log))
    except _TooLong:
        outcome = "still running after 1 s"
    except Exception as error:
        outcome = f"raised {type(error).__name__}: {error}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return f"{outcome}; log: {log[:20]!r}"


def main() -> None:
    results = {}
    for name, inputs in CASES.items():
        function = globals()[name]
        try:
            source = function_source(function.__code__, function.__defaults__, function.__kwdefaults__)
        except Unsupported as error:
            results[name] = {"result": f"unsupported: {error}", "source": None, "difference": None}
            continue
        namespace = {"contextlib": contextlib}
        try:
            exec(compile(source, f"<decompiled {name}>", "exec", dont_inherit=True), namespace)
        except SyntaxError as error:
            results[name] = {"result": f"differs: not valid Python: {error}", "source": source, "difference": None}
            continue
        result = "pass"
        for arguments in inputs:
            expected, got = _call(function, arguments), _call(namespace[name], arguments)
            if expected != got:
                result = f"differs for {arguments!r}: {expected} vs {got}"
                break
        results[name] = {"result": result, "source": source, "difference": difference(function.__code__, source)}
    json.dump({"python": "%d.%d" % sys.version_info[:2], "functions": results}, sys.stdout)


if __name__ == "__main__":
    main()
