"""What to do about a size that changed between calls: the line that marks the user's own
tensors dynamic (torch._dynamo.mark_dynamic), whether marking can remove the recompile at all,
the last smaller batch of an epoch (drop_last), and what else changed between the versions
that torch's reason does not name.

The recompile findings (findings/recompiles.py) say these as a size-change finding's fix.
"""

from __future__ import annotations

import re

from compilescope.findings.arguments import (
    call_with_argument,
    callee_expression,
    expression_at_call,
    local_of,
    which_argument,
)
from compilescope.findings.finding import listed, short, where
from compilescope.findings.recompile_causes import Met
from compilescope.session.model import Compile, DynamicShape, FailedGuard, Frame


def mark_dynamic_advice(met: list[Met], compiles: list[Compile], dim: str, callees: tuple[str, ...] = ()) -> str:
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


def still_changed(met: list[Met], compiles: list[Compile], callees: tuple[str, ...]) -> str | None:
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


def marking_cannot_help(met: list[Met], dim: str) -> str | None:
    """Why marking the dimension dynamic cannot remove these recompiles, where the trace says so;
    None where it does not. Two ways torch shows it:
    - every recompile was from a size of 0 or 1, which torch always compiles as a constant (a
      dimension of 1 broadcasts): the version for it cannot be a dynamic one;
    - the version torch compiled with the dimension dynamic is kept to a range (a guard
      `2 <= x.size()[0] <= 15`, put there by an op that works one way below a size and another
      above it, conv2d on the CPU) that leaves out the size before: whatever is marked, the two
      sizes need a version each;
    - torch specialized the dimension back to its size in a function (the trace's
      `specialization` decision: `for i in range(x.shape[0])` needs the count): each size
      compiles a version there, and a dimension marked dynamic makes torch raise
      ConstraintViolationError (measured: tests/traces/programs/row_loop.py)."""
    if (held := _specialized(met, dim)) is not None:
        frame, decision = held
        place = where(decision.filename, decision.lineno)
        return (
            f"Marking the dimension dynamic would not remove this recompile: in {frame.known_as}, `{decision.code}`"
            + (f" ({short(place)})" if place else "")
            + " needs the size's exact value, so torch specialized it back and compiles a version per size; a dimension "
            "marked dynamic there makes torch raise ConstraintViolationError (the program stops). To compile it once, "
            "loop outside the compiled function and compile the loop's body."
        )
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


def _specialized(met: list[Met], dim: str) -> tuple[Frame, DynamicShape] | None:
    """The first function among `met` where torch specialized the tensor's dimension `dim` back
    to its size, and torch's decision (its code and line)."""
    for frame, c, guard in met:
        for d in c.dynamic:
            found = _RANGE.match((d.source or "").strip())  # ("L['x'].size()[0]": a range with no bounds)
            if (
                d.kind == "specialization"
                and d.code
                and found is not None
                and found.group("dim") == dim
                and local_of(found.group("source")) == local_of(guard.subject or "")
            ):
                return frame, d
    return None


def last_smaller_batch(met: list[Met], dim: str) -> str | None:
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
