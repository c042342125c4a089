"""Graph-break messages and recompile reasons, from torch's own text, into fields.

A graph break (`dynamo_graph_break_reason`):

    Graph break in user code at /path/graph_break.py:9
    Graph Break Reason: Encountered graph break when attempting to trace CALL: ...

    Unsupported Tensor.item() call with capture_scalar_outputs=False
      Explanation: Dynamo does not support tracing `Tensor.item()` ...
      Hint: Set `torch._dynamo.config.capture_scalar_outputs = True` ...
    ...
    User code traceback:
      File "/path/graph_break.py", line 9, in forward
        if x.sum().item() > 0:

A recompile reason (`recompile_reasons`): "0/0: tensor 'x' size mismatch at index 0. expected 8,
actual 16", one line per compiled version that was tried.
"""

from __future__ import annotations

import re

from compilescope.session.model import FailedGuard, GraphBreak
from compilescope.session.places import is_user_code

_AT = re.compile(r"Graph break in user code at (?P<file>.+):(?P<line>\d+)\s*$", re.M)
_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<fn>.+)$')
_URL = re.compile(r"https?://\S+")


def parse_graph_break(text: str) -> GraphBreak:
    # torch's lines end at "\n" only: a "\r" or "\x0b" inside one (a user's message) is the line's
    lines = text.split("\n")
    brk = GraphBreak(reason="", text=text)
    if m := _AT.search(text):
        brk.filename, brk.lineno = m.group("file"), int(m.group("line"))

    # The one-line reason: the first non-empty line after the "Graph Break Reason:" line,
    # unless that line already says it all.
    reason_index = next((i for i, text_line in enumerate(lines) if text_line.startswith("Graph Break Reason:")), None)
    if reason_index is not None:
        head = lines[reason_index].removeprefix("Graph Break Reason:").strip()
        following = next((text_line.strip() for text_line in lines[reason_index + 1 :] if text_line.strip()), "")
        if following and not following.startswith(("Explanation:", "User code traceback", "Hint:")):
            brk.reason = following
        else:
            brk.reason = head
    else:
        brk.reason = next((text_line.strip() for text_line in lines if text_line.strip()), "graph break")
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("Explanation:") and brk.explanation is None:
            brk.explanation = stripped.removeprefix("Explanation:").strip()
        elif stripped.startswith("Hint:"):
            hint = stripped.removeprefix("Hint:").strip()
            if brk.hint is None:
                brk.hint = hint
            elif hint not in brk.hint.splitlines():
                brk.hint = f"{brk.hint}\n{hint}"
    if m := _URL.search(text):
        brk.url = m.group(0)

    # The user's line: the last frame of "User code traceback" at the break's file and line.
    try:
        start = next(i for i, text_line in enumerate(lines) if text_line.startswith("User code traceback"))
    except StopIteration:
        start = None
    if start is not None:
        for index in range(start + 1, len(lines)):
            frame = _FRAME.match(lines[index])
            if frame is None:
                if lines[index].startswith("Traceback"):
                    break
                continue
            if is_user_code(frame.group("file")):
                brk.user_filename, brk.user_lineno = frame.group("file"), int(frame.group("line"))
                brk.user_function = frame.group("fn").strip()
                following = lines[index + 1] if index + 1 < len(lines) else ""
                brk.user_code = None if _FRAME.match(following) else (following.strip() or None)
            if brk.filename is None or (frame.group("file") == brk.filename and int(frame.group("line")) == brk.lineno):
                brk.function = frame.group("fn").strip()
                if brk.filename is None:
                    brk.filename, brk.lineno = frame.group("file"), int(frame.group("line"))
                if index + 1 < len(lines) and not _FRAME.match(lines[index + 1]):
                    brk.code = lines[index + 1].strip() or None
    return brk


_REASON = re.compile(r"^(?P<cid>!?[\d/_]+): (?P<text>.*)$", re.S)
_EXPECTED_ACTUAL = re.compile(r"expected (?P<expected>.+?), actual (?P<actual>[^\s,]+?)\.?$")
_LOCATION = re.compile(r"(?P<file>\S+):(?P<line>\d+) in \S+$")
_EQUALS = re.compile(r"^(?P<subject>.+?) == (?P<value>.+)$")


def split_recompile_reasons(payload_lines: list[str]) -> list[str]:
    """Reasons as torch wrote them, one per compiled version that was tried: a reason starts
    with that version's compile id ("0/0: ...") and may go on over several lines."""
    reasons: list[str] = []
    for line in payload_lines:
        if _REASON.match(line) or not reasons:
            reasons.append(line)
        else:
            reasons[-1] += "\n" + line
    return reasons


def parse_recompile_reasons(reasons: list[str]) -> list[FailedGuard]:
    failed: list[FailedGuard] = []
    for raw in reasons:
        raw = raw.strip()
        if not raw:
            continue
        first_line = raw.split("\n")[0]
        guard = FailedGuard(text=first_line)
        text = first_line
        if m := _REASON.match(first_line):
            guard.previous_compile = m.group("cid")
            text = m.group("text")
        # "___stack0 == 1.05   # if x.mean().item() > 0.5:  # file.py:18 in fn"
        parts = re.split(r"\s+# ", text)
        text = parts[0].strip()
        guard.text = text
        if len(parts) > 1:
            guard.user_code = parts[1].strip()
        # (torch may add where in itself the guard was made: "file.py:10 in fn (_dynamo/variables/tensor.py:2606
        # in evaluate_expr)"; the user's place is the one before it)
        if len(parts) > 2 and (loc := _LOCATION.search(re.sub(r"\s*\([^()]*\)$", "", parts[2].strip()))):
            guard.filename, guard.lineno = loc.group("file"), int(loc.group("line"))
        if m := re.match(
            r"^tensor '(?P<subject>.+?)' (?P<what>[a-z_ ]+?(?: at index \d+)?)\. expected (?P<e>.+?), actual (?P<a>.+?)$", text
        ):
            guard.subject, guard.what = _argument(m.group("subject")), m.group("what")
            guard.expected, guard.actual = m.group("e"), m.group("a")
        elif m := _EXPECTED_ACTUAL.search(text):
            guard.expected, guard.actual = m.group("expected"), m.group("actual")
            guard.what = text[: m.start()].strip().rstrip(".") or None
        elif m := _EQUALS.match(text):
            guard.subject = _user_name(m.group("subject"))
            guard.what = "value changed"
            guard.expected = m.group("value").strip()
        else:
            guard.what = text
        failed.append(guard)
    return failed


def _argument(subject: str) -> str:
    """The argument's name as the user passed it: "kwargs['input_ids']" -> "input_ids"."""
    found = re.fullmatch(r"\w+\[['\"](?P<key>\w+)['\"]\]", subject)
    return found.group("key") if found else subject


def _user_name(source: str) -> str:
    match = re.match(r"^L\['([^']+)'\]$", source.strip())
    return match.group(1) if match else source.strip()
