"""The caller's own words for an argument of a compiled function: a fix that names a tensor must
name it as the line it is pasted before has it (`data` at `output = model(data)`, not forward's
`x`; `batch["input_ids"]` at `model(**batch)`), or say which argument it is.

The call is read from its source (torch's quote of the caller's line, `Compile.call_code`) with
`ast`; the compiled function's parameters are those of the code Dynamo compiled
(`Frame.parameters`). Only a name, an attribute or a subscript by a constant is given back: an
expression that makes a new tensor (`model(torch.randn(4, 8))`) is no variable to mark.
"""

from __future__ import annotations

import ast
import re
from typing import NamedTuple

from compilescope.session.model import CompiledModule, Frame

# a guard's subject or a dynamic-shape source, as the compiled function's local:
# "args[0]", "L['args'][0] dim 0", "kwargs['input_ids']", "L['attention_mask']"
_SOURCE = re.compile(r"^L\['(?P<name>[^']+)'\](?P<rest>.*)$")


def local_of(source: str) -> str:
    """ "L['args'][0] dim 1" -> "args[0]"; "L['x'].size()[0]" -> "x"; "L['kwargs']['ids'] dim 1" ->
    "ids" (as session/breaks.py names a guard's subject); "x" stays."""
    source = re.sub(r"\s+dim \d+$", "", source.strip())
    source = re.sub(r"\.(size|stride)\(\)\[\d+\]$|\.storage_offset\(\)$", "", source)
    if found := _SOURCE.match(source):
        source = found.group("name") + found.group("rest")
    # a keyword argument gathered by **kwargs, as torch's guards name it: "kwargs['input_ids']" -> "input_ids"
    keyword = re.fullmatch(r"\w+\[['\"](\w+)['\"]\]", source)
    return keyword.group(1) if keyword else source


def callee_names(frame: Frame, modules: list[CompiledModule] | None) -> tuple[str, ...]:
    """Other names a call of the compiled function goes by: for a module compiled whole, the
    names its `torch.compile(...)` line assigns (`model` for `model = torch.compile(net)`), the
    name the program then calls it by (also once wrapped again: `model = DDP(model)`)."""
    if not frame.compiled_at:
        return ()
    names: list[str] = []
    for module in modules or []:
        if not module.compiled_from or module.compiled_from[-1].split(" in ")[0] != frame.compiled_at or not module.compile_code:
            continue
        tree = _parsed(module.compile_code)
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.Assign):
                names.extend(t.id for t in node.targets if isinstance(t, ast.Name))
    return tuple(dict.fromkeys(names))


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _own_parameters(frame: Frame) -> list[str] | None:
    """The parameters a caller passes: a method's `self` is the object called."""
    parameters = frame.parameters
    if parameters is None:
        return None
    if parameters and parameters[0] in ("self", "cls") and (frame.wraps or "." in (frame.qualname or frame.known_as)):
        return parameters[1:]
    return list(parameters)


def which_argument(frame: Frame, subject: str) -> str:
    """Words for the argument, where its expression at the call cannot be worked out: "the
    tensor passed as `x`, the 1st argument of TinyNet.forward"."""
    parameters = _own_parameters(frame) or []
    positional = [p for p in parameters if not p.startswith("*")]
    name, index = _split(subject)
    words = f"the tensor passed as `{subject}`"
    function = frame.wraps or frame.known_as
    if index is not None and any(p == f"*{name}" for p in parameters):
        before = parameters.index(f"*{name}")
        return f"{words}, the {ordinal(before + index + 1)} positional argument of {function}"
    if name in positional and index is None:
        return f"{words}, the {ordinal(positional.index(name) + 1)} argument of {function}"
    return f"{words} to {function}"


def argument_at_call(call_code: str | None, frame: Frame, subject: str) -> str | None:
    """The caller's variable for the compiled function's argument `subject` ("x", "args[0]",
    "input_ids" of **kwargs) at the line `call_code`; None where it cannot be worked out for
    sure (no source, several calls that could be the one, a *starred argument before it, an
    expression that is no variable)."""
    found = expression_at_call(call_code, frame, subject)
    return found[0] if found is not None and found[1] else None


