"""Modules given to torch.compile, as the program made them: torch.compile(module) makes an
OptimizedModule that holds the module as `_orig_mod`, and registering that submodule calls the
module-registration hooks of torch.nn (a public hook: nothing of torch's is replaced, and the
hook returns None, so the module is registered as it would be).

For each: its class, where its forward is, the user's line that called torch.compile, the
class's own public methods besides forward, and the lines of that file that call one of them
on the name the compiled module was given (`model.generate(...)`): such a call goes to the
original module (the OptimizedModule passes attributes on to it), and its `self(...)` runs
forward uncompiled (findings/compiled_modules.py). That scan of the source is done as the
program ends (record/recorder.py), on the file it ran from.
"""

from __future__ import annotations

import ast
import threading
import types
from dataclasses import dataclass, field
from typing import Any

from compilescope.record.generated import user_callers

MOST = 64  # modules recorded: a program that compiles thousands of modules is described by these


@dataclass
class _Compiled:
    module: str
    forward: tuple[str, int] | None
    callers: list[tuple[str, int, str]]
    methods: list[str] = field(default_factory=list)


class CompiledModules:
    def __init__(self) -> None:
        self.unavailable: str | None = None
        self._seen: list[_Compiled] = []
        self._lock = threading.Lock()
        self._handle: Any = None
        self._in_place: list[dict[str, Any]] = []  # modules compiled by module.compile(), found at exit (_compiled_in_place)

    def start(self) -> None:
        import compilescope.record.torch_adapter as torch_adapter

        handle = torch_adapter.on_module_registered(self._on_registered)
        if isinstance(handle, str):
            self.unavailable = f"not recorded: {handle}"
            return
        self._handle = handle
        import atexit

        # (at the program's exit, its own exit functions before: its modules are still alive,
        # as they are not once compilescope writes its last records)
        atexit.register(self._at_exit)

    def _at_exit(self) -> None:
        try:
            self._in_place = _compiled_in_place()
        except Exception:  # (a bonus: never let it fail the program's exit)
            pass

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.remove()
            self._handle = None

    def _on_registered(self, parent: Any, name: str, submodule: Any) -> None:
        if name != "_orig_mod" or type(parent).__name__ != "OptimizedModule":
            return None
        try:
            kind = type(submodule)
            methods = [
                n
                for n, value in vars(kind).items()
                if isinstance(value, (types.FunctionType, staticmethod, classmethod)) and not n.startswith("_") and n != "forward"
            ]
            item = _Compiled(
                module=kind.__qualname__,
                forward=_forward_of(kind),
                callers=user_callers(),
                methods=methods[:50],
            )
            with self._lock:
                if len(self._seen) < MOST:
                    self._seen.append(item)
        except Exception:  # a bonus: never let it fail the program's torch.compile
            pass
        return None

    def facts(self) -> dict[str, Any]:
        if self.unavailable is not None:
            return {"unavailable": self.unavailable}
        with self._lock:
            seen = list(self._seen)
        return {"modules": [_facts(item) for item in seen] + self._in_place}


def _compiled_in_place() -> list[dict[str, Any]]:
    """Where Dynamo compiled no frame at all: the modules compiled in place (`model.compile()`),
    found once the program is over. Such a module of torch.nn's own (an nn.Sequential) compiles
    nothing: every frame its call runs is in torch's files, which Dynamo skips
    (findings/before_compile.py says so). Not looked for where something compiled (the scan
    reads every object the collector tracks)."""
    import compilescope.record.torch_adapter as torch_adapter

    if torch_adapter.frames_dynamo_converted() != 0:
        return []
    found = []
    for module in torch_adapter.modules_compiled_in_place(MOST):
        forward = _forward_of(type(module))
        found.append(
            {
                "module": type(module).__qualname__,
                "forward_filename": forward[0] if forward else None,
                "forward_lineno": forward[1] if forward else None,
                "in_place": True,
            }
        )
    return found


def _forward_of(kind: type) -> tuple[str, int] | None:
    """Where a module class's forward is defined (file, first line); None where it has no code."""
    code = getattr(getattr(kind, "forward", None), "__code__", None)
    return (code.co_filename, code.co_firstlineno) if code is not None else None


def _facts(item: _Compiled) -> dict[str, Any]:
    import linecache

    where = item.callers[-1] if item.callers else None
    code = linecache.getline(where[0], where[1]).strip() or None if where else None
    facts: dict[str, Any] = {
        "module": item.module,
        "forward_filename": item.forward[0] if item.forward else None,
        "forward_lineno": item.forward[1] if item.forward else None,
        "compiled_from": [f"{file}:{line} in {name}" for file, line, name in item.callers],
        "compile_code": code,
        "methods": item.methods,
        "method_calls": [],
    }
    if where is not None and item.methods:
        try:
            facts["method_calls"] = _method_calls(where[0], where[1], item.methods)
        except Exception:
            pass
    return facts


def _method_calls(filename: str, lineno: int, methods: list[str], most: int = 10) -> list[dict[str, Any]]:
    """The calls, in the file, of the class's own methods on the name the torch.compile call at
    `lineno` is assigned to (`model = torch.compile(model)` ... `model.generate(x)`)."""
    import linecache

    source = "".join(linecache.getlines(filename))
    if not source or len(source) > 2_000_000:
        return []
    tree = ast.parse(source)
    targets: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and node.lineno <= lineno <= (node.end_lineno or node.lineno):
            if isinstance(node.value, ast.Call) and _is_compile(node.value.func):
                targets.update(t.id for t in node.targets if isinstance(t, ast.Name))
    found: list[dict[str, Any]] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in targets
            and node.func.attr in methods
            and node.lineno > lineno
        ):
            found.append(
                {
                    "method": node.func.attr,
                    "filename": filename,
                    "lineno": node.lineno,
                    "code": linecache.getline(filename, node.lineno).strip() or None,
                    "name": node.func.value.id,
                }
            )
    found.sort(key=lambda call: int(call["lineno"]))
    return found[:most]


def _is_compile(func: ast.expr) -> bool:
    """`torch.compile` or a bare `compile` imported from torch."""
    return (isinstance(func, ast.Attribute) and func.attr == "compile") or (isinstance(func, ast.Name) and func.id == "compile")
