"""What to say of a program (or code) in which torch.compile compiled nothing.

From plain facts, not from a Session: `compilescope run` says this without the rules and rich
(and, for a program that never imported torch, without the session model): loading them would
cost more than 5% of a short program's run. rules.py says the same through these functions, so
the words are the same either way.
"""

from __future__ import annotations

import re

from compilescope.findings import INFO, PROBLEM, WARNING
from compilescope.findings.kinds import FindingKind

TYPE_CHECKING = False
if TYPE_CHECKING:
    from compilescope.findings.finding import Level

# (level, title, detail, advice): the fields of rules.Finding, in its order
Said = tuple["Level", str, str, str]


# A terminal's escape sequences as a program writes them to colour its messages: CSI (ESC [ ...
# final byte, "\x1b[31m"), OSC (ESC ] ... BEL or ESC \, a title or a link) and two-byte ones
# (the same as render.text's, which this layer cannot import)
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")
# every other control character but the newline (and a tab, kept as a blank)
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def plain_message(text: str) -> str:
    """A message from the program (its exception) as words: its colours and other terminal
    escapes left out, a tab a blank, any other control character but the newline dropped."""
    return _CONTROLS.sub("", _ESCAPES.sub("", text).replace("\r\n", "\n").replace("\t", " "))


def ended_before_compiling(kind: str, exit_status: int | None, exception: str | None, imported_torch: bool) -> Said | None:
    """Why nothing was compiled, where the way the program ended says it: it raised, it exited
    with a status other than 0, or (a script or module `compilescope run` ran) it never imported
    torch. None where none of these holds (rules.py then says what else to check)."""
    what = "program" if kind in ("script", "module") else "code"
    if exception:
        how = "was stopped (Ctrl-C)" if plain_message(exception).startswith("KeyboardInterrupt") else "failed"
        detail = plain_message(exception)
        if not imported_torch:
            detail += "\nIt had not imported torch."
        advice = "" if how != "failed" else f"Fix that error (Python printed its traceback with the {what}'s output) and run it again."
        # the program's error is the thing to fix (its traceback is in the program's output)
        return (
            PROBLEM,
            f"The {what} {how} before torch.compile compiled anything",
            detail + "\nThere is nothing compiled to explain.",
            advice,
        )
    if exit_status:
        return (
            WARNING,
            f"The {what} exited with status {exit_status} before torch.compile compiled anything",
            "There is nothing compiled to explain.",
            "",
        )
    if not imported_torch:
        return (
            INFO,
            "Nothing was compiled: the program never imported torch",
            "It ran without torch, so torch.compile never ran and there is nothing to explain.",
            "",
        )
    return None


def said_for(
    kind: str, exit_status: int | None, exception: str | None, imported_torch: bool, torch_modules: list[tuple[str, str]] | None = None
) -> Said:
    """What to say of a program in which nothing was compiled: why, where its end says it
    (ended_before_compiling), else what to check (nothing_compiled). `torch_modules`: the
    modules of torch.nn's own it compiled in place, (class, file of its forward)."""
    return ended_before_compiling(kind, exit_status, exception, imported_torch) or nothing_compiled(kind, torch_modules)


def finding_json(said: Said) -> dict:
    """The finding as the session's JSON holds it: finding.Finding's fields, in its order (a
    test checks that this is what the rules' finding writes)."""
    level, title, detail, fix = said
    return {
        "level": level,
        "title": title,
        "detail": detail,
        "fix": fix,
        "kind": FindingKind.NOTHING_COMPILED,
        "compile_ids": [],
        "where": None,
        "in_user_code": None,
        "library": None,
        "frames": [],
        "ranks": [],
        "cost_s": None,
        "cost": "",
        "try_fixes": [],
        "try_command": None,
        "recurs": False,
    }


def nothing_compiled(kind: str, torch_modules: list[tuple[str, str]] | None = None) -> Said:
    """Nothing was compiled, and the way the program ended does not say why: what to check; or,
    where the program compiled a module of torch.nn's own in place (`torch_modules`), why."""
    if torch_modules:
        names = [name for name, _ in torch_modules]
        said = " and ".join(f"{name}.compile()" for name in names[:3])
        files = ", ".join(dict.fromkeys(where for _, where in torch_modules[:3]))
        return (
            WARNING,
            f"Nothing was compiled: {said} compiles nothing, its code is all torch.nn's",
            (
                f"module.compile() compiles a module in place: each of its calls goes through torch.compile, which compiles the "
                f"Python frames the call runs, but not those of torch's own files. {' and '.join(names[:3])}'s forward ({files}) "
                "and all it calls are torch's, so Dynamo skipped every frame and nothing was compiled."
            ),
            (
                "Wrap the module instead: `model = torch.compile(model)` (with the same arguments) traces into torch.nn's code "
                "from the wrapper's own call; or compile a module of your own whose forward calls it."
            ),
        )
    if kind in ("function", "capture"):
        detail = (
            "torch.compile compiled nothing while this ran. In a process that already ran this "
            "code compiled, Dynamo reuses what it compiled then (it caches per function, across "
            "instances of a module class), so nothing new is compiled; torch._dynamo.reset() "
            "first, or a fresh process, shows the compile."
        )
    else:
        detail = "torch.compile compiled nothing while this ran."
    advice = (
        "torch.compile(model) only wraps: compiling happens on the first call of the "
        "wrapped model or function. Check that the compiled object (not the original) is "
        "the one called, and that it is called at all."
    )
    return (INFO, "Nothing was compiled", detail, advice)
