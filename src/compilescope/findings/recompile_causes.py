"""What made each recompile: the guard that failed (torch's recompile reason), grouped into
one cause per input change (a sequence length that changed reaches every function the tensor
flows through), and what those compiles cost.

The cause of a recompile is the guard that failed: a size in one dimension, a dtype, a value,
the backend, the grad mode, a module attribute the function assigns, or the code a decorator
shares between functions (findings/recompiles.py says each in words).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from compilescope.findings.arguments import assignment_in
from compilescope.findings.finding import NOT_MEASURED, plural, seconds
from compilescope.session.model import Compile, FailedGuard, Frame, Session

# a recompile as met: the compiled function, its new version, the guard that failed
Met = tuple[Frame, Compile, FailedGuard]


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
class RecompileCause:
    """One cause of recompiles: its key (what changed, first: "size", "dtype", "value",
    "backend", "global state", "attribute", "shared code", "other"; then where), the guard
    that says it, and each recompile it made."""

    key: tuple
    guard: FailedGuard
    met: list[Met] = field(default_factory=list)


def recompile_causes(session: Session) -> dict[tuple, RecompileCause]:
    """The session's recompiles grouped by cause (the guard that failed), in the order met: one
    cause for one input change, however many compiled functions it made compile again. Left
    out: the compiles the recompile limit refused, and values carried over a graph break (the
    break's finding says them)."""
    causes: dict[tuple, RecompileCause] = {}
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
                causes.setdefault(key, RecompileCause(key, guard)).met.append((frame, c, guard))
                continue
            if shared:  # a version of the same function before it: that version's guard is the cause
                guard = next((g for g in c.failed_guards if compiled_for.get(g.previous_compile or "") == c.for_function), guard)
            if carried_over_a_break(frame, guard):
                continue
            key = _cause_key(frame, guard)
            causes.setdefault(key, RecompileCause(key, guard)).met.append((frame, c, guard))
    return causes


def _cause_key(frame: Frame, guard: FailedGuard) -> tuple:
    what = guard.what or ""
    # a module attribute the compiled function assigns (`self.src_mask = mask` in forward): one
    # cause, whatever its guards say (None, then a tensor; a tensor of another size)
    attribute = self_attribute(guard.subject or "") or (self_attribute(guard.text) if not guard.subject else None)
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
    return ("other", frame.name, without_ids(guard.text))


def without_ids(text: str) -> str:
    """torch's message without the object ids that differ from run to run."""
    return re.sub(r"\s*\(id=0x[0-9a-f]+\)|\bat 0x[0-9a-f]+", "", text)


def compile_cost(compiles: list[Compile]) -> tuple[float | None, str]:
    times = [c.compile_time_s for c in compiles if c.compile_time_s is not None]
    if not times:
        return None, f"{NOT_MEASURED}: torch gave no compile time for {plural(len(compiles), 'these compiles', 'these compiles')}"
    text = f"{seconds(sum(times))} compiling {plural(len(compiles), 'version')}"
    if len(times) < len(compiles):
        text += f" ({len(compiles) - len(times)} of unknown time)"
    return sum(times), text


def self_attribute(text: str) -> str | None:
    """`src_mask` for a guard on `self.src_mask` (or `L['self'].src_mask`)."""
    found = re.search(r"(?:\bself|L\['self'\])\.(\w+)", text)
    return found.group(1) if found else None
