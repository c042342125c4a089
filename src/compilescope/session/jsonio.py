"""The Session as versioned JSON (schema "compilescope/1", documented in docs/schema.md).

Dataclasses go out with dataclasses.asdict; they come back through their type hints, so the
model is the one place that defines the format. Unknown keys from a newer writer are ignored
and missing keys take their defaults, so old and new files both load.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from pathlib import Path
from typing import Any

from compilescope.outputs import write_text
from compilescope.session.model import SCHEMA, Session


class SessionFormatError(ValueError):
    """The file is not a compilescope session this version can read."""


def dumps(session: Session) -> str:
    return json.dumps(dataclasses.asdict(session), indent=1, ensure_ascii=False)


def save(session: Session, path: str | Path) -> Path:
    """Write the session whole, as a new file or over a session of ours (never a half-written
    one, never over someone else's file or through a link: compilescope.outputs)."""
    return write_text(path, dumps(session), "the session")


def loads(text: str) -> Session:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise SessionFormatError(f"not valid JSON: {error}") from None
    if not isinstance(data, dict) or not str(data.get("schema", "")).startswith("compilescope/"):
        raise SessionFormatError("not a compilescope session (no 'schema': 'compilescope/…')")
    major = str(data["schema"]).split("/", 1)[1]
    if major != SCHEMA.split("/", 1)[1]:
        raise SessionFormatError(
            f"session schema {data['schema']!r} is not supported by this compilescope "
            f"(it reads {SCHEMA!r})"
        )
    return _build(Session, data)


def _build(cls: Any, data: Any) -> Any:
    hints = typing.get_type_hints(cls)
    values = {}
    for item in dataclasses.fields(cls):
        if item.name in data:
            values[item.name] = _convert(hints[item.name], data[item.name])
    return cls(**values)


def _convert(hint: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        return _convert(options[0], value) if len(options) == 1 else value
    if origin is list:
        (inner,) = typing.get_args(hint) or (Any,)
        return [_convert(inner, v) for v in value]
    if origin is dict:
        return dict(value)
    if dataclasses.is_dataclass(hint):
        return _build(hint, value)
    return value