def expression_at_call(call_code: str | None, frame: Frame, subject: str, callees: tuple[str, ...] = ()) -> tuple[str, bool] | None:
    """The caller's expression for the argument, and whether it is a variable (a name, an
    attribute, a subscript by a constant) rather than code that makes a new value each call.
    `callees`: other names the compiled function is called by (a module compiled whole: the
    name its torch.compile(...) was assigned to)."""
    found = _binding(call_code, frame, subject, callees)
    return (found.text, found.variable) if found is not None else None


def call_with_argument(call_code: str | None, frame: Frame, subject: str, wrap: str, callees: tuple[str, ...] = ()) -> str | None:
    """The caller's line with the argument written as `wrap` says ("torch.tensor({})"):
    `loss = train_step(x, y, torch.tensor(alpha))` for `loss = train_step(x, y, alpha)`; None where
    the argument is not one written in the line itself (a key of a **dict, a line torch quoted
    in part)."""
    found = _binding(call_code, frame, subject, callees)
    if found is None or found.node is None or call_code is None:
        return None
    lines = call_code.strip().splitlines()
    node = found.node
    if node.end_lineno != node.lineno or node.end_col_offset is None or len(lines) < node.lineno:
        return None
    line = lines[node.lineno - 1]
    try:  # (a line parsed in brackets, `(text)`, is a column off: the segment must be the argument)
        same = ast.unparse(ast.parse(line[node.col_offset : node.end_col_offset], mode="eval").body) == found.text
    except SyntaxError:
        same = False
    if not same:
        return None
    lines[node.lineno - 1] = line[: node.col_offset] + wrap.format(found.text) + line[node.end_col_offset :]
    return "\n".join(lines)


def callee_expression(call_code: str | None, frame: Frame, callees: tuple[str, ...] = ()) -> str | None:
    """What the line calls, where the compiled function is a method (`forward`) and the call is
    of its object: `compiled` in `outputs = compiled(**batch)`, the caller's name for `self`; None
    where the line's call of it is not one certain call."""
    if not frame.parameters or frame.parameters[0] != "self":
        return None
    calls = _calls(call_code, frame, callees)
    if calls is None or len({ast.dump(node.func) for node in calls}) != 1:
        return None
    func = calls[0].func
    return ast.unparse(func) if _expression(func)[1] else None


def _calls(call_code: str | None, frame: Frame, callees: tuple[str, ...]) -> list[ast.Call] | None:
    """The calls in the line that can be the compiled function's."""
    parameters = _own_parameters(frame)
    if not call_code or parameters is None:
        return None
    tree = _parsed(call_code)
    if tree is None:
        return None
    candidates = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and _fits(node, parameters)]
    # a call by the function's own name (`encode(ids)` in `decode(encode(ids))`), or by the name
    # a compiled module was given (`model(x)` in `F.cross_entropy(model(x), y)`), is the one
    named = [node for node in candidates if _called_name(node) in (frame.name, *callees)]
    return named or candidates


def _binding(call_code: str | None, frame: Frame, subject: str, callees: tuple[str, ...]) -> _Bound | None:
    parameters = _own_parameters(frame)
    candidates = _calls(call_code, frame, callees)
    if candidates is None or parameters is None:
        return None
    found = {(bound.text, bound.variable): bound for node in candidates if (bound := _bound(node, parameters, subject)) is not None}
    if len(found) != 1:
        return None
    return next(iter(found.values()))


def _parsed(code: str) -> ast.AST | None:
    text = code.strip()
    for attempt in (text, text.rstrip(":") + ": pass", f"({text})"):
        try:
            return ast.parse(attempt)
        except SyntaxError:
            continue
    return None


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _split(subject: str) -> tuple[str, int | None]:
    """ "args[0]" -> ("args", 0); "x" -> ("x", None)."""
    found = re.fullmatch(r"(\w+)\[(\d+)\]", subject)
    return (found.group(1), int(found.group(2))) if found else (subject, None)


