"""The Session as versioned JSON (schema "compilescope/1", documented in docs/schema.md).

Dataclasses go out with dataclasses.asdict; they come back through their type hints, so the
model is the one place that defines the format. Unknown keys from a newer writer are ignored
and missing keys take their defaults, so old and new files both load.

A session may come from elsewhere: every value is checked against its type hint on the way in,
so nothing downstream meets a list where the model promises a string.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import types
import typing
from pathlib import Path
from typing import Any

from compilescope.outputs import write_text
from compilescope.session import surrogates_escaped
from compilescope.session.benchmarks import Benchmark
from compilescope.session.counts import counts
from compilescope.session.model import SCHEMA, Session
from compilescope.trace.reader import json_value


class SessionFormatError(ValueError):
    """The file is not a compilescope session this version can read."""

    def __init__(self, message: str, path: str | None = None) -> None:
        super().__init__(message)
        self.path = path  # where in the session the bad value is ("frames[0].name"), if one is


def dumps(session: Session, found: list[Any] | None = None) -> str:
    """The session as JSON text, written by json's C encoder straight from the dataclasses (no
    copy of the session as dicts first: a session of a million records stays one copy), with
    its findings (findings.rules, as dataclasses or as their dicts) last under "findings": they
    are written for readers of the file, and computed again from the facts when it is loaded."""
    data = _fields_of(session)
    # the counts every view says (session/counts.py), for readers of the file; derived from the
    # facts above, so a loaded session counts them again
    data["counts"] = counts(session).as_json()
    if found is not None:
        data["findings"] = found
    return surrogates_escaped(json.dumps(data, default=_fields_of, ensure_ascii=False))


def _fields_of(value: Any) -> dict[str, Any]:
    names = field_names(type(value))
    if names is None:
        raise TypeError(f"not part of a session: {type(value).__name__}")
    return {name: getattr(value, name) for name in names}


_FIELD_NAMES: dict[type, tuple[str, ...] | None] = {}


def field_names(cls: type) -> tuple[str, ...] | None:
    """The names of a dataclass's fields, in order (None for any other type): found once per
    class, where dataclasses.fields would find them again for every object of it (a session's
    JSON and its HTML page visit every object)."""
    if cls not in _FIELD_NAMES:
        _FIELD_NAMES[cls] = tuple(item.name for item in dataclasses.fields(cls)) if dataclasses.is_dataclass(cls) else None
    return _FIELD_NAMES[cls]


def save(session: Session, path: str | Path, found: list[Any] | None = None) -> Path:
    """Write the session whole, as a new file or over a session of ours (never a half-written
    one, never over someone else's file or through a link: compilescope.outputs)."""
    return Path(write_text(path, dumps(session, found), "the session"))


# The largest whole number a session holds (a count, a line, an exit status): beyond it a value
# cannot be a fact of a run, and would break arithmetic with floats when rendered.
MAX_INT = 2**63


def loads(text: str) -> Session:
    """The Session in `text`, checked against the model's types: a value of the wrong type, a
    missing key the model requires, or nesting deeper than JSON's reader allows gives a
    SessionFormatError that names where (`frames[0]: expected an object, got 1`)."""
    sessions = loads_all(text)
    if len(sessions) != 1:
        raise SessionFormatError(f"a job's {len(sessions)} ranks, not one session: read it with load_all")
    return sessions[0]


CLUSTER_SCHEMA = "compilescope/cluster/1"  # a job's ranks, as `compilescope report DIR --json` writes them


def sessions_of(data: Any) -> list[Session]:
    """The sessions in a file's parsed JSON: one session, or each rank of a job's report."""
    schema = data.get("schema") if isinstance(data, dict) else None
    if not isinstance(schema, str) or not schema.startswith("compilescope/"):
        raise SessionFormatError("not a compilescope session (no 'schema': 'compilescope/…')")
    if schema == CLUSTER_SCHEMA:
        ranks = data.get("ranks")
        if not isinstance(ranks, list):
            raise SessionFormatError("ranks: expected a list of sessions", "ranks")
        out = []
        for index, rank in enumerate(ranks):
            try:
                out.extend(sessions_of(rank))
            except SessionFormatError as error:
                raise SessionFormatError(f"ranks[{index}]: {error}", f"ranks[{index}]") from None
        return out
    major = schema.split("/", 1)[1]
    if major != SCHEMA.split("/", 1)[1]:
        raise SessionFormatError(f"session schema {_short(schema, 60)!r} is not supported by this compilescope (it reads {SCHEMA!r})")
    return [_build(Session, data, "")]


def loads_all(text: str) -> list[Session]:
    """Each session in `text`: one, or a job's ranks (CLUSTER_SCHEMA)."""
    try:
        data = json_value(text)
    except json.JSONDecodeError as error:
        raise SessionFormatError(f"not valid JSON: {error}") from None
    except RecursionError:
        raise SessionFormatError("not a compilescope session: nested too deeply to read") from None
    except ValueError as error:  # a number of more digits than Python reads (int_max_str_digits)
        raise SessionFormatError(f"not valid JSON: {_short(str(error), 120)}") from None
    return sessions_of(data)


@functools.cache
def _fields(cls: Any) -> tuple[tuple[str, Any, bool], ...]:
    """(name, type hint, required) for each field of a dataclass of the model."""
    hints = typing.get_type_hints(cls)
    return tuple(
        (item.name, hints[item.name], item.default is dataclasses.MISSING and item.default_factory is dataclasses.MISSING)
        for item in dataclasses.fields(cls)
    )


# A Benchmark's --profile figures were its own keys before they were one Profile (schema
# compilescope/1 holds both spellings): read the older one into the newer.
_BENCH_PROFILE_KEYS = (
    "kernels",
    "profiled_calls",
    "compiled_regions",
    "peak_copy_gbps",
    "peak_matmul_tflops",
    "profile_error",
    "profile_notes",
)


def _older_benchmark(data: dict[str, Any]) -> dict[str, Any]:
    moved = {key: data[key] for key in _BENCH_PROFILE_KEYS if key in data}
    if not moved or "profile" in data:
        return data
    rest = {key: value for key, value in data.items() if key not in moved}
    kept = {key: value for key, value in moved.items() if value not in (None, [], {})}
    return {**rest, "profile": {"config": data.get("config", "?"), **moved}} if kept else rest


def _build(cls: Any, data: dict[str, Any], path: str) -> Any:
    if cls is Benchmark:
        data = _older_benchmark(data)
    values = {}
    for name, hint, required in _fields(cls):
        where = f"{path}.{name}" if path else name
        if name in data:
            values[name] = _convert(hint, data[name], where)
        elif required:
            raise SessionFormatError(f"{path or 'the session'}: missing {name!r}")
    return cls(**values)


def _convert(hint: Any, value: Any, path: str) -> Any:
    """`value` as the model's type `hint` says, or SessionFormatError naming `path`. The check
    follows the model, so its depth is the model's: a value nested deeper is of the wrong type."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        if value is None:
            if len(options) < len(typing.get_args(hint)):
                return None
            raise SessionFormatError(f"{path}: expected {_expected(hint)}, got null", path)
        if len(options) == 1:
            try:
                return _convert(options[0], value, path)
            except SessionFormatError as error:
                if error.path != path:  # deeper inside: that place says what it expected
                    raise
                raise SessionFormatError(f"{path}: expected {_expected(hint)}, got {_got(value)}", path) from None
        for option in options:
            try:
                return _convert(option, value, path)
            except SessionFormatError:
                continue
        raise SessionFormatError(f"{path}: expected {_expected(hint)}, got {_got(value)}", path)
    if origin is typing.Literal:
        if isinstance(value, str) and value in typing.get_args(hint):
            return value
        raise SessionFormatError(f"{path}: expected {_expected(hint)}, got {_got(value)}", path)
    if origin is list:
        if not isinstance(value, list):
            raise SessionFormatError(f"{path}: expected {_expected(hint)}, got {_got(value)}", path)
        (inner,) = typing.get_args(hint)
        return [_convert(inner, item, f"{path}[{index}]") for index, item in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise SessionFormatError(f"{path}: expected {_expected(hint)}, got {_got(value)}", path)
        _, inner = typing.get_args(hint)
        return {key: _convert(inner, item, f"{path}[{_short(key, 40)!r}]") for key, item in value.items()}
    if dataclasses.is_dataclass(hint):
        if not isinstance(value, dict):
            raise SessionFormatError(f"{path}: expected an object, got {_got(value)}", path)
        return _build(hint, value, path)
    if _fits(hint, value):
        return value
    raise SessionFormatError(f"{path}: expected {_expected(hint)}, got {_got(value)}", path)


def _fits(hint: Any, value: Any) -> bool:
    if hint is str:
        return isinstance(value, str)
    if hint is bool:
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if hint is int:
        return isinstance(value, int) and -MAX_INT < value < MAX_INT
    if hint is float:  # JSON writes 68.0 as 68 too; NaN and infinities are floats
        return isinstance(value, float) or (isinstance(value, int) and -MAX_INT < value < MAX_INT)
    raise TypeError(f"the session model uses a type the loader does not know: {hint!r}")


def _expected(hint: Any) -> str:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        names = [_expected(a) for a in typing.get_args(hint) if a is not type(None)]
        if len(names) < len(typing.get_args(hint)):
            names.append("null")
        return " or ".join(names)
    if origin is typing.Literal:
        return "one of " + ", ".join(json.dumps(a) for a in typing.get_args(hint))
    if origin is list:
        return "a list"
    if origin is dict or dataclasses.is_dataclass(hint):
        return "an object"
    return {str: "a string", bool: "true or false", int: "a whole number", float: "a number"}.get(hint, repr(hint))


def _got(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return json.dumps(_short(value, 40), ensure_ascii=False)
    if isinstance(value, int) and not isinstance(value, bool) and not -MAX_INT < value < MAX_INT:
        return f"a number of {len(str(abs(value)))} digits"
    return json.dumps(value)


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "…"
