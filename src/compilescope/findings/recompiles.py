"""Recompiles, by cause: one finding for one input change however many compiled functions it
made compile again (a sequence length that changed reaches every function the tensor flows
through), one for a Python number compiled in as a constant, one for the recompile limit.

The cause of a recompile is the guard that failed (torch's recompile reason): a size in one
dimension, a dtype, a value, the backend, the grad mode.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from compilescope.findings import INFO, PROBLEM, WARNING
from compilescope.findings.arguments import (
    assignment_in,
    call_with_argument,
    callee_expression,
    callee_names,
    expression_at_call,
    local_of,
    which_argument,
)
from compilescope.findings.finding import (
    NOT_MEASURED,
    Finding,
    Level,
    listed,
    plural,
    seconds,
    short,
    where,
)
from compilescope.session.model import Compile, FailedGuard, Frame, Session
from compilescope.session.places import is_user_code, library


def is_limit_refusal(c: Compile) -> bool:
    """The compile torch refused because the function had reached the recompile limit."""
    text = (c.failure or "").lower()
    return "recompile limit" in text or "recompile_limit" in text or "cache_size_limit" in text or "cache size limit" in text


def carried_over_a_break(frame: Frame, guard: FailedGuard) -> bool:
    """A value guard on `___stack0`-like names in a resume function: the value the line before a
    graph break computed (an `.item()`, a Python number) handed to the code after the break,
    where torch compiled it in as a constant. The break is its cause: the break's finding says
    it (findings/breaks.py), so no finding of its own names Dynamo's internal variable."""
    return frame.is_resume and guard.what == "value changed" and (guard.subject or "").startswith("___stack")


@dataclass
class _Cause:
    key: tuple
    guard: FailedGuard
    met: list[tuple[Frame, Compile, FailedGuard]] = field(default_factory=list)


def recompile_findings(session: Session) -> list[Finding]:
    causes: dict[tuple, _Cause] = {}
    for frame in session.frames:
        shared = bool(frame.shared_by)
        compiled_for: dict[str, str | None] = {}  # compile id -> the function it was compiled for
        met_before: set[str | None] = set()  # (a set: a frame can have thousands of versions)
        for c in frame.compiles:
            first_for_it = c.for_function not in met_before
            met_before.add(c.for_function)
            compiled_for[c.compile_id] = c.for_function
            if not c.recompile_reason or is_limit_refusal(c):
                continue
            guard = c.failed_guards[0] if c.failed_guards else FailedGuard(text="; ".join(c.recompile_reason))
            if shared and c.for_function and first_for_it:
                # a function of its own meeting the code another function compiled: not a change
                # of any input (its guards fail on what tells the functions apart)
                key: tuple = ("shared code",)  # one finding: one cause, whatever codes it met
                causes.setdefault(key, _Cause(key, guard)).met.append((frame, c, guard))
                continue
            if shared:  # a version of the same function before it: that version's guard is the cause
                guard = next((g for g in c.failed_guards if compiled_for.get(g.previous_compile or "") == c.for_function), guard)
            if carried_over_a_break(frame, guard):
                continue
            key = _cause_key(frame, guard)
            causes.setdefault(key, _Cause(key, guard)).met.append((frame, c, guard))
    found = {key: _finding(cause, session) for key, cause in causes.items()}
    return [*found.values(), *_limits(session, causes, found), *_flip_flops_in_calls(session, causes, found)]


def _cause_key(frame: Frame, guard: FailedGuard) -> tuple:
    what = guard.what or ""
    # a module attribute the compiled function assigns (`self.src_mask = mask` in forward): one
    # cause, whatever its guards say (None, then a tensor; a tensor of another size)
    attribute = _self_attribute(guard.subject or "") or (_self_attribute(guard.text) if not guard.subject else None)
    if attribute and assignment_in(frame, attribute) is not None:
        return ("attribute", frame.filename, frame.lineno, frame.name, attribute)
    if m := re.match(r"(size|stride) mismatch at index (\d+)", what):
        return (m.group(1), m.group(2))
    if what.startswith("dtype mismatch"):
        return ("dtype",)
    if what == "value changed":
        return ("value", frame.filename, frame.lineno, frame.name, guard.subject)
    if "BACKEND_MATCH" in guard.text:
        return ("backend", frame.filename, frame.lineno, frame.name)
    if "grad_mode" in guard.text or "GLOBAL_STATE" in guard.text:
        return ("global state", guard.text)
    return ("other", frame.name, _without_ids(guard.text))


