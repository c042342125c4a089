"""Recompiles, by cause, in words: one finding for one input change however many compiled
functions it made compile again (a sequence length that changed reaches every function the
tensor flows through), one for a Python number compiled in as a constant, one for code a
decorator shares between functions; each with what to change.

Where each part is decided:
- recompile_causes.py: which guard failed, grouped into one cause per input change;
- dynamic_sizes.py: the fix for a size that changed (mark_dynamic, drop_last, what else changed);
- version_calls.py: the recompile limit and calls that flip-flop between versions, folded into
  the cause's finding where there is one.
"""

from __future__ import annotations

import re

from compilescope.findings import INFO, PROBLEM, WARNING
from compilescope.findings.arguments import (
    assignment_in,
    call_with_argument,
    callee_names,
    expression_at_call,
    global_assignments,
)
from compilescope.findings.dynamic_sizes import (
    last_smaller_batch,
    mark_dynamic_advice,
    marking_cannot_help,
    still_changed,
)
from compilescope.findings.finding import (
    Finding,
    Level,
    listed,
    plural,
    short,
    where,
)
from compilescope.findings.kinds import FindingKind
from compilescope.findings.number_attributes import number_attribute_advice, number_type
from compilescope.findings.number_uses import decisions_on, specialized, used_as_size
from compilescope.findings.recompile_causes import (
    Met,
    RecompileCause,
    compile_cost,
    recompile_causes,
    self_attribute,
    without_ids,
)
from compilescope.findings.skipped import is_branch
from compilescope.findings.version_calls import calls_served, flip_flop_findings, limit_findings
from compilescope.session.model import Compile, FailedGuard, Frame, Session
from compilescope.session.places import is_user_code, library


def recompile_findings(session: Session) -> list[Finding]:
    causes = recompile_causes(session)
    found = {key: _finding(cause, session) for key, cause in causes.items()}
    return [*found.values(), *limit_findings(session, causes, found), *flip_flop_findings(session, causes, found)]


def _chains(met: list[Met]) -> dict[tuple[int, str], list[str]]:
    """Per compiled function (by id), the values the changing thing took, in the order torch
    met them: 16 → 24 → 32."""
    chains: dict[tuple[int, str], list[str]] = {}
    for frame, c, guard in met:
        # per function, and per frame id: torch numbers a function's code anew after
        # torch._dynamo.reset(), and a size met again there is not one that came back
        values = chains.setdefault((id(frame), c.compile_id.lstrip("!").split("/")[0]), [])
        for value in (guard.expected, guard.actual):
            if value is not None and (not values or values[-1] != value):
                values.append(value)
    return chains


def _values(met: list[Met]) -> list[str]:
    """The values met, each once, in the order of first meeting (across functions)."""
    return list(dict.fromkeys(value for chain in _chains(met).values() for value in chain))


def _flip_flops(met: list[Met]) -> list[str] | None:
    """A function's chain where a value came back after another (8 → 16 → 8): torch compiled
    for it again; None where none did."""
    return next((chain for chain in _chains(met).values() if len(set(chain)) < len(chain)), None)


def _caller(compiles: list[Compile]) -> str | None:
    """The user's line that called the compiled function, for the first compile that says:
    "train.py:15", or "train.py:15 (`step(ids)`)" where torch quoted it."""
    for c in compiles:
        if c.called_from:
            place = short(c.called_from[-1].split(" in ")[0])
            return f"{place} (`{c.call_code}`)" if c.call_code else place
    return None


def _global_name(subject: str) -> str | None:
    """ "SCALE" for a guard's `G['SCALE']` (a global of the function's module); None for
    anything else (an argument, an attribute of a global)."""
    found = re.fullmatch(r"G\['([A-Za-z_][A-Za-z0-9_]*)'\]", subject)
    return found.group(1) if found else None


