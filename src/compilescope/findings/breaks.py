"""Graph breaks, by site: one finding per line of code where Dynamo stopped, however many
compiled functions met it and for whatever reasons (a `print(float(t))` breaks twice on one line:
once to read the value, once to print it); and compiled code that captured nothing at all.

The cost of a break is the compiles it made happen: the functions Dynamo compiled separately
because it could not go on (those that met the break after the first) and the resume functions
that run the code after it; for a break torch cannot resume from, the work it leaves without
torch.compile on every call (findings/skipped.py), measured where calls were recorded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from compilescope.findings import INFO, PROBLEM, WARNING
from compilescope.findings.captured_scalars import scalar_indexes_container
from compilescope.findings.finding import (
    NOT_MEASURED,
    Finding,
    Level,
    code_of,
    listed,
    plural,
    seconds,
    short,
    where,
)
from compilescope.findings.kinds import FindingKind
from compilescope.findings.offers import (
    already_set,
    dynamic_shape_not_capturable,
    logging_not_ignorable,
    print_as_fstring,
    print_not_reorderable,
    print_of_tensor,
    prints_a_read_value,
)
from compilescope.findings.recompile_causes import carried_over_a_break
from compilescope.findings.skipped import (
    break_in_frame,
    hinted_fixes,
    rest_of_function,
    scalar_decides_branch,
    skips_function,
    skips_rest,
    where_rewrite,
)
from compilescope.session.benchmarks import Profile
from compilescope.session.model import Compile, Frame, GraphBreak, Session
from compilescope.session.places import is_user_code, library

# Places where torch breaks the graph on purpose: nothing in the user's code can remove them.
_DELIBERATE = (
    (re.compile(r"[/\\]torch[/\\]optim[/\\]"), "torch's optimizers break the graph here on purpose, around the step"),
    (re.compile(r"[/\\]torch[/\\]_dynamo[/\\]"), "torch's Dynamo breaks the graph here on purpose"),
)


# torch's reason for a break at a Python logging call (not any object named logger: DDP's is not)
_LOGGING = re.compile(r"logging\.Logger|\blogging\b|warning_once", re.I)


def _reason_advice(brk: GraphBreak) -> str:
    """Advice for a common reason, read from torch's reason and the line it broke on."""
    reason, code = brk.reason, brk.code or ""
    if re.search(r"Tensor\.item\(\)|\bitem\(\)", reason, re.I):
        if re.search(r"^\s*(if|elif|while)\b|\bif\b.*\belse\b", code):
            return (
                "Python needs the tensor's value to decide the `if`, so the graph is cut. Keep the decision in the "
                "graph: torch.where(cond, a, b), or torch.cond."
            )
        if re.search(r"\bprint\(|\blog|\.info\(|\.debug\(|\.warning\(", code):
            return "The value is read out of the tensor only to be printed or logged: do that outside the compiled function, or less often."
        return "Python needs the tensor's value here, so the graph is cut: keep the value a tensor as long as you can."
    if re.search(r"\bprint\b|builtin operator", reason, re.I) and re.search(r"\bprint\(", code):
        return "Printing inside the compiled function cuts the graph: move it out, or print less often."
    if _LOGGING.search(reason) or "warning_once" in code:
        return (
            "Logging inside the compiled function cuts the graph: move it out of the compiled code, or tell Dynamo to ignore or reorder it."
        )
    if re.search(r"data-dependent", reason, re.I):
        return "Control flow that depends on a tensor's values cannot be traced; torch.where or torch.cond keep it in the graph."
    if re.search(r"numpy|tolist", reason, re.I):
        return "Converting to Python or NumPy values leaves the graph; stay in torch ops."
    return ""


def _library_fix(brk: GraphBreak, user_line: GraphBreak | None) -> str | None:
    """The change in the user's call that keeps a known break in torch's code from happening,
    written for the user's line that calls into it; None where none is known."""
    if brk.function == "_detect_is_causal_mask" and user_line is not None:
        place = short(where(user_line.user_filename, user_line.user_lineno) or "")
        fixed = _with_keyword(user_line.user_code, "is_causal", "True", ("mask", "src_mask", "tgt_mask"))
        return (
            "torch compares the mask with a causal mask it builds, to learn whether it is causal: that needs the mask's "
            "values, so the graph is cut. Where the mask is causal (a square subsequent mask), say so: pass is_causal=True "
            f"with it at {place}"
            + (f": `{fixed}`" if fixed else "")
            + ". torch then skips the comparison (and can use a faster causal attention)."
        )
    return None


