"""What `run --check-accuracy`'s whole-call check found, in words (record/accuracy_calls.py checks):
each function torch.compile made, called as the program calls it, against its own Python run
eagerly. A call that differs while every graph it ran matched eager is Dynamo's part, which the
graph checks cannot see; a call whose graph differs is the graph's finding (findings/accuracy.py),
not said twice."""

from __future__ import annotations

from compilescope.findings import PROBLEM
from compilescope.findings.accuracy_values import outcome_of, outcomes_counted, value_said
from compilescope.findings.finding import Finding, plural
from compilescope.findings.kinds import FindingKind
from compilescope.session.accuracy import CompiledCallable, WholeCall
from compilescope.session.model import Session

# (the code's own file:line, unless it is torch's: then the program's line that compiled it)
_LIBRARY_PARTS = ("/site-packages/", "/dist-packages/")


def whole_calls_said(session: Session) -> str | None:
    """ "whole calls against their Python run eagerly: 2 functions checked: 1 differs (Dynamo's
    capture), 1 matches"; or why they were not checked; None where none were asked for."""
    checks = session.accuracy
    if checks is None:
        return None
    if checks.callables_unavailable:
        return f"whole calls not checked: {checks.callables_unavailable}"
    if not checks.callables:
        return None
    dynamo = sum(1 for c in checks.callables if _dynamo_calls(c))
    counted = outcomes_counted([outcome_of(c) for c in checks.callables], {"differs": f"{dynamo} in Dynamo's capture"} if dynamo else None)
    said = f"whole calls against their Python run eagerly: {plural(len(checks.callables), 'function')} checked: {counted}"
    return said + "".join(f"; {line}" for line in _not_checked(checks.callables))


def _not_checked(callables: list[CompiledCallable]) -> list[str]:
    """Why calls were not checked, one line per reason (the first each function gave): "Net: 2
    of its 3 calls not checked: WHY"; "f, g: their calls not checked: WHY"."""
    by_reason: dict[str, list[tuple[str, str | None]]] = {}  # why: (name, "2 of its 3 calls" where not all)
    for callable_ in callables:
        skipped = [c for c in callable_.calls if c.outcome == "not checked"]
        if skipped:
            why = next((c.why for c in skipped if c.why), None) or "unknown why"
            part = None if len(skipped) == len(callable_.calls) else f"{len(skipped)} of its {len(callable_.calls)} calls"
            by_reason.setdefault(why, []).append((callable_.name, part))
    lines = []
    for why, named in by_reason.items():
        if len(named) == 1:
            name, part = named[0]
            lines.append(f"{name}: {part or 'its calls'} not checked: {why}")
        else:
            names = ", ".join(name + (f" ({part})" if part else "") for name, part in named)
            lines.append(f"{names}: their calls not checked: {why}")
    return lines


def whole_call_findings(session: Session) -> list[Finding]:
    """A finding per function whose whole call differs, where no graph it ran differs (that one
    is the graph's finding)."""
    checks = session.accuracy
    if checks is None:
        return []
    return [_differs(c) for c in checks.callables if any(call.outcome == "differs" and call.cause != "graph" for call in c.calls)]


def _differs(callable_: CompiledCallable) -> Finding:
    # (a call known to be Dynamo's first: it is the one the detail describes)
    wrong = sorted((c for c in callable_.calls if c.outcome == "differs" and c.cause != "graph"), key=lambda c: c.cause != "dynamo")
    checked = [c for c in callable_.calls if c.outcome in ("matches", "differs")]
    dynamo = wrong[0].cause == "dynamo"
    skipped = [c for c in wrong if c.guards_skipped]
    compiles = sorted({cid for c in wrong for cid in c.compiles})
    lines = []
    for value in [v for v in wrong[0].compared if not v.matches][:3]:
        lines.append(f"{value_said(value)}; {value.judged}")
    first = wrong[0]
    graphs = len(first.compiles)
    lines.append(
        f"Call {first.call}"
        + (f" (from {short_place(first.called_at)})" if first.called_at else "")
        + f" ran {'the graphs' if graphs > 1 else 'the graph'} of {', '.join(first.compiles) or 'unknown'}"
        + (
            f", and {'each' if graphs > 1 else 'it'} matches eager on that same call: what differs is what Dynamo made of the "
            "Python around the graph, not the graph's code."
            if dynamo
            else f"; whether {'each' if graphs > 1 else 'it'} matches eager on that call is not known (not checked), so neither is the stage."
        )
    )
    if skipped:
        lines.append(
            ("The call that differs" if len(skipped) == 1 else f"The {len(skipped)} calls that differ")
            + " ran under torch.compiler.set_stance(skip_guard_eval_unsafe=True): torch ran the code it compiled without "
            "checking its guards, so a value they check that had changed (a global, an attribute, a tensor's shape or dtype) "
            "went unseen, and the code compiled for the old value ran."
        )
    title = f"Compiled {callable_.name} differs from its own Python run eagerly" + (": Dynamo's capture" if dynamo else "")
    return Finding(
        PROBLEM,
        title,
        detail="\n".join(lines),
        fix=_next_step(bool(skipped), dynamo),
        kind=FindingKind.ACCURACY,
        compile_ids=tuple(compiles),
        where=(skipped[0].called_at if skipped else None) or place_of(callable_),
        in_user_code=True,
        frames=(callable_.name,),
        cost=f"wrong results in {len(wrong)} of {plural(len(checked), 'call')} checked",
    )


def _next_step(skipped: bool, dynamo: bool) -> str:
    if skipped:
        return (
            "Take skip_guard_eval_unsafe=True out of torch.compiler.set_stance (or keep it only where nothing its guards check can "
            "change): torch then checks the guards and compiles again for the changed value. Run with --check-accuracy again: "
            "the call then matches."
        )
    if dynamo:
        return (
            "Dynamo's capture of this function is wrong for these arguments (a Python value read as a constant, a side effect "
            "replayed, a guard missing). Until it is fixed, keep the function out of torch.compile (decorate it with "
            "@torch.compiler.disable) and report it to PyTorch with the function and its arguments. torch's minifier cannot "
            "shrink it: it compares graphs with eager, and every graph here matches."
        )
    return "Run with --check-accuracy=N for more calls, so that the graphs are checked on the calls that differ."


def short_place(place: str) -> str:
    """ "train.py:14" for a file:line (the file's name, as the finding's text says it)."""
    path, _, line = place.rpartition(":")
    return f"{path.rsplit('/', 1)[-1]}:{line}" if path else place


def place_of(callable_: CompiledCallable) -> str | None:
    """Where to act: the function's own code, or, for torch's own module (nn.Sequential), the
    program's line that compiled it."""
    if callable_.where and not any(part in callable_.where for part in _LIBRARY_PARTS):
        return callable_.where
    return callable_.compiled_at or callable_.where


def _dynamo_calls(callable_: CompiledCallable) -> list[WholeCall]:
    return [c for c in callable_.calls if c.outcome == "differs" and c.cause == "dynamo"]