def _origin(guard: FailedGuard, frame: Frame) -> str | None:
    """The line that made torch add the guard: the user's, at its place; where torch names a
    line of its own (Dynamo's, a torch module's), that is no place for the user to act: the
    compiled function is named instead."""
    if not guard.user_code:
        return None
    # (torch writes a place in its own files relative to its folder: "_dynamo/variables/tensor.py")
    in_torch = bool(guard.filename and re.match(r"(?:_\w+|nn|utils|fx|optim|distributed|autograd|cuda|amp)[/\\]", guard.filename))
    if guard.filename and (in_torch or not is_user_code(guard.filename)):
        owner = "torch" if in_torch else library(guard.filename) or "a library"
        return f"`{guard.user_code}` in {owner}'s code, reached from {frame.known_as}"
    return f"`{guard.user_code}`" + (f" at {short(where(guard.filename, guard.lineno) or '')}" if guard.filename else "")


def _is_flag(constants: list[str]) -> bool:
    """Whether the constants compiled in were True or False (a flag), as torch's guard says them."""
    return bool(constants) and all(value in ("True", "False") for value in constants)


def _branch(guard: FailedGuard) -> str | None:
    """ "the branch `if loss < best:` (file:line)" where the guard was made by a Python branch
    (`if`, `elif`, `while`, `assert`, `a if c else b`), else None."""
    code = (guard.user_code or "").strip()
    if not is_branch(code):
        return None
    place = f" ({short(where(guard.filename, guard.lineno) or '')})" if guard.filename and is_user_code(guard.filename) else ""
    return f"the branch `{code}`{place}"


def _is_string(constants: list[str]) -> bool:
    """Whether the constants compiled in were strings, as torch's guard says them ('mean')."""
    return bool(constants) and all(re.fullmatch(r"'.*'|\".*\"", value, re.S) is not None for value in constants)


def _length_of(subject: str | None) -> str | None:
    """`parts` for a guard on `len(parts)`: the length of a list, tuple or *args, which Dynamo
    compiles in; None for any other subject."""
    found = re.fullmatch(r"len\(([^()]+)\)", subject or "")
    return found.group(1) if found else None