def _with_keyword(code: str | None, keyword: str, value: str, beside: tuple[str, ...]) -> str | None:
    """The line with `keyword=value` added to its call that passes one of `beside` (the mask)."""
    import ast

    if not code:
        return None
    try:
        tree = ast.parse(code.strip())
    except SyntaxError:
        return None
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and any(k.arg in beside for k in n.keywords)]
    if len(calls) != 1 or any(k.arg == keyword for k in calls[0].keywords):
        return None
    calls[0].keywords.append(ast.keyword(arg=keyword, value=ast.parse(value, mode="eval").body))
    return ast.unparse(tree)


def break_findings(session: Session) -> list[Finding]:
    sites: dict[tuple, list[tuple[Frame, Compile, GraphBreak]]] = {}
    for frame in session.frames:
        for c in frame.compiles:
            for brk in c.graph_breaks:
                sites.setdefault((brk.filename, brk.lineno) if brk.filename else (brk.reason,), []).append((frame, c, brk))
    by_name = {f.name: f for f in session.frames}
    torch_version = session.environment.torch
    versions = session.environment.libraries or {}
    return [
        _finding(met, by_name, torch_version, session.environment.dynamo_config or {}, versions, session.profile) for met in sites.values()
    ]


def _finding(
    met: list[tuple[Frame, Compile, GraphBreak]],
    by_name: dict[str, Frame],
    torch_version: str | None,
    settings: dict[str, str],
    versions: dict[str, str],
    profile: Profile | None = None,
) -> Finding:
    frame, first, brk = met[0]
    reasons = list(dict.fromkeys(b.reason for _, _, b in met))
    functions = list(dict.fromkeys(f.name for f, _, _ in met))
    labels = list(dict.fromkeys(f.label for f, _, _ in met))
    compile_ids = tuple(dict.fromkeys(c.compile_id for _, c, _ in met))
    resumes = list(dict.fromkeys(b.resume_function for _, _, b in met if b.resume_function))
    site = where(brk.filename, brk.lineno)
    own = is_user_code(brk.filename)
    owner = None if own else library(brk.filename)
    if owner == "torch" and torch_version:
        owner = f"torch {torch_version}"
    elif owner is not None and owner in versions:
        owner = f"{owner} {versions[owner]}"
    elif owner == "python":
        owner = "Python's standard library"
    deliberate = next((words for pattern, words in _DELIBERATE if brk.filename and pattern.search(brk.filename)), None)

    shown = frame.known_as if brk.function in (None, frame.name) else brk.function
    title = f"Graph break in {shown}" + (f" at {short(site)}" if site else "")
    if owner and not deliberate:
        title += f" (in {code_of(owner)})"
    lines = []
    for reason in reasons:
        lines.append(reason)
    if brk.code:
        lines.append(f"    {brk.code}")
    skipping = [(f, c, b) for f, c, b in met if skips_rest(b)]
    eager = None
    if skipping:
        # (the frame that skips the rest of itself: the break may be in a function it calls)
        skipper, _, skipped_at = skipping[0]
        at = break_in_frame(skipped_at, skipper.filename, skipper.name)
        eager = _eager_rest(at, [c for f, c, _ in skipping if f is skipper], skipper.known_as, profile, by_name)
    if eager is not None:
        title += f": the rest of {eager.function} runs without torch.compile"
        lines.extend(eager.lines)
    elif any(skips_function(b) for _, _, b in met):
        eager = _eager_function(brk, frame, [c for _, c, b in met if skips_function(b)])
        title += f": {eager.function} runs without torch.compile"
        lines.extend(eager.lines)
    user_line = next((b for _, _, b in met if b.user_filename), None)
    if not own and user_line is not None:
        lines.append(
            f"Your code leads there from {short(where(user_line.user_filename, user_line.user_lineno) or '')}"
            + (f" in {user_line.user_function}" if user_line.user_function else "")
            + (f": {user_line.user_code}" if user_line.user_code else "")
            + "."
        )
    if resumes:
        lines.append(f"The code after it runs as {', '.join(resumes)}, compiled separately.")
        served = [c.calls for name in resumes if (frame_ := by_name.get(name)) is not None for c in frame_.compiles if c.calls is not None]
        if served:
            calls, ms = sum(c.calls for c in served), sum(c.total_ms for c in served)
            lines.append(
                f"That code ran in {plural(calls, 'call')} of its own ({ms:.1f} ms, its work included): each is a call "
                "the program would not make without the break, with its own guard check."
            )
        lines.extend(_values_carried_over([by_name[name] for name in resumes if name in by_name]))
    if len(labels) > 1:
        lines.append(
            f"Met while compiling {len(labels)} functions ({', '.join(labels)}): Dynamo stops at it in each "
            "compiled function whose code leads there; one change here removes them all."
        )
    if len(compile_ids) > len(labels):
        lines.append(f"Seen in {len(compile_ids)} compiles.")

    branch = scalar_decides_branch(brk, [c for _, c, _ in met])
    if deliberate:
        fix = f"{deliberate}: nothing to change in your code. Compile the code around it (the model's forward and backward) rather than across it."
        level: Level = INFO
    else:
        fix = _branch_advice(brk, branch, [c for _, c, _ in met]) if branch else _reason_advice(brk)
        hints = [h for _, _, b in met for h in (b.hint or "").splitlines()]
        hints = [h for h in dict.fromkeys(hints) if not h.startswith(("Please report", "Please file"))]
        if branch:  # (torch's hint to capture the scalar: said above why it cannot help here)
            hints = [h for h in hints if "capture_scalar_outputs" not in h]
        if hints:
            fix = (fix + "\n" if fix else "") + "torch's hint: " + "\n".join(hints)
        if _LOGGING.search(" ".join(reasons)) or "warning_once" in (brk.code or ""):
            names = [name for name in ("ignore_logging_functions", "reorderable_logging_functions") if name in settings]
            if names:
                fix += "\nSettings this torch has for it: " + ", ".join(f"torch._dynamo.config.{n}" for n in names) + "."
        level = WARNING
        known = _library_fix(brk, user_line)
        if known is not None:
            fix = known
        elif not own and owner:
            fix = (fix + "\n" if fix else "") + f"The break is in {code_of(owner, full=True)}: change your call into it"
            fix += f" (at {short(where(user_line.user_filename, user_line.user_lineno) or '')})" if user_line else ""
            fix += ", or compile a smaller region that does not reach it."

    # Cost: the compiles it made happen (the other functions that met it, the resume functions).
    caused = [c for _, c, _ in met if c is not first and (c.recompile_reason is None)]
    caused = [c for c in dict((id(c), c) for c in caused).values()]
    for name in resumes:
        resumed = by_name.get(name)
        if resumed is not None:
            caused.extend(resumed.compiles)
    times = [c.compile_time_s for c in caused if c.compile_time_s is not None]
    cost_s: float | None
    if eager is not None:
        cost_s, cost = eager.cost_s, eager.cost
    elif caused and times:
        cost_s = sum(times)
        cost = f"{seconds(sum(times))} compiling {plural(len(caused), 'extra version')} (the functions and the code after it, compiled separately)"
    elif not caused:
        cost_s, cost = 0.0, "no extra compile: the code after it was not compiled separately"
    else:
        cost_s, cost = None, f"{NOT_MEASURED}: torch gave no compile time"
    try_fixes: tuple[str, ...] = ()
    if not deliberate:
        reasons_text = " ".join(reasons)
        if re.search(r"Tensor\.item\(\)|capture_scalar_outputs", reasons_text):
            try_fixes += ("capture_scalar_outputs",)
        try_fixes += tuple(hinted_fixes([b.hint or "" for _, _, b in met]))
        if re.search(r"dynamic output shape|capture_dynamic_output_shape_ops", reasons_text, re.I):
            try_fixes += ("capture_dynamic_output_shape_ops",)
        if re.search(r"\bprint\(", brk.code or "") and re.search(r"builtin|print", reasons_text, re.I):
            try_fixes += ("reorder-print",)
        if _LOGGING.search(reasons_text) or "warning_once" in (brk.code or ""):
            try_fixes += ("ignore-logging",)
        # (a value that decides a Python branch: captured, torch breaks on the branch instead)
        try_fixes = tuple(f for f in dict.fromkeys(try_fixes) if not (branch and f == "capture_scalar_outputs"))
        # the fixes the trace shows cannot remove this break: not offered; said why, and what can
        cannot = _cannot_help(try_fixes, [b for _, _, b in met], [c for _, c, _ in met], settings)
        if cannot:
            try_fixes = tuple(f for f in try_fixes if f not in cannot)
            fix = _without_hints_for(fix, cannot)
            said = [f"--try {name} cannot remove this break: {why}. {_CANNOT_ADVICE.get(name, '')}".strip() for name, why in cannot.items()]
            if "reorder-print" in cannot and cannot["reorder-print"] == cannot.get("capture_scalar_outputs"):
                # one reason for both: said once
                said = [f"--try capture_scalar_outputs and --try reorder-print cannot remove this break: {cannot['reorder-print']}."]
                tensor = print_of_tensor(brk.code)
                if tensor is not None and brk.lineno is not None:
                    said.append(
                        f"Print the tensor instead (it prints as tensor(…), not as the bare number): replace line {brk.lineno} "
                        f"with\n    {tensor}\nand print reordered (--try reorder-print) moves it after the graph; or print "
                        "outside the compiled function."
                    )
            rewritten = print_as_fstring(brk.code) if "reorder-print" in cannot and "capture_scalar_outputs" not in cannot else None
            if rewritten is not None and brk.lineno is not None:
                said.append(
                    f"Here: replace line {brk.lineno} with\n    {rewritten}\nand print reordered "
                    "(--try reorder-print) moves it after the graph."
                )
            fix = "\n".join([*said, fix]).strip()
    place = site if own else (where(user_line.user_filename, user_line.user_lineno) if user_line else site)
    if eager is not None and eager.most and level == WARNING:
        level = PROBLEM
    return Finding(
        level,
        title,
        detail="\n".join(lines),
        fix=fix,
        kind=FindingKind.GRAPH_BREAK,
        compile_ids=compile_ids,
        where=place,
        in_user_code=own if brk.filename else None,
        library=owner,
        frames=tuple(functions),
        cost_s=cost_s,
        cost=cost,
        try_fixes=try_fixes,
        recurs=eager is not None and eager.recurs,
    )


