"""What torch.compile made of each function, as .py files (compilescope decompile, run --decompile).

One file per compiled function, numbered in the order the program first compiled them. Each
reads top to bottom in the order the program runs:

1. the function as Dynamo got it (decompiled from its bytecode);
2. for each compiled version: its guard as a Python function (torch's own checks, one per line),
   the code Dynamo runs when the guard holds (its transformed bytecode, decompiled), and the graph
   that code calls, as torch printed it;
3. the resume functions that code calls after a graph break, under the names it calls them by
   (`__resume_at_102_2`), each followed by its own compiled versions, the same way.

Every file is valid Python (checked with `ast.parse`): to read and search, not to run, since the
compiled graphs and torch's guard helpers exist only inside the compiled program. Anything that is
not valid Python as torch wrote it (a guard in torch's own notation) is kept as a comment.
"""

from __future__ import annotations

import ast
import functools
import keyword
import re
from dataclasses import dataclass
from pathlib import Path

from compilescope.outputs import check_writable, write_text
from compilescope.session.model import Compile, Frame, Guard, Session

_UNSAFE = re.compile(r"[^A-Za-z0-9_]+")


@dataclass
class PyFile:
    name: str  # "01_toy_example.py"
    function: str
    text: str
    compiles: list[str]  # the compiles it shows, as "function compile_id" (its resume functions' too)


def python_files(session: Session, made: dict[int, str] | None = None) -> list[PyFile]:
    """The files for a session; empty when it holds no decompiled code (a trace from elsewhere,
    or a run with the decompiler unavailable). `made`: guard functions made already (the HTML
    report makes them for its compiles' details), by id() of their Compile, not made again."""
    if not any(c.transformed_code is not None for f in session.frames for c in f.compiles):
        return []
    resumes: dict[str, list[tuple[Frame, Compile]]] = {}
    for frame in session.frames:
        for compile_ in frame.compiles:
            for name in compile_.called_as:
                resumes.setdefault(name, []).append((frame, compile_))
    linked = {id(c) for versions in resumes.values() for _, c in versions}
    files: list[PyFile] = []
    for frame in session.frames:
        own = [c for c in frame.compiles if id(c) not in linked]
        if not own:
            continue
        writer = _Writer(session, resumes, made or {})
        writer.frame(frame, own)
        number = len(files) + 1
        name = f"{number:02d}_{_UNSAFE.sub('_', frame.name).strip('_') or 'function'}.py"
        files.append(PyFile(name, frame.name, writer.text(), writer.shown))
    return files


def write_python_files(session: Session, folder: str | Path) -> list[Path]:
    """Write the files into `folder` (made if missing). A file of that name that compilescope
    did not write stops it (OutputError) before anything is written."""
    target = Path(folder)
    files = python_files(session)
    if target.is_dir():
        for item in files:
            check_writable(target / item.name, "a decompiled file")
    target.mkdir(parents=True, exist_ok=True)
    return [Path(write_text(target / item.name, item.text, "a decompiled file")) for item in files]


