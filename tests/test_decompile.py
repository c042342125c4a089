"""The decompiler on every Python torch supports: a corpus of functions run against their decompiled
source, and every function of real modules (stdlib, torch.nn) checked without running them.

tests/programs/decompile_check.py decompiles each function of its corpus (operators, calls with
keywords, methods, attributes, subscripts and slices, augmented assignment, literals, unpacking,
f-strings, every kind of parameter; if/elif/else, `and`/`or`/`not` conditions and values,
`is None`, nested ifs, early returns, raise, assert; for and while loops with continue, break,
else and nesting; generators; imports; nested functions, lambdas, decorators, closures, classes;
comprehensions of every kind; chained comparisons, assignment expressions, tuple and chained
assignments; try/except/finally and with, nested in each other and in loops), compiles the source
again and calls both with the same (copied) arguments, for every combination of the inputs listed
there. A result is "pass", "unsupported: <the instruction>" (shown as bytecode to the user, never
guessed) or "differs": a silent miscompile, which must never happen.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import ROOT, python_version

CHECK = ROOT / "tests" / "programs" / "decompile_check.py"
VERSIONS = ["3.10", "3.11", "3.12", "3.13"]
_STARTED: dict[tuple[str, str], tuple[subprocess.Popen, Path]] = {}


def _run(kind: str, version: str, arguments: list[str]) -> tuple[int, str, str, Path]:
    """Run `python SCRIPT ARGUMENTS` (`{out}` in them: a file of its own) with this version's
    Python: (return code, stdout, stderr, the file). The first test of a kind starts it for every
    version at once, so that the four runs share the machine's cores; each test then waits for
    its own. (A version missing here is found, skipped or failed, by its own test.)"""
    if not any(key[0] == kind for key in _STARTED):
        for other in VERSIONS:
            try:
                python = python_version(other)
            except (pytest.skip.Exception, pytest.fail.Exception):
                continue
            folder = tempfile.mkdtemp(prefix=f"decompile-{kind}-")  # (removed by _end_the_runs)
            out = Path(folder) / "out.json"
            command = [python, *[str(out) if a == "{out}" else a for a in arguments]]
            process = subprocess.Popen(
                command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")}
            )
            _STARTED[(kind, other)] = (process, out)
    python_version(version)  # (skips or fails here, for a Python that is not here)
    process, out = _STARTED[(kind, version)]
    stdout, stderr = process.communicate(timeout=900)
    return process.returncode, stdout, stderr, out


@pytest.fixture(scope="module", autouse=True)
def _end_the_runs() -> Iterator[None]:
    """When this file's tests are done, the runs _run started end (one whose test did not run, or
    stopped early, is killed) and their folders go. (atexit did this once, but an xdist worker can
    end without running atexit's handlers, and a run still going could write after them: its
    `decompile-*` folders stayed in the temporary folder.)"""
    yield
    for process, out in _STARTED.values():
        if process.poll() is None:
            process.kill()
        process.communicate()
        shutil.rmtree(out.parent, ignore_errors=True)
    _STARTED.clear()


# What is refused so far, per Python: listed so that any change, better or worse, shows here.
NOT_YET: dict[str, set[str]] = {
    "3.10": set(),
    "3.11": set(),
    "3.12": set(),
    "3.13": set(),
}


def _refused_changes(refused: dict[str, str], listed: set[str], newly: str = "newly refused", now: str = "now decompiled") -> list[str]:
    """What differs between the functions refused now (name: its result) and those listed: a
    line per name, with why for the newly refused ones."""
    added = [f"  {newly}: {name}: {refused[name][:200]}" for name in sorted(refused.keys() - listed)]
    removed = [f"  {now}: {name}" for name in sorted(listed - refused.keys())]
    return added + removed


def _changed_message(where: str, changes: list[str], what: str = "refused") -> str:
    return "\n".join(
        [
            f"the {what} functions are not those of {where} in tests/test_decompile.py: fix what is newly {what},"
            f" and update the list (remove the names now {'decompiled' if what == 'refused' else 'verified'}, add any {what} on purpose)",
            *changes,
        ]
    )


# Generated functions (tests/programs/decompile_generated.py): control flow nested in every
# order, each called with 6 inputs; 150 large ones (g), 150 small ones (s), which check each
# shape on its own, 150 trys in a loop or an if whose except clauses and else end in every way a
# clause can (c; added when c84 gave a wrong result on 3.11 and 3.12), and 150 match statements
# of random patterns (m), each run on 130 subjects. None may differ. (The inputs fit the
# functions, or decompile_check refuses them: once every call raised TypeError in both and
# nothing was compared. Each finally rebinds `log` as well as `a`, so a return of either read
# before the finally differs.) Those refused, per Python and kind, measured 2026-12-02: the
# generator is seeded, so the same names every run; any change, better or worse, shows here.
GENERATED = 150
GENERATED_REFUSED: dict[str, dict[str, set[str]]] = {
    "3.10": {
        "g": {"g20", "g47", "g76", "g110", "g137", "g146"},
        "s": {"s89"},
        "c": {"c42"},
        "m": set(),
    },
    "3.11": {
        "g": {"g47", "g110", "g142", "g146"},
        "s": set(),
        "c": {"c42", "c123"},
        "m": set(),
    },
    "3.12": {
        "g": {"g38", "g47", "g110", "g142", "g146"},
        "s": set(),
        "c": {"c42"},
        "m": set(),
    },
    "3.13": {
        "g": {"g1", "g26", "g38", "g47", "g110", "g140", "g142", "g146"},
        "s": set(),
        "c": {"c42"},
        "m": set(),
    },
}
KINDS = {"g": "large", "s": "small", "c": "except clauses", "m": "match statements"}


@pytest.mark.slow  # a sweep: every Python at once, minutes on 2 cores
@pytest.mark.parametrize("version", VERSIONS)
def test_generated_functions_round_trip(version: str) -> None:
    code, stdout, stderr, _ = _run("generated", version, [str(CHECK), str(GENERATED)])
    assert code == 0, stderr[-3000:]
    generated = json.loads(stdout)["generated"]
    assert len(generated) == len(KINDS) * GENERATED
    silent = {name: r["result"][:2000] for name, r in generated.items() if not r["result"].startswith(("pass", "unsupported"))}
    assert silent == {}, silent
    changes: list[str] = []
    for kind in KINDS:
        refused = {name: r["result"] for name, r in generated.items() if name[0] == kind and r["result"] != "pass"}
        passed = GENERATED - len(refused)
        print(f"generated ({KINDS[kind]}) on Python {version}: {passed}/{GENERATED} decompiled and equal ({passed / GENERATED:.0%})")
        changes += _refused_changes(refused, GENERATED_REFUSED[version][kind])
    # every kind checked before failing: one change of the decompiler often moves several
    assert not changes, _changed_message(f"GENERATED_REFUSED[{version!r}]", changes)


@pytest.mark.slow  # a sweep: every Python at once, minutes on 2 cores
@pytest.mark.parametrize("version", VERSIONS)
def test_straight_line_functions_round_trip(version: str) -> None:
    code, stdout, stderr, _ = _run("corpus", version, [str(CHECK)])
    assert code == 0, stderr[-3000:]
    results = json.loads(stdout)
    assert results["python"] == version
    functions = results["functions"]
    silent = {name: r["result"] for name, r in functions.items() if r["result"].startswith("differs")}
    assert silent == {}, silent
    refused = {name for name, r in functions.items() if r["result"].startswith("unsupported")}
    assert refused == NOT_YET[version], {name: functions[name]["result"] for name in refused ^ NOT_YET[version]}
    for name, r in functions.items():
        if r["source"]:
            ast.parse(r["source"])  # valid Python
            assert r["source"].startswith(f"def {name}(")
    # readable: what a person would have written
    assert "a += b" in functions["augmented"]["source"]
    assert "f'{name}={value!r} {value:>8.2f}" in functions["fstrings"]["source"]
    assert "def keyword_only(a, *, scale, shift=0):" in functions["keyword_only"]["source"]
    assert "elif x < 0:" in functions["branches"]["source"]
    # a swap, stored one name at a time by 3.11+, comes back as one parallel assignment
    assert re.search(r"^    \(?a, b\)? = \(b, a\)$", functions["swap"]["source"], re.M), functions["swap"]["source"]
    assert "if not items:\n        return None\n    if len(items) > limit:" in functions["early_return"]["source"]
    assert "for i in range(n):\n        total += i\n    return total" in functions["simple_loop"]["source"]
    loops = functions["for_loops"]["source"]
    assert "            if item > limit:\n                break" in loops
    assert "for cell in row:" in loops and "return (total, count, 'found')" in loops
    assert "    while a > 0 and a % 7:\n        a -= 2" in functions["while_condition"]["source"]
    assert "while i < n:" in functions["while_loop"]["source"]
    assert "    assert a, 'a is needed'\n    assert b > a\n" in functions["asserts"]["source"]
    assert "sent = (yield (i * 2))" in functions["generator"]["source"] or "sent = yield (i * 2)" in functions["generator"]["source"]
    assert "from collections import OrderedDict as OD" in functions["imports"]["source"]
    written = functions["comprehensions"]["source"]
    for comprehension in (
        "a = [x * 2 for x in y if x > 1]",
        "{k: v * scale for ",
        "(x + scale for x in y)",
        "d = [i * j for i in y for j in y if i != j]",
        "odd_squares = [i * i for i in range(len(y)) if i % 2]",
    ):
        assert comprehension in written, written
    nested = functions["nested_functions"]["source"]
    for part in (
        "key = lambda item, k=1: -item if item > k else item",
        "    def inner(v, *, w=3):",
        "    @functools.lru_cache(maxsize=None)\n    def cached(n):",
        "        nonlocal counter\n        counter += by",
    ):
        assert part in nested, nested
    assert "    try:\n        y = 10 / x\n" in functions["try_except"]["source"]
    assert "    except ZeroDivisionError as error:\n        y = str(error)\n" in functions["try_except"]["source"]
    assert "try:\n        return d[k]\n    except:\n        return None" in functions["try_return"]["source"]
    assert "    with io.StringIO(path_like) as handle:\n        text = handle.read()" in functions["with_block"]["source"]
    assert "    try:\n        return 10 / x\n    finally:\n        log.append(('done', x))" in functions["try_finally_return"]["source"]
    conditions = functions["conditions"]["source"]
    for written in ("if a and b and c:", "if not a or c:", "if a is None:", "if b is not None and b > 1:"):
        assert written in conditions
    # chains, assignment expressions, tuple and chained assignments, dotted imports: as
    # written, with no temporaries (each link, copy or swap of the bytecode once was one)
    chains = functions["chained_comparisons"]["source"]
    for written in (
        "if 0 <= a < 10 and b:",
        "a is b is None:",
        "while 0 < a < len(items) > 1:",
        "[x for x in items if 1 < x in items]",
        "assert -100 < a < 100, a",
        "a < b < items.count(a) < 5",
    ):
        assert written in chains, chains
    walrus = functions["walrus_in_generator"]["source"] + functions["walrus_in_tests"]["source"]
    for written in ("sum(((d := (x - c)) * d for x in data))", "while (x := len(items)) > 1:", "z = log[0:0] = [x]"):
        assert written in walrus, walrus
    assignments = functions["tuple_and_chained_assignments"]["source"]
    for written in (
        "head, tail = (p[:i], p[i:])",
        "a, b, c = (len(p), i + 1, log.pop())",
        "box.first = first = {}",
        "first[a] = box.second = [b, c]",
    ):
        assert written in assignments.replace("(head, tail)", "head, tail").replace("(a, b, c) =", "a, b, c ="), assignments
    assert "import xml.dom.minidom as m" in functions["dotted_imports"]["source"]
    keywords = functions["keyword_comprehensions"]["source"].replace("(k, v) in", "k, v in")  # 3.10's unparse
    for written in (
        "record_call(**{k: v for k, v in options.items()})",
        "record_call(0, kind=box.size, **{k: v for ",
        "record_call([box.size, 1], *[v for v in options.values()])",
    ):
        assert written in keywords, keywords
    assert "for a, _, _, b in rows:" in functions["unpack_discarded"]["source"].replace("(a, _, _, b)", "a, _, _, b")
    stars = re.sub(
        r"\(((?:\*?[\w.]+, )+\*?[\w.]+)\)( =| in)", r"\1\2", functions["star_unpacking"]["source"]
    )  # 3.10's unparse: `(a, *b) = x`
    for written in ("first, *rest = rows", "*init, last = rows", "[(h, t) for h, *t in rows]", "box.first, *box.rest = (head, len(rest))"):
        assert written in stars, stars
    assert "x = len(log) or (a and b) or c" in functions["threaded_and_or"]["source"], functions["threaded_and_or"]["source"]
    # code after a loop that several breaks reach is written once, after it
    assert functions["loop_breaks_past_return"]["source"].count("while lines:") == 1, functions["loop_breaks_past_return"]["source"]
    # conditions: De Morgan where it leaves fewer `not`s, no parentheses an `and` chain does not
    # need, `a or (b and c)` joined inside out, a conditional expression as a test
    assert "t in registry and t not in own and match not in own and not t.startswith(match):" in functions["dispatch_match"]["source"], (
        functions["dispatch_match"]["source"]
    )
    assert "[o for o in order if o not in known or (o in known and o in names)]" in functions["or_of_and"]["source"], functions[
        "or_of_and"
    ]["source"]
    tests = functions["conditional_tests"]["source"].replace("(key, value) in", "key, value in")
    for written in (
        "[f for f in fields if (f[0] if f[1] is None else f[1])]",
        "{key: value.upper() if isinstance(value, str) else value for key, value in options.items()}",
        "    if a if c else b:\n",
    ):
        assert written in tests, tests
    assert "str((m and a) or (b and c))" in functions["and_or_idiom"]["source"], functions["and_or_idiom"]["source"]
    assert "str(m[0] or m[1]) for m in members" in functions["element_or"]["source"], functions["element_or"]["source"]
    # keywords merged from a value chosen across blocks, and a folded tuple of positionals
    for written in (
        "record_call(*args, **(kwargs or {}))",
        "record_call(1, **(kwargs if c else {}))",
        "record_call(*box.items, **(box.kwargs or {}))",
    ):
        assert written in functions["merged_keywords"]["source"], functions["merged_keywords"]["source"]
    # a break inside a finally is the loop's (its handler drops the exception first)
    assert "        finally:\n            if x == 5:\n                break\n" in functions["finally_leaves"]["source"], functions[
        "finally_leaves"
    ]["source"]
    # match statements: class, sequence, mapping, or- and as-patterns, guards, as written
    shapes = functions["match_shapes"]["source"]
    for written in (
        "    match value:\n        case Point(0, 0):\n            return 'origin'\n",
        "case Point(x=0, y=y) if y > 0:",
        "case Point(x, y=0) | Point(0, x):",
        "case [Point() as p, *rest] if not rest:",
        "case [int(a) | float(a), str() as s, *_, None]:",
        "case [first, [second, third] | [second, third, _]]:",
        "case [] | [*_, False]:",
        "case {'kind': 'circle', 'r': r, **extra}:",
        "case {Color.RED: c}:",
        "case Color.GREEN | True:",
        "case -1 | 2.5 | 1 - 2j | b'x':\n            return 'literal'\n    return 'other'",
    ):
        assert written in shapes, shapes
    # (a last case that always matches: its guard and an `if` at the start of its body do the same)
    assert "        case iterable:\n            if hasattr(iterable, '__next__'):\n" in functions["match_slots"]["source"], functions[
        "match_slots"
    ]["source"]
    assert (
        "case 'normal' | 'gauss':" in functions["match_values"]["source"] and "case k if k in data:" in functions["match_values"]["source"]
    ), functions["match_values"]["source"]
    in_loop = functions["match_in_loop"]["source"]
    assert "            case 0 | '':\n                continue\n" in in_loop and in_loop.count("out.append('after')") == 1, in_loop
    assert "            match (verb, len(args)):\n                case ['go', 1]:" in functions["match_nested"]["source"], functions[
        "match_nested"
    ]["source"]
    for name in (
        "chained_comparisons",
        "walrus_in_generator",
        "walrus_in_tests",
        "tuple_and_chained_assignments",
        "while_one_continue",
        "keyword_comprehensions",
        "unpack_discarded",
        "star_unpacking",
        "expand_user",
        "threaded_and_or",
        "dispatch_match",
        "or_of_and",
        "conditional_tests",
        "element_or",
        "and_or_idiom",
        "positional_args",
        "members",
        "bind_arguments",
        "sparse_structs",
        "clause_loop_breaks",
        "cached_enabled",
        "merged_keywords",
    ):
        assert "__" not in functions[name]["source"], functions[name]["source"]
    for name in (
        "match_shapes",
        "match_slots",
        "match_falls_out",
        "match_in_loop",
        "match_nested",
        "match_one_case",
        "match_values",
        "match_while",
    ):
        assert not re.search(r"__(temp|stack)\d", functions[name]["source"]), functions[name]["source"]


SWEEP = ROOT / "tests" / "programs" / "decompile_sweep.py"
# Real code: every function and method of these modules (tests/programs/decompile_sweep.py checks
# each without calling it: valid Python, and the same source when its own output is decompiled).
STDLIB = [
    "textwrap",
    "string",
    "colorsys",
    "heapq",
    "bisect",
    "fnmatch",
    "posixpath",
    "shlex",
    "statistics",
    "difflib",
    "json.encoder",
    "json.decoder",
    "calendar",
    "argparse",
    "collections",
    "dataclasses",
    "functools",
    "ast",
    "tokenize",
    "pathlib",
    "enum",
    "copy",
    "pprint",
    "urllib.parse",
    "email.utils",
    "typing",
    "inspect",
    "tarfile",
    "zipfile",
    "configparser",
    "csv",
    "gettext",
    "glob",
    "locale",
    "logging",
    "optparse",
    "pickle",
    "random",
    "shutil",
    "subprocess",
    "tempfile",
    "threading",
    "traceback",
    "warnings",
    "weakref",
]
TORCH_NN = [
    "torch.nn.modules.linear",
    "torch.nn.modules.conv",
    "torch.nn.modules.activation",
    "torch.nn.modules.normalization",
    "torch.nn.modules.batchnorm",
    "torch.nn.modules.container",
    "torch.nn.modules.module",
    "torch.nn.modules.sparse",
    "torch.nn.modules.dropout",
    "torch.nn.modules.pooling",
    "torch.nn.modules.rnn",
    "torch.nn.modules.transformer",
    "torch.nn.functional",
]
# What is refused ("unsupported", or "unchecked": refused on its own output), per sweep and Python
# ("MODULE:QUALNAME:LINE"), so that any change, better or worse, shows here. On the day of
# GENERATED_REFUSED: none of 2645, 2743, 2722, 2674 stdlib functions on 3.10-3.13, nor of 581 torch.nn ones.
SWEEP_REFUSED: dict[str, set[str]] = {
    "stdlib 3.10": set(),
    "stdlib 3.11": set(),
    "stdlib 3.12": set(),
    "stdlib 3.13": set(),
    "torch.nn 3.11": set(),
    "torch.nn 3.12": set(),
}
# What is decompiled but not verified (decompiler/verify.py: compiled again, its bytecode differs
# from the original's), per sweep and Python ("MODULE:QUALNAME:LINE"), so that any change, better
# or worse, shows here. Seen among them: 3.10's `return` inside a try or a loop, a `return` the
# compiler copied into both sides of a conditional with values still waiting on the stack (kept
# in `__stack` temporaries), a loop's body copied after a `continue`, a value returned from
# inside a for loop (3.12+). torch.nn on 3.12 is not listed (not measured: no 3.12 torch here).
SWEEP_UNVERIFIED: dict[str, set[str]] = {
    "stdlib 3.10": {
        "difflib:HtmlDiff._line_wrapper:1810",
        "glob:iglob:26",
        "inspect:BoundArguments.args:2787",
        "inspect:_too_many:1466",
        "locale:getdefaultlocale:534",
        "pathlib:Path.resolve:1064",
        "pickle:_Pickler.save_bool:744",
        "posixpath:join:71",
        "subprocess:Popen._check_timeout:1192",
        "subprocess:Popen._try_wait:1914",
        "tarfile:TarInfo._posix_split_name:1088",
        "typing:_BaseGenericAlias.__mro_entries__:964",
        "urllib.parse:_splitpasswd:1100",
        "urllib.parse:_splitvalue:1204",
    },
    "stdlib 3.11": {
        "difflib:HtmlDiff._line_wrapper:1810",
        "tokenize:_tokenize:433",
        "typing:NamedTupleMeta.__new__:2891",
    },
    "stdlib 3.12": {
        "difflib:HtmlDiff._line_wrapper:1810",
        "inspect:BoundArguments.args:2882",
        "inspect:_too_many:1520",
        "locale:_getdefaultlocale:552",
        "pathlib:Path.resolve:1228",
        "pickle:_Pickler.save_bool:738",
        "shutil:copyfile:230",
        "subprocess:Popen._check_timeout:1247",
        "subprocess:Popen._try_wait:2001",
        "tarfile:TarInfo._posix_split_name:1089",
        "tokenize:Untokenizer.untokenize:188",
        "typing:NamedTupleMeta.__new__:2745",
        "typing:_BaseGenericAlias.__mro_entries__:1147",
        "typing:overload:2441",
        "urllib.parse:_splitpasswd:1129",
        "urllib.parse:_splitvalue:1233",
    },
    "stdlib 3.13": {
        "configparser:_Line._strip_inline:572",
        "difflib:HtmlDiff._line_wrapper:1810",
        "difflib:SequenceMatcher.find_longest_match:305",
        "difflib:SequenceMatcher.get_matching_blocks:421",
        "inspect:_too_many:1494",
        "shutil:copyfile:230",
        "subprocess:Popen._check_timeout:1257",
        "subprocess:Popen._try_wait:2015",
        "tarfile:TarInfo._posix_split_name:1114",
        "tokenize:Untokenizer.untokenize:210",
        "typing:NamedTupleMeta.__new__:2993",
        "typing:overload:2691",
        "urllib.parse:_splitpasswd:1139",
        "urllib.parse:_splitvalue:1243",
    },
    "torch.nn 3.11": set(),
}


def _sweep(python: str, modules: list[str], tmp_path: Path) -> dict:
    out = tmp_path / "sweep.json"
    done = subprocess.run(
        [python, str(SWEEP), str(out), *modules],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(out.read_text())


def _assert_sweep(report: dict, label: str) -> None:
    results = {f"{m}:{f}": r for m, data in report["modules"].items() for f, r in data["functions"].items()}
    wrong = {name: r[:300] for name, r in results.items() if r.startswith(("differs", "crashed"))}
    assert wrong == {}, wrong
    passed = sum(r.startswith("pass") for r in results.values())
    seconds = sum(data["seconds"] for data in report["modules"].values())
    print(
        f"{label} on Python {report['python']}: {passed}/{len(results)} decompiled ({passed / len(results):.0%}), {len(results) / seconds:.0f} functions/s"
    )
    key = f"{label} {report['python']}"
    changes = _refused_changes({name: r for name, r in results.items() if not r.startswith("pass")}, SWEEP_REFUSED[key])
    assert not changes, _changed_message(f"SWEEP_REFUSED[{key!r}]", changes)
    if key in SWEEP_UNVERIFIED:
        unverified = {f"{m}:{f}": said for m, data in report["modules"].items() for f, said in data["unverified"].items()}
        changes = _refused_changes(unverified, SWEEP_UNVERIFIED[key], "newly unverified", "now verified")
        assert not changes, _changed_message(f"SWEEP_UNVERIFIED[{key!r}]", changes, "unverified")


@pytest.mark.slow  # a sweep: every Python at once, minutes on 2 cores
@pytest.mark.parametrize("version", VERSIONS)
def test_stdlib_functions(version: str) -> None:
    code, _, stderr, out = _run("stdlib", version, [str(SWEEP), "{out}", *STDLIB])
    assert code == 0, stderr[-3000:]
    report = json.loads(out.read_text())
    assert report["python"] == version
    _assert_sweep(report, "stdlib")


@pytest.mark.slow
def test_torch_nn_functions(tmp_path: Path) -> None:
    import sys

    _assert_sweep(_sweep(sys.executable, TORCH_NN, tmp_path), "torch.nn")


@pytest.mark.slow
def test_torch_nn_functions_on_python_312(tmp_path: Path) -> None:
    from conftest import python312

    _assert_sweep(_sweep(str(python312()), TORCH_NN, tmp_path), "torch.nn")