_HINTED = {  # torch's hint lines that name each fix (left out where the fix cannot help)
    "reorder-print": "reorderable_logging_functions",
    "ignore-logging": "ignore_logging_functions",
    "capture_dynamic_output_shape_ops": "capture_dynamic_output_shape_ops",
}


def _cannot_help(fixes: tuple[str, ...], breaks: list[GraphBreak], versions: list[Compile], settings: dict[str, str]) -> dict[str, str]:
    """The offered fixes that cannot remove the break, each with why (findings/offers.py)."""
    out: dict[str, str] = {}
    read = prints_a_read_value(breaks)
    for fix in fixes:
        if read is not None and fix in ("capture_scalar_outputs", "reorder-print"):
            out[fix] = read
            continue
        why: str | None = None
        if fix == "reorder-print":
            why = next((w for b in breaks if (w := print_not_reorderable(b))), None)
        elif fix == "ignore-logging":
            why = next((w for b in breaks if (w := logging_not_ignorable(b))), None)
        elif fix == "capture_dynamic_output_shape_ops":
            why = next((w for b in breaks if (w := dynamic_shape_not_capturable(b, versions))), None)
        elif fix == "capture_scalar_outputs" and (use := next((u for b in breaks if (u := scalar_indexes_container(b, versions))), None)):
            why = (
                f"{use}: captured, the value has no number while torch compiles, and torch stops the program there "
                "(GuardOnDataDependentSymNode) rather than break"
            )
        elif already_set(fix, settings):
            why = f"the run already had torch._dynamo.config.{fix.removeprefix('config.').replace('=', ' = ')}"
        if why is not None:
            out[fix] = why
    return out


