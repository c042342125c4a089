"""Large structured-trace logs, made from a real small one, to measure compilescope (and tlparse)
on logs from elsewhere that are far bigger than they should be.

    python tests/programs/large_logs.py huge-string OUT.log --mb 100 --where reason
    python tests/programs/large_logs.py many-records OUT.log --records 1000000

huge-string: the real trace plus one string of the given size: a graph break's message
(`reason`, a payload of one line), a compiled function's name (`name`, a JSON string in
`dynamo_start`'s metadata), or Inductor's output code (`code`, a payload of many lines).

many-records: the real trace's compile records again and again, each copy under new frame ids
(so each copy is new compiles of new functions), until the log holds about that many records
(about 1 kB each: the copies' compilation_metrics leave out torch's configs, as torch 2.5 did).

job: a TORCH_TRACE folder of a job's ranks, each log about --mb MB: the compile records of a
real rank's log (tests/traces/ranks/ddp: a DDP job where rank 1 alone recompiled) copied under
new frame ids, whole (torch's configs kept, as torch 2.13 writes them); one rank (--divergent)
copies rank 1's log, the others rank 0's.

    python tests/programs/large_logs.py job OUT_FOLDER --ranks 8 --mb 35 --divergent 3

The base is tests/data/small_trace.log (a real `compilescope run` of tests/programs/
small_trace_program.py); every payload's md5 is written as torch writes it, so the reader
takes the records as whole.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
from pathlib import Path
from typing import Any, TextIO

BASE = Path(__file__).resolve().parents[1] / "data" / "small_trace.log"
_HEAD = re.compile(r"^(?P<prefix>.*?\] )(?P<json>\{.*)$")
_PREFIX = "V1201 14:01:10.000000 9976 torch/_dynamo/x.py:1] "


def records(path: Path = BASE) -> list[tuple[str, dict[str, Any], list[str]]]:
    """The base trace as (header prefix, header JSON, payload lines without their tab)."""
    out: list[tuple[str, dict[str, Any], list[str]]] = []
    opened = gzip.open(path, "rt", encoding="utf-8") if path.name.endswith(".gz") else open(path, encoding="utf-8")
    with opened as handle:
        for raw in handle:
            line = raw.rstrip("\n")
            if line.startswith("\t"):
                out[-1][2].append(line[1:])
            elif line.strip():
                match = _HEAD.match(line)
                assert match, line[:100]
                out.append((match.group("prefix"), json.loads(match.group("json")), []))
    return out


def write_record(out: TextIO, prefix: str, header: dict[str, Any], payload: list[str] | str | None) -> None:
    if isinstance(payload, str):
        payload = payload.split("\n")
    if payload:
        text = "\n".join(payload)
        header = {**header, "has_payload": hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest()}
    out.write(prefix + json.dumps(header) + "\n")
    for line in payload or ():
        out.write("\t" + line + "\n")


def huge_string_log(target: Path, size: int, where: str = "reason", base: Path = BASE) -> Path:
    """The base trace with one string of `size` characters in it (see the module's docstring)."""
    big = "x" * size
    with open(target, "w", encoding="utf-8") as out:
        placed = False
        for prefix, header, payload in records(base):
            if not placed and where == "name" and "dynamo_start" in header:
                header = json.loads(json.dumps(header))
                header["dynamo_start"]["stack"][-1]["name"] = "huge_" + big
                placed = True
            write_record(out, prefix, header, payload)
            if not placed and where == "reason" and "dynamo_start" in header:
                ids = {k: header[k] for k in ("frame_id", "frame_compile_id", "attempt")}
                message = (
                    "Graph break in user code at /tmp/huge.py:3\n"
                    f"Graph Break Reason: Unsupported: {big}\n"
                    "  Explanation: a message from elsewhere, far longer than torch writes\n"
                    "User code traceback:\n"
                    '  File "/tmp/huge.py", line 3, in step\n'
                    "    torch._dynamo.graph_break()\n"
                )
                write_record(out, _PREFIX, {"artifact": {"name": "dynamo_graph_break_reason", "encoding": "string"}, **ids}, message)
                placed = True
            if not placed and where == "code" and "dynamo_start" in header:
                ids = {k: header[k] for k in ("frame_id", "frame_compile_id", "attempt")}
                lines = ["# Inductor's output code, far longer than torch writes"]
                line = "    buf0 = empty_strided_cpu((4, 4), (4, 1), torch.float32)  # padding padding padding"
                lines += [line] * (size // (len(line) + 1))
                write_record(out, _PREFIX, {"inductor_output_code": {"filename": "/tmp/huge_output.py"}, **ids}, lines)
                placed = True
    return target


def _copies(base: Path) -> tuple[list, list, list, int]:
    """The base's records split: those before the first compile record (interned strings, the
    capture's own), those with a compile id (to copy), the rest (the program's end), and the
    number of frame ids the base uses."""
    items = records(base)
    head: list = []
    compiles: list = []
    tail: list = []
    for item in items:
        header = item[1]
        if "frame_id" in header:
            compiles.append(item)
        elif compiles:
            (tail if "str" not in header else head).append(item)
        else:
            head.append(item)
    frames = 1 + max(h["frame_id"] for _, h, _ in compiles if isinstance(h.get("frame_id"), int))
    return head, compiles, tail, frames


def many_records_log(target: Path, count: int, base: Path = BASE, size: int | None = None, rank: int | None = None, whole: bool = False) -> tuple[Path, int, int]:
    """The base's compile records copied under new frame ids until about `count` records (or,
    with `size`, about that many bytes); returns the path, the number of records written and of
    copies. `rank`: written as every record's rank; `whole`: torch's configs kept."""
    head, compiles, tail, frames = _copies(base)
    written = 0
    copies = 0
    with open(target, "w", encoding="utf-8") as out:
        for prefix, header, payload in head:
            write_record(out, prefix, header if rank is None else {**header, "rank": rank}, payload)
            written += 1
        while (written + len(compiles) + len(tail) <= count if size is None else out.tell() < size) or copies == 0:
            shift = copies * frames
            for prefix, header, payload in compiles:
                moved = dict(header)
                if rank is not None:
                    moved["rank"] = rank
                if isinstance(moved.get("compilation_metrics"), dict) and not whole:
                    # without torch's configs (30 kB a compile), as torch 2.5 wrote it: small records
                    moved["compilation_metrics"] = {k: v for k, v in moved["compilation_metrics"].items() if not k.endswith("_config")}
                if isinstance(moved.get("frame_id"), int):
                    moved["frame_id"] += shift
                write_record(out, prefix, moved, payload)
            written += len(compiles)
            copies += 1
        for prefix, header, payload in tail:
            write_record(out, prefix, header, payload)
            written += 1
    return target, written, copies


RANK_LOGS = Path(__file__).resolve().parents[1] / "traces" / "ranks" / "ddp"


def job_folder(target: Path, ranks: int, size: int, divergent: int = 1) -> list[Path]:
    """A TORCH_TRACE folder of `ranks` logs of about `size` bytes each (see the module's docstring)."""
    base0, base1 = sorted(RANK_LOGS.iterdir())
    target.mkdir(parents=True, exist_ok=True)
    made = []
    for rank in range(ranks):
        log = target / f"dedicated_log_torch_trace_rank_{rank}_job.log"
        many_records_log(log, 0, base1 if rank == divergent else base0, size=size, rank=rank, whole=True)
        made.append(log)
    return made



def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="kind", required=True)
    huge = sub.add_parser("huge-string")
    huge.add_argument("out", type=Path)
    huge.add_argument("--mb", type=float, default=100.0)
    huge.add_argument("--where", choices=("reason", "name", "code"), default="reason")
    many = sub.add_parser("many-records")
    many.add_argument("out", type=Path)
    many.add_argument("--records", type=int, default=1_000_000)
    job = sub.add_parser("job")
    job.add_argument("out", type=Path)
    job.add_argument("--ranks", type=int, default=8)
    job.add_argument("--mb", type=float, default=35.0)
    job.add_argument("--divergent", type=int, default=1)
    args = parser.parse_args(argv)
    if args.kind == "job":
        logs = job_folder(args.out, args.ranks, int(args.mb * 1e6), args.divergent)
        print(f"{args.out}: {len(logs)} rank logs, {sum(p.stat().st_size for p in logs) / 1e6:.0f} MB in all")
        return
    if args.kind == "huge-string":
        huge_string_log(args.out, int(args.mb * 1e6), args.where)
        print(f"{args.out}: {args.out.stat().st_size / 1e6:.1f} MB, one string of {args.mb:g} MB ({args.where})")
    else:
        _, written, copies = many_records_log(args.out, args.records)
        print(f"{args.out}: {args.out.stat().st_size / 1e6:.1f} MB, {written} records ({copies} copies of the base's compiles)")


if __name__ == "__main__":
    main()
