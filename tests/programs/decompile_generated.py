"""Functions for the decompiler's round trip, written by a program: many shapes of control flow
that no one would write by hand, nested in every order (if/elif/else, for and while with
break/continue/else, try/except/else/finally, with, early returns and raises, `and`/`or`,
conditional expressions, comprehensions).

    source(count, seed) -> the source of functions g0 ... g{count-1}, a third each with compound
                           statements nested 1, 2 and 3 deep
    small_source(count, seed) -> s0 ... s{count-1}: one or two statements, at most two deep
    clause_source(count, seed) -> c0 ... c{count-1}: a try in a loop or an if, whose clauses
                                  and else end in every way a clause can end
    INPUTS -> the arguments each is called with

Every function takes (a, b, items, log) and appends to `log` as it goes, so the order in which
its statements ran is part of what it returns; some inputs make it divide by zero or index past
the end, so exceptions and handlers run too. Loops are bounded. The same seed gives the same
functions on every Python.
"""

from __future__ import annotations

import random

# (a, b, items, log): each call gets its own copy, so the log it leaves is compared too
INPUTS = [
    (0, 1, [], []),
    (3, 0, [1, 2, 3], []),
    (-2, 5, [0, 4, -1, 7], []),
    (7, 7, [3], []),
    (1, -1, [5, 0, 0, 2, 9], []),
    (2, 3, [2, 2, 6, 1], []),
]


class Recorder:
    """A context manager that logs its enter and exit, and suppresses exceptions when told to."""

    def __init__(self, log, suppress=False):
        self.log = log
        self.suppress = suppress

    def __enter__(self):
        self.log.append("enter")
        return self

    def __exit__(self, kind, value, traceback):
        self.log.append(("exit", kind.__name__ if kind else None))
        return self.suppress


class _Writer:
    def __init__(self, rng: random.Random, depth: int) -> None:
        self.rng = rng
        self.counter = 0
        self.depth = depth  # how deep compound statements nest

    def constant(self) -> int:
        return self.rng.choice([0, 1, 2, 3, 5, -1])

    def value(self, names: list[str]) -> str:
        rng = self.rng
        name = rng.choice(names)
        other = rng.choice(names)
        k = self.constant()
        return rng.choice([
            name, f"{name} + {k}", f"{name} * {other}", f"{name} - {other}",
            f"{name} if {other} else {k}", f"{name} and {other}", f"{name} or {k}",
            f"10 // ({name} - {k})", f"items[{k}]", f"len(items) + {name}",
            f"sum([v * 2 for v in items if v > {k}])", f"({name}, {other})[{name} > {k}]",
            f"-{name}", f"{name} % 3 if {name} else {other}",
        ])

    def condition(self, names: list[str]) -> str:
        rng = self.rng
        name, other, k = rng.choice(names), rng.choice(names), self.constant()
        return rng.choice([
            f"{name} > {k}", f"{name}", f"not {name}", f"{name} == {other}",
            f"{name} > {k} and {other} < {k + 2}", f"{name} < {k} or {other}",
            f"not ({name} or {other})", f"{name} % 2 == 0", f"{k} in items",
            f"{name} is not None and {name} != {k}",
        ])

    def block(self, depth: int, names: list[str], loop: bool, indent: int, in_finally: bool = False) -> list[str]:
        count = self.rng.randint(1, 3)
        lines: list[str] = []
        for _ in range(count):
            lines += self.statement(depth, names, loop, indent, in_finally)
        return lines

    def statement(self, depth: int, names: list[str], loop: bool, indent: int, in_finally: bool) -> list[str]:
        rng = self.rng
        pad = "    " * indent
        simple = ["log", "assign", "log"]
        compound = ["if", "if_else", "elif", "for", "while", "try_except", "try_finally", "try_full", "with"]
        leaving = [] if in_finally else ["return", "raise"] + (["break", "continue"] if loop else [])
        kinds = simple + leaving + (compound if depth < self.depth else [])
        kind = rng.choice(kinds)
        if kind == "log":
            return [f"{pad}log.append({self.value(names)})"]
        if kind == "assign":
            target = rng.choice(["a", "b"])
            return [f"{pad}{target} = {self.value(names)}"]
        if kind in ("return", "raise", "break", "continue"):
            ending = {"return": f"return {self.value(names)}", "raise": f"raise ValueError({self.value(names)})", "break": "break", "continue": "continue"}[kind]
            return [f"{pad}if {self.condition(names)}:", f"{pad}    log.append({kind!r})", f"{pad}    {ending}"]
        inner = depth + 1
        if kind in ("if", "if_else", "elif"):
            lines = [f"{pad}if {self.condition(names)}:", *self.block(inner, names, loop, indent + 1, in_finally)]
            if kind == "elif":
                lines += [f"{pad}elif {self.condition(names)}:", *self.block(inner, names, loop, indent + 1, in_finally)]
            if kind != "if":
                lines += [f"{pad}else:", *self.block(inner, names, loop, indent + 1, in_finally)]
            return lines
        if kind == "for":
            self.counter += 1
            variable = f"x{self.counter}"
            lines = [f"{pad}for {variable} in items:", f"{pad}    log.append({variable})", *self.block(inner, [*names, variable], not in_finally, indent + 1, in_finally)]
            if rng.random() < 0.3:
                lines += [f"{pad}else:", *self.block(inner, names, loop, indent + 1, in_finally)]
            return lines
        if kind == "while":
            self.counter += 1
            counter = f"n{self.counter}"
            lines = [f"{pad}{counter} = 0", f"{pad}while {counter} < {rng.randint(1, 4)}:", f"{pad}    {counter} += 1", *self.block(inner, [*names, counter], not in_finally, indent + 1, in_finally)]
            if rng.random() < 0.2:
                lines += [f"{pad}else:", *self.block(inner, names, loop, indent + 1, in_finally)]
            return lines
        if kind == "with":
            self.counter += 1
            target = f"w{self.counter}"
            lines = [f"{pad}with Recorder(log, {self.condition(names)}) as {target}:", f"{pad}    log.append({target}.suppress)", *self.block(inner, names, loop, indent + 1, in_finally)]
            return lines
        lines = [f"{pad}try:", *self.block(inner, names, loop, indent + 1, in_finally)]
        if kind in ("try_except", "try_full"):
            lines += [f"{pad}except ZeroDivisionError:", f"{pad}    log.append('zero')", *self.block(inner, names, loop, indent + 1, in_finally)]
            if rng.random() < 0.5:
                lines += [f"{pad}except (IndexError, ValueError) as error:", f"{pad}    log.append(type(error).__name__)"]
                if rng.random() < 0.5:
                    lines += self.block(inner, names, loop, indent + 1, in_finally)
            if rng.random() < 0.3:
                lines += [f"{pad}else:", *self.block(inner, names, loop, indent + 1, in_finally)]
        if kind in ("try_finally", "try_full"):
            # the finally rebinds `a` and `log` (a new list): a return of either moved across
            # the finally reads the old one
            lines += [f"{pad}finally:", f"{pad}    log.append('finally')", f"{pad}    a = 7 - a", f"{pad}    log = [*log, 'f']", *self.block(inner, names, False, indent + 1, True)]
        return lines