_CANNOT_ADVICE = {  # what can, where a fix cannot (capture_dynamic_output_shape_ops: offers.py says it, by use)
    "capture_scalar_outputs": (
        "Do the lookup outside the compiled function: return the tensor (the argmax, the indices), and read it "
        "(.item(), .tolist()) and index the Python object after the call."
    ),
    "reorder-print": (
        "Print outside the compiled function, or print only tensors, numbers and strings: an f-string is one string, "
        "which torch formats after the graph."
    ),
    "ignore-logging": (
        "Ask it outside the compiled function (once, before calling it) and pass the answer in, or leave the check out of the compiled code."
    ),
}


_GENERAL = ("Logging inside the compiled function cuts the graph", "Printing inside the compiled function cuts the graph")


def _without_hints_for(fix: str, cannot: dict[str, str]) -> str:
    """The fix text without torch's hint lines that suggest a fix that cannot help (and without
    the general words that would send the user to it: "tell Dynamo to ignore or reorder it")."""
    names = [_HINTED.get(name, name.removeprefix("config.").partition("=")[0]) for name in cannot]
    kept: list[str] = []
    prefix = ""
    for line in fix.splitlines():
        if any(name in line for name in names) or line.startswith(_GENERAL):
            if line.startswith("torch's hint: "):
                prefix = "torch's hint: "  # carried to the next hint torch gave
            continue
        kept.append(prefix + line if prefix and not line.startswith("torch's hint: ") else line)
        prefix = ""
    return "\n".join(kept)


