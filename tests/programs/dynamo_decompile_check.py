"""Run scripts under torch.compile, decompile every code object Dynamo generated, and call each
decompiled function with the arguments the real one got: same results?

    python dynamo_decompile_check.py OUT.json SCRIPT [SCRIPT ...]

Each script runs as __main__ (runpy). A bytecode hook collects Dynamo's transformed code (of the
compiled frames and of the resume functions after graph breaks) and the resume functions' own code;
a profile hook records the arguments of the first calls of each transformed code. Afterwards each
transformed code is decompiled, compiled again in a copy of its globals, and called beside the real
code with copies of the same arguments (same seed): the results must be equal, or both raise the
same exception type. Prints nothing the test relies on; writes JSON to OUT.
"""

from __future__ import annotations

import copy
import json
import runpy
import sys
import time
import traceback
import types
from pathlib import Path

import torch

from compilescope.decompiler.expressions import Unsupported
from compilescope.decompiler.structure import function_source

CALLS_KEPT = 3  # argument sets kept per transformed code

generated: dict[int, dict] = {}  # id(transformed code) -> what we know of it
alive: list = []  # keeps the codes alive, so no id is reused


def on_new_code(original: types.CodeType, transformed: types.CodeType) -> None:
    alive.extend([original, transformed])
    generated[id(transformed)] = {"original": original, "code": transformed, "calls": [], "globals": None, "script": current}


def profile(frame, event, arg):  # noqa: ANN001
    if event != "call":
        return
    entry = generated.get(id(frame.f_code))
    if entry is None or len(entry["calls"]) >= CALLS_KEPT:
        return
    code = frame.f_code
    count = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 4) + bool(code.co_flags & 8)
    names = code.co_varnames[:count]
    try:
        values = {name: copy.deepcopy(frame.f_locals[name]) for name in names}
    except Exception as error:  # an argument that cannot be copied: checked without it
        entry.setdefault("uncopyable", repr(error))
        return
    entry["calls"].append(values)
    entry["globals"] = frame.f_globals


def same(a, b) -> bool:  # noqa: ANN001
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return a.shape == b.shape and a.dtype == b.dtype and bool(torch.equal(a, b) or (a.isnan().any() and torch.allclose(a, b, equal_nan=True, rtol=0, atol=0)))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, torch.nn.Module) or isinstance(b, torch.nn.Module):
        return type(a) is type(b)
    return a == b


def outcome(function, call: dict):  # noqa: ANN001
    code = function.__code__
    arguments = copy.deepcopy(call)
    positional = [arguments.pop(name) for name in code.co_varnames[: code.co_argcount]]
    index = code.co_argcount + code.co_kwonlyargcount
    if code.co_flags & 4:
        positional += list(arguments.pop(code.co_varnames[index]))
        index += 1
    if code.co_flags & 8:
        arguments.update(arguments.pop(code.co_varnames[index]))
    torch.manual_seed(0)
    try:
        with torch.no_grad() if not torch.is_grad_enabled() else torch.enable_grad():
            return ("returned", function(*positional, **arguments))
    except Exception as error:
        return ("raised", type(error).__name__)


def check(entry: dict) -> dict:
    code = entry["code"]
    result = {"name": code.co_name, "script": entry["script"], "original": entry["original"].co_name, "calls": len(entry["calls"])}
    started = time.perf_counter()
    try:
        source = function_source(code)
    except Unsupported as error:
        result.update(result=f"unsupported: {error}", source=None)
        return result
    except Exception as error:  # a crash of the decompiler itself: never acceptable
        result.update(result=f"crashed: {type(error).__name__}: {error}", source=None, traceback=traceback.format_exc())
        return result
    result["seconds"] = time.perf_counter() - started
    result["source"] = source
    if code.co_freevars:
        result["result"] = "not called: a closure"
        return result
    if not entry["calls"]:
        result["result"] = "not called: no recorded call" + (f" ({entry['uncopyable']})" if "uncopyable" in entry else "")
        return result
    namespace = dict(entry["globals"])
    try:
        exec(compile(source, f"<decompiled {code.co_name}>", "exec"), namespace)
    except SyntaxError as error:
        result["result"] = f"differs: not valid Python ({error})"
        return result
    decompiled = namespace[code.co_name]
    real = types.FunctionType(code, entry["globals"], code.co_name)
    for call in entry["calls"]:
        expected, got = outcome(real, call), outcome(decompiled, call)
        if expected[0] != got[0] or not (same(expected[1], got[1]) if expected[0] == "returned" else expected[1] == got[1]):
            result["result"] = f"differs: the real code {expected[0]} {str(expected[1])[:200]}, the decompiled one {got[0]} {str(got[1])[:200]}"
            return result
    result["result"] = "pass"
    return result


current = ""


def main() -> None:
    global current
    out, scripts = sys.argv[1], sys.argv[2:]
    torch._dynamo.convert_frame.register_bytecode_hook(on_new_code)
    errors = {}
    for script in scripts:
        current = Path(script).name
        sys.argv = [script]
        torch._dynamo.reset()
        sys.setprofile(profile)
        try:
            runpy.run_path(script, run_name="__main__")
        except SystemExit:
            pass
        except Exception as error:
            errors[current] = f"{type(error).__name__}: {error}"
        finally:
            sys.setprofile(None)
    results = [check(entry) for entry in generated.values()]
    Path(out).write_text(json.dumps({"python": f"{sys.version_info.major}.{sys.version_info.minor}", "torch": torch.__version__, "script_errors": errors, "codes": results}, indent=1))


if __name__ == "__main__":
    main()
