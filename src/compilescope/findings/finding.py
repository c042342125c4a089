"""A finding: one cause, what it cost, where to act, and what to change; and their order.

Findings are ranked by what they cost, measured (`cost_s`, with `cost` saying how); those whose
cost could not be measured come after, most severe first, and say so. Before both come the
findings whose cost recurs on every call (`recurs`: work a graph break leaves without
torch.compile): a compile is paid once per version, that work on every call for as long as the
program runs, so a run of a few steps understates it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from compilescope.findings import INFO, PROBLEM, WARNING
from compilescope.findings.kinds import FindingKind

Level = Literal["problem", "warning", "info"]  # PROBLEM, WARNING, INFO

ORDER = {PROBLEM: 0, WARNING: 1, INFO: 2}

NOT_MEASURED = "not measured"


@dataclass
class Finding:
    level: Level
    title: str
    detail: str = ""
    fix: str = ""  # what to change, in the user's words; "" where the facts support no advice
    kind: FindingKind = FindingKind.OTHER  # what it is about (findings/kinds.py)
    compile_ids: tuple[str, ...] = ()
    where: str | None = None  # "file:line": where to act, in the user's own code where known
    # Whether the cause itself is in the user's code; False: in `library`'s code (and `where`,
    # when known, is the user's line that led into it); None: not known, or not about code
    in_user_code: bool | None = None
    library: str | None = None  # "torch 2.13.0", "transformers", "python"
    frames: tuple[str, ...] = ()  # the compiled functions it touched
    ranks: tuple[int, ...] = ()  # the ranks it was seen on (a distributed job's)
    # What it cost, in seconds: the compiles it made happen plus the run time it cost where that
    # was measured; None: not measured (or not a cost, for a finding that sums up)
    cost_s: float | None = None
    cost: str = ""  # how cost_s was measured ("0.42 s compiling 3 versions"), or why not
    # fixes `compilescope run --try` can set from outside (record/fixes.py's names), and the
    # command that tries them on this program (None: not a program run can run again)
    try_fixes: tuple[str, ...] = ()
    try_command: str | None = None
    # Its cost recurs on every call (code left without torch.compile), rather than once
    recurs: bool = False

    def cost_line(self) -> str | None:
        """ "Cost: 1.17 s (1.17 s compiling 2 versions)", "Cost: not measured: …", or None."""
        if self.cost_s is not None:
            if not self.cost:
                return f"Cost: {seconds(self.cost_s)}"
            return f"Cost: {seconds(self.cost_s)} ({self.cost})" if ";" in self.cost else f"Cost: {self.cost}"
        return f"Cost: {self.cost}" if self.cost else None

    def act_line(self) -> str | None:
        """Where to act, where the title does not say it already: "Act at train.py:15"."""
        if not self.where or short(self.where) in self.title:
            return None
        text = f"Where to act: {short(self.where)}"
        if self.in_user_code is False and self.library:
            text += f" (your call into {code_of(self.library, full=True)})"
        return text

    def try_line(self) -> str | None:
        return f"Try it without editing: {self.try_command}" if self.try_command else None

    @property
    def frame(self) -> str | None:
        """The one compiled function it is about, or None where it touched several (or none)."""
        return self.frames[0] if len(self.frames) == 1 else None


def ranked(found: list[Finding]) -> list[Finding]:
    """Costs paid on every call first (measured ones highest first, then most severe first);
    then measured costs, highest first (ties: most severe first); then the rest by severity, in
    the order they were found."""
    recurring = [f for f in found if f.recurs]
    recurring.sort(key=lambda f: (f.cost_s is None, -(f.cost_s or 0.0), ORDER[f.level]))
    measured = [f for f in found if f.cost_s is not None and not f.recurs]
    measured.sort(key=lambda f: (-(f.cost_s or 0.0), ORDER[f.level]))
    rest = [f for f in found if f.cost_s is None and not f.recurs]
    rest.sort(key=lambda f: ORDER[f.level])
    return recurring + measured + rest


def possessive(name: str) -> str:
    """ "torch's", "transformers'", "Python's standard library's"."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def code_of(library: str, full: bool = False) -> str:
    """ "torch's code", "transformers' code" ("torch 2.13.0's code" with `full`: the version),
    "Python's standard library"."""
    if library.startswith("Python's"):
        return library
    return f"{possessive(library if full else library.split()[0])} code"


def plural(count: int, word: str, words: str | None = None) -> str:
    return f"{count} {word if count == 1 else (words or word + 's')}"


def seconds(value: float) -> str:
    """ "1.23 s", "45 ms", "0.3 ms": a cost as a person reads it."""
    if value >= 1:
        return f"{value:.2f} s"
    if value >= 0.01:
        return f"{value * 1000:.0f} ms"
    return f"{value * 1000:.1f} ms"


def where(filename: str | None, lineno: int | None) -> str | None:
    if filename is None:
        return None
    return f"{filename}:{lineno}" if lineno is not None else filename


def short(place: str) -> str:
    """The last two parts of a path: "i18/train.py:12"."""
    parts = place.split("/")
    return "/".join(parts[-2:]) if len(parts) > 2 else place


def first_lines(lines: list[str], limit: int = 5) -> str:
    """The first `limit` lines, and "…" where there are more."""
    return "\n".join(lines[:limit]) + ("\n…" if len(lines) > limit else "")


def listed(values: list[str], limit: int = 6) -> str:
    """ "a, b, c", or "a, b, c, …, z" where there are more than `limit`."""
    if len(values) <= limit:
        return ", ".join(values)
    return ", ".join(values[: limit - 1]) + ", …, " + values[-1]
