"""Values read out of a trace's records, checked for their type before use.

A trace may come from elsewhere: a value of the wrong type is None here (left unknown, never
dressed up as another type), and the messages that say so quote at most a bounded part of it.
"""

from __future__ import annotations

import json
from typing import Any


def text_of(value: Any) -> str | None:
    """A string as it is, or None for anything else: no value of another type is dressed up as text."""
    return value if isinstance(value, str) else None


def as_text(value: Any) -> str | None:
    """A scalar as text (torch writes a symbol's value as a number or a string); a list or an
    object, which torch does not write there, as compact JSON."""
    if value is None:
        return None
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)[:10_000]
    return str(value)


def int_of(value: Any) -> int | None:
    """A whole number as torch writes one (a line, a count: at most 64 bits), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and -(2**63) < value < 2**63 else None


def number_of(value: Any) -> float | None:
    """An int or a float as torch wrote it (not a bool, not NaN, infinite or beyond a float's
    range, which no timing or count is), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value if -1e300 < value < 1e300 else None


def number_in(text: str) -> float | None:
    """The number a piece of text writes ("1.5e-3"), as number_of checks it, else None."""
    try:
        return number_of(float(text))
    except ValueError:
        return None


def list_of(value: Any) -> list:
    return value if isinstance(value, list) else []


def unknown(value: Any) -> str:
    return "unknown" if value is None else str(value)


def described(value: Any) -> str:
    """What a value from a record is, for the user: "a list", "the string 'abc'"."""
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a whole number", float: "a number"}
    if value is None:
        return "null"
    if isinstance(value, str):
        return f"the string {short(value, 40)!r}"
    if isinstance(value, (bool, int, float)):
        return f"{names[type(value)]} ({short(str(value), 40)})"
    return names.get(type(value), type(value).__name__)


def short(text: str, limit: int = 200) -> str:
    # Messages quote values from the trace: at most `limit` characters of one.
    return text if len(text) <= limit else text[:limit] + f"… ({len(text) - limit} characters more)"