def _branch_advice(brk: GraphBreak, branch: str, versions: list[Compile]) -> str:
    """For a value read with .item() that decides a Python branch: why capturing the scalar
    cannot help, and what can (the `if` written with torch.where where the source allows)."""
    if re.search(r"Tensor\.item\(\)|capture_scalar_outputs", brk.reason):
        text = (
            f"The value .item() reads decides {branch}: Python needs a real bool there, so capturing the scalar "
            "(--try capture_scalar_outputs) cannot remove this break: torch then breaks on the data-dependent branch instead. "
            "Keep the decision in the graph, as a tensor:"
        )
    else:
        text = (
            f"The value .item() reads decides {branch}: Python needs a real bool there, which a value kept in the graph "
            "cannot give. Keep the decision in the graph, as a tensor:"
        )
    rewrite = where_rewrite(brk, versions)
    if rewrite is not None:
        lines = f"line {rewrite.first}" if rewrite.first == rewrite.last else f"lines {rewrite.first}-{rewrite.last}"
        text += f" replace {lines} with\n    {rewrite.code.strip()}\n(torch.where computes both sides and picks per element; torch.cond(pred, true_fn, false_fn, operands) runs one branch, for code that must not run both)."
    else:
        text += (
            " torch.where(cond, a, b) for a value (both computed, one picked), or torch.cond(pred, true_fn, false_fn, operands) "
            "for code; or read the value and branch outside the compiled function."
        )
    return text


@dataclass
class _Eager:
    """What an unresumable break leaves without torch.compile, and what that costs."""

    function: str
    lines: list[str]
    cost_s: float | None
    cost: str
    most: bool  # the rest holds most of the function's calls
    # whether work is left without torch.compile on every call; not where every call in the rest
    # is compiled as a function of its own (only the Python between them is left)
    recurs: bool = True


