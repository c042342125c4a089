"""What `compilescope run` prints where torch.compile compiled nothing: a few plain lines (with
the program's memory, render/memory.py's line).

Written without rich and the rules (and from plain values, not a Session): loading them would
cost more than 5% of a short program's run, to say only that there is nothing compiled to
explain. The words are render/sections/overview.py's header and findings/before_compile.py's finding, so
`compilescope report` on the saved session says the same (a test checks it).
"""

from __future__ import annotations

from compilescope.findings import INFO, PROBLEM, WARNING
from compilescope.findings.before_compile import (
    ended_before_compiling,
    nothing_compiled,
)
from compilescope.render.memory import memory_line
from compilescope.render.text import escape_control, one_line, short_message

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_MARK = {PROBLEM: "✖", WARNING: "▲", INFO: "●"}


def nothing_compiled_text(program: dict[str, Any], environment: dict[str, Any], width: int, memory: dict[str, Any] | None = None) -> str:
    """The explanation of a run of a program (session.model.Program's fields) in which nothing
    was compiled, with the environment it ran in (Environment's fields) and the memory it held
    (session/memory.py's ProgramMemory as JSON; None: not measured), at `width` columns."""
    header = f"compilescope · {one_line(program['kind'])} {one_line(program['target'])}"
    if program.get("exit_status") is not None:
        header += f" · exit status {program['exit_status']}"
    if program.get("wall_time_s") is not None:
        header += f" · ran {program['wall_time_s']:.1f} s"
    raised = [f"raised {short_message(program['exception'])}"] if program.get("exception") else []
    imported_torch = environment.get("torch") is not None
    facts = [f"Python {_unknown(environment.get('python'))}"]
    if not imported_torch:
        facts.append("the program did not import torch")
    else:
        facts += [f"torch {_unknown(environment.get('torch'))}", f"device {_unknown(environment.get('device'))}"]
        if environment.get("threads") is not None:
            facts.append(f"{environment['threads']} threads")
        facts.append(f"C++ compiler {_unknown(environment.get('compiler'))}")
    lines = [*_wrapped(header, width, ""), *raised, *_wrapped(" · ".join(one_line(fact) for fact in facts), width, "")]
    memory_said = memory_line(memory)
    if memory_said is not None:
        lines += _wrapped(one_line(memory_said), width, "")
    lines.append("")
    said = ended_before_compiling(program["kind"], program.get("exit_status"), program.get("exception"), imported_torch)
    level, title, detail, advice = said if said is not None else nothing_compiled(program["kind"])
    lines.append("What to look at")
    lines += _wrapped(title, width, f" {_MARK[level]} ", "   ")
    for line in detail.splitlines():
        lines += _wrapped(escape_control(line), width, "     ")
    for index, line in enumerate(advice.splitlines()):
        lines += _wrapped(line, width, "   → " if index == 0 else "     ", "     ")
    return "\n".join(lines)


def _unknown(value: object) -> str:
    return "unknown" if value is None else str(value)


def _wrapped(text: str, width: int, first: str, then: str | None = None) -> list[str]:
    """`text` in lines of at most `width` columns: the first after `first`, the rest after
    `then` (`first`'s width of spaces where not given); a word longer than a line is cut."""
    if len(first) + len(text) <= max(width, 40) and "\t" not in text:
        return [(first + text).rstrip()]
    import textwrap  # (only for a line too long: most are not)

    then = " " * len(first) if then is None else then
    return textwrap.wrap(text, width=max(width, 40), initial_indent=first, subsequent_indent=then, break_on_hyphens=False) or [
        first.rstrip()
    ]