def _without_ids(text: str) -> str:
    """torch's message without the object ids that differ from run to run."""
    return re.sub(r"\s*\(id=0x[0-9a-f]+\)|\bat 0x[0-9a-f]+", "", text)


def _chains(met: list[tuple[Frame, Compile, FailedGuard]]) -> dict[tuple[int, str], list[str]]:
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


def _values(met: list[tuple[Frame, Compile, FailedGuard]]) -> list[str]:
    """The values met, each once, in the order of first meeting (across functions)."""
    return list(dict.fromkeys(value for chain in _chains(met).values() for value in chain))


def _flip_flops(met: list[tuple[Frame, Compile, FailedGuard]]) -> list[str] | None:
    """A function's chain where a value came back after another (8 → 16 → 8): torch compiled
    for it again; None where none did."""
    return next((chain for chain in _chains(met).values() if len(set(chain)) < len(chain)), None)


def _compile_cost(compiles: list[Compile]) -> tuple[float | None, str]:
    times = [c.compile_time_s for c in compiles if c.compile_time_s is not None]
    if not times:
        return None, f"{NOT_MEASURED}: torch gave no compile time for {plural(len(compiles), 'these compiles', 'these compiles')}"
    text = f"{seconds(sum(times))} compiling {plural(len(compiles), 'version')}"
    if len(times) < len(compiles):
        text += f" ({len(compiles) - len(times)} of unknown time)"
    return sum(times), text


def _caller(compiles: list[Compile]) -> str | None:
    """The user's line that called the compiled function, for the first compile that says:
    "train.py:15", or "train.py:15 (`step(ids)`)" where torch quoted it."""
    for c in compiles:
        if c.called_from:
            place = short(c.called_from[-1].split(" in ")[0])
            return f"{place} (`{c.call_code}`)" if c.call_code else place
    return None


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


def _self_attribute(text: str) -> str | None:
    """`src_mask` for a guard on `self.src_mask` (or `L['self'].src_mask`)."""
    found = re.search(r"(?:\bself|L\['self'\])\.(\w+)", text)
    return found.group(1) if found else None


def _is_flag(constants: list[str]) -> bool:
    """Whether the constants compiled in were True or False (a flag), as torch's guard says them."""
    return bool(constants) and all(value in ("True", "False") for value in constants)


def _length_of(subject: str | None) -> str | None:
    """`parts` for a guard on `len(parts)`: the length of a list, tuple or *args, which Dynamo
    compiles in; None for any other subject."""
    found = re.fullmatch(r"len\(([^()]+)\)", subject or "")
    return found.group(1) if found else None