def _fits(call: ast.Call, parameters: list[str]) -> bool:
    """Whether the call could be one of the compiled function: no more positional arguments
    than it takes (unless it takes *args), and keywords it has."""
    positional = [p for p in parameters if not p.startswith("*")]
    takes_args = any(p.startswith("*") and not p.startswith("**") and p != "*" for p in parameters)
    takes_kwargs = any(p.startswith("**") for p in parameters)
    named = [p for p in parameters if not p.startswith("*")]
    star = parameters.index("*") if "*" in parameters else None
    before_star = [p for i, p in enumerate(parameters) if not p.startswith("*") and (star is None or i < star)]
    given = [a for a in call.args if not isinstance(a, ast.Starred)]
    if not takes_args and not any(isinstance(a, ast.Starred) for a in call.args) and len(given) > len(before_star):
        return False
    if not positional and not takes_args and not takes_kwargs:
        return not call.args and not call.keywords
    return all(k.arg is None or k.arg in named or takes_kwargs for k in call.keywords)


class _Bound(NamedTuple):
    text: str  # the caller's expression for the argument
    variable: bool  # whether it names a value the caller holds (_expression)
    node: ast.expr | None  # where it is in the call; None for a key of a **dict


def _bound(call: ast.Call, parameters: list[str], subject: str) -> _Bound | None:
    name, index = _split(subject)
    star = next((i for i, p in enumerate(parameters) if p.startswith("*") and not p.startswith("**")), None)
    positional = [p for i, p in enumerate(parameters) if not p.startswith("*") and (star is None or i < star)]
    keyword_only = [p for i, p in enumerate(parameters) if not p.startswith("*") and star is not None and i > star]
    varargs = parameters[star][1:] if star is not None and parameters[star] != "*" else None
    varkw = next((p[2:] for p in parameters if p.startswith("**")), None)
    keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
    spread = [k.value for k in call.keywords if k.arg is None]  # **batch

    def at(position: int) -> ast.expr | None:
        for i, argument in enumerate(call.args):
            if isinstance(argument, ast.Starred):
                return None  # where *xs ends is not known from the source
            if i == position:
                return argument
        return None

    def by_keyword(key: str) -> _Bound | None:
        if key in keywords:
            return _Bound(*_expression(keywords[key]), keywords[key])
        if len(spread) == 1 and (dictionary := _expression(spread[0]))[1]:
            return _Bound(f'{dictionary[0]}["{key}"]', True, None)
        return None

    if varkw and (found := re.fullmatch(rf"{re.escape(varkw)}\['(\w+)'\]", subject)):
        return by_keyword(found.group(1))
    if index is not None and name == varargs:
        node = at(len(positional) + index)
        return _Bound(*_expression(node), node) if node is not None else None
    if index is None and name in positional:
        node = at(positional.index(name))
        if node is not None:
            return _Bound(*_expression(node), node)
        return by_keyword(name)
    if index is None and re.fullmatch(r"\w+", name) and (name in keyword_only or varkw is not None):
        return by_keyword(name)
    return None


def _expression(node: ast.expr) -> tuple[str, bool]:
    """The node's source, and whether it names a value the caller holds: a name, an attribute of
    one, a subscript by a constant (`batch["input_ids"]`, `inputs[0]`)."""
    inner: ast.expr = node
    while not isinstance(inner, ast.Name):
        if isinstance(inner, ast.Attribute):
            inner = inner.value
        elif isinstance(inner, ast.Subscript) and isinstance(inner.slice, ast.Constant):
            inner = inner.value
        else:
            return ast.unparse(node), False
    return ast.unparse(node), True


