"""What the accuracy findings (accuracy.py, accuracy_calls.py) both say: a compared value in words,
and how a graph's or a function's checked calls went."""

from __future__ import annotations

from compilescope.session.accuracy import ComparedValue, CompiledCallable, GraphAccuracy

OUTCOMES = ("differs", "matches", "not compared", "not checked")  # (in the order they are said)


def number(value: float | None) -> str:
    return "unknown" if value is None else f"{value:.3g}"


def value_said(value: ComparedValue) -> str:
    """ "output 0 (float32 [8, 16]): largest difference 2 (relative 43.5)"."""
    kind = f"{value.dtype} {value.shape}" if value.dtype and value.shape is not None else value.dtype or ""
    text = f"{value.what}" + (f" ({kind})" if kind else "")
    if value.max_abs is not None:
        text += f": largest difference {number(value.max_abs)}"
        if value.max_rel is not None:
            text += f" (relative {number(value.max_rel)})"
    return text


def outcome_of(checked: GraphAccuracy | CompiledCallable) -> str:
    """How a graph's (or a function's) checked calls went, in one of OUTCOMES: any that differs
    says so, then all compared matching, then random numbers that kept it from comparing."""
    if checked.differs:
        return "differs"
    if checked.matches:
        return "matches"
    if any(c.outcome == "not compared" for c in checked.calls):
        return "not compared"
    return "not checked"


def outcomes_counted(outcomes: list[str], notes: dict[str, str] | None = None) -> str:
    """ "1 differs, 2 matches" (in OUTCOMES' order; a note in brackets after an outcome); "" for none."""
    return ", ".join(f"{outcomes.count(o)} {o}" + (f" ({notes[o]})" if notes and o in notes else "") for o in OUTCOMES if outcomes.count(o))
