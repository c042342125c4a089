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
import os
import runpy
import sys
import time
import traceback
import types
from pathlib import Path

import torch

from compilescope.decompiler.values import Unsupported
from compilescope.decompiler.building import function_source

CALLS_KEPT = 3  # argument sets kept per transformed code
DUMP = os.environ.get("DECOMPILE_CHECK_DUMP")  # a file to write each transformed code's bytecode to (debugging)

generated: dict[int, dict] = {}  # id(transformed code) -> what we know of it
alive: list = []  # keeps the codes alive, so no id is reused


def on_new_code(original: types.CodeType, transformed: types.CodeType) -> None:
    alive.extend([original, transformed])
    generated[id(transformed)] = {"original": original, "code": transformed, "calls": [], "globals": None, "script": current}
    if DUMP:
        import dis

        with open(DUMP, "a") as out:
            out.write(f"==== {transformed.co_name}\n")
            dis.dis(transformed, file=out)


def profile(frame, event, arg):  # noqa: ANN001
    if event != "call":
        return
    entry = generated.get(id(frame.f_code))
    if entry is None or len(entry["calls"]) >= CALLS_KEPT:
        return
    snapshot(frame, entry)


@torch._dynamo.disable  # the copies are ours: Dynamo must not compile what deepcopy calls
def snapshot(frame, entry: dict) -> None:  # noqa: ANN001
    code = frame.f_code
    count = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 4) + bool(code.co_flags & 8)
    names = code.co_varnames[:count]
    try:
        values = {name: copy.deepcopy(frame.f_locals[name]) for name in names}
        # a closure's free variables, as the cells of the function it is called as
        free = {name: frame.f_locals[name] for name in code.co_freevars if name in frame.f_locals}
    except Exception as error:  # an argument that cannot be copied: checked without it
        entry.setdefault("uncopyable", repr(error))
        return
    if len(free) != len(code.co_freevars):
        entry.setdefault("uncopyable", "a free variable without a value")
        return
    values["__free__"] = free
    entry["calls"].append(values)
    entry["globals"] = frame.f_globals


def same(a, b, depth: int = 0) -> bool:  # noqa: ANN001
    if depth > 20:
        return False
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return a.shape == b.shape and a.dtype == b.dtype and bool(torch.equal(a, b) or (a.isnan().any() and torch.allclose(a, b, equal_nan=True, rtol=0, atol=0)))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y, depth + 1) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return type(a) is type(b) and a.keys() == b.keys() and all(same(a[k], b[k], depth + 1) for k in a)
    if isinstance(a, torch.nn.Module) or isinstance(b, torch.nn.Module):
        return type(a) is type(b)
    if type(a) is type(b) and hasattr(a, "__dict__") and not isinstance(a, type) and a is not b:
        return same(vars(a), vars(b), depth + 1)  # an object made by the call (a KV cache): its fields
    return a == b


def outcome(make, call: dict):  # noqa: ANN001
    arguments = copy.deepcopy(call)
    function = make(arguments.pop("__free__"))
    code = function.__code__
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
        return ("raised", type(error).__name__, str(error)[:300])


def check(entry: dict) -> dict:
    code = entry["code"]
    result = {"name": code.co_name, "script": entry["script"], "original": entry["original"].co_name, "calls": len(entry["calls"])}
    started = time.perf_counter()
    try:
        source = function_source(code)
    except Unsupported as error:
        result.update(result=f"unsupported: {error}", source=None)
        if DUMP:  # the code object itself, to look at with marshal.load
            import marshal

            Path(f"{DUMP}.{code.co_name}.{id(code)}.marshal").write_bytes(marshal.dumps(code))
        return result
    except Exception as error:  # a crash of the decompiler itself: never acceptable
        result.update(result=f"crashed: {type(error).__name__}: {error}", source=None, traceback=traceback.format_exc())
        return result
    result["seconds"] = time.perf_counter() - started
    result["source"] = source
    if not entry["calls"]:
        result["result"] = "not called: no recorded call" + (f" ({entry['uncopyable']})" if "uncopyable" in entry else "")
        return result
    namespace = dict(entry["globals"])
    # constants no literal writes are named in the source (`__const5`): give them their objects
    for line in source.splitlines():
        if line.startswith("# __") and " is the code's constant " in line:
            name = line[2:].split(" ", 1)[0]
            namespace[name] = code.co_consts[int(name.rsplit("const", 1)[1])]
    free = list(code.co_freevars)
    # a closure is defined inside a function that holds its free variables
    wrapped = source if not free else f"def __make({', '.join(free)}):\n" + "".join(f"    {line}\n" for line in source.splitlines()) + f"    return {code.co_name}\n"
    try:
        exec(compile(wrapped, f"<decompiled {code.co_name}>", "exec", dont_inherit=True), namespace)
    except SyntaxError as error:
        result["result"] = f"differs: not valid Python ({error})"
        return result

    def decompiled(values: dict):  # noqa: ANN202
        return namespace["__make"](**values) if free else namespace[code.co_name]

    def real(values: dict):  # noqa: ANN202
        return types.FunctionType(code, entry["globals"], code.co_name, None, tuple(types.CellType(values[n]) for n in free))

    for call in entry["calls"]:
        expected, got = outcome(real, call), outcome(decompiled, call)
        if expected[0] != got[0] or not (same(expected[1], got[1]) if expected[0] == "returned" else expected[1] == got[1]):
            result["result"] = f"differs: the real code {expected[0]} {str(expected[1:])[:200]}, the decompiled one {got[0]} {str(got[1:])[:300]}"
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
