"""Logs and sessions from elsewhere, mutated: compilescope never shows a traceback.

A structure-aware fuzz over real inputs: the trace of a real `compilescope run`
(tests/data/small_trace.log, from tests/programs/small_trace_program.py: a graph break, two
recompiles, dynamic shapes, an Inductor compile with kernels, compilescope's own records) and
the session built from it. Each case replaces values inside records and sessions by values of
other JSON types, huge or deeply nested ones, control characters, negative or huge numbers;
removes keys; duplicates, drops and shuffles records; damages payloads and lines. Each runs
`compilescope report` (with --json and --html for some) or `compilescope decompile`, in-process
through compilescope.cli.main, and must end with exit status 0 or 2, raise nothing, print no
traceback and no raw control character; a session written from a hostile trace must load back.

Sessions are mutated by the model's own types (session/model.py, as session/jsonio.py reads
them): every field of every dataclass a session holds gets a value of a wrong type once (the
session's base is first given an example of each dataclass it left empty, so that every field is
there to change), then hostile values of the right type (NaN, huge, negative, empty, control
characters, lone surrogates), two fields a case, every field at least once; a few cases change
its structure (copies, nesting, cut or prefixed text).

Traces are also damaged as bytes, after they are written: a carriage return, NUL, bytes that are
not UTF-8 (a lone byte, a cut sequence, an encoded surrogate) or other line separators inside a
payload's line, its checksum remade over the bytes (the record must be read, its payload kept),
and inside a header's JSON string; a cut, an orphan payload line, Windows line ends.

A fixed number of cases, every one run (CI runs them all, no deadline): FUZZ_CASES of each
(default 500), from FUZZ_SEED (default 20261201). `FUZZ_SEED=random` picks a seed and prints it;
a failure names its seed and case, so `FUZZ_SEED=N` replays it. The counts and the time are
printed (-s).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import hashlib
import io
import json
import os
import random
import re
import sys
import time
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import compilescope
from compilescope.cli import main
from compilescope.session import jsonio
from compilescope.session.model import Session
from compilescope.trace.reader import read_trace

sys.path.insert(0, str(Path(__file__).parent / "programs"))
import large_logs  # noqa: E402

_SEED = os.environ.get("FUZZ_SEED", "20261201")
SEED = random.SystemRandom().randrange(2**32) if _SEED == "random" else int(_SEED)
CASES = int(os.environ.get("FUZZ_CASES", "500"))
REPLAY = f"replay: FUZZ_SEED={SEED}"
TRACE = large_logs.BASE
# What must never reach a terminal raw: ESC and the other C0 controls but tab, newline and
# carriage return (rich's own line ends), DEL and C1.
RAW_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")

Record = tuple[str, dict[str, Any], list[str]]


def hostile_value(rng: random.Random) -> Any:
    """A JSON value of a shape no writer of ours produces."""
    choice = rng.randrange(16)
    if choice == 0:
        return None
    if choice == 1:
        return rng.choice([True, False])
    if choice == 2:
        return rng.choice([-1, -(2**63), 2**64, 10**30, 0, -7])
    if choice == 3:
        return rng.choice([1e308, -0.5, 3.5, float("nan"), float("inf")])
    if choice == 4:
        return "x" * rng.choice([100_000, 2_000_000])
    if choice == 5:
        return rng.choice(["\x1b]0;pwned\x07", "\x1b[2J\x1b[H", "a\x9b31mb", "name\rcover", "\u202eevil", "nul\x00byte", "line\nbreak"])
    if choice == 6:
        depth = rng.choice([50, 900, 5000])
        value: Any = "deep"
        for _ in range(depth):
            value = [value] if rng.random() < 0.5 else {"k": value}
        return value
    if choice == 7:
        return []
    if choice == 8:
        return {}
    if choice == 9:
        return [rng.choice([1, "s", None, {}, []]) for _ in range(rng.randrange(1, 6))]
    if choice == 10:
        return {"name": "x", "line": "seven", "filename": [], "loc": 3}
    if choice == 11:
        return "[bold red]markup[/] <script>alert(1)</script>"
    if choice == 12:
        return rng.choice(["", " ", "0/0", "9/9_9", "!1/0/0"])
    if choice == 13:
        return [[1, 2], ["a", "b", "c"], "x"]
    if choice == 14:
        return "\ud800 lone surrogate"
    return rng.randrange(-5, 5)


def paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every place inside a JSON value, as a path of keys and indexes."""
    found = [prefix]
    if len(prefix) > 30:  # a value made deep by an earlier mutation: its top is enough
        return found
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value[:20]):
            found += paths(item, prefix + (index,))
    return found


