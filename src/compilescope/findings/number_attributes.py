"""A module's number attribute that its compiled code reads and that changes between calls: a step
counter (`self.step += 1`), an annealed temperature, a schedule's scale. Dynamo compiles such a
number in as a constant (the guard `self.step == 3`), so each new value fails the versions
before. What to change depends on the number's type, as torch 2.13 does it (checked by pasting
each fix into tests/traces/programs/module_counters.py and running it: tests/test_advice_pasted.py):
- an int is never made symbolic on its own (`torch._dynamo.config.allow_unspec_int_on_nn_module`
  is False): every value compiles again, up to the recompile limit. That setting, True, makes it
  symbolic at its first change (one recompile in all);
- a float is made symbolic at its first change (automatic dynamic), so only that one compiles
  again;
- either, as a buffer (a tensor), is an input of the graph: no recompile at all, updated in place
  by `self.step += 1` or replaced by `self.step = self.step + 1` alike. Not persistent, so the
  module's state_dict, and its checkpoints, keep their keys.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from compilescope.findings.arguments import init_assignment
from compilescope.findings.finding import short, where
from compilescope.findings.number_uses import decisions_on
from compilescope.session.model import Compile, Frame

_INT = re.compile(r"-?\d+")
_FLOAT = re.compile(r"-?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?|-?inf|nan")


@dataclass(frozen=True)
class NumberAdvice:
    detail: str  # why each value compiled again
    fix: str
    init_place: str | None  # where __init__ sets it ("file:line"): where the tensor's fix goes


def number_type(values: list[str]) -> str | None:
    """ "int" or "float" where every value a guard compared the attribute with is one (as torch
    writes them: `0`, `1.0`, `0.0625`); None for anything else (a bool, None, a string)."""
    if not values:
        return None
    if all(_INT.fullmatch(v) for v in values):
        return "int"
    if all(_FLOAT.fullmatch(v) for v in values):
        return "float"
    return None


def number_attribute_advice(
    frame: Frame, attribute: str, kind: str, first_value: str, compiles: list[Compile], assigned: tuple[int, str] | None
) -> NumberAdvice:
    """Why a number attribute compiled again, and what to change (module docstring), for the
    attribute's `kind` ("int" or "float"); `assigned` is where forward itself sets it, if it does."""
    # (torch notes "automatic dynamic 0 -> 1" for an int too, then keeps it a constant: only a
    # symbol made for it says it became symbolic)
    symbolic = any(d.kind == "symbol" for d in decisions_on(f"self.{attribute}", compiles))
    constant = f"(the guard `self.{attribute} == {first_value}`)"
    if kind == "int" and not symbolic:
        why = (
            f"Dynamo compiles a module's int attribute in as a constant {constant} and never makes it symbolic on its "
            "own, so each new value compiles again."
        )
    elif symbolic:
        why = (
            f"Dynamo compiled the {kind} in as a constant {constant} and made it symbolic at its first change, so "
            "later values reuse that version: only that change compiled again."
        )
    else:
        why = f"Dynamo compiles the {kind} in as a constant {constant}, so each new value compiles again."
    init = init_assignment(frame, attribute)
    value = init.value if init else first_value
    place = where(frame.filename, init.line) if init else None
    buffer = f'self.register_buffer("{attribute}", torch.tensor({value}), persistent=False)'
    if init:
        buffer = f"`{buffer}` in __init__, in place of `{init.code}` ({short(place or '')})"
    else:
        buffer = f"`{buffer}` in __init__, where `self.{attribute}` is first set"
    updates = (
        f"`{assigned[1]}` then changes the tensor, an input of the graph, not a constant"
        if assigned
        else f"each new value set in place (`model.{attribute}.fill_(value)`: a number assigned to a buffer raises TypeError)"
    )
    tensor = (
        f"make it a tensor: {buffer}; {updates}. Code outside that reads `{attribute}` then gets a tensor "
        f"(`{'int' if kind == 'int' else 'float'}(model.{attribute})` for the number)."
    )
    if kind == "int" and not symbolic:
        fix = (
            f"Let torch make `self.{attribute}` symbolic: `torch._dynamo.config.allow_unspec_int_on_nn_module = True` "
            f"after the imports (torch's own hint); one recompile remains, at its first change. To skip that one too, {tensor}"
        )
    elif symbolic:
        fix = f"To skip that recompile, {tensor}"
    else:
        fix = f"To compile it once, {tensor}"
    return NumberAdvice(detail=why, fix=fix, init_place=place)
