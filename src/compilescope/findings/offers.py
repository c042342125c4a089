"""Whether a `--try` fix a graph break's finding would offer can remove the break, read from the
trace: torch's reason and its words around it, the user's line and the code after it. Each
function gives the reason a fix cannot help, in words for the finding, or None where nothing in
the trace says it cannot (then it is offered, as torch's own hint offers it).

- reorder-print (print added to config.reorderable_logging_functions): torch moves a print after
  the graph only where every argument is a tensor, a constant or a string (an f-string too: it is
  formatted after the graph); anything else (a torch.Size, a list, a dict, a module) breaks the
  graph again ("attempted to reorder a debugging function that can't actually be reordered",
  DebuggingVariable.can_reorder_logs in torch/_dynamo/variables/misc.py). torch's own reason
  names the argument types: "builtin operator `print` with argument types ['str', 'Size']".
- ignore-logging (logging.Logger's message methods added to config.ignore_logging_functions):
  torch drops a call to one of them; any other Logger method (isEnabledFor, setLevel,
  getEffectiveLevel) still breaks the graph. torch's context names the method ("method: <Logger
  prog (WARNING)>.isEnabledFor").
- capture_dynamic_output_shape_ops (nonzero, unique, masked_select kept in the graph): the size
  of the result is then a symbol while tracing; where the code after it decides a Python branch
  on the result, or reads it out as Python values (.tolist(), .item()), torch breaks there
  instead.
- config.NAME=VALUE from torch's hint: not where the run already had NAME at VALUE.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence

from compilescope.findings.skipped import break_statement, lines_from_break, parsed_function
from compilescope.session.model import Compile, GraphBreak

# ---- print --------------------------------------------------------------------------------

_PRINT_TYPES = re.compile(r"builtin operator `print` with argument types \[([^\]]*)\]")
# the Python types torch names for what can_reorder_logs allows: a TensorVariable (a tensor or a
# subclass: Parameter), a ConstantVariable, a StringFormatVariable (str)
_CONSTANTS = {"str", "int", "float", "bool", "NoneType", "complex", "bytes", "Tensor", "Parameter"}
_SHOWN = {"Size": "torch.Size"}


def print_argument_types(brk: GraphBreak) -> list[str] | None:
    """The argument types torch named for the print it could not trace, or None where it did not."""
    found = _PRINT_TYPES.search(brk.text or "") or _PRINT_TYPES.search(brk.hint or "")
    if found is None:
        return None
    return re.findall(r"'([^']*)'", found.group(1))


def print_not_reorderable(brk: GraphBreak) -> str | None:
    """Why moving the print after the graph cannot remove the break: an argument of a type torch
    cannot reorder."""
    types = print_argument_types(brk)
    if types is None:
        return None
    others = [t for t in dict.fromkeys(types) if t not in _CONSTANTS and not t.endswith("Tensor")]
    if not others:
        return None
    named = ", ".join("a " + _SHOWN.get(t, t) for t in others)
    return (
        f"torch moves a print after the graph only when its arguments are tensors, constants and strings, and this one "
        f"prints {named} (torch names its arguments' types: {', '.join(types)}): reordered, it still breaks the graph"
    )


# ---- logging --------------------------------------------------------------------------------

# the methods `--try ignore-logging` adds (record/fixes.py's _LOGGER_METHODS: those that log a message)
_MESSAGES = {"debug", "info", "warning", "warn", "error", "critical", "exception", "log", "warning_once", "info_once", "warning_advice"}
_METHOD = re.compile(r"method: <[^>]*>\.(\w+)")


def logger_method(brk: GraphBreak) -> str | None:
    """The logging.Logger method torch could not trace, from its context, else from the line."""
    found = _METHOD.search(brk.text or "")
    if found is not None:
        return found.group(1)
    calls = re.findall(r"\.(\w+)\s*\(", brk.code or "")
    return calls[0] if len(calls) == 1 else None


def logging_not_ignorable(brk: GraphBreak) -> str | None:
    """Why ignoring logging calls cannot remove the break: the Logger method is not one that
    logs a message (isEnabledFor answers a question the code uses)."""
    if not re.search(r"logging\.Logger method", brk.reason or ""):
        return None
    method = logger_method(brk)
    if method is None or method in _MESSAGES:
        return None
    return (
        f"the call is Logger.{method}, which logs no message: torch can be told to drop the calls that log one, "
        "not this one, whose answer the code uses"
    )


# ---- ops whose output shape depends on the data ---------------------------------------------

_READ_OUT = ("tolist", "item", "numpy")


def dynamic_shape_result_used(brk: GraphBreak, versions: Sequence[Compile]) -> str | None:
    """How the code after the op uses its result in a way that needs its values or size in Python
    (a branch on it, .tolist()), or None where the code the trace has shows no such use."""
    target = re.match(r"^\s*([A-Za-z_]\w*)\s*=[^=]", brk.code or "")
    if target is None:
        return None
    name = target.group(1)
    for version in versions:
        code = version.original_code
        function = parsed_function(code.source) if code is not None and code.complete else None
        statement = break_statement(function, brk.code or "") if function is not None else None
        if function is None or statement is None:
            continue
        for node in ast.walk(function):
            if getattr(node, "lineno", 0) <= statement.lineno:
                continue
            if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)) and _names(node.test, name):
                return f"`{ast.unparse(node.test)}` after it decides a Python branch on it"
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _READ_OUT
                and _names(node.func.value, name)
            ):
                return f"`{ast.unparse(node)}` after it reads it out as Python values"
        return None
    for line in lines_from_break(brk)[1:]:
        if not re.search(rf"\b{re.escape(name)}\b", line):
            continue
        if re.match(r"^\s*(if|elif|while|assert)\b", line):
            return f"`{line.rstrip(':')}` after it decides a Python branch on it"
        read = re.search(rf"\b{re.escape(name)}\b[\w.\[\]:, ]*\.({'|'.join(_READ_OUT)})\(\)", line)
        if read is not None:
            return f"`{line}` after it reads it out as Python values"
    return None


def _names(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def dynamic_shape_not_capturable(brk: GraphBreak, versions: Sequence[Compile]) -> str | None:
    """Why keeping the op in the graph cannot remove the break, and what can: the code after it
    needs the result's size or values in Python."""
    use = dynamic_shape_result_used(brk, versions)
    if use is None:
        return None
    if use.endswith("reads it out as Python values"):
        return (
            f"{use}: with the op kept in the graph the size of its result is known only when it runs, so torch cannot "
            "read it out while compiling (for .tolist(), torch 2.13 raises GuardOnDataDependentSymNode there, which "
            "stops the program). Keep the result a tensor in the compiled code (return it) and read it out outside the "
            "compiled function"
        )
    return (
        f"{use}: with the op kept in the graph the size of its result is known only when it runs, so torch breaks "
        "there instead (data-dependent branching). Keep the decision in the graph, as a tensor: torch.where(cond, a, b) "
        "for a value, torch.cond(pred, true_fn, false_fn, operands) for code (a count such as mask.sum() is a tensor, "
        "where nonzero(mask).shape[0] is not); or make the decision outside the compiled function"
    )