def _finding(cause: RecompileCause, session: Session) -> Finding:
    met = cause.met
    compiles = [c for _, c, _ in met]
    functions = list(dict.fromkeys(f.name for f, _, _ in met))
    labels = list(dict.fromkeys(f.label_of(c) for f, c, _ in met))
    known = list(dict.fromkeys(f.known_as for f, _, _ in met))
    cost_s, cost = compile_cost(compiles)
    caller = _caller(compiles)
    kind = cause.key[0]
    values = _values(met)
    # (code shared by functions recompiles as a consequence: of graph breaks, whose findings lead)
    level: Level = PROBLEM if len(met) >= 4 and kind != "shared code" else WARNING
    detail_lines: list[str] = []
    fix = ""
    flag = False  # a True/False value compiled in: nothing to try
    dynamic_cannot_help = False  # a string, a module's number attribute: dynamic=True does not make it symbolic
    place_of_assignment: str | None = None  # a module attribute forward assigns: the assignment is the place
    marking_helps = True  # whether making the dimension dynamic can remove these recompiles
    callees = callee_names(met[0][0], session.compiled_modules)
    if kind == "shared code":
        title, detail_lines, fix = _shared_code(met, session)
    elif kind in ("size", "stride"):
        dim = cause.key[1]
        title = f"The {'size' if kind == 'size' else 'stride'} of dimension {dim} changed ({' → '.join(_short_values(values))}): {plural(len(met), 'recompile')} of {_names(known)}"
        became_dynamic = any(d.kind in ("automatic dynamic", "symbol") for c in compiles for d in c.dynamic)
        detail_lines.extend(_guard_lines(met))
        mark = mark_dynamic_advice(met, compiles, dim, callees)
        last_batch = last_smaller_batch(met, dim) if kind == "size" else None
        cannot = marking_cannot_help(met, dim) if kind == "size" else None
        if cannot is not None:
            marking_helps = False
            if last_batch is not None:
                fix = f"{last_batch} {cannot} Drop that batch, or pad it to the others' size."
            else:
                fix = f"{cannot} If only a few sizes occur, pad the inputs to one of them; else expect a version for each."
        elif last_batch is not None:
            fix = f"{last_batch} Or, to keep it, mark the dimension dynamic before the first call: {mark}, or compile with dynamic=True."
        elif kind == "size" and became_dynamic:
            fix = (
                f"torch made that dimension dynamic after the first change, so later sizes reuse one version. "
                f"To skip the recompile, mark it dynamic before the first call: {mark}, or compile with dynamic=True."
            )
        else:
            fix = (
                f"Each size got its own compiled version. If it keeps changing, mark it dynamic before the first call: {mark}, "
                "or compile with dynamic=True (dynamic=False keeps every size static); if only a few sizes occur, pad the inputs to them."
            )
        if cannot is None and (still := still_changed(met, compiles, callees)) is not None:
            fix += " " + still
    elif kind == "dtype":
        title = f"The dtype of an input changed ({' → '.join(values)}): {plural(len(met), 'recompile')} of {_names(known)}"
        detail_lines.extend(_guard_lines(met))
        fix = (
            "Each dtype gets its own compiled version (a dtype cannot be made dynamic). If the change is not intended, "
            f"convert where the tensor is made or before the call ({_cast(cause.guard, _at_call(met, compiles, variable=False, callees=callees))}){' at ' + caller if caller else ''}; "
            "if it is, expect one compile per dtype."
        )
    elif kind == "value" and (length := _length_of(cause.guard.subject)):
        frame = met[0][0]
        what = "the positional arguments it was called with" if length in ("args", "*args") else f"`{length}`"
        # (torch says which length a version was compiled for, not the new one's)
        title = f"The number of items in {what} changed: {plural(len(met), 'recompile')} of {frame.label_of(met[0][1])} (its versions before had {listed(values)})"
        detail_lines.append(f"Guard failed: {cause.guard.text}" + (f" (from `{cause.guard.user_code}`)" if cause.guard.user_code else ""))
        # (Dynamo guards every list's and tuple's length and never makes one symbolic: dynamic=True
        # compiles as many versions, and a tensor of the count would not change the list)
        fix = "Each length gets its own compiled version, and no setting makes a length dynamic (dynamic=True compiles as many). "
        if length in ("args", "*args"):
            fix += "Call it the same way each time: the same arguments, each passed the same way (always, positionally or by keyword)."
        else:
            fix += (
                "Pass the same number of items each time (pad to one or a few counts), or stack them into one tensor, "
                "whose size can change without a recompile (torch._dynamo.mark_dynamic)."
            )
    elif kind == "value":
        subject = cause.guard.subject or "a value"
        frame = met[0][0]
        constants = [g.expected for _, _, g in met if g.expected is not None]
        name = _global_name(subject)
        named = f"The global `{name}`" if name else f"`{subject}`"
        title = f"{named} in {frame.label_of(met[0][1])} was compiled in as a constant ({listed(list(dict.fromkeys(constants)))}): {plural(len(met), 'recompile')}"
        origin = _origin(cause.guard, frame)
        detail_lines.append(f"Guard failed: {cause.guard.text}" + (f" (from {origin})" if origin else ""))
        became_dynamic = any(d.kind == "symbol" for d in decisions_on(subject, compiles)) or any(
            subject in (d.source or "") for c in compiles for d in c.dynamic
        )
        held = specialized(subject, compiles)  # made symbolic, then specialized back: its code needs the number
        flag = _is_flag(constants)
        if flag:
            title = f"`{subject}` in {frame.label_of(met[0][1])} is a flag, True or False, compiled in: {plural(len(met), 'recompile')}"
            # (a flag as a tensor would make its `if` data-dependent: a graph break; and
            # dynamic=True makes numbers symbolic, never a bool)
            fix = (
                f"`{subject}` is a flag, True or False, and Dynamo compiles each value in: code that branches on it gets "
                "a version for each of its two values. That is as it should be, and nothing to change: as a tensor, "
                "the branch on it would depend on a tensor's value, a graph break."
            )
        elif _is_string(constants):
            title = f"`{subject}` in {frame.label_of(met[0][1])} is a string, compiled in: {plural(len(met), 'recompile')}"
            # (a string cannot be a tensor, and dynamic=True makes numbers symbolic, never a string)
            fix = (
                f"`{subject}` is a string ({listed(list(dict.fromkeys(constants)))} compiled in), and Dynamo compiles each "
                "value in: code that depends on it gets a version per value. While it takes a few values that is as it "
                "should be, and nothing to change: a string cannot be passed as a tensor, and dynamic=True makes only "
                "numbers symbolic. Where it takes many (a name per step, a path), work out what the compiled code needs "
                "from it before the call and pass that instead, or keep it out of the compiled function."
            )
            dynamic_cannot_help = True
        elif (branch := _branch(cause.guard)) is not None:
            fix = (
                f"`{subject}` decides {branch}, so passed as a tensor it would make that branch depend on a tensor's value: "
                "a graph break. "
                + (
                    "torch made it symbolic at its first change, so later values reuse one version while the branch goes the same way."
                    if became_dynamic
                    else "Each value compiles a version of its own."
                )
                + " To keep one version, decide the branch in the graph (torch.where on tensors)."
            )
            dynamic_cannot_help = True
        elif held is not None:
            needs = (
                f"`{held.code}`" + (f" ({short(where(held.filename, held.lineno) or '')})" if held.filename else "")
                if held.code
                else "its code"
            )
            detail_lines.append(
                f"torch made `{subject}` symbolic at its first change, but {needs} needs its exact value, so torch "
                "specialized it back: each value compiles a version of its own."
            )
            fix = (
                f"Neither a tensor nor dynamic=True can help here: {needs} needs `{subject}` as a Python number (a loop's "
                "count, a value that decides the code). A version per value is as it should be while it takes a few values; "
                "where it takes many, keep that code out of the compiled function (compile the loop's body and loop in "
                "Python), or let the number take only a few values."
            )
            dynamic_cannot_help = True
        elif (attribute := self_attribute(subject)) and (number := number_type(constants)):
            # (a module's attribute is read, not passed either; and an int one is never made
            # symbolic by dynamic=True: number_attributes.py)
            title = f"`self.{attribute}` of {frame.known_as}, a Python {number}, was compiled in as a constant ({listed(list(dict.fromkeys(constants)))}): {plural(len(met), 'recompile')}"
            advice = number_attribute_advice(frame, attribute, number, constants[0], compiles, None)
            detail_lines.append(advice.detail)
            fix = advice.fix
            dynamic_cannot_help = True
            place_of_assignment = advice.init_place  # (set from outside: the fix goes where it is made)
        elif name is not None:
            # (a global is read, not passed: it is the global that becomes a tensor, read at each
            # call as an input; reassigning it to another tensor of the same shape and dtype
            # compiles nothing new)
            fix = (
                f"The global `{name}`, a Python number, was compiled into the graph as the constant {cause.guard.expected}, "
                "so a new value compiles again."
            )
            set_at = [str(n) for n in global_assignments(frame.filename, name)]
            lines = ", ".join(set_at[:-1]) + " and " + set_at[-1] if len(set_at) > 1 else "".join(set_at)  # "7 and 17"
            places = f" ({short(frame.filename)} line{'s' if len(set_at) > 1 else ''} {lines})" if set_at and frame.filename else ""
            tensor = f"`{name} = torch.tensor({cause.guard.expected})` where it is set{places}, and each new value a tensor too; or compile with dynamic=True."
            if became_dynamic:
                fix += f" torch then made it symbolic, so later values reuse one version. To skip the recompile, make it a tensor: {tensor}"
            else:
                fix += f" Make it a tensor, so that its value is an input, not a constant: {tensor}"
        elif (size := used_as_size(cause.guard.user_code, subject)) is not None:
            fix = (
                f"A Python number passed as `{subject}` was compiled into the graph as the constant {cause.guard.expected}, "
                f"so a new value compiles again. It is a size or a dimension in {size}, which a tensor cannot be: "
            )
            if became_dynamic:
                fix += "torch then made it symbolic, so later values reuse one version; to skip that recompile too, compile with dynamic=True (sizes symbolic from the first call)."
            else:
                fix += "compile with dynamic=True, which makes it symbolic, so that one version serves every value."
        else:
            fix = f"A Python number passed as `{subject}` was compiled into the graph as the constant {cause.guard.expected}, so a new value compiles again."
            passed = _at_call(met, compiles, variable=False, callees=callees)
            tensor = f"torch.tensor({passed})" if passed is not None else f"torch.tensor(...) of the number the call passes as `{subject}`"
            call = next((c for c in compiles if c.called_from), None)
            rewritten = call_with_argument(call.call_code, met[0][0], subject, "torch.tensor({})", callees) if call else None
            if rewritten is not None and call is not None:
                tensor += f": `{rewritten}` at {short(call.called_from[-1].split(' in ')[0])}"
            if became_dynamic:
                fix += f" torch then made `{subject}` symbolic, so later values reuse one version; to skip the recompile, pass it as a tensor ({tensor}), or compile with dynamic=True."
            else:
                fix += f" Pass it as a tensor ({tensor}) so its value is an input, not a constant, or compile with dynamic=True."
    elif kind == "backend":
        frame = met[0][0]
        title = f"{frame.label} is compiled by more than one torch.compile(...) call: {plural(len(met), 'recompile')}"
        for _, c, guard in met:
            cached = re.search(r"Cached backend: (.+?)(?: \(id=0x[0-9a-f]+\))?\. New backend:", guard.text)
            new = re.search(r"New backend: (.+?)(?: \(id=0x[0-9a-f]+\))?\.(?: |$)", guard.text)
            if cached and new:
                detail_lines.append(
                    f"{guard.previous_compile or 'the version before'} was made by {_settings(cached.group(1))}; {c.compile_id} by {_settings(new.group(1))}"
                )
        detail_lines.append("Guard failed: " + without_ids(cause.guard.text))
        fix = (
            "torch.compile(...) calls with different settings (backend, mode, dynamic, options) on one function or module "
            "each need their own version, and torch checks which made the running one (BACKEND_MATCH). Compile it once "
            "and reuse the result."
        )
    elif kind == "global state":
        title = f"Global state changed: {plural(len(met), 'recompile')} of {_names(known)}"
        detail_lines.append(f"Guard failed: {cause.guard.text}")
        if "grad_mode" in cause.guard.text:
            fix = "Gradient mode changed (torch.no_grad vs training): each mode gets its own compiled version. This is expected when a model is used for both."
            level = INFO  # (as the fix says: expected, not a problem to fix)
        else:
            fix = (
                "A global setting the compiled code depends on changed between calls (torch's global state: grad mode, "
                "autocast, deterministic algorithms, the default dtype or device): set it the same way around every call, "
                "or expect one version per setting."
            )
    else:
        frame = met[0][0]
        title = f"{frame.label_of(met[0][1])} compiled again: {plural(len(met), 'recompile')}"
        if kind == "attribute":
            detail_lines.extend(_guard_lines(met))
        else:
            detail_lines.append(f"Guard failed: {without_ids(cause.guard.text)}")
        attribute = cause.key[4] if kind == "attribute" else self_attribute(cause.guard.text)
        assigned = assignment_in(frame, attribute) if attribute else None
        if attribute and assigned is not None:
            at_line, code = assigned
            title = f"{frame.known_as} assigns `self.{attribute}`, which its compiled code depends on: {plural(len(met), 'recompile')}"
            assignment_place = where(frame.filename, at_line)
            values = [g.expected for _, _, g in met if g.expected is not None]
            if number := number_type(values):
                title = f"{frame.known_as} changes `self.{attribute}`, a Python {number} its compiled code reads as a constant: {plural(len(met), 'recompile')}"
                advice = number_attribute_advice(frame, attribute, number, values[0], compiles, assigned)
                detail_lines.append(
                    f"{frame.known_as} sets `self.{attribute}` at {short(assignment_place or '')} (`{code}`): {advice.detail}"
                )
                fix = advice.fix
            else:
                detail_lines.append(
                    f"{frame.known_as} sets `self.{attribute}` at {short(assignment_place or '')} (`{code}`): Dynamo guards on the "
                    f"module's attributes, so each new value (None, then a tensor, then one of another size) fails the guards of the versions before."
                )
                fix = (
                    f"Keep `self.{attribute}` stable: make it once in __init__ (self.register_buffer('{attribute}', ...) for a tensor), "
                    "or pass it to forward as an argument, rather than assigning it inside forward."
                )
            place_of_assignment = assignment_place
        elif attribute:
            fix = (
                f"The compiled code depends on `self.{attribute}`, and it changed between calls: keep it stable (make it once in "
                "__init__, or register_buffer for a tensor), or pass it to forward as an argument."
            )
        elif (branch := _branch(cause.guard)) is not None:
            fix = (
                f"{branch[0].upper()}{branch[1:]} went the other way than when it was compiled: Dynamo compiles one way of a Python branch into "
                "each version. Passed as tensors, its values would make the branch depend on a tensor's value, a graph "
                "break; to keep one version, decide it in the graph (torch.where on tensors)."
            )
        else:
            fix = (
                "Something the compiled code depends on changed between calls (the guard above says what): keep it the same "
                "between calls, or pass it as a tensor; TORCH_LOGS=recompiles prints each recompile's reason as it happens."
            )
    if kind != "shared code" and (chain := _flip_flops(met)) is not None:
        detail_lines.append(
            f"It flip-flops ({' → '.join(_short_values(chain))}): a value met before came back and compiled again, "
            "so every switch costs a compile."
        )
    served = [line for frame in dict((id(f), f) for f, _, _ in met).values() if (line := calls_served(frame))]
    if served:
        detail_lines.append("Calls served: " + "; ".join(served))
    if len(labels) > 1 and kind != "shared code":
        detail_lines.append(f"One change, {len(labels)} functions compiled again: {', '.join(labels)}.")
    try_fixes = (
        ("dynamic",)
        if kind in ("size", "stride", "value")
        and not _length_of(cause.guard.subject)
        and not flag
        and not dynamic_cannot_help
        and marking_helps
        else ()
    )
    first_call = next((c for c in compiles if c.called_from), None)
    place = first_call.called_from[-1].split(" in ")[0] if first_call else met[0][0].place
    if place_of_assignment:
        place = place_of_assignment
    return Finding(
        level,
        title,
        detail="\n".join(detail_lines),
        fix=fix,
        kind=FindingKind.RECOMPILE,
        compile_ids=tuple(c.compile_id for c in compiles),
        where=place,
        in_user_code=None,
        frames=tuple(functions),
        cost_s=cost_s,
        cost=cost,
        try_fixes=try_fixes,
    )


