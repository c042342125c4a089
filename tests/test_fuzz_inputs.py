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

Seeded (FUZZ_SEED, default 20261201) and bounded: FUZZ_CASES cases of each (default 1000), stopped
at a deadline of FUZZ_SECONDS in all (default 50 s: 35 for traces, 15 for sessions), whichever
comes first; the counts are printed (-s).
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import json
import os
import random
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import compilescope
from compilescope.cli import main

sys.path.insert(0, str(Path(__file__).parent / "programs"))
import large_logs  # noqa: E402

SEED = int(os.environ.get("FUZZ_SEED", "20261201"))
CASES = int(os.environ.get("FUZZ_CASES", "1000"))
SECONDS = float(os.environ.get("FUZZ_SECONDS", "50"))
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


def damage_bytes(path: Path, rng: random.Random) -> str:
    """Line-level damage: cut mid-record, bytes that are not UTF-8, a payload line with no record."""
    data = path.read_bytes() or b"\n"
    how = rng.choice(["cut", "bytes", "orphan", "crlf"])
    if how == "cut":
        data = data[: rng.randrange(len(data))]
    elif how == "bytes":
        at = rng.randrange(len(data))
        data = data[:at] + b"\xff\xfe\x1b[2J\x00" + data[at:]
    elif how == "orphan":
        data = b"\tpayload with no record\n" + data
    else:
        data = data.replace(b"\n", b"\r\n")
    path.write_bytes(data)
    return how


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


@pytest.fixture(scope="module")
def base_records() -> list[Record]:
    return large_logs.records(TRACE)


@pytest.fixture(scope="module")
def base_session() -> dict[str, Any]:
    return json.loads(compilescope.load(TRACE).to_json())


def fuzz(cases: int, seconds: float, one: Callable[[random.Random, int], tuple[int, str]]) -> dict[str, int]:
    rng = random.Random(SEED)
    counts = {"cases": 0, "exit 0": 0, "exit 2": 0}
    kinds: dict[str, int] = {}
    started = time.monotonic()
    for number in range(cases):
        if time.monotonic() - started > seconds:
            break
        code, kind = one(random.Random(rng.getrandbits(64)), number)
        counts["cases"] += 1
        counts[f"exit {code}"] += 1
        kinds[kind] = kinds.get(kind, 0) + 1
    print(f"\nfuzz (seed {SEED}): {counts}, {round(time.monotonic() - started, 1)} s; by kind {dict(sorted(kinds.items()))}")
    return counts


@pytest.mark.slow  # thousands of mutated traces and sessions
def test_fuzzed_traces_never_crash(base_records: list[Record], tmp_path: Path) -> None:
    def one(rng: random.Random, number: int) -> tuple[int, str]:
        records, kind = mutate_trace(base_records, rng)
        folder = tmp_path / f"case{number}"
        folder.mkdir()
        trace = folder / "trace.log"
        write_trace(records, trace, rng)
        if rng.random() < 0.15:
            kind += "+" + damage_bytes(trace, rng)
        if rng.random() < 0.1:  # decompile reads a trace too
            args = ["decompile", "--out", str(folder / "py"), str(trace)]
            code, out, err = run(args)
            check(code, out, err, f"trace case {number} ({kind}): {' '.join(args)}")
            return code, kind
        args = ["report", str(trace if rng.random() < 0.85 else folder)]
        outputs = rng.random() < 0.35
        if outputs:
            args += ["--json", str(folder / "out.json"), "--html", str(folder / "out.html")]
        if rng.random() < 0.2:
            args += ["--show", "all"]
        case = f"trace case {number} ({kind}): {' '.join(args)}"
        code, out, err = run(args)
        check(code, out, err, case)
        if code == 0 and outputs:
            # what compilescope built from a hostile trace is a session it reads back
            session = compilescope.load(folder / "out.json")
            assert (folder / "out.html").stat().st_size < 60e6, case
            code, out, err = run(["report", str(folder / "out.json")])
            check(code, out, err, case + " (its saved session)")
            assert code == 0, case
            assert len(session.frames) >= 0
        return code, kind

    counts = fuzz(CASES, SECONDS * 0.7, one)
    assert counts["cases"] >= min(CASES, 40)
    assert counts["exit 0"] > 0 and counts["exit 2"] > 0


@pytest.mark.slow  # thousands of mutated traces and sessions
def test_fuzzed_sessions_never_crash(base_session: dict[str, Any], tmp_path: Path) -> None:
    def one(rng: random.Random, number: int) -> tuple[int, str]:
        data = copy.deepcopy(base_session)
        kind = rng.choice(["value", "value", "value", "duplicate", "deep", "text"])
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
        if rng.random() < 0.3:
            args = ["decompile", "--out", str(tmp_path / f"py{number}"), str(path)]
        else:
            args = (
                ["report", str(path)]
                + (["--html", str(tmp_path / f"r{number}.html")] if rng.random() < 0.3 else [])
                + (["--show", "all"] if rng.random() < 0.2 else [])
            )
        case = f"session case {number} ({kind}): {' '.join(args)}"
        code, out, err = run(args)
        check(code, out, err, case)
        return code, kind

    counts = fuzz(CASES, SECONDS * 0.3, one)
    assert counts["cases"] >= min(CASES, 40)
    assert counts["exit 0"] > 0 and counts["exit 2"] > 0
