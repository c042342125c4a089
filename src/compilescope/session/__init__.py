"""The Session (model.py): built from trace records (build.py, by record family: records/), saved
and loaded as JSON
(jsonio.py); a session with nothing compiled can also be written without the model (empty.py)."""

import re

SCHEMA = "compilescope/1"  # the saved session's format (docs/schema.md)

# Light on purpose (no dataclasses): `compilescope run` uses these before and after the program
# without loading the model.


def error_summary(error: BaseException) -> str:
    """ "ValueError: first line of the message" (or just the type when there is no message)."""
    message = str(error).strip()
    return f"{type(error).__name__}: {message.splitlines()[0]}" if message else type(error).__name__


def surrogates_escaped(text: str) -> str:
    """JSON text with each lone surrogate (an exception's message, a Session made in Python may
    hold one) written as JSON's escape of it, which UTF-8 can hold."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")  # (fails on a lone surrogate, and only on one: faster than searching)
    except UnicodeEncodeError:
        return re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", text)
    return text
