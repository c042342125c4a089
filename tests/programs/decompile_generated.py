"""Functions for the decompiler's round trip, written by a program: many shapes of control flow
that no one would write by hand, nested in every order (if/elif/else, for and while with
break/continue/else, try/except/else/finally, with, early returns and raises, `and`/`or`,
conditional expressions, comprehensions).

    source(count, seed) -> the source of functions g0 ... g{count-1}, a third each with compound
                           statements nested 1, 2 and 3 deep
    small_source(count, seed) -> s0 ... s{count-1}: one or two statements, at most two deep
    clause_source(count, seed) -> c0 ... c{count-1}: a try in a loop or an if, whose clauses
                                  and else end in every way a clause can end
    match_source(count, seed) -> m0 ... m{count-1}: a match statement of random patterns (class,
                                 sequence, mapping, or-, as-, value, capture), with guards and
                                 a default or not, on every value of SUBJECTS (Python 3.10+)
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


class Point:
    """A class for class patterns: positional sub-patterns match through __match_args__."""

    __match_args__ = ("x", "y")

    def __init__(self, x, y):
        self.x, self.y = x, y

    def __repr__(self):
        return f"Point({self.x!r}, {self.y!r})"


class K:
    """Dotted names for value patterns (`case K.A:`)."""

    A = 1
    B = "b"


# what each generated match is tried on: values each kind of pattern matches, and does not
_SCALARS = [0, 1, -1, "a", "b", 2.5, True, False, None, b"x", 1 + 2j, "ab"]
_SHAPES = [[], [0], [1, "a"], (1, "b", None), [0, [1, "a"]], ["a", "b", "c", "d"], {}, {"a": 1}, {"a": 0, "b": "a"},
           {1: "x", "a": [0]}, Point(0, 1), Point("a", Point(1, 0)), Point([1], {}), [Point(1, 1), 2.5], [[0], [1, "a"]],
           {"b": None, "c": 1}, [None, None, None], (True, False)]
SUBJECTS = _SCALARS + _SHAPES + [[x, y] for x in _SCALARS for y in _SHAPES[:8]]
MATCH_NAMESPACE = {"Point": Point, "K": K, "SUBJECTS": SUBJECTS}


class _Patterns:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def pattern(self, depth: int, names: list[str], captures: bool = True) -> tuple[str, list[str]]:
        """A pattern's source, and the names it binds (new ones, from `names`' count)."""
        rng = self.rng
        kinds = ["value", "wildcard", "capture", "sequence", "mapping", "class", "or", "as", "none"] if captures else ["value", "sequence", "mapping", "class", "none"]
        if depth > 2:
            kinds = ["value", "wildcard", "capture", "none"] if captures else ["value", "none"]
        kind = rng.choice(kinds)
        if kind == "value":
            return rng.choice(["0", "1", "-1", "'a'", "'b'", "2.5", "K.A", "K.B", "True", "False", "b'x'", "1 + 2j"]), []
        if kind == "none":
            return "None", []
        if kind == "wildcard":
            return "_", []
        if kind == "capture":
            return self.name(names), names[-1:]
        if kind == "sequence":
            parts, bound = self.parts(rng.randint(0, 3), depth, names, captures)
            if rng.random() < 0.4:
                star = "*" + self.name(names) if captures and rng.random() < 0.5 else "*_"
                bound += [star[1:]] if star != "*_" else []
                parts.insert(rng.randint(0, len(parts)), star)
            return "[" + ", ".join(parts) + "]", bound
        if kind == "mapping":
            keys = rng.sample(["'a'", "'b'", "1", "K.A"], rng.randint(0, 2))
            parts, bound = self.parts(len(keys), depth, names, captures)
            parts = [f"{key}: {part}" for key, part in zip(keys, parts)]
            if captures and rng.random() < 0.3:
                parts.append("**" + self.name(names))
                bound.append(names[-1])
            return "{" + ", ".join(parts) + "}", bound
        if kind == "class":
            cls = rng.choice(["Point", "int", "str", "list", "dict"])
            parts, bound = [], []
            if cls == "Point":
                parts, bound = self.parts(rng.randint(0, 2), depth, names, captures)
                for attribute in ["x", "y"][len(parts):]:
                    if rng.random() < 0.5:
                        part, more = self.pattern(depth + 1, names, captures)
                        parts.append(f"{attribute}={part}")
                        bound += more
            elif cls in ("int", "str") and rng.random() < 0.5:
                parts, bound = self.parts(1, depth, names, captures)
            return f"{cls}({', '.join(parts)})", bound
        if kind == "or":  # alternatives bind nothing, or each binds the same one name
            alternatives = [self.pattern(depth + 1, names, False)[0] for _ in range(rng.randint(2, 3))]
            if captures and rng.random() < 0.3:
                name = self.name(names)
                return " | ".join(f"({alternative} as {name})" for alternative in alternatives), [name]
            return "(" + " | ".join(alternatives) + ")", []
        inner, bound = self.pattern(depth + 1, names, captures)  # as
        if inner == "_" or inner in bound:
            return inner, bound
        return f"({inner} as {self.name(names)})", bound + names[-1:]

    def parts(self, count: int, depth: int, names: list[str], captures: bool) -> tuple[list[str], list[str]]:
        parts, bound = [], []
        for _ in range(count):
            part, more = self.pattern(depth + 1, names, captures)
            parts.append(part)
            bound += more
        return parts, bound

    @staticmethod
    def name(names: list[str]) -> str:
        names.append(f"v{len(names)}")
        return names[-1]


def match_source(count: int, seed: int = 23) -> str:
    """Functions m0 ... m{count-1}: each runs a match statement (`cases`, a nested function,
    some in a for loop over its subject) on every value of SUBJECTS and on its own arguments,
    and returns what each run returned and logged. Cases return, log and go on, and in the
    loop continue or break; a third have guards (a case that always matches has one where
    cases follow it), two in five a default."""
    rng = random.Random(seed)
    writer = _Patterns(rng)
    functions = []
    for index in range(count):
        loop = rng.random() < 0.3
        pad, subject = ("            ", "t") if loop else ("        ", "s")
        lines = [f"def m{index}(a, b, items, log):", "    def cases(s, log):"]
        if loop:
            lines.append("        for t in s if isinstance(s, (list, tuple)) else [s]:")
        lines.append(f"{pad}match {subject}:")
        total = rng.randint(1, 5)
        always = False
        for case in range(total):
            names: list[str] = []
            pattern, bound = writer.pattern(0, names)
            always = pattern == "_" or pattern in bound
            guard = ""
            if rng.random() < 0.3 or (always and case < total - 1):
                guard = f" if {bound[0]} != 0" if bound else rng.choice([" if log", " if len(log) < 3"])
            lines.append(f"{pad}    case {pattern}{guard}:")
            value = "(" + ", ".join([str(case), *bound]) + ",)"
            ending = rng.choice(["return", "append", "append"] + (["continue", "break"] if loop else []))
            lines.append(f"{pad}        return {value}" if ending == "return" else f"{pad}        log.append({value})")
            if ending in ("continue", "break"):
                lines.append(f"{pad}        {ending}")
            always = always and not guard
        if rng.random() < 0.4 and not always:
            lines += [f"{pad}    case _:", f"{pad}        log.append('default')"]
        lines += [f"{pad}log.append('after')", "        return log", "    return [cases(s, []) for s in [*SUBJECTS, a, b, items]]"]
        functions.append("\n".join(lines))
    return "\n\n\n".join(functions) + "\n"


def _leave(kind: str, writer: _Writer, names: list[str]) -> str:
    return {"return": f"return {writer.value(names)}", "raise": f"raise ValueError({writer.value(names)})", "continue": "continue", "break": "break"}[kind]