def _finding(cause: _Cause, session: Session) -> Finding:
    met = cause.met
    compiles = [c for _, c, _ in met]
    functions = list(dict.fromkeys(f.name for f, _, _ in met))
    labels = list(dict.fromkeys(f.label_of(c) for f, c, _ in met))
    known = list(dict.fromkeys(f.known_as for f, _, _ in met))
    cost_s, cost = _compile_cost(compiles)
    caller = _caller(compiles)
    kind = cause.key[0]
    values = _values(met)
    # (code shared by functions recompiles as a consequence: of graph breaks, whose findings lead)
    level: Level = PROBLEM if len(met) >= 4 and kind != "shared code" else WARNING
    detail_lines: list[str] = []
    fix = ""
    flag = False  # a True/False value compiled in: nothing to try
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
        mark = _mark_dynamic(met, compiles, dim, callees)
        last_batch = _last_batch(met, dim) if kind == "size" else None
        cannot = _marking_cannot_help(met, dim) if kind == "size" else None
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
        if cannot is None and (still := _still_changed(met, compiles, callees)) is not None:
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
        title = f"`{subject}` in {frame.label_of(met[0][1])} was compiled in as a constant ({listed(list(dict.fromkeys(constants)))}): {plural(len(met), 'recompile')}"
        origin = _origin(cause.guard, frame)
        detail_lines.append(f"Guard failed: {cause.guard.text}" + (f" (from {origin})" if origin else ""))
        became_dynamic = any(subject in (d.source or "") for c in compiles for d in c.dynamic)
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
        detail_lines.append("Guard failed: " + _without_ids(cause.guard.text))
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
            detail_lines.append(f"Guard failed: {_without_ids(cause.guard.text)}")
        attribute = cause.key[4] if kind == "attribute" else _self_attribute(cause.guard.text)
        assigned = assignment_in(frame, attribute) if attribute else None
        if attribute and assigned is not None:
            at_line, code = assigned
            title = f"{frame.known_as} assigns `self.{attribute}`, which its compiled code depends on: {plural(len(met), 'recompile')}"
            assignment_place = where(frame.filename, at_line)
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
        ("dynamic",) if kind in ("size", "stride", "value") and not _length_of(cause.guard.subject) and not flag and marking_helps else ()
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
        kind="recompile",
        compile_ids=tuple(c.compile_id for c in compiles),
        where=place,
        in_user_code=None,
        frames=tuple(functions),
        cost_s=cost_s,
        cost=cost,
        try_fixes=try_fixes,
    )


def _shared_code(met: list[tuple[Frame, Compile, FailedGuard]], session: Session) -> tuple[str, list[str], str]:
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
        f"what tells the functions apart (`{_without_ids(guard.text)}` in {met[0][1].compile_id}). These recompiles are not "
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


def _at_call(
    met: list[tuple[Frame, Compile, FailedGuard]], compiles: list[Compile], variable: bool, callees: tuple[str, ...] = ()
) -> str | None:
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


def _mark_dynamic(met: list[tuple[Frame, Compile, FailedGuard]], compiles: list[Compile], dim: str, callees: tuple[str, ...] = ()) -> str:
    """torch._dynamo.mark_dynamic on the user's own tensors, named as the line it goes before
    has them (findings/arguments.py): the arguments of the first function met (the one the user
    called) whose size changed in that dimension (the guard's, and the others torch made dynamic
    with it), with the call's place. Where an argument's expression cannot be worked out, the
    text says which argument it is rather than give a name the line does not have."""
    entry = met[0][0]
    own = [(c, g) for f, c, g in met if f is entry]
    subjects = [g.subject for _, g in own if g.subject]
    for c, _ in own:  # the inputs torch made dynamic in that dimension at the same recompile
        subjects.extend(
            local_of(d.source) for d in c.dynamic if d.kind == "automatic dynamic" and d.source and d.source.endswith(f" dim {dim}")
        )
    subjects = list(dict.fromkeys(s for s in subjects if not s.startswith("___"))) or ["x"]
    call = next((c for c, _ in own if c.called_from), None) or next((c for c in compiles if c.called_from), None)
    code = call.call_code if call is not None else None
    if len(subjects) == 1 and call is not None and (given := _named_first(code, entry, subjects[0], dim, callees)) is not None:
        return f"{given} at {short(call.called_from[-1].split(' in ')[0])}"
    named: list[str] = []
    unnamed: list[str] = []
    for subject in subjects:
        found = expression_at_call(code, entry, subject, callees)
        if found is not None and found[1]:
            named.append(found[0])
        elif found is not None:  # made in the call: there is no variable to mark until it has a name
            unnamed.append(f"{which_argument(entry, subject)} (made in the call by `{found[0]}`: give it a name first)")
        else:
            unnamed.append(which_argument(entry, subject))
    marks = [f"torch._dynamo.mark_dynamic({name}, {dim})" for name in dict.fromkeys(named)]
    if unnamed:
        marks.append(f"torch._dynamo.mark_dynamic(t, {dim}) on {' and on '.join(unnamed)}")
    text = " and ".join(marks)
    if call is not None:
        text += f" before `{code}`" if code else " before the call"
        text += f" at {short(call.called_from[-1].split(' in ')[0])}"
    if named and (named != subjects[: len(named)] or len(met) > 1):
        text += f" (the {'tensor' if len(subjects) == 1 else 'tensors'} {entry.known_as} gets as {listed([f'`{s}`' for s in subjects])})"
    return text


