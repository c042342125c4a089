"""What a graph break leaves without torch.compile, and which fixes can remove a break.

- An unresumable break: torch says "Encountered graph break that we cannot resume from.
  Compiling up to the previous resumable state, then skipping the rest of the function" (its
  dynamo_graph_break_reason), makes no resume function, and runs the rest of the function as
  plain Python on every call. What that rest does is read from the function's code as the run
  recorded it (the version's original code), or else from the source lines around the break.
- A break torch could not handle at all ("Skipping the function and falling back to eager": a
  break inside a for/while loop) leaves the whole function eager, on every call.
- torch's hints that name a setting ("Set torch._dynamo.config.allow_rnn=True") become fixes
  `compilescope run --try` can set (record/fixes.py's names).
- A scalar read with .item() that decides a Python branch cannot be captured: with
  capture_scalar_outputs torch breaks on the data-dependent branch instead. Decided from the
  break's line and the code after it; where it holds, the `if` written with torch.where is given
  when the source allows it (a one-assignment `if`), else the ways that can work.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from compilescope.session.model import Compile, GraphBreak

_UNRESUMABLE = re.compile(r"graph break that we cannot resume from.*skipping the rest of the function", re.S)


def skips_rest(brk: GraphBreak) -> bool:
    """Whether torch skipped the rest of the function at this break (no resume function)."""
    return brk.resume_function is None and bool(_UNRESUMABLE.search(brk.text or ""))


_WHOLE = re.compile(r"Skipping the (?:function|frame) and falling back to eager")


def skips_function(brk: GraphBreak) -> bool:
    """Whether torch gave up the whole function at this break ("Failed to handle graph break
    gracefully. Skipping the function and falling back to eager", as for a break in a loop)."""
    return bool(_WHOLE.search(brk.text or ""))


_TRACEBACK_ENTRY = re.compile(r'^  File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<function>\S+)\n(?:    (?P<code>.+))?', re.M)


def break_in_frame(brk: GraphBreak, filename: str | None, function: str) -> GraphBreak:
    """The break as the compiled function itself meets it: where the break is in a function it
    calls (transformers' `loss_function`, called by `GPT2LMHeadModel.forward`), the line of the
    compiled function that made the call, from torch's traceback; the break itself where it is in
    the function's own code, or the traceback does not show the call."""
    if brk.function == function and (filename is None or brk.filename == filename):
        return brk
    entries = [m for m in _TRACEBACK_ENTRY.finditer(brk.text or "") if m.group("file") == filename and m.group("function") == function]
    if not entries:
        return brk
    last = entries[-1]
    return GraphBreak(
        reason=brk.reason,
        filename=filename,
        lineno=int(last.group("line")),
        function=function,
        code=(last.group("code") or "").strip() or None,
        text=brk.text,
    )


@dataclass
class Rest:
    """The code of a function from a break's line to its end."""

    calls: list[str]  # the calls it makes, as written ("self.rnn", "F.log_softmax"), each once
    call_count: int  # calls from the break's line on (each call written counts once)
    total_calls: int | None  # calls in the whole function; None: only part of it was seen
    read_from: str  # where it was read: "the code of forward as the run recorded it"


def rest_of_function(brk: GraphBreak, versions: list[Compile], function: str) -> Rest | None:
    """The calls of the function from the break's line on, from the version's recorded original
    code (decompiled, so whole and parseable); else from the source lines around the break."""
    for version in versions:
        code = version.original_code
        if code is None or not code.complete:
            continue
        found = _rest_in_code(code.source, brk.code or "")
        if found is not None:
            calls, total = found
            return Rest(_unique(calls), len(calls), total, f"the code of {function} as the run recorded it")
    found = _rest_in_source(brk)
    if found is not None:
        calls, total = found
        return Rest(_unique(calls), len(calls), total, f"the source of {function}")
    lines = lines_from_break(brk)
    if lines:
        calls = [call for line in lines for call in re.findall(r"([A-Za-z_][\w.]*)\s*\(", line) if call not in _KEYWORDS]
        if calls:
            return Rest(_unique(calls), len(calls), None, f"the {len(lines)} source lines from the break on that the trace shows")
    return None


_KEYWORDS = {"if", "elif", "while", "for", "return", "and", "or", "not", "in", "with", "assert", "print"}


def _unique(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


def _normal(code: str) -> str | None:
    """A line of source as ast.unparse writes it (its first line), for matching against
    decompiled code; None where it does not parse on its own."""
    text = code.strip()
    for candidate in (text, text + "\n    pass"):
        try:
            tree = ast.parse(candidate)
        except SyntaxError:
            continue
        if tree.body:
            return ast.unparse(tree.body[0]).splitlines()[0]
    return None


def parsed_function(source: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The first function defined in `source` (a function's source as torch gave it), or None."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    return next((n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)


def break_statement(function: ast.FunctionDef | ast.AsyncFunctionDef, code: str) -> ast.stmt | None:
    """The statement of `function` where the graph broke, found by its code's first line."""
    wanted = _normal(code)
    statements = [node for node in ast.walk(function) if isinstance(node, ast.stmt) and node is not function]
    if wanted is not None:
        return next((node for node in statements if ast.unparse(node).splitlines()[0] == wanted), None)
    # the first line of a statement written over several (`loss = self.loss_function(`): the one
    # statement that starts so, spaces aside
    start = "".join(code.split())
    if len(start) < 4:
        return None
    found = [node for node in statements if "".join(ast.unparse(node).split()).startswith(start)]
    return found[0] if len(found) == 1 else None


def _call_name(call: ast.Call) -> str:
    return ast.unparse(call.func)


def _rest_in_code(source: str, code: str) -> tuple[list[str], int] | None:
    function = parsed_function(source)
    if function is None:
        return None
    statement = break_statement(function, code)
    if statement is None:
        return None
    calls = sorted((n for n in ast.walk(function) if isinstance(n, ast.Call)), key=lambda n: (n.lineno, n.col_offset))
    rest = [_call_name(n) for n in calls if n.lineno >= statement.lineno]
    return rest, len(calls)


def _rest_in_source(brk: GraphBreak) -> tuple[list[str], int] | None:
    """The calls from the break's line on, and in all, of the function it is in, read from its
    file (where the line does not stand alone in the recorded code: the first line of a call
    written over several, `loss = self.loss_function(`)."""
    from compilescope.session.sources import cached_source

    if not brk.filename or not brk.lineno or not brk.function:
        return None
    lines = cached_source(brk.filename)
    if lines is None or brk.lineno > len(lines) or (brk.code and lines[brk.lineno - 1].strip() != brk.code.strip()):
        return None  # (not the file torch read: changed, or another machine's)
    try:
        tree = ast.parse("\n".join(lines))
    except (SyntaxError, ValueError):
        return None
    functions = [
        n
        for n in ast.walk(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        and n.name == brk.function
        and n.lineno <= brk.lineno <= (n.end_lineno or 0)
    ]
    if not functions:
        return None
    function = max(functions, key=lambda n: n.lineno)  # the innermost
    calls = sorted((n for n in ast.walk(function) if isinstance(n, ast.Call)), key=lambda n: (n.lineno, n.col_offset))
    return [_call_name(n) for n in calls if n.lineno >= brk.lineno], len(calls)


def lines_from_break(brk: GraphBreak) -> list[str]:
    """The source lines torch's break line starts, to the end of the lines the trace has, while
    they stay inside the function (indented at least as the break's line)."""
    if not brk.context or brk.context_start is None or brk.lineno is None:
        return []
    index = brk.lineno - brk.context_start
    if not 0 <= index < len(brk.context):
        return []
    indent = len(brk.context[index]) - len(brk.context[index].lstrip())
    out = []
    for line in brk.context[index:]:
        if line.strip() and len(line) - len(line.lstrip()) < indent:
            break
        if line.strip() and not line.strip().startswith("#"):
            out.append(line.strip())
    return out


# ---- torch's hints that name a setting ------------------------------------------------------

_SETTING = re.compile(r"torch\._dynamo\.config\.(\w+)\s*=\s*(True|False|-?\d+(?:\.\d+)?|'[^'\n]*'|\"[^\"\n]*\")")
_NAMED = {"capture_scalar_outputs": "True", "capture_dynamic_output_shape_ops": "True"}  # record/fixes.py's own names


def hinted_fixes(hints: list[str]) -> list[str]:
    """The `--try` fixes torch's hints name: "Set torch._dynamo.config.allow_rnn=True" ->
    "config.allow_rnn=True" (capture_scalar_outputs by its own name)."""
    out = []
    for hint in hints:
        for name, value in _SETTING.findall(hint):
            out.append(name if _NAMED.get(name) == value else f"config.{name}={value}")
    return _unique(out)


# ---- a scalar that decides a branch ---------------------------------------------------------

_BRANCH = re.compile(r"^\s*(if|elif|while|assert)\b")
_CONDITIONAL = re.compile(r"\bif\b.+\belse\b")  # a conditional expression: `a if c else b`


def is_branch(code: str) -> bool:
    """Whether a line of code decides a Python branch: an `if`, `elif`, `while` or `assert`
    statement, or a conditional expression."""
    return bool(_BRANCH.match(code) or _CONDITIONAL.search(code))


def scalar_decides_branch(brk: GraphBreak, versions: list[Compile]) -> str | None:
    """How the value .item() read decides a Python branch ("the `if` on line 18", "`if loss <
    best` after it"), or None where the break's line and the code after it show no such use."""
    code = brk.code or ""
    if ".item()" not in code:
        return None
    if _BRANCH.match(code):
        return f"the `{code.strip().split()[0]}` on the same line"
    if _CONDITIONAL.search(code):
        return "the conditional expression (`a if … else b`) on the same line"
    target = re.match(r"^\s*([A-Za-z_]\w*)\s*=[^=]", code)
    if target is None:
        return None
    name = target.group(1)
    for version in versions:
        source = version.original_code.source if version.original_code is not None and version.original_code.complete else None
        function = parsed_function(source) if source else None
        statement = break_statement(function, code) if function is not None else None
        if function is None or statement is None:
            continue
        for node in ast.walk(function):
            if not isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
                continue
            test = node.test
            if node.lineno > statement.lineno and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(test)):
                return f"`{ast.unparse(test)}` after it"
    for line in lines_from_break(brk)[1:]:
        if _BRANCH.match(line) and re.search(rf"\b{re.escape(name)}\b", line):
            return f"`{line.rstrip(':')}` after it"
    return None


@dataclass
class Rewrite:
    first: int  # the lines it replaces, first and last
    last: int
    code: str  # the replacement, indented as the `if` was


def where_rewrite(brk: GraphBreak, versions: Sequence[Compile] = ()) -> Rewrite | None:
    """The break's `if` (one assignment to a name, no `else`, or an `else` assigning the same
    name) written with torch.where, its condition a tensor: `if x.mean().item() > 0.5: x = x *
    0.5` -> `x = torch.where(x.mean() > 0.5, x * 0.5, x)`. None where the source is not that,
    or where the `if` may go on past the lines the trace has: its end must be among them (a line
    after it, back at its indentation), or the version's recorded code must hold that very `if`."""
    if not brk.context or brk.context_start is None or brk.lineno is None or not re.match(r"^\s*if\b", brk.code or ""):
        return None
    index = brk.lineno - brk.context_start
    if not 0 <= index < len(brk.context):
        return None
    header = brk.context[index]
    indent = header[: len(header) - len(header.lstrip())]
    block = [header]
    ended = False
    for line in brk.context[index + 1 :]:
        if line.strip() and not line.startswith(indent + " ") and not (line.startswith(indent + "else")):
            ended = True
            break
        block.append(line)
    while block and not block[-1].strip():
        block.pop()
    try:
        tree = ast.parse(textwrap.dedent("\n".join(block)))
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.If):
        return None
    branch = tree.body[0]
    if not ended and not any(_holds(version, branch) for version in versions):
        return None
    yes = _single_assignment(branch.body)
    if yes is None:
        return None
    name, value = yes
    otherwise: ast.expr = ast.Name(name)
    if branch.orelse:
        no = _single_assignment(branch.orelse)
        if no is None or no[0] != name:
            return None
        otherwise = no[1]
    if not _tensor_condition(branch.test):
        return None
    condition = _without_item(branch.test)
    code = f"{indent}{name} = torch.where({ast.unparse(condition)}, {ast.unparse(value)}, {ast.unparse(otherwise)})"
    return Rewrite(brk.lineno, brk.lineno + len(block) - 1, code)


def _holds(version: Compile, branch: ast.If) -> bool:
    """Whether the version's recorded code has this `if`, whole (no more statements in it)."""
    code = version.original_code
    function = parsed_function(code.source) if code is not None and code.complete else None
    wanted = ast.unparse(branch)
    return function is not None and any(isinstance(n, ast.If) and ast.unparse(n) == wanted for n in ast.walk(function))


def _single_assignment(body: list[ast.stmt]) -> tuple[str, ast.expr] | None:
    if len(body) == 1 and isinstance(body[0], ast.Assign) and len(body[0].targets) == 1 and isinstance(body[0].targets[0], ast.Name):
        return body[0].targets[0].id, body[0].value
    return None


def _tensor_condition(test: ast.expr) -> bool:
    """A comparison whose .item() operand becomes a tensor when .item() is dropped (no `and`,
    `or`, `not`: Python's own would need a bool again)."""
    if isinstance(test, ast.BoolOp) or (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)):
        return False
    return any(_is_item(n) for n in ast.walk(test))


def _is_item(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and not node.args and isinstance(node.func, ast.Attribute) and node.func.attr == "item"


class _DropItem(ast.NodeTransformer):
    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if _is_item(node):
            assert isinstance(node.func, ast.Attribute)
            return node.func.value
        return node


def _without_item(test: ast.expr) -> ast.expr:
    tree = _DropItem().visit(ast.parse(ast.unparse(test), mode="eval"))
    assert isinstance(tree, ast.Expression)
    return tree.body