def source(count: int, seed: int = 5) -> str:
    rng = random.Random(seed)
    functions = []
    for index in range(count):
        writer = _Writer(rng, 1 + index % 3)  # a third each nest 1, 2 and 3 deep
        body = writer.block(0, ["a", "b"], False, 1)
        # every other function returns a local its code may have changed last in a finally or
        # an except clause (the log is compared after the call either way)
        ending = "    return log" if index % 2 == 0 else "    return a"
        functions.append("\n".join([f"def g{index}(a, b, items, log):", *body, ending]))
    return "\n\n\n".join(functions) + "\n"


def small_source(count: int, seed: int = 11) -> str:
    """Functions s0 ... s{count-1}: one or two compound statements nested at most two deep,
    ending in one of three returns. Small enough that most decompile, so that each shape is
    checked on its own rather than hidden behind one the decompiler refuses."""
    rng = random.Random(seed)
    functions = []
    endings = ["    return log", "    return a", "    return a, b"]
    for index in range(count):
        writer = _Writer(rng, 1 + index % 2)
        body = writer.statement(0, ["a", "b"], False, 1, False)
        if index % 4 == 3:
            body += writer.statement(0, ["a", "b"], False, 1, False)
        functions.append("\n".join([f"def s{index}(a, b, items, log):", *body, endings[index % 3]]))
    return "\n\n\n".join(functions) + "\n"


def clause_source(count: int, seed: int = 17) -> str:
    """Functions c0 ... c{count-1}: a try with one or two except clauses and perhaps an else,
    in a for loop, a while loop or an if, followed by code or not; each clause and the else
    ends in one of: nothing (what follows the try runs), continue, break, return, raise, or one
    of those under an if. Where a clause goes on is easy to place wrongly: these check it."""
    rng = random.Random(seed)
    functions = []
    for index in range(count):
        writer = _Writer(rng, 1)
        container = rng.choice(["for", "while", "if"])
        lines = [f"def c{index}(a, b, items, log):"]
        if container == "for":
            lines.append("    for x in items:")
            names = ["a", "b", "x"]
        elif container == "while":
            lines += ["    n = 0", "    while n < len(items) + 1:", "        n += 1"]
            names = ["a", "b", "n"]
        else:
            lines.append(f"    if {writer.condition(['a', 'b'])}:")
            names = ["a", "b"]
        loop = container != "if"
        pad = "        "

        def ending() -> list[str]:
            kinds = ["", "return", "raise", "conditional"] + (["continue", "break", "continue"] if loop else [])
            kind = rng.choice(kinds)
            if kind == "conditional":
                inner = rng.choice(["return", "raise"] + (["continue", "break"] if loop else []))
                return [f"if {writer.condition(names)}:", f"    {_leave(inner, writer, names)}"]
            return [_leave(kind, writer, names)] if kind else []

        lines += [f"{pad}try:", f"{pad}    log.append(10 // ({rng.choice(names)} - {writer.constant()}))"]
        if rng.random() < 0.5:
            lines.append(f"{pad}    log.append(items[{rng.choice(names)}])")
        lines += [f"{pad}except ZeroDivisionError:", f"{pad}    log.append('zero')", *[f"{pad}    {line}" for line in ending()]]
        if rng.random() < 0.6:
            lines += [f"{pad}except (IndexError, ValueError) as error:", f"{pad}    log.append(type(error).__name__)", *[f"{pad}    {line}" for line in ending()]]
        if rng.random() < 0.7:
            lines += [f"{pad}else:", f"{pad}    log.append('else')", *[f"{pad}    {line}" for line in ending()]]
        if rng.random() < 0.7:
            lines.append(f"{pad}log.append('after')")
        if rng.random() < 0.5:
            lines.append("    log.append('end')")
        lines.append(rng.choice(["    return log", "    return a"]))
        functions.append("\n".join(lines))
    return "\n\n\n".join(functions) + "\n"


def _leave(kind: str, writer: _Writer, names: list[str]) -> str:
    return {"return": f"return {writer.value(names)}", "raise": f"raise ValueError({writer.value(names)})", "continue": "continue", "break": "break"}[kind]
