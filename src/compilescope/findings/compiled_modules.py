"""A module given to torch.compile whose forward was never called through the compiled module:
torch.compile(module) compiles only calls of the OptimizedModule it returns (`model(x)`); a
method called on it (`model.generate(x)`) is passed on to the original module, and that
method's `self(...)` runs the original forward, uncompiled (nanoGPT's sample.py).
"""

from __future__ import annotations

import ast

from compilescope.findings import PROBLEM
from compilescope.findings.finding import Finding, listed, short
from compilescope.findings.kinds import FindingKind
from compilescope.session.model import CompiledModule, Session
from compilescope.session.places import is_user_code


def _forward_compiled(session: Session, module: CompiledModule) -> bool:
    forward = f"{module.module}.forward"
    for frame in session.frames:
        if module.forward_filename and (frame.filename, frame.lineno) == (module.forward_filename, module.forward_lineno):
            return True
        if forward in (frame.wraps, frame.qualname) or any(c.for_function == forward for c in frame.compiles):
            return True
        if frame.wraps is None and not frame.is_resume and not is_user_code(frame.filename):
            return True  # a wrapper (torch's `inner`, a library's decorator) of what is not known: not said
    return False


def torch_modules_compiled_in_place(session: Session) -> list[tuple[str, str]]:
    """The modules of torch.nn's own (an nn.Sequential) the program compiled in place, where
    nothing was compiled: (class, the file of its forward, short)."""
    return [
        (m.module, short(m.forward_filename))
        for m in session.compiled_modules or []
        if m.in_place and m.forward_filename and not is_user_code(m.forward_filename)
    ]


def compiled_module_findings(session: Session) -> list[Finding]:
    out = []
    for module in session.compiled_modules or []:
        if module.in_place or _forward_compiled(session, module):  # (in place: findings/before_compile.py)
            continue
        place = short(module.compiled_from[-1].split(" in ")[0]) if module.compiled_from else None
        name = module.method_calls[0].name if module.method_calls else None
        statement = f"`{module.compile_code}`" if module.compile_code else "torch.compile"
        detail = [
            f"{statement}{' at ' + place if place else ''} wraps {module.module} in a compiled module; only its own calls "
            f"(`{name or 'model'}(...)`) run {module.module}.forward compiled, and it was never called that way while the program ran."
        ]
        methods = list(dict.fromkeys(call.method for call in module.method_calls))
        for call in module.method_calls[:3]:
            detail.append(
                f"{short(f'{call.filename}:{call.lineno}')} calls {module.module}.{call.method} on it"
                + (f" (`{call.code}`)" if call.code else "")
                + f": the compiled module passes `{call.method}` on to the original {module.module}, so it runs uncompiled, "
                "and so does the forward it calls (its `self` is the original module)."
            )
        title = f"torch.compile was applied to {module.module}, but its forward was never called through the compiled module"
        if methods:
            title += f": {listed([f'`{m}`' for m in methods])} was called instead"
        in_place = _in_place(module.compile_code)
        fix = (
            "Compile the module in place, so that every call of it runs compiled, "
            + (f"{listed(methods)}'s `self(...)` included" if methods else "wherever it is called from")
            + (
                f": replace `{module.compile_code}` with `{in_place}` (nn.Module.compile keeps the same object, and its calls go through torch.compile)."
                if in_place
                else ": call module.compile(...) on it instead of wrapping it with torch.compile(module)."
            )
        )
        out.append(
            Finding(
                PROBLEM,
                title,
                detail="\n".join(detail),
                fix=fix,
                kind=FindingKind.COMPILED_MODULE_NOT_CALLED,
                where=module.compiled_from[-1].split(" in ")[0] if module.compiled_from else None,
                in_user_code=True if module.compiled_from else None,
                frames=(f"{module.module}.forward",),
                cost="nothing was compiled for it: it ran uncompiled",
            )
        )
    return out


def _in_place(code: str | None) -> str | None:
    """`model.compile(backend="eager")` for `model = torch.compile(model, backend="eager")`;
    None where the line is not such an assignment of a name's module."""
    if not code:
        return None
    try:
        tree = ast.parse(code.strip())
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(statement := tree.body[0], ast.Assign) or not isinstance(statement.value, ast.Call):
        return None
    call = statement.value
    if not call.args or not isinstance(call.args[0], (ast.Name, ast.Attribute)):
        return None
    rest = [ast.unparse(a) for a in call.args[1:]] + [ast.unparse(k) for k in call.keywords]
    return f"{ast.unparse(call.args[0])}.compile({', '.join(rest)})"
