"""What reaches the terminal: the user's strings with control characters made visible, and the
width to lay text out at.

Plain `re` and `os`, no rich: the short explanation `compilescope run` prints for a program that never
imported torch (render/plain.py) escapes with these too, without loading rich.
"""

from __future__ import annotations

import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# C0 controls but tab and newline, DEL, C1 controls, the bidirectional overrides and
# isolates (which reorder what a terminal shows: "Trojan Source"); and lone surrogates, which
# no terminal's encoding can hold
# (Patterns, compiled by re's cache when first needed: text that str.isprintable() passes holds
# none of these characters, so most text never needs them.)
CONTROL = "[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
# ... and newlines, tabs and U+FDD0, the noncharacter render/terminal.py keeps phrases whole with:
# a one-line field from the program shows its own visibly
LINE_BREAKS = "[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufdd0]"


def visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the control picture: ␛ for ESC, ␊ for a newline
    if code == 0x7F:
        return "␡"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def escape_control(text: str) -> str:
    """`text` with every control character shown visibly (newlines and tabs kept)."""
    return text if text.isprintable() else re.sub(CONTROL, visible, text)


def one_line(text: str) -> str:
    """`text` for a one-line message (a CLI error that names a path): every control character,
    newlines and tabs too, shown visibly."""
    return text if text.isprintable() else re.sub(LINE_BREAKS, visible, text)


# A terminal's escape sequences as a program writes them to colour its messages: CSI (ESC [ ...
# final byte, "\x1b[31m"), OSC (ESC ] ... BEL or ESC \, a title or a link) and two-byte ones
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")
MESSAGE_LIMIT = 90  # characters of a message in a header (a program's exception)


def short_message(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """A message from the program (its exception) for a header: its terminal escapes (colours)
    left out, its lines and runs of blanks made one space, any other control character shown
    visibly, cut at `limit` characters with "…" (the program printed it whole already; the
    session's JSON keeps it whole)."""
    plain = " ".join(_ESCAPES.sub("", text).split())
    plain = one_line(plain)
    return plain if len(plain) <= limit else plain[: limit - 1].rstrip() + "…"


PIPED_WIDTH = 100  # columns when the output is not a terminal (a file, a pipe, a CI log)


def width_for(stream: Any) -> int:
    """The width to lay text out at for `stream`: $COLUMNS where it is set (as rich and
    shutil read it), else the terminal's width when the stream is a terminal, else
    PIPED_WIDTH. (rich's own default for a pipe is 80, which cuts phrases and squeezes
    tables that 100 holds.)"""
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        if stream.isatty():
            return os.get_terminal_size(stream.fileno()).columns or PIPED_WIDTH
    except (AttributeError, OSError, ValueError):  # not a file, or a closed one
        pass
    return PIPED_WIDTH