def _named_first(code: str | None, entry: Frame, subject: str, dim: str, callees: tuple[str, ...]) -> str | None:
    """For a tensor made in the call (`model(torch.randn(rows, 32))`): the lines that name it,
    mark it and pass it (`x = torch.randn(rows, 32)`, `torch._dynamo.mark_dynamic(x, 0)`, then
    `out = model(x)`), the name the compiled function gives it where the line does not use it;
    None where the tensor is not made in the call, or the line cannot be rewritten."""
    found = expression_at_call(code, entry, subject, callees)
    if code is None or found is None or found[1] or "\n" in code.strip():
        return None
    name = subject if subject.isidentifier() and not re.search(rf"\b{re.escape(subject)}\b", code) else "marked"
    passed = call_with_argument(code, entry, subject, name, callees)
    if passed is None:
        return None
    return f"give the tensor a name, mark it, then pass it: `{name} = {found[0]}`, `torch._dynamo.mark_dynamic({name}, {dim})`, then `{passed.strip()}`"


# a guard on one value, as torch writes it: "L['self'].config.problem_type is None",
# "L['self'].config.problem_type == 'single_label_classification'", "L['flag'] == False"
_VALUE_GUARD = re.compile(r"^(?P<subject>L\[[^\]]+\](?:\.\w+|\[[^\]]+\])*) (?:is (?P<none>None)|== (?P<value>.+))$")


def _values_checked(c: Compile) -> dict[str, str]:
    """The values a version checks one by one (NONE_MATCH, EQUALS_MATCH, TRUE/FALSE_MATCH), by
    what they check (torch's source)."""
    found = {}
    for g in c.guards:
        if g.kind in ("NONE_MATCH", "EQUALS_MATCH", "TRUE_MATCH", "FALSE_MATCH") and (m := _VALUE_GUARD.match(g.text.strip())):
            found[m.group("subject")] = "None" if m.group("none") else m.group("value")
    return found


def _also_changed(frame: Frame, c: Compile, guard: FailedGuard) -> list[tuple[str, str, str]]:
    """Values the version before checked and this one checks as another value: (torch's source,
    before, after). torch's recompile reason names only the first guard that failed; one of
    these fails next, so removing the first cause alone leaves a recompile."""
    before = next((p for p in frame.compiles if p.compile_id == guard.previous_compile), None)
    if before is None:
        return []
    old, new = _values_checked(before), _values_checked(c)
    failed = local_of(guard.subject or "")
    return [
        (subject, old[subject], value)
        for subject, value in new.items()
        if subject in old and old[subject] != value and local_of(subject) != failed
    ]


def _still_changed(met: list[tuple[Frame, Compile, FailedGuard]], compiles: list[Compile], callees: tuple[str, ...]) -> str | None:
    """What else changed between the versions, said with how to keep it the same from the
    first call (an attribute of the compiled module: set it on the object the line calls)."""
    entry, c, guard = met[0]
    changed = _also_changed(entry, c, guard)
    if not changed:
        return None
    call = next((c for c in compiles if c.called_from), None)
    called = callee_expression(call.call_code, entry, callees) if call is not None else None
    parts, settings = [], []
    for subject, old, new in changed[:3]:
        name = local_of(subject)
        parts.append(f"`{name}` was {old} in {guard.previous_compile} and {new} in {c.compile_id}")
        if name.startswith("self.") and called and new != "None":
            settings.append(f"`{called}{name[4:]} = {new}`")
    text = (
        f"That alone leaves a recompile: something else changed between the versions too, which torch's reason does not name "
        f"(it names the first guard that failed): {'; '.join(parts)}. "
    )
    if settings:
        where_ = f" at {short(call.called_from[-1].split(' in ')[0])}" if call is not None else ""
        text += f"It changed after the first compile (in the first call, or between the calls): set it to its later value before the first call ({' and '.join(settings)} before `{call.call_code if call else ''}`{where_}), and one version serves every call."
    else:
        text += "Keep that value the same from the first call on."
    return text