# ---- settings torch's hints name ----------------------------------------------------------------


def already_set(fix: str, settings: dict[str, str]) -> bool:
    """Whether the run already had the setting a `config.NAME=VALUE` fix sets (as torch records it)."""
    name, _, value = fix.removeprefix("config.").partition("=")
    return fix.startswith("config.") and name in settings and settings[name] == value


def _print_call(code: str | None) -> ast.Call | None:
    """The line's call of print(), where the line is that one call and nothing else."""
    try:
        tree = ast.parse((code or "").strip())
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr) or not isinstance(call := tree.body[0].value, ast.Call):
        return None
    return call if isinstance(call.func, ast.Name) and call.func.id == "print" else None


def print_as_fstring(code: str | None) -> str | None:
    """The line's print of several arguments written as one f-string, which torch can move after
    the graph whatever the arguments' types (it formats the string there): `print("shape",
    y.shape)` -> `print(f"shape {y.shape}")`. None where the line is not one such print (a
    starred argument, keywords other than flush, an argument with quotes or braces of its own)."""
    call = _print_call(code)
    if call is None or not call.args:
        return None
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg != "flush" for k in call.keywords):
        return None
    parts = []
    for arg in call.args:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            parts.append(arg.value.replace("{", "{{").replace("}", "}}"))
        else:
            source = ast.unparse(arg)
            if any(ch in source for ch in "'\"{}\\"):
                return None
            parts.append("{" + source + "}")
    body = " ".join(parts)
    if '"' in body or "\\" in body or "\n" in body:
        return None
    keywords = "".join(f", {k.arg}={ast.unparse(k.value)}" for k in call.keywords)
    return f'print(f"{body}"{keywords})'


# ---- a print of a value read out of a tensor: print(float(t)) --------------------------------------

_READS = {"float", "int", "bool"}


def prints_a_read_value(breaks: Sequence[GraphBreak]) -> str | None:
    """Why neither capturing the scalar nor reordering the print (nor both) removes a break where
    a print prints a value read out of a tensor (`print(float(t))`: torch breaks there twice, to
    read the value and to print it): without the capture the read breaks; with it the value is a
    symbolic number while tracing, which torch cannot move after the graph either."""
    reasons = " ".join(b.reason or "" for b in breaks)
    code = next((b.code for b in breaks if b.code), "") or ""
    if not (re.search(r"Tensor\.item\(\)", reasons) and re.search(r"builtin operator|print", reasons)):
        return None
    if not re.match(r"^\s*print\(", code) or not re.search(r"\b(float|int|bool)\(|\.item\(\)", code):
        return None
    return (
        "the print prints a value read out of a tensor: without the capture, reading it breaks the graph; with it, the "
        "value is a symbolic number while tracing, which torch cannot move after the graph, so the print breaks it"
    )


def print_of_tensor(code: str | None) -> str | None:
    """The line's print with the values it reads out of tensors printed as the tensors
    (`print(float(y.mean()))` -> `print(y.mean())`), which torch can move after the graph; None
    where the line is not such a print."""
    call = _print_call(code)
    if call is None:
        return None
    changed = False
    args: list[ast.expr] = []
    for arg in call.args:
        if (
            isinstance(arg, ast.Call)
            and isinstance(arg.func, ast.Name)
            and arg.func.id in _READS
            and len(arg.args) == 1
            and not arg.keywords
        ):
            args.append(arg.args[0])
            changed = True
        elif isinstance(arg, ast.Call) and not arg.args and isinstance(arg.func, ast.Attribute) and arg.func.attr == "item":
            args.append(arg.func.value)
            changed = True
        else:
            args.append(arg)
    if not changed:
        return None
    return ast.unparse(ast.Call(func=call.func, args=args, keywords=call.keywords))