def _shared_code(met: list[Met], session: Session) -> tuple[str, list[str], str]:
    """Title, detail and fix for versions of one code compiled for different functions: a
    decorator's inner function (transformers' `wrapped_func` wraps many a forward) or a method
    several classes inherit (their objects name it: "BaseModelOutput.__init__"). Dynamo keeps
    compiled code per code object, so each function that runs it is another version, guarded on
    what tells them apart; none is an input change. Dynamo compiles a function on its own only
    where a frame starts there: the function torch.compile was given, or a call a graph break
    stopped it tracing into its caller."""
    frames = list({id(frame): frame for frame, _, _ in met}.values())
    functions = {function for frame in frames for function in frame.shared_by}
    codes = [frame.code_name for frame in frames]
    title = (
        f"{len(functions)} functions compiled one by one, each as a version of a code it shares with others "
        f"({listed(codes)}): {plural(len(met), 'recompile')}"
    )
    detail = []
    for frame in frames:
        versions = [f"{c.compile_id} {c.for_function}" for c in frame.compiles if c.for_function]
        detail.append(f"{frame.code_name}: " + ", ".join(versions[:6]) + (f", and {len(versions) - 6} more" if len(versions) > 6 else ""))
    guard = met[0][2]
    detail.append(
        "Dynamo keeps compiled code per code object, and a decorator's inner function (or a method several classes inherit) "
        "is one code object for every function it serves: each function that runs it compiles another version, guarded on "
        f"what tells the functions apart (`{without_ids(guard.text)}` in {met[0][1].compile_id}). These recompiles are not "
        "changes of your inputs."
    )
    breaks = session.graph_breaks
    if breaks:
        first = breaks[0]
        place = short(where(first.filename, first.lineno) or "") or "an unknown place"
        fix = (
            "Dynamo compiles such a function on its own only where it starts a frame there: the function given to "
            f"torch.compile, or a call that a graph break stopped it tracing into its caller's graph. This run has "
            f"{plural(len(breaks), 'graph break')} (the first at {place}: {first.reason}): remove them, and these "
            "functions are traced into their callers' graphs instead of compiled one by one."
        )
    else:
        fix = (
            "Dynamo compiles such a function on its own only where it starts a frame there. This run has no graph "
            "break, so each was called from code Dynamo did not trace (given to torch.compile one by one, say): "
            "compile one module or function that calls them all, and they are traced into its graph."
        )
    fix += " Each version counts toward torch._dynamo.config.recompile_limit: past it, the functions after run uncompiled."
    return title, detail, fix