# a range torch's guards keep a dynamic size in: "2 <= L['x'].size()[0] <= 15", "16 <= L['x'].size()[0]"
_RANGE = re.compile(r"^(?:(?P<low>\d+) <= )?(?P<source>L\[.+?\])\.size\(\)\[(?P<dim>\d+)\](?: <= (?P<high>\d+))?$")


def _marking_cannot_help(met: list[tuple[Frame, Compile, FailedGuard]], dim: str) -> str | None:
    """Why marking the dimension dynamic cannot remove these recompiles, where the trace says so;
    None where it does not. Two ways torch shows it:
    - every recompile was from a size of 0 or 1, which torch always compiles as a constant (a
      dimension of 1 broadcasts): the version for it cannot be a dynamic one;
    - the version torch compiled with the dimension dynamic is kept to a range (a guard
      `2 <= x.size()[0] <= 15`, put there by an op that works one way below a size and another
      above it, conv2d on the CPU) that leaves out the size before: whatever is marked, the two
      sizes need a version each."""
    if all((guard.expected or "") in ("0", "1") for _, _, guard in met):  # (1 → 2, not 1 → 2 → 3: from 2 on, marking helps)
        before = met[0][2].expected
        dynamic = any(d.kind == "automatic dynamic" for _, c, _ in met for d in c.dynamic)
        return (
            f"Marking the dimension dynamic would not remove this recompile: the first size was {before}, and torch "
            "compiles a size of 0 or 1 as a constant, always (a dimension of 1 broadcasts), so that version cannot be "
            "a dynamic one. "
            + ("torch made the dimension dynamic at this recompile, so it is one compile, once; " if dynamic else "")
            + "to skip it, make the first call with a size of 2 or more there."
        )
    for _, c, guard in met:
        before = guard.expected or ""
        if not before.isdigit():
            continue
        for g in c.guards:
            found = _RANGE.match(g.text.strip())
            if found is None or found.group("dim") != dim or local_of(found.group("source")) != local_of(guard.subject or ""):
                continue
            low, high = int(found.group("low") or 0), found.group("high")
            if low <= int(before) and (high is None or int(before) <= int(high)):
                continue
            by = re.search(r"^(.*?)\s*#\s*(\S+:\d+)", g.user_code or "")
            # (torch writes a place in its own files relative to its folder: "nn/modules/conv.py:560")
            origin = (
                f" (a bound set by `{by.group(1).strip()}` at {by.group(2)}{'' if by.group(2).startswith('/') else ' in torch'})"
                if by
                else ""
            )
            return (
                f"Marking the dimension dynamic would not remove this recompile: the dynamic version torch compiled, "
                f"{c.compile_id}, holds only while {g.text.replace(found.group('source'), local_of(found.group('source')))}{origin}, "
                f"which leaves out {before}: the sizes on either side of that bound need a version each, whatever is marked."
            )
    return None


def _last_batch(met: list[tuple[Frame, Compile, FailedGuard]], dim: str) -> str | None:
    """The size that shrank once, in the batch dimension (64, 64, …, then 8 once): the last,
    smaller batch of an epoch whose dataset the batch size does not divide. Its usual fix is to
    drop that batch; None where the sizes do not say so."""
    if dim != "0":
        return None
    entry = met[0][0]
    own = [g for f, _, g in met if f is entry]
    if len(own) != 1:
        return None
    guard = own[0]
    try:
        expected, actual = int(guard.expected or ""), int(guard.actual or "")
    except ValueError:
        return None
    if actual >= expected:
        return None
    return (
        f"The batch dimension went from {expected} to {actual} once: the last batch of an epoch is smaller when the "
        f"dataset's size is not a multiple of the batch size. If it comes from a DataLoader, pass drop_last=True to it "
        f"(DataLoader(dataset, batch_size={expected}, drop_last=True)): every batch then has {expected} rows and nothing "
        "compiles again (that last batch's samples are left out of the epoch)."
    )