class _Writer:
    def __init__(self, session: Session, resumes: dict[str, list[tuple[Frame, Compile]]], made: dict[int, str]) -> None:
        self.session = session
        self.resumes = resumes
        self.made = made
        self.parts: list[str] = []
        self.done: set[str] = set()  # resume functions already written
        self.shown: list[str] = []

    def text(self) -> str:
        return "\n\n".join(self.parts).rstrip() + "\n"

    def frame(self, frame: Frame, compiles: list[Compile]) -> None:
        env = self.session.environment
        where = f"{frame.filename}:{frame.lineno}" if frame.filename else "unknown file"
        self.parts.append(
            _comment(
                f"compilescope: what torch.compile made of {frame.name} ({where}), decompiled.\n"
                f"Python {env.python or 'unknown'}, torch {env.torch or 'unknown'}. Valid Python to read, not to run: the compiled\n"
                "graphs and torch's guard helpers exist only inside the compiled program.\n"
                "In the order it runs: the function as Dynamo got it; then each compiled version: its guard, the\n"
                "code Dynamo runs when the guard holds, and the graph that code calls; then the resume\n"
                "functions that code calls after a graph break, under the names it calls them by."
            )
        )
        first = compiles[0].original_code
        if first is not None:
            self.parts.append(
                _comment(f"{frame.name}, as Dynamo got it (its bytecode, decompiled)") + "\n" + _source(first.source, first.complete)
            )
        for compile_ in compiles:
            self.version(frame, compile_)

    def version(self, frame: Frame, compile_: Compile) -> None:
        cid = compile_.compile_id
        self.shown.append(f"{frame.name} {cid}")
        tag = _UNSAFE.sub("_", cid)
        name = _UNSAFE.sub("_", frame.name)
        heading = f"---- compiled version {cid} of {frame.name}: {compile_.status} ----"
        if compile_.recompile_reason:
            heading += "\ncompiled again because: " + "; ".join(compile_.recompile_reason)
        self.parts.append(_comment(heading))
        if compile_.guards:
            made = self.made.get(id(compile_))
            self.parts.append(made if made is not None else guard_function(guard_name(frame, compile_), compile_.guards, cid))
        code = compile_.transformed_code
        if code is not None:
            source = renamed(code.source, f"__transformed_code_{tag}_for_{name}")
            self.parts.append(
                _comment(f"What Dynamo runs for {frame.name} when the guard of {cid} holds (its bytecode, decompiled)")
                + "\n"
                + _source(source, code.complete)
            )
        elif compile_.status in ("failed", "skipped") or compile_.failure:
            why = f" ({compile_.failure})" if compile_.failure else ""
            self.parts.append(
                _comment(f"Dynamo generated no code for {cid}: the compile {compile_.status}{why}; {frame.name} runs as plain Python")
            )
        else:
            self.parts.append(_comment(f"The code Dynamo runs for {cid}: not recorded"))
        names = compile_.compiled_graphs
        for index, graph in enumerate(compile_.graphs):
            label = names[index] if len(names) == len(compile_.graphs) else f"__graph_{tag}_{index}"
            text = graph.code.replace("class GraphModule(", f"class {label}(", 1) if graph.code else ""
            intro = f"{label}: the graph of {cid} ({index + 1} of {len(compile_.graphs)}), as torch printed it"
            self.parts.append(_comment(intro) + "\n" + (_source(text, True) if text else _comment("not in the trace")))
        for global_name, function in compile_.resume_functions.items():
            self.resume(global_name, function)

    def resume(self, global_name: str, function: str) -> None:
        if global_name in self.done:
            self.parts.append(_comment(f"{global_name} ({function}): above"))
            return
        found = self.resumes.get(global_name)
        if not found:
            self.done.add(global_name)
            self.parts.append(
                _comment(f"{global_name} ({function}): never compiled in this run (it ran as plain Python, or was never called)")
            )
            return
        # Dynamo installs one resume function under a new name for each version that breaks at
        # the same place: written once, under the first name, with every version compiled of it.
        names = found[0][1].called_as
        self.done.update(names)
        others = [n for n in names if n != global_name]
        also = f" (also called as {', '.join(others)})" if others else ""
        self.parts.append(
            _comment(f"==== {global_name}{also}: {function}, the resume function Dynamo made to continue after a graph break ====")
        )
        first = found[0][1].original_code
        if first is not None:
            source = renamed(first.source, global_name)
            self.parts.append(
                _comment(f"{global_name} as Dynamo made it (its bytecode, decompiled)") + "\n" + _source(source, first.complete)
            )
        for frame, compile_ in found:
            self.version(frame, compile_)


def guard_name(frame: Frame, compile_: Compile) -> str:
    return f"__guard_{_UNSAFE.sub('_', compile_.compile_id)}_for_{_UNSAFE.sub('_', frame.name)}"