def _eager_rest(brk: GraphBreak, versions: list[Compile], function: str, profile: Profile | None, by_name: dict[str, Frame]) -> _Eager:
    ops = list(dict.fromkeys(op for c in versions for g in c.graphs for op in g.ops))
    where_ = f" from line {brk.lineno}" if brk.lineno is not None else ""
    rest = rest_of_function(brk, versions, function)
    apart = _compiled_apart(rest.calls, by_name) if rest is not None else []
    left = [call for call in rest.calls if call not in apart] if rest is not None else []
    named = f" ({listed(rest.calls, 8)})" if rest is not None else ""
    compiled = f"only the code before it ({plural(len(ops), 'op')}: {listed(ops, 5)})" if ops else "only the code before it"
    lines = [
        f"torch cannot resume after this break, so it made no function for the code after it: the rest of {function}{where_}"
        f"{named} runs without torch.compile on every call; {compiled} is compiled."
    ]
    if apart:
        # (Dynamo starts again in each function the uncompiled code calls: those have graphs of their own)
        lines.append(
            f"Of what it calls, {listed(apart, 8)} {'is' if len(apart) == 1 else 'are'} compiled as functions of their own "
            f"(Dynamo starts again in each call the uncompiled code makes)"
            + (
                f"; {listed(left, 8)} {'runs' if len(left) == 1 else 'run'} without torch.compile."
                if left
                else ": what runs without torch.compile is the Python between them."
            )
        )
    recurs = not (rest is not None and rest.calls and not left)
    most = rest is not None and rest.total_calls is not None and (rest.call_count - len(apart)) * 2 > rest.total_calls
    estimate = ""
    if rest is not None:
        share = (
            f"{rest.call_count} of the {rest.total_calls} calls" if rest.total_calls is not None else f"{plural(rest.call_count, 'call')}"
        )
        estimate = f"estimated from {rest.read_from}: {share} in {function} come from the break's line on"
    timed = [c.calls for c in versions if c.calls is not None]
    if timed:
        calls, ms = sum(t.calls for t in timed), sum(t.total_ms for t in timed)
        cost = (
            f"{seconds(ms / 1000)} in {plural(calls, 'call')} that ran the rest of {function} without torch.compile, on every call "
            "(measured: each call's whole host time, the compiled part before the break included)"
        )
        if estimate:
            cost += f"; {estimate}"
        return _Eager(function, lines, ms / 1000, cost, most, recurs)
    # (the profiler names a version without its restart: "0/0" for the session's "0/0_1")
    regions = list(dict.fromkeys(re.sub(r"_\d+$", "", c.compile_id) for c in versions))
    counted = profile.compiled_regions if profile is not None else {}
    runs = sum(counted.get(region, 0) for region in regions)
    profiled = [profile.eager_ms[region] for region in regions if profile is not None and region in profile.eager_ms]
    if profiled:
        cost = (
            f"{seconds(sum(profiled) / 1000)} in {plural(runs, 'call')}: the ATen ops the rest of {function} ran without torch.compile "
            "(measured by --profile, whose recording slows them: host time of the ops run in its compiled code outside its graph; "
            "the backward not included)"
        )
        if estimate:
            cost += f"; {estimate}"
        return _Eager(function, lines, sum(profiled) / 1000, cost, most, recurs)
    said = f"on every call ({plural(runs, 'call')} counted by --profile, not timed)" if runs else "on every call"
    if estimate:
        cost = f"the work after the break, {said}: {estimate} (not timed: run times it on Python 3.12+, and with --profile)"
    else:
        cost = f"{NOT_MEASURED}: the work after the break, {said} (run times it on Python 3.12+, and with --profile)"
    return _Eager(function, lines, None, cost, most, recurs)


def _compiled_apart(calls: list[str], by_name: dict[str, Frame]) -> list[str]:
    """The calls, as written, of functions this run compiled as frames of their own
    (`self.loss_function`: the frame `loss_function`; `CausalLMOutput(...)`: its `__init__`)."""
    classes = {f.known_as.rsplit(".", 1)[0] for f in by_name.values() if f.name == "__init__" and "." in f.known_as}
    return [call for call in calls if (last := call.rsplit(".", 1)[-1]) in by_name and not by_name[last].is_resume or last in classes]


def _eager_function(brk: GraphBreak, frame: Frame, given_up: list[Compile]) -> _Eager:
    """A break torch could not handle at all: the whole function falls back to eager. Its cost
    includes the compiles torch gave up (rules.py says no "compile failed" of its own for them)."""
    function = frame.known_as
    times = [c.compile_time_s for c in dict((id(c), c) for c in given_up).values() if c.compile_time_s is not None]
    tried = f"; {seconds(sum(times))} on the compile torch gave up" if times else ""
    why = " (a graph break inside a for/while loop, which torch does not support)" if "graph break in loop" in brk.text else ""
    lines = [
        f"torch could not handle this break{why}, so it skipped the whole of {function}: it runs without torch.compile on "
        "every call, as plain Python; nothing of it is compiled."
    ]
    eager = frame.calls_without_compiled_code
    if eager is not None and eager.calls:
        cost = (
            f"{seconds(eager.total_ms / 1000)} in {plural(eager.calls, 'call')} of {function} that ran without torch.compile "
            f"(measured: each call's host time){tried}"
        )
        return _Eager(function, lines, eager.total_ms / 1000 + sum(times), cost, True)
    return _Eager(function, lines, None, f"{NOT_MEASURED}: all of {function}, on every call (run times it on Python 3.12+){tried}", True)