def replace_at(value: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    value[path[0]] = replace_at(value[path[0]], path[1:], new)
    return value


def delete_at(value: Any, path: tuple) -> None:
    if not path:
        return
    parent = value
    for key in path[:-1]:
        parent = parent[key]
    with contextlib.suppress(KeyError, IndexError, TypeError):
        del parent[path[-1]]


def mutate_json(value: Any, rng: random.Random) -> Any:
    for _ in range(rng.choice([1, 1, 2, 3])):
        where = rng.choice(paths(value))
        if rng.random() < 0.2 and where:
            delete_at(value, where)
        else:
            value = replace_at(value, where, hostile_value(rng))
    return value


def own_records(records: list[Record]) -> list[Record]:
    """compilescope's own records in the shape record/ writes them, for the compiles of the
    trace: a calls record as Python 3.12 writes it (this machine runs 3.11), decompiled code."""
    prefix = "V1201 14:01:13.905225 9976 compilescope/capture.py:0] "
    starts = [h for _, h, _ in records if "dynamo_start" in h]
    versions = []
    for header in starts:
        cid = {"compiled_autograd_id": None, "frame_id": header["frame_id"], "frame_compile_id": header["frame_compile_id"], "attempt": 0}
        versions.append(
            {
                "compile_id": cid,
                "label": f"{header['frame_id']}/{header['frame_compile_id']}",
                "frame": ["/tmp/cs/rich/small_program.py", 5, "step"],
                "calls": 3,
                "raised": 0,
                "total_ms": 0.5,
                "median_us": 120.0,
                "iqr_us": [100.0, 140.0],
                "sampled": 3,
            }
        )
    calls = {
        "method": "sys.monitoring (Python 3.12)",
        "sample_size": 4096,
        "versions": versions,
        "eager": [
            {
                "compile_id": None,
                "label": "no compiled code",
                "frame": ["/tmp/cs/rich/small_program.py", 5, "step"],
                "calls": 1,
                "raised": 1,
                "total_ms": 0.1,
                "median_us": 90.0,
                "iqr_us": [90.0, 90.0],
                "sampled": 1,
            }
        ],
        "order": [{"frame": ["/tmp/cs/rich/small_program.py", 5, "step"], "runs": [["0/0", 1], ["0/1", 2]], "cut": False}],
    }
    children = [
        {
            "pid": 12,
            "parent_pid": 9976,
            "command": "python worker.py",
            "how": "started",
            "followed": True,
            "why_not": None,
            "trace": "/tmp/t.log",
            "rank": 1,
            "functions": 1,
            "compiles": 2,
            "recompiles": 1,
            "graph_breaks": 0,
            "kernels": 3,
            "compile_time_s": 0.4,
        }
    ]
    return [
        (prefix, {"compilescope_calls": calls}, []),
        (prefix, {"compilescope_children": {}}, json.dumps(children).split("\n")),
        (
            prefix,
            {
                "compilescope_program": {
                    "kind": "script",
                    "target": "p.py",
                    "argv": ["a"],
                    "exit_status": 1,
                    "exception": "ValueError: x",
                    "wall_time_s": 1.5,
                }
            },
            [],
        ),
    ]


def dumps(value: Any) -> str:
    """JSON text of a value, or, for one nested deeper than json.dumps goes, such text by hand."""
    try:
        return json.dumps(value)
    except (RecursionError, ValueError):
        return '{"deep": ' + "[" * 3000 + "]" * 3000 + "}"


def write_trace(records: list[Record], path: Path, rng: random.Random) -> None:
    with open(path, "w", encoding="utf-8", errors="surrogatepass") as out:
        for prefix, header, payload in records:
            text = "\n".join(payload)
            if payload and isinstance(header, dict) and rng.random() < 0.9:  # mostly a payload torch would accept
                header = {**header, "has_payload": hashlib.md5(text.encode("utf-8", "surrogatepass")).hexdigest()}
            out.write(prefix + dumps(header) + "\n")
            for part in payload:
                out.write("\t" + part + "\n")


def mutate_trace(base: list[Record], rng: random.Random) -> tuple[list[Record], str]:
    records = [(p, copy.deepcopy(h), list(pl)) for p, h, pl in base]
    if rng.random() < 0.3:
        records += own_records(records)
    kind = rng.choice(["value", "value", "value", "payload", "duplicate", "shuffle", "drop", "own", "garbage"])
    if kind == "value":
        for _ in range(rng.choice([1, 2, 4])):
            index = rng.randrange(len(records))
            prefix, header, payload = records[index]
            records[index] = (prefix, mutate_json(header, rng), payload)
    elif kind == "payload":
        index = rng.choice([i for i, r in enumerate(records) if r[2]] or [0])
        prefix, header, payload = records[index]
        new = hostile_value(rng)
        records[index] = (prefix, header, (dumps(new) if not isinstance(new, str) or rng.random() < 0.5 else new).split("\n"))
    elif kind == "duplicate":
        for _ in range(rng.randrange(1, 20)):
            records.insert(rng.randrange(len(records)), rng.choice(records))
    elif kind == "shuffle":
        rng.shuffle(records)
    elif kind == "drop":
        records = [r for r in records if rng.random() < 0.7]
    elif kind == "garbage":  # no record left that torch wrote: an empty file, or only damaged ones
        records = [(p, h, pl) for p, h, pl in records[: rng.randrange(0, 4)] if rng.random() < 0.3]
        records += [(p, {"x": 1} if rng.random() < 0.5 else [], pl) for p, _, pl in records]  # type: ignore[misc]  # a header that is no record's
    else:
        records += own_records(records)
        index = len(records) - rng.randrange(1, 4)
        prefix, header, payload = records[index]
        if payload:
            data = json.loads("\n".join(payload))
            records[index] = (prefix, header, dumps(mutate_json(data, rng)).split("\n"))
        else:
            records[index] = (prefix, mutate_json(header, rng), payload)
    return records, kind


# What torch may write inside a payload's line, as bytes (a user's string goes in as it is), and
# bytes a log written elsewhere may hold: a carriage return, NUL, other line separators of
# str.splitlines(), bytes that are not UTF-8 (a lone byte, a cut sequence, an encoded surrogate)
ODD_BYTES = [
    b"\r",
    b"\r\r",
    b"\x00",
    b"\x0b\x0c\x1c\x1d\x1e",
    b"\xc2\x85",
    b"\xe2\x80\xa8",
    b"\xff",
    b"\xc3",
    b"\xed\xa0\x80",
    b"\xf0\x9f",
    b"\x80\xbf\xfe",
    b"\x1b[2J\x1b]0;pwned\x07",
]
_DIGEST = re.compile(rb'"has_payload": "[0-9a-f]{32}"')


def damage_bytes(path: Path, rng: random.Random) -> tuple[str, int | None]:
    """Damage to the file's bytes: odd bytes in a payload's line (its checksum remade: the record
    must keep its payload; the header's line number is returned) or in a header's JSON string,
    a cut mid-record, odd bytes anywhere, a payload line with no record, Windows line ends."""
    data = path.read_bytes() or b"\n"
    how = rng.choice(["payload", "payload", "payload", "header", "cut", "bytes", "orphan", "crlf"])
    lines = data.split(b"\n")
    if how == "payload":
        heads = [i for i, line in enumerate(lines) if _DIGEST.search(line) and i + 1 < len(lines) and lines[i + 1].startswith(b"\t")]
        if heads:
            head = rng.choice(heads)
            end = head + 1
            while end < len(lines) and lines[end].startswith(b"\t"):
                end += 1
            at = rng.randrange(head + 1, end)
            line = lines[at]
            cut = rng.choice([1, len(line), rng.randrange(1, len(line) + 1)])  # after the tab, at the end, anywhere
            lines[at] = line[:cut] + rng.choice(ODD_BYTES) + line[cut:]
            digest = hashlib.md5(b"\n".join(part[1:] for part in lines[head + 1 : end])).hexdigest()
            lines[head] = _DIGEST.sub(b'"has_payload": "' + digest.encode() + b'"', lines[head])
            path.write_bytes(b"\n".join(lines))
            return "payload bytes", head + 1
        how = "bytes"
    if how == "header":
        heads = [i for i, line in enumerate(lines) if b'": "' in line and not line.startswith(b"\t")]
        if heads:
            head = rng.choice(heads)
            spots = [m.end() for m in re.finditer(rb'": "', lines[head])]
            at = rng.choice(spots)
            lines[head] = lines[head][:at] + rng.choice(ODD_BYTES) + lines[head][at:]
            path.write_bytes(b"\n".join(lines))
            return "header bytes", None
        how = "bytes"
    if how == "cut":
        data = data[: rng.randrange(len(data))]
    elif how == "bytes":
        at = rng.randrange(len(data))
        data = data[:at] + rng.choice([b"\xff\xfe\x1b[2J\x00", *ODD_BYTES]) + data[at:]
    elif how == "orphan":
        data = b"\tpayload with no record\n" + data
    else:
        data = data.replace(b"\n", b"\r\n")
    path.write_bytes(data)
    return how, None


def payload_kept(trace: Path, line: int, case: str) -> None:
    """The record at `line`, whose payload holds odd bytes under a checksum made over them, is
    read with its payload: odd bytes never lose a record's payload."""
    log = read_trace(trace)
    record = next((r for r in log.records if r.line == line), None)
    if record is not None:
        assert record.payload is not None, (
            f"{case}: the payload at line {line} was lost: {[s.reason for s in log.skipped if s.line == line]}"
        )
    said = [s.reason for s in log.skipped if s.line == line and "payload" in s.reason]
    assert not said, f"{case}: {said}"


def run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


def check(code: int, out: str, err: str, case: str) -> None:
    assert code in (0, 2), f"{case}: exit status {code}\n{err[-2000:]}"
    assert "Traceback" not in out + err, f"{case}: {err[-3000:]}"
    raw = RAW_CONTROL.search(out + err)
    assert raw is None, (
        f"{case}: a raw control character {raw.group()!r} reached the terminal: {(out + err)[max(raw.start() - 80, 0) : raw.start() + 40]!r}"
    )
    if code == 2:
        assert err.strip() and len(err.strip().splitlines()) == 1, f"{case}: exit 2 must say why in one line: {err[-2000:]!r}"


def fuzz(cases: int, one: Callable[[random.Random, int], tuple[int, str]]) -> dict[str, int]:
    """`cases` cases, every one run (no deadline: the count is the same on any machine), each
    from a seed of its own drawn from SEED."""
    rng = random.Random(SEED)
    counts = {"cases": 0, "exit 0": 0, "exit 2": 0}
    kinds: dict[str, int] = {}
    started = time.monotonic()
    for number in range(cases):
        try:
            code, kind = one(random.Random(rng.getrandbits(64)), number)
        except AssertionError:
            raise
        except BaseException as error:  # a traceback: which case, and how to replay it
            raise AssertionError(f"case {number} raised {type(error).__name__}: {error} [{REPLAY}]") from error
        counts["cases"] += 1
        counts[f"exit {code}"] += 1
        kinds[kind] = kinds.get(kind, 0) + 1
    took = round(time.monotonic() - started, 1)
    print(f"\nfuzz (seed {SEED}): {counts}, 0 tracebacks, {took} s; by kind {dict(sorted(kinds.items()))}")
    return counts


@pytest.fixture(scope="module")
def base_records() -> list[Record]:
    return large_logs.records(TRACE)


# The session's model, as session/jsonio.py reads it: each field of each dataclass a session
# holds, as a path of keys from the session's top ("*": any item of a list, any value of a
# dict), with its type hint.
Field = tuple[tuple[str, ...], Any]


def _options(hint: Any) -> tuple[Any, ...]:
    origin = typing.get_origin(hint)
    return typing.get_args(hint) if origin in (typing.Union, types.UnionType) else (hint,)


def _classes_in(hint: Any) -> list[tuple[Any, tuple[str, ...]]]:
    """The dataclasses a value of type `hint` may hold, each with the path to it ("*" per list
    or dict level)."""
    found = []
    for option in _options(hint):
        origin = typing.get_origin(option)
        if origin in (list, dict):
            found += [(cls, ("*", *path)) for cls, path in _classes_in(typing.get_args(option)[-1])]
        elif dataclasses.is_dataclass(option):
            found.append((option, ()))
    return found


def fields_of(cls: Any) -> tuple[tuple[str, Any, bool], ...]:
    """(name, type hint, required) of each field of a dataclass of the model, as jsonio reads it."""
    return jsonio._fields(cls)


def model_fields(cls: Any = Session, prefix: tuple[str, ...] = ()) -> list[Field]:
    fields: list[Field] = []
    for name, hint, _ in fields_of(cls):
        fields.append(((*prefix, name), hint))
        for inner, path in _classes_in(hint):
            fields += model_fields(inner, (*prefix, name, *path))
    return fields


def example(hint: Any, depth: int = 0) -> Any:
    """A plain value of type `hint`: what a field the base session left empty is given."""
    options = [o for o in _options(hint) if o is not type(None)]
    hint = options[0]
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return typing.get_args(hint)[0]
    if origin is list:
        return [example(typing.get_args(hint)[0], depth + 1)] if depth < 6 else []
    if origin is dict:
        return {"k": example(typing.get_args(hint)[1], depth + 1)} if depth < 6 else {}
    if dataclasses.is_dataclass(hint):
        return {name: example(inner, depth + 1) for name, inner, _ in fields_of(hint)}
    return {str: "x", int: 1, float: 0.5, bool: True}[hint]


def filled(value: Any, hint: Any) -> Any:
    """`value` with every field that may hold a dataclass but holds none (null, [], {}) given an
    example: so that every field of the model is in the session, to be changed."""
    options = [o for o in _options(hint) if o is not type(None)]
    if not options or not _classes_in(hint):
        return value
    if value in (None, [], {}):
        return example(hint)
    hint = options[0]
    origin = typing.get_origin(hint)
    if origin is list and isinstance(value, list):
        return [filled(item, typing.get_args(hint)[0]) for item in value]
    if origin is dict and isinstance(value, dict):
        return {key: filled(item, typing.get_args(hint)[1]) for key, item in value.items()}
    if dataclasses.is_dataclass(hint) and isinstance(value, dict):
        return {**value, **{name: filled(value.get(name), inner) for name, inner, _ in fields_of(hint)}}
    return value


def places(value: Any, path: tuple[str, ...], at: tuple = ()) -> list[tuple]:
    """The places in `value` that a field's path names (each "*" any item or key)."""
    if not path:
        return [at]
    key, rest = path[0], path[1:]
    if key == "*":
        items = enumerate(value) if isinstance(value, list) else value.items() if isinstance(value, dict) else ()
        return [place for index, item in items for place in places(item, rest, (*at, index))]
    if isinstance(value, dict) and key in value:
        return places(value[key], rest, (*at, key))
    return []


def _kind(value: Any) -> str:
    for name, kind in (
        ("null", type(None)),
        ("bool", bool),
        ("int", int),
        ("float", float),
        ("str", str),
        ("list", list),
        ("object", dict),
    ):
        if isinstance(value, kind):
            return name
    raise TypeError(value)


def _accepted(hint: Any) -> set[str]:
    kinds = set()
    for option in _options(hint):
        origin = typing.get_origin(option)
        if option is type(None):
            kinds.add("null")
        elif origin is typing.Literal or option is str:
            kinds.add("str")
        elif origin is list:
            kinds.add("list")
        elif origin is dict or dataclasses.is_dataclass(option):
            kinds.add("object")
        elif option is float:
            kinds |= {"float", "int"}
        else:
            kinds.add({int: "int", bool: "bool"}[option])
    return kinds


WRONG = [None, True, 7, -1, 2**70, 2.5, float("nan"), "", "x\x1b[2J", "\ud800", [], [1, "a", None], {}, {"k": [1]}]


def wrong_value(hint: Any, rng: random.Random) -> Any:
    """A value of a type the field does not take."""
    return rng.choice([value for value in WRONG if _kind(value) not in _accepted(hint)])


HOSTILE_TEXT = [
    "",
    " ",
    "\x1b]0;pwned\x07\x1b[2J",
    "a\rb\x00c\x9b31m",
    "\u202eevil\u2028x",
    "\ud800\udcff",
    "[bold]m[/] <script>x</script>",
    "x" * 100_000,
    "0/0",
]


def hostile_of_type(hint: Any, value: Any, rng: random.Random) -> Any:
    """A hostile value of the type the field takes: NaN, huge, negative, empty, control
    characters, a Literal's other choice, a list of one item many times."""
    options = [o for o in _options(hint) if o is not type(None)]
    if len(options) < len(_options(hint)) and rng.random() < 0.2:
        return None
    hint = rng.choice(options)
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return rng.choice(typing.get_args(hint))
    if origin is list:
        inner = typing.get_args(hint)[0]
        items = value if isinstance(value, list) and value else [example(inner)]
        return rng.choice([[], items * rng.choice([2, 50]), [hostile_of_type(inner, item, rng) for item in items[:5]]])
    if origin is dict:
        inner = typing.get_args(hint)[1]
        return rng.choice([{}, {rng.choice(HOSTILE_TEXT): example(inner), "": example(inner)}])
    if dataclasses.is_dataclass(hint):
        return example(hint)
    if hint is str:
        return rng.choice(HOSTILE_TEXT)
    if hint is bool:
        return rng.choice([True, False])
    if hint is int:
        return rng.choice([-1, 0, -(2**62), 2**62, 2**63 - 1])
    return rng.choice([float("nan"), float("inf"), float("-inf"), -1.0, 0.0, 1e308, -1e-308])


@pytest.fixture(scope="module")
def base_session() -> dict[str, Any]:
    """The real session, each field that may hold a dataclass and holds none given an example."""
    return filled(json.loads(compilescope.load(TRACE).to_json()), Session)


FIELDS = model_fields()


def test_every_field_of_the_model_is_in_the_fuzzed_base_session(base_session: dict[str, Any], tmp_path: Path) -> None:
    # the base the session fuzzer changes holds every field, and is a session that reads and shows
    missing = [".".join(path) for path, _ in FIELDS if not places(base_session, path)]
    assert missing == []
    path = tmp_path / "base.json"
    path.write_text(json.dumps(base_session), encoding="utf-8")
    code, out, err = run(["report", str(path), "--show", "all", "--html", str(tmp_path / "base.html")])
    check(code, out, err, "the base session")
    assert code == 0, err


@pytest.mark.slow  # hundreds of mutated traces and sessions
def test_fuzzed_traces_never_crash(base_records: list[Record], tmp_path: Path) -> None:
    def one(rng: random.Random, number: int) -> tuple[int, str]:
        records, kind = mutate_trace(base_records, rng)
        folder = tmp_path / f"case{number}"
        folder.mkdir()
        trace = folder / "trace.log"
        write_trace(records, trace, rng)
        kept_at = None
        if rng.random() < 0.3:
            how, kept_at = damage_bytes(trace, rng)
            kind += "+" + how
        case = f"trace case {number} ({kind}) [{REPLAY}]"
        if kept_at is not None:
            payload_kept(trace, kept_at, case)
        if rng.random() < 0.1:  # decompile reads a trace too
            args = ["decompile", "--out", str(folder / "py"), str(trace)]
            code, out, err = run(args)
            check(code, out, err, f"{case}: {' '.join(args)}")
            return code, kind
        args = ["report", str(trace if rng.random() < 0.85 else folder)]
        outputs = rng.random() < 0.35
        if outputs:
            args += ["--json", str(folder / "out.json"), "--html", str(folder / "out.html")]
        if rng.random() < 0.2:
            args += ["--show", "all"]
        case += ": " + " ".join(args)
        code, out, err = run(args)
        check(code, out, err, case)
        if code == 0 and outputs:
            # what compilescope built from a hostile trace is a session it reads back
            try:
                session = compilescope.load(folder / "out.json")
            except Exception as error:
                raise AssertionError(f"{case}: the session it saved does not load: {error}") from error
            assert (folder / "out.html").stat().st_size < 60e6, case
            code, out, err = run(["report", str(folder / "out.json")])
            check(code, out, err, case + " (its saved session)")
            assert code == 0, case
            assert len(session.frames) >= 0
        return code, kind

    counts = fuzz(CASES, one)
    assert counts["cases"] == CASES
    assert counts["exit 0"] > 0 and counts["exit 2"] > 0


@pytest.mark.slow  # hundreds of mutated traces and sessions
def test_fuzzed_sessions_never_crash(base_session: dict[str, Any], tmp_path: Path) -> None:
    # The cases, in order: each field of the model given a value of a wrong type; then two
    # fields a case given hostile values of their own type, every field at least once; then
    # changes of the structure. (With fewer cases than fields, FUZZ_CASES=N, the first N fields.)
    typed = len(FIELDS)
    structural = max(CASES // 16, 1)
    hostile = max(CASES - typed - structural, 0)
    # (fields far apart in the model, the deeper changed first: a parent's change may replace it)
    pairs = [sorted((FIELDS[i % typed], FIELDS[(i + hostile) % typed]), key=lambda f: -len(f[0])) for i in range(hostile)]

    def one(rng: random.Random, number: int) -> tuple[int, str]:
        data = copy.deepcopy(base_session)
        if number < typed:
            where, hint = FIELDS[number]
            place = rng.choice(places(data, where))
            data = replace_at(data, place, wrong_value(hint, rng))
            kind = "wrong type"
        elif number < typed + hostile:
            for where, hint in pairs[number - typed]:
                if not (found := places(data, where)):
                    continue
                place = rng.choice(found)
                value = data
                for key in place:
                    value = value[key]
                data = replace_at(data, place, hostile_of_type(hint, value, rng))
            kind = "hostile value"
        else:
            kind = rng.choice(["value", "duplicate", "deep", "text"])
            if kind == "value":
                data = mutate_json(data, rng)
            elif kind == "duplicate":
                frames = data["frames"]
                frames += [copy.deepcopy(rng.choice(frames)) for _ in range(rng.randrange(1, 4))]
            elif kind == "deep":
                deep: Any = []
                for _ in range(rng.choice([10, 500, 2000])):
                    deep = [deep]
                data[rng.choice(["frames", "environment", "program", "skipped"])] = deep
        path = tmp_path / f"case{number}.json"
        if kind == "text":
            text = json.dumps(data)
            text = rng.choice(
                [
                    text[: rng.randrange(len(text))],
                    text.replace('"frames"', '"frames":' + "[" * 100_000 + "]" * 100_000 + ',"x"', 1),
                    "\ufeff" + text,
                ]
            )
            path.write_text(text, encoding="utf-8")
        else:
            path.write_text(dumps(data), encoding="utf-8", errors="surrogatepass")
        if rng.random() < 0.2:
            args = ["decompile", "--out", str(tmp_path / f"py{number}"), str(path)]
        else:
            args = (
                ["report", str(path)]
                + (["--html", str(tmp_path / f"r{number}.html")] if rng.random() < 0.3 else [])
                + (["--show", "all"] if rng.random() < 0.3 else [])
            )
        case = f"session case {number} ({kind}) [{REPLAY}]: {' '.join(args)}"
        code, out, err = run(args)
        check(code, out, err, case)
        if kind == "wrong type":
            assert code == 2, f"{case}: a value of a wrong type at {'.'.join(FIELDS[number][0])} was not refused"
        return code, kind

    counts = fuzz(CASES, one)
    assert counts["cases"] == CASES
    assert counts["exit 0"] > 0 and counts["exit 2"] > 0