def guard_function(name: str, guards: list[Guard], compile_id: str) -> str:
    """torch's guard as a Python function: each check as torch writes it, `and`-ed in order.
    Checks torch writes in its own notation stay as comments, marked, and the docstring says
    the function then checks less than torch does."""
    lines = []
    skipped = 0
    for guard in guards:
        expression, note = _guard_expression(guard.text, guard.kind)
        where = f"  # {_one_line(guard.user_code).lstrip('# ')}" if guard.user_code else ""
        if note:
            lines.append(f"    # {_one_line(note)}")
        if expression is None:
            skipped += 1
            lines.append(f"    # not Python, checked by torch only ({guard.kind}): {_one_line(guard.text) or '(torch gives no text)'}")
            continue
        lines.append(f"    __guard_hit = __guard_hit and ({expression}){where}")
    doc = f"torch's guard for compiled version {compile_id}: true when the frame's locals L and globals G still fit."
    if skipped:
        doc += f" {skipped} check(s) in torch's own notation are comments below: this function checks less than torch does."
    body = "\n".join(lines) or "    pass"
    text = f"def {name}(L, G, **___kwargs_ignored):\n    {ast.unparse(ast.Constant(doc))}\n    __guard_hit = True\n{body}\n    return __guard_hit"
    if name.isidentifier() and not keyword.iskeyword(name) and all(map(_line_parses, lines)):
        return text  # (the whole, each line of which parses alone, parses: see _line_parses)
    try:
        ast.parse(text)
    except SyntaxError:  # a user comment torch quoted could still break it: say so rather than write it
        return _comment(f"{name}: torch's guard for {compile_id} could not be written as Python")
    return text


@functools.lru_cache(maxsize=16384)
def _line_parses(line: str) -> bool:
    """Whether one line of a guard function parses in a guard function of its own. A line that
    does ends with its brackets and strings closed (nothing after it in the function could close
    them), so the function made of such lines, with a name that is an identifier and a docstring
    written by ast.unparse, parses too: each line is parsed once, where the whole function
    would be parsed again for each compiled version that repeats most of its checks. A line that
    does not parse alone sends guard_function back to parsing the whole, as it always did."""
    try:
        ast.parse(f"def _(L, G, **___kwargs_ignored):\n    __guard_hit = True\n{line}\n    return __guard_hit")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


@functools.lru_cache(maxsize=16384)
def _guard_expression(text: str, kind: str = "") -> tuple[str | None, str | None]:
    """(a Python expression for the check, a note), from torch's text of one check. Kept for
    the checks that come again (each compiled version repeats most of its guard's checks): an
    ast.parse each is most of a page's time."""
    expression, note = text.strip(), None
    equals = re.match(r"^(.+) == (.+)$", expression)
    if kind == "EQUALS_MATCH" and equals:
        # torch's EQUALS_MATCH also checks the exact type of the value (3.0 does not pass for 3)
        try:
            value = ast.literal_eval(equals.group(2))
        except (ValueError, SyntaxError):
            value = None
        if type(value) in (int, float, str, bool, bytes, complex):
            expression = f"type({equals.group(1)}) is {type(value).__name__} and {expression}"
    typed = re.match(r"^(.*), type=(<class '[^']*'>)$", expression)
    if typed:  # ID_MATCH, TYPE_MATCH: torch adds the type for the reader
        expression, note = typed.group(1), f"{typed.group(1).split('(', 1)[0]}: the object's type was {typed.group(2)}"
    against = re.match(r"^(___check_global_state\(\)) against (.*)$", expression, re.S)
    if against:
        expression, note = against.group(1), f"the global state it compares with: {against.group(2)}"
    try:
        ast.parse(expression, mode="eval")
    except SyntaxError:
        return None, note
    if "\n" in expression:
        return None, note
    return expression, note


def safe_name(text: str) -> str:
    """A compile id or a function's name as part of a Python name: "0/1" -> "0_1"."""
    return _UNSAFE.sub("_", text)


def renamed(source: str, name: str) -> str:
    """The same function under another name (the `def` line only: the body is untouched)."""
    return re.sub(r"^def [^(]+\(", f"def {name}(", source, count=1, flags=re.M)


def _source(text: str, complete: bool) -> str:
    try:
        ast.parse(text)
    except SyntaxError as error:
        return _comment(f"not valid Python ({error.msg}), shown as a comment:\n{text}")
    if not complete:
        return _comment("the decompiler did not understand all of it: the bytecode is in the comments") + "\n" + text
    return text


def _comment(text: str) -> str:
    return "\n".join(f"# {line}".rstrip() for line in text.split("\n"))


def _one_line(text: str) -> str:
    return " ".join(text.split())