# torch's dtype names in guard messages, as the torch.dtype a user writes
_DTYPES = {
    "Float": "float32",
    "Double": "float64",
    "Half": "float16",
    "BFloat16": "bfloat16",
    "Int": "int32",
    "Long": "int64",
    "Bool": "bool",
}


def _at_call(met: list[Met], compiles: list[Compile], variable: bool, callees: tuple[str, ...] = ()) -> str | None:
    """The caller's expression for the guard's subject at the call (findings/arguments.py), a
    variable only where `variable`; None where it cannot be worked out."""
    entry, _, guard = met[0]
    call = next((c for c in compiles if c.called_from), None)
    if call is None or not guard.subject:
        return None
    found = expression_at_call(call.call_code, entry, guard.subject, callees)
    if found is None or (variable and not found[1]):
        return None
    return found[0]


def _cast(guard: FailedGuard, passed: str | None = None) -> str:
    """`ids.to(torch.float32)`, with the caller's expression where it is known."""
    dtype = _DTYPES.get(guard.expected or "")
    cast = f".to(torch.{dtype})" if dtype else ".to(...)"
    if passed is None:
        return f"`{cast}` on the tensor passed as `{guard.subject}`" if guard.subject else f"`{cast}`"
    return f"{passed}{cast}"


def _guard_lines(met: list[Met], limit: int = 4) -> list[str]:
    lines = [f"{frame.label_of(c)} {c.compile_id}: {guard.text}" for frame, c, guard in met[:limit]]
    if len(met) > limit:
        lines.append(f"… and {len(met) - limit} more like these")
    return lines


def _settings(backend: str) -> str:
    """torch's words for a torch.compile call's backend ("_TorchCompileWrapper(compiler='eager',
    dynamic=None)") as the call a user writes ("torch.compile(backend='eager')"); as torch
    wrote it where it is in another shape."""
    compiler = re.search(r"compiler='([^']+)'", backend)
    if compiler is None:
        return backend
    parts = [f"backend={compiler.group(1)!r}"]
    for key in ("mode", "dynamic", "fullgraph"):
        found = re.search(rf"\b{key}=('[^']*'|\w+)", backend)
        if found and found.group(1) != "None":
            parts.append(f"{key}={found.group(1)}")
    return f"torch.compile({', '.join(parts)})"


def _short_values(values: list[str]) -> list[str]:
    return values if len(values) <= 6 else [*values[:4], "…", values[-1]]


def _names(functions: list[str]) -> str:
    return listed(functions, 4)
