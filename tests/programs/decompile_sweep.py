"""The decompiler over real code: every function and method of the given modules.

    python decompile_sweep.py [--no-verify] OUT.json MODULE [MODULE ...]

Real functions cannot all be called with meaningful arguments, so each is checked by what can be
checked without calling it: the source is valid Python, and decompiling the function compiled
again from it gives the same source (a fixed point; a decompiler that drops or reorders
something rarely reproduces its own output). A function the decompiler refuses is
"unsupported", with the instruction; it must never crash. Writes per module: counts, the time
spent, and each function's result. Each decompiled function is also checked as
compilescope.decompile checks it (decompiler/verify.py: compiled again, it does what the bytecode
does): the ones it finds different are listed under "unverified", with what differs, and the
time the check took under "verify_seconds" (--no-verify: not checked, for timing the sweep
without it).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import re
import sys
import time
import traceback
import types
from pathlib import Path

from compilescope.decompiler.values import Unsupported
from compilescope.decompiler.building import function_source
from compilescope.decompiler.verify import difference

VERIFY = {"on": True, "seconds": 0.0, "unverified": {}}


def functions(module: types.ModuleType) -> list[tuple[str, types.CodeType]]:
    found: dict[int, tuple[str, types.CodeType]] = {}

    def add(name: str, value: object) -> None:
        value = inspect.unwrap(value) if callable(value) else value
        code = getattr(value, "__code__", None)
        if isinstance(code, types.CodeType) and getattr(value, "__module__", None) == module.__name__:
            found.setdefault(id(code), (name, code))

    for name, value in vars(module).items():
        if inspect.isclass(value) and value.__module__ == module.__name__:
            for attribute, member in vars(value).items():
                if isinstance(member, (staticmethod, classmethod)):
                    member = member.__func__
                if isinstance(member, property):
                    for part in (member.fget, member.fset, member.fdel):
                        if part is not None:
                            add(f"{name}.{attribute}", part)
                    continue
                add(f"{name}.{attribute}", member)
        else:
            add(name, value)
    return sorted(found.values(), key=lambda item: item[1].co_firstlineno)


def recompiled(source: str, name: str) -> types.CodeType:
    module = compile(source, "<decompiled>", "exec", dont_inherit=True)  # not this file's __future__ flags
    return next(c for c in module.co_consts if isinstance(c, types.CodeType))


def check(code: types.CodeType) -> str:
    try:
        source = function_source(code)
    except Unsupported as error:
        return f"unsupported: {error}"
    except RecursionError:
        return "unsupported: too deeply nested"
    except Exception as error:
        return f"crashed: {type(error).__name__}: {error} {traceback.format_exc(limit=-3)}"
    if VERIFY["on"]:
        started = time.perf_counter()
        said = difference(code, source)
        VERIFY["seconds"] += time.perf_counter() - started
        if said is not None:
            VERIFY["unverified"][code] = said
    rounds = [source]
    for _ in range(2):
        try:
            rounds.append(function_source(recompiled(rounds[-1], code.co_name)))
        except SyntaxError as error:
            return f"differs: not valid Python: {error}"
        except Unsupported as error:
            return f"unchecked: the decompiled source is valid, but decompiling it again is refused: {error}"
        except Exception as error:
            return f"crashed: on its own output: {type(error).__name__}: {error}"
        if _normal(rounds[-1]) == _normal(rounds[-2]):
            # a temporary of round one is a variable of round two: it may take one more round
            return "pass" if len(rounds) == 2 else "pass: the same from the second round"
    return "differs: not a fixed point"


def _normal(source: str) -> str:
    """The source with the decompiler's own names (__temp3, ___stack1) made alike, and the
    elements of set displays in one order (a set's order is its hashes', not the code's)."""
    tree = ast.parse(re.sub(r"\b_{2,}(temp|stack|const)\d+\b", "_T_", source))
    for node in ast.walk(tree):
        if isinstance(node, ast.Set):
            node.elts.sort(key=ast.dump)
    return ast.dump(tree)


def main() -> None:
    arguments = sys.argv[1:]
    if arguments[0] == "--no-verify":
        VERIFY["on"], arguments = False, arguments[1:]
    out, names = arguments[0], arguments[1:]
    report = {"python": f"{sys.version_info.major}.{sys.version_info.minor}", "modules": {}}
    for name in names:
        module = importlib.import_module(name)
        results, unverified = {}, {}
        started, verify_before = time.perf_counter(), VERIFY["seconds"]
        for qualified, code in functions(module):
            results[f"{qualified}:{code.co_firstlineno}"] = check(code)
            if code in VERIFY["unverified"]:
                unverified[f"{qualified}:{code.co_firstlineno}"] = VERIFY["unverified"][code]
        elapsed = time.perf_counter() - started
        counts: dict[str, int] = {}
        for result in results.values():
            key = result.split(":", 1)[0]
            counts[key] = counts.get(key, 0) + 1
        report["modules"][name] = {
            "counts": counts,
            "seconds": elapsed,
            "functions": results,
            "verify_seconds": VERIFY["seconds"] - verify_before,
            "unverified": unverified,
        }
    Path(out).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