def _values_carried_over(resumed: list[Frame]) -> list[str]:
    """The recompiles of the code after the break because a value the break's line computed
    (an `.item()`) reached it as a Python number and was compiled in as a constant."""
    met = [(f, c, g) for f in resumed for c in f.compiles if c.failed_guards and carried_over_a_break(f, g := c.failed_guards[0])]
    if not met:
        return []
    constants = list(dict.fromkeys(g.expected for _, _, g in met if g.expected is not None))
    became_symbolic = any(d.source and "___stack" in d.source for f, _, _ in met for c in f.compiles for d in c.dynamic)
    text = (
        f"The value this line computed reaches the code after it as a Python number, and torch compiled it in as a constant "
        f"({listed(constants, 3)}): a new value compiled that code again, {plural(len(met), 'recompile')} "
        f"({', '.join(c.compile_id for _, c, _ in met)})."
    )
    if became_symbolic:
        text += " torch then made the value symbolic, so later values reuse one version."
    return [text + " Removing the break removes these recompiles too."]


def captured_nothing(session: Session, breaks: list[Finding]) -> list[Finding]:
    """Compiled code that put no operation in any graph: the function (or the whole program)
    ran eagerly, and its compiles bought nothing."""
    compiles = [c for f in session.frames for c in f.compiles if not f.is_resume]
    known = [c for c in session.compiles if c.op_count is not None]
    if not compiles or not known or any(c.op_count for c in known) or any(c.status == "failed" for c in compiles):
        return []
    times = [c.compile_time_s for c in session.compiles if c.compile_time_s is not None]
    functions = [f.label for f in session.frames if not f.is_resume]
    ddp = any("parallel/distributed.py" in (b.filename or "") or "DistributedDataParallel" in (b.text or "") for b in session.graph_breaks)
    # FSDP2 (fully_shard) keeps its hooks out of Dynamo (torch.distributed.fsdp._fully_shard.
    # _fsdp_common's _dynamo_disable): compiling the sharded root runs into them first
    fsdp = any("/fsdp/" in (b.filename or "") or "skipping FSDP hooks" in (b.text or "") for b in session.graph_breaks)
    detail = (
        f"{plural(len(session.compiles), 'compile')} of {plural(len(functions), 'function')} ({listed(functions, 5)}) put no "
        "operation in any graph: the code ran eagerly, as without torch.compile."
    )
    titles = [b.title for b in breaks]
    if titles:
        detail += "\nThe graph breaks that left nothing: " + "; ".join(titles[:4]) + (" …" if len(titles) > 4 else "") + "."
    if ddp:
        fix = (
            "torch.compile was given the DistributedDataParallel wrapper, whose forward breaks the graph before the "
            "model runs. Compile the model itself and wrap that: model = DDP(torch.compile(model)) (or torch.compile "
            "the model's forward), so the model's operations are captured."
        )
    elif fsdp:
        fix = (
            "torch.compile was given a module sharded with FSDP (fully_shard), whose hooks torch keeps out of "
            "the compiler: the call breaks the graph at them before the model's operations run. Compile the "
            "blocks inside instead, after sharding: for block in model.layers: block.forward = "
            "torch.compile(block.forward), so each block's operations are captured between the hooks."
        )
    else:
        fix = "Remove the graph breaks listed (or compile the function that does the tensor work itself), so operations reach a graph."
    return [
        Finding(
            PROBLEM,
            "torch.compile captured nothing: the code ran eagerly",
            detail=detail,
            fix=fix,
            kind=FindingKind.CAPTURED_NOTHING,
            where=next((b.where for b in breaks if b.where), None),
            compile_ids=tuple(c.compile_id for c in session.compiles),
            frames=tuple(functions),
            cost_s=sum(times) if times else None,
            cost=f"{seconds(sum(times))} compiling, for no graph" if times else f"{NOT_MEASURED}: torch gave no compile time",
        )
    ]