def _compiled_function(frame: Frame) -> tuple[tuple[str, ...], ast.Module, ast.FunctionDef | ast.AsyncFunctionDef] | None:
    """The compiled function's file (its lines and tree) and its node, found by its name at its
    first line; None where the file cannot be read or has changed."""
    from compilescope.session.sources import cached_source

    if not frame.filename or not frame.lineno:
        return None
    lines = cached_source(frame.filename)
    if lines is None:
        return None
    try:
        tree = ast.parse("\n".join(lines))
    except (SyntaxError, ValueError):
        return None
    function = next(
        (
            node
            for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.name == frame.name
            and min([node.lineno, *(d.lineno for d in node.decorator_list)]) <= frame.lineno <= node.lineno
        ),
        None,
    )
    return None if function is None else (lines, tree, function)


def _self_assignments(scope: ast.AST, attribute: str) -> list[ast.Assign | ast.AugAssign | ast.AnnAssign]:
    """The statements in `scope` that assign `self.<attribute>`."""
    return [
        node
        for node in ast.walk(scope)
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign))
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Attribute)
        and target.attr == attribute
        and isinstance(target.value, ast.Name)
        and target.value.id == "self"
    ]


def assignment_in(frame: Frame, attribute: str) -> tuple[int, str] | None:
    """The line, and its code, where the compiled function assigns `self.<attribute>`, read from
    its file (the function found by its name at its first line); None where the file cannot be
    read, has changed, or the function assigns it nowhere (or in several places)."""
    found_in = _compiled_function(frame)
    if found_in is None:
        return None
    lines, _, function = found_in
    found = [
        node.lineno
        for node in _self_assignments(function, attribute)
        # (`self.mask = None` in another branch only clears it: the assignment of a value is the one to move)
        if not (isinstance(node.value, ast.Constant) and node.value.value is None)
    ]
    if len(set(found)) != 1:
        return None
    return found[0], lines[found[0] - 1].strip()


class InitAssignment(NamedTuple):
    line: int
    code: str  # the statement: `self.step = 0`
    value: str  # its value's source: `0`


def init_assignment(frame: Frame, attribute: str) -> InitAssignment | None:
    """Where the compiled method's class sets `self.<attribute>` in its __init__, by a plain
    `self.<attribute> = VALUE` on one line; None where the file cannot be read, the compiled
    function is no method, or __init__ sets it nowhere, in several places, or otherwise."""
    found_in = _compiled_function(frame)
    if found_in is None:
        return None
    lines, tree, function = found_in
    owner = next((node for node in ast.walk(tree) if isinstance(node, ast.ClassDef) and function in node.body), None)
    init = next((node for node in owner.body if isinstance(node, ast.FunctionDef) and node.name == "__init__"), None) if owner else None
    if init is None:
        return None
    found = _self_assignments(init, attribute)
    if len(found) != 1 or not isinstance(found[0], ast.Assign) or len(found[0].targets) != 1:
        return None
    statement = found[0]
    value = ast.get_source_segment("\n".join(lines), statement.value)
    if value is None or statement.lineno != statement.end_lineno:
        return None
    return InitAssignment(statement.lineno, lines[statement.lineno - 1].strip(), value)


def global_assignments(filename: str | None, name: str) -> list[int]:
    """The lines of `filename` that assign the global `name`: at the module's top level (its
    loops and branches included) and in the functions that declare it `global`; [] where the
    file cannot be read."""
    from compilescope.session.sources import cached_source

    lines = cached_source(filename) if filename else None
    if lines is None:
        return []
    try:
        tree = ast.parse("\n".join(lines))
    except (SyntaxError, ValueError):
        return []
    found: list[int] = []

    class Assignments(ast.NodeVisitor):
        def __init__(self) -> None:
            self.global_here = [True]  # whether `name` is the global in the scope being read

        def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
            declared = any(isinstance(n, ast.Global) and name in n.names for n in ast.walk(node))
            self.global_here.append(declared and not isinstance(node, ast.ClassDef))
            self.generic_visit(node)
            self.global_here.pop()

        visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

        def visit_Name(self, node: ast.Name) -> None:
            if self.global_here[-1] and node.id == name and isinstance(node.ctx, ast.Store):
                found.append(node.lineno)

    Assignments().visit(tree)
    return sorted(set(found))
