"""The counts of a session, defined once, with the words every view says them in.

`compilescope run`'s summary, `run --try`'s and `diff`'s table, `check`'s sentences, the HTML
report's cards and the session's JSON all count with `counts()` and name each count with
`LABELS` (docs/report.md, "Counts", says what each means):

- functions compiled: the Python functions Dynamo compiled (its frames), a graph break's resume
  function (the code after the break, compiled on its own) included;
- compiles: the versions compiled of them, the first of each function included; recompiles are
  the compiles after a function's first;
- graph breaks (places): the places in the code where Dynamo broke the graph, each once (its
  file, its line: the source text torch quoted, else its number, and the function it is in),
  however often it broke there;
- graph break occurrences: the times it broke, one per compile that met the break (a function
  compiled again meets its break again).

A break's place is also how two runs' breaks are matched (`break_place`): by where it is, not by
torch's wording of why, which changes between torch versions and between runs of one program.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from compilescope.session.model import Frame, GraphBreak, Session

# name -> (singular, plural): the words for each count, in every view
LABELS: dict[str, tuple[str, str]] = {
    "functions": ("function compiled", "functions compiled"),
    "compiles": ("compile", "compiles"),
    "recompiles": ("recompile", "recompiles"),
    "failed": ("failed compile", "failed compiles"),
    "graphs": ("graph", "graphs"),
    "graph_break_places": ("graph break (place)", "graph breaks (places)"),
    "graph_break_occurrences": ("graph break occurrence", "graph break occurrences"),
    "kernels": ("kernel", "kernels"),
}


@dataclass(frozen=True)
class Counts:
    functions: int
    resume_functions: int  # of the functions, those that continue a function after a graph break
    compiles: int
    recompiles: int
    failed: int
    graphs: int
    graph_break_places: int
    graph_break_occurrences: int
    kernels: int

    def said(self, name: str) -> str:
        """The count in words: "2 functions compiled", "1 graph break (place)"."""
        return said(name, getattr(self, name))

    def as_json(self) -> dict[str, int]:
        return asdict(self)


def said(name: str, value: int, adjective: str = "") -> str:
    """A count in words: "2 functions compiled"; with an adjective, "1 new graph break (place)"."""
    singular, many = LABELS[name]
    return " ".join(part for part in (str(value), adjective, singular if value == 1 else many) if part)


def label(name: str) -> str:
    """The count's name, as a table's row or a card says it: "graph breaks (places)"."""
    return LABELS[name][1]


def break_place(brk: GraphBreak, frame: Frame | None = None) -> tuple[str, str, str]:
    """Where a break is, as the key that matches it in another run: its file (the last two parts
    of its path: folders differ between machines), its line (the source text where torch quoted
    it, so that an edit above it does not make it another break; else its number) and the
    function it is in. torch's reason is not part of it."""
    if brk.filename is None:  # torch said nowhere: the reason is all there is to tell it apart
        return ("unknown place", brk.reason, brk.function or (frame.known_as if frame else ""))
    parts = brk.filename.replace("\\", "/").split("/")
    line = (brk.code or "").strip() or str(brk.lineno)
    return ("/".join(parts[-2:]), line, brk.function or (frame.known_as if frame else ""))


def counts(session: Session) -> Counts:
    compiles = session.compiles
    breaks = [(frame, brk) for frame in session.frames for c in frame.compiles for brk in c.graph_breaks]
    return Counts(
        functions=len(session.frames),
        resume_functions=sum(1 for f in session.frames if f.is_resume),
        compiles=len(compiles),
        recompiles=len(session.recompiles),
        failed=sum(1 for c in compiles if c.status == "failed"),
        graphs=session.graph_count,
        graph_break_places=len({break_place(brk, frame) for frame, brk in breaks}),
        graph_break_occurrences=len(breaks),
        kernels=len(session.kernels),
    )


# A compile id within a text: "0/1", "0/1_1", "!0/1/0"
COMPILE_ID = re.compile(r"(?<![\w./])!?\d+/\d+(?:/\d+)?(?:_\d+)?(?![\w/])")


def compile_ids_in(texts: list[str]) -> list[str]:
    """The compile ids these texts name, to say what they mean where they are shown."""
    return [m.group() for text in texts for m in COMPILE_ID.finditer(text)]


def compile_id_note(compile_ids: list[str]) -> str:
    """What the compile ids shown mean (torch's CompileId and TraceId, torch/_guards.py): said
    where they are shown, with the parts these ids have."""
    note = "Compile ids are torch's frame/compile: 0/1 is the second version compiled of the first function Dynamo met"
    if any("_" in c for c in compile_ids):
        note += "; _N after it, the attempt that made it after torch restarted its analysis (0/1_1: its second attempt, as when Dynamo met a graph break)"
    if any(c.startswith("!") for c in compile_ids):
        note += "; !N/ before it, a compile of compiled autograd's graph N"
    return note + "."


def calls_recorded_said(session: Session) -> str | None:
    """How calls per compiled version were recorded, or why not, as a view says it: in a
    `run --profile` run, the advice to use --profile is replaced by what that profile did."""
    said = session.calls_recorded
    advice = "; `compilescope run --profile` counts them from torch.profiler instead"
    if said is not None and session.profile is not None and advice in said:
        said = said.replace(advice, "; this run's --profile counted the calls of compiled code from torch.profiler instead (below)")
    return said