def _guard_lines(met: list[tuple[Frame, Compile, FailedGuard]], limit: int = 4) -> list[str]:
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


def _limits(session: Session, causes: dict[tuple, _Cause], found: dict[tuple, Finding]) -> list[Finding]:
    """The recompile limit reached: torch refused to compile the function again and runs its
    original Python for any input its versions do not fit, from then on. It is an effect: where
    the recompiles that led there have a cause (found), that cause's finding says it, with its
    cost; else it is a finding of its own."""
    out = []
    settings = session.environment.dynamo_config or {}
    for frame in session.frames:
        refused = [c for c in frame.compiles if is_limit_refusal(c)]
        if not refused:
            continue
        versions = [c for c in frame.compiles if not is_limit_refusal(c)]
        setting = next(
            (m.group(0) for c in refused for hint in c.failure_hints if (m := re.search(r"torch\._dynamo\.config\.\w+", hint))),
            None,
        )
        name = setting.rsplit(".", 1)[-1] if setting else None
        current = settings.get(name) if name else None
        detail = (
            f"torch compiled {plural(len(versions), 'version')} of {frame.label}"
            + (
                f", the limit ({setting} = {current})"
                if setting and current
                else (f", the limit ({setting})" if setting else ", the limit")
            )
            + f", then refused to compile it again ({', '.join(c.compile_id for c in refused)}): from then on, a call that none of its "
            "versions fits runs the function's original Python, uncompiled."
        )
        eager = frame.calls_without_compiled_code
        run_s = None
        if eager is not None:
            detail += f"\n{plural(eager.calls, 'call')} ran without compiled code ({seconds(eager.total_ms / 1000)})."
            run_s = eager.total_ms / 1000
        else:
            detail += "\nHow many calls then ran uncompiled was not recorded (compilescope run records calls on Python 3.12 and later)."
        fix = f"Raise {setting}" + (f" (now {current})" if current else "") + " only if many versions are truly needed." if setting else ""
        compile_s, _ = _compile_cost(refused)
        costs = []
        if compile_s is not None:
            costs.append(f"{seconds(compile_s)} on the refused compile")
        if eager is not None and run_s is not None:
            costs.append(f"{seconds(run_s)} in {plural(eager.calls, 'uncompiled call')}")
        known = [value for value in (compile_s, run_s) if value is not None]
        own = [key for key, cause in causes.items() if key in found and any(f is frame for f, _, _ in cause.met)]
        if own:  # the cause's finding says the limit, and carries its cost
            led = found[own[0]]
            led.level = PROBLEM
            led.title += f"; the recompile limit stopped compiling {frame.label}"
            led.detail += "\nThen the recompile limit: " + detail[0].lower() + detail[1:]
            led.fix += "\n" + fix if fix else ""
            led.compile_ids += tuple(c.compile_id for c in refused)
            if known:
                led.cost_s = (led.cost_s or 0.0) + sum(known)
                led.cost = "; ".join([led.cost, *costs]) if led.cost and not led.cost.startswith(NOT_MEASURED) else "; ".join(costs)
            continue
        cost_s = sum(known) if known else None
        cost = "; ".join(costs) or f"{NOT_MEASURED}: no compile time, calls not recorded"
        fix = "Find what changes between calls (TORCH_LOGS=recompiles shows each recompile's reason) and keep it fixed or dynamic." + (
            " " + fix if fix else ""
        )
        out.append(
            Finding(
                PROBLEM,
                f"Recompile limit reached: {frame.label} runs uncompiled for new inputs",
                detail=detail,
                fix=fix,
                kind="recompile limit",
                compile_ids=tuple(c.compile_id for c in refused),
                where=frame.place,
                frames=(frame.name,),
                cost_s=cost_s,
                cost=cost,
                try_fixes=(f"recompile_limit={max(2 * len(versions), 16)}",),
            )
        )
    return out


