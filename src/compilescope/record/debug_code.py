"""Dynamo's code written as source and run from it, for a debugger (compilescope.debug, run --debug-dir).

The one place where compilescope changes the code a program runs, and only because the user
asked for it. Dynamo's bytecode hook gives us each code object Dynamo makes, before it first
runs: the transformed code of each compiled version (it calls the compiled graph, runs what
broke the graph, and calls the resume function) and that of each resume function Dynamo
compiles. Each is decompiled, written as a .py file, compiled back from that file
(record/compile_like.py), checked, and handed back to Dynamo to run in place of its own: its
co_filename and line numbers are the file's, so a debugger stops at a breakpoint set in it, with
the frame's real locals.

Where the decompiler does not read all of the code, or the code compiled back differs from
Dynamo's in what the frame needs or in what it does, Dynamo's own code runs, and the file's
first lines say so: the program always computes what it computes without us. A failure of ours
in the hook is kept (HookFailures) and Dynamo's code runs.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass, field
from types import CodeType
from typing import Any

from compilescope.record.compile_like import compile_like
from compilescope.record.hook_failures import HookFailures
from compilescope.trace.reader import CompileId

FILE_PREFIX = "__transformed_code_"
_UNSAFE = re.compile(r"[^A-Za-z0-9_]+")
_GRAPH = re.compile(r"^__compiled_fn_\d+")
_RESUME = re.compile(r"^__resume_at_\d+_\d+$")
# What the one status line says (the header keeps its number of lines whatever it says, so that
# the line numbers the code was compiled with stay the file's).
# the decompiler's warning atop Dynamo's code it could not verify (decompiler/api.py _checked)
_UNVERIFIED = re.compile(r"\A# compilescope: Dynamo's code, not verified[^\n]*\n#[^\n]*\n")
CHECKED = (
    "# Not verified instruction for instruction against Dynamo's bytecode (it keeps values on its stack as\n"
    "# no source can); compilescope checked its arguments, cells, globals, attributes and constants."
)
RUNS = "# RUNS FROM THIS FILE: Dynamo runs this code, compiled from this text: set breakpoints here."
NOT_RUN = "# NOT RUN: Dynamo's own code runs for this one, not this text ({why}); breakpoints here never stop."


@dataclass
class WrittenCode:
    """One code object Dynamo made, as written for the debugger."""

    path: str
    function: str  # the function Dynamo compiled ("f", "torch_dynamo_resume_in_f_at_10")
    compile_id: str
    original: CodeType  # the code Dynamo compiled
    dynamo_code: CodeType  # the code Dynamo made
    runs: CodeType | None  # ours, compiled from the file, running in its place; None: Dynamo's runs
    note: str | None = None  # why Dynamo's own code runs
    graphs: list[str] = field(default_factory=list)  # the compiled graphs it calls
    resumes: dict[str, str] = field(default_factory=dict)  # global name -> resume function's name


class DebugCode:
    """The bytecode hook: write each code object Dynamo makes into `folder`, and return the code
    compiled from that file for Dynamo to run (None: Dynamo keeps its own)."""

    def __init__(self, folder: str, tag: str = "") -> None:
        self.folder = folder
        self.tag = tag  # ".rank3" under a launcher: each rank its own files
        self.written: list[WrittenCode] = []
        self.failures = HookFailures("writing Dynamo's code for the debugger")
        self.unavailable: str | None = None
        self._handle: Any = None
        self._lock = threading.Lock()

    def start(self) -> None:
        import compilescope.record.torch_adapter as torch_adapter

        # First among the hooks: the others (compilescope's own recorders, a user's) then see,
        # and record, the code that runs.
        handle = torch_adapter.register_bytecode_hook(self, first=True)
        if isinstance(handle, str):
            self.unavailable = handle
            return
        self._handle = handle

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.remove()
            self._handle = None

    def __call__(self, original: CodeType, transformed: CodeType) -> CodeType | None:
        try:
            return self._write(original, transformed)
        except Exception as error:  # never fail the program's compile: Dynamo's code runs
            self.failures.add(error, getattr(original, "co_name", "?"))
            return None

    def _write(self, original: CodeType, transformed: CodeType) -> CodeType | None:
        import compilescope.record.torch_adapter as torch_adapter
        from compilescope.decompiler import decompile_code
        from compilescope.outputs import write_text

        found = torch_adapter.current_compile_id()
        compile_id = str(CompileId(**found)) if found else "unknown"
        item = WrittenCode("", original.co_name, compile_id, original, transformed, None)
        item.graphs = [n for n in transformed.co_names if _GRAPH.match(n)]
        scope = torch_adapter.compiling_globals(original) or {}
        for name in transformed.co_names:
            resume = getattr(scope.get(name), "__code__", None) if _RESUME.match(name) else None
            if isinstance(resume, CodeType):
                item.resumes[name] = resume.co_name
        item.path = self._new_path(f"{FILE_PREFIX}{_UNSAFE.sub('_', compile_id)}_for_{_UNSAFE.sub('_', original.co_name)}{self.tag}")
        decompiled = decompile_code(transformed)
        head = header(item)
        body = decompiled.source if decompiled.source.endswith("\n") else decompiled.source + "\n"
        result: CodeType | str
        if not decompiled.complete:
            result = f"the decompiler could not read all of it: {decompiled.note}"
        else:
            # Dynamo's code never verifies instruction for instruction (it keeps values on its stack
            # across statements): compile_like checks what running it needs: its arguments, cells,
            # globals, attributes and constants, as Dynamo's. The text, with no "not the function"
            # warning: here it is what runs.
            if _UNVERIFIED.match(body):
                body = _UNVERIFIED.sub("", body, count=1)
                head = head.replace("{status}", "{status}\n" + CHECKED)
            result = compile_like(head.replace("{status}", RUNS) + body, item.path, transformed, original)
        if isinstance(result, str):
            item.note = result
            status = NOT_RUN.format(why=" ".join(result.split()))
        else:
            item.runs = result
            status = RUNS
        write_text(item.path, head.replace("{status}", status) + body, "a file of Dynamo's code for the debugger")
        with self._lock:
            self.written.append(item)
        return item.runs

    def _new_path(self, stem: str) -> str:
        """The file's path: named by its compile id, so that a second run of the program writes
        the same names (a breakpoint set in the first run's files holds); a name this run wrote
        already (compile ids start again after torch._dynamo.reset()) gets a number."""
        with self._lock:
            taken = {item.path for item in self.written}
            path, number = os.path.join(self.folder, f"{stem}.py"), 1
            while path in taken:
                number += 1
                path = os.path.join(self.folder, f"{stem}_{number}.py")
            return path


def header(item: WrittenCode) -> str:
    """The file's first lines (`{status}` stands for the one line that says whether it runs)."""
    where = f"{item.original.co_filename}:{item.original.co_firstlineno}"
    graphs = ", ".join(item.graphs) or "none"
    lines = [
        f"# compilescope: Dynamo's transformed code of {item.function} (compile {item.compile_id}), for a debugger.",
        "{status}",
        f"# {item.function} is at {where}. When the guard of compile {item.compile_id} holds, torch runs this",
        "# function in its place, with the same arguments. The compiled graph is one call (step over it",
        f"# with `next`): {graphs}.",
    ]
    for global_name, function in item.resumes.items():
        lines.append(
            f"# After the graph break it calls {global_name} ({function}): once Dynamo compiles that, its code is in"
            f" {FILE_PREFIX}*_for_{_UNSAFE.sub('_', function)}.py"
        )
    lines.append("# Guards are checked by torch in C++ (its guard managers): no Python guard function runs, so none")
    lines.append("# can be stepped into. The guard, written as Python to read, follows the code once the run ends.")
    return "\n".join(lines) + "\n\n"