FLIP_FLOP_SWITCHES = 10  # calls that switch version this often: a finding


def _flip_flops_in_calls(session: Session, causes: dict[tuple, _Cause], found: dict[tuple, Finding]) -> list[Finding]:
    """Calls that switch back and forth between a function's versions (A → B → A → B), as run
    recorded them in order (Python 3.12+): each switch is a call whose input fits the other
    version, so the version tried first (the last one used) fails its guards first. Said with
    the cause of those versions where there is one (found), else on its own."""
    out = []
    for frame in session.frames:
        order = [run for run in frame.call_order if len(run) == 2]  # (a session from elsewhere may hold any lists)
        runs = [str(run[0]) for run in order if run[0] != "no compiled code"]
        switches = sum(1 for a, b in zip(runs, runs[1:]) if a != b)
        if switches < FLIP_FLOP_SWITCHES:
            continue
        versions = list(dict.fromkeys(runs))
        returns = sum(1 for i in range(2, len(runs)) if runs[i] == runs[i - 2] and runs[i] != runs[i - 1])
        if returns < switches // 2:
            continue
        calls = sum(int(run[1]) for run in order if run[0] != "no compiled code" and isinstance(run[1], int))
        own = [key for key, cause in causes.items() if key in found and any(f is frame for f, _, _ in cause.met)]
        if own:
            led = found[own[0]]
            led.title += f"; calls flip-flop between its versions ({switches} switches in {calls} calls)"
            led.detail += (
                f"\nThe calls of {frame.label} flip-flop between its versions: "
                + " → ".join(f"{run[0]} ×{run[1]}" for run in order[:8])
                + (" → …" if len(frame.call_order) > 8 or frame.call_order_cut else "")
                + f" ({switches} switches): each switch fails the guards of the version tried first."
            )
            continue
        out.append(
            Finding(
                WARNING,
                f"Calls of {frame.label} flip-flop between its versions ({' ↔ '.join(versions[:4])}{' …' if len(versions) > 4 else ''}): {switches} switches in {calls} calls",
                detail=(
                    "The calls in order, as run recorded them: "
                    + " → ".join(f"{run[0]} ×{run[1]}" for run in order[:12])
                    + (" → …" if len(frame.call_order) > 12 or frame.call_order_cut else "")
                    + "\nEach switch is a call whose input fits another version than the call before: the version tried first "
                    "fails its guards, then the next is checked."
                ),
                fix=(
                    "Make the inputs that alternate the same between calls (the same dtype, or sizes padded to one), or let one "
                    "version serve both (dynamic shapes: the recompile findings above say which input changes)."
                ),
                kind="flip-flop",
                compile_ids=tuple(versions),
                where=frame.place,
                frames=(frame.name,),
                cost=f"{NOT_MEASURED}: the guard checks of each switch are not timed",
            )
        )
    return out


def calls_served(frame: Frame) -> str:
    """ "f: 0/0 2, 0/1 40, no compiled code 1 (of 43 calls)", or "" when calls were not recorded."""
    shared = bool(frame.shared_by)  # (each version named by its function: "1/0 (encode) 2")
    parts = [
        f"{c.compile_id}{f' ({c.for_function})' if shared and c.for_function else ''} {c.calls.calls}"
        for c in frame.compiles
        if c.calls is not None
    ]
    eager = frame.calls_without_compiled_code
    if eager is not None and eager.calls:
        parts.append(f"no compiled code {eager.calls}")
    if not parts:
        return ""
    total = compiled_calls(frame) + (eager.calls if eager else 0)
    name = f"`{frame.name}`" if shared else frame.label
    return f"{name}: " + ", ".join(parts) + f" (of {total} calls)"


def compiled_calls(frame: Frame) -> int:
    """The calls the frame's compiled versions served, as recorded."""
    return sum(c.calls.calls for c in frame.compiles if c.calls is not None)
