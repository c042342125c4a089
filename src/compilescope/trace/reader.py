"""Read torch's structured trace (the format `TORCH_TRACE=dir` writes and tlparse reads).

Each record is one glog-style header line whose message is a JSON object, followed by an
optional payload: the lines after it that start with a tab. The JSON object has one key that
names the record (`dynamo_start`, `artifact`, `compilation_metrics`, ...) plus context keys
(`frame_id`, `frame_compile_id`, `attempt`, `rank`, `has_payload` = md5 of the payload).

This module knows only that format. It never imports torch, and it never gives up on a file:
a line it cannot read, or a payload whose checksum does not match (a file cut off mid-write),
is listed in `TraceLog.skipped` with the reason, and reading goes on.

A trace may come from elsewhere, so it is untrusted: records are read one at a time
(`iter_file_records` reads a file in pieces of 4 MB, split into records by a regular
expression rather than a Python loop per line; `iter_records` takes lines one by one), never all
kept at once, so memory follows the largest record, not the file; only regular files are opened
(`open_trace_bytes`: a pipe or a device is refused, never waited on);
the list of what was skipped is cut at `MAX_SKIPPED` entries and counted beyond.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import stat
import zlib
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, BinaryIO

MAX_SKIPPED = 1000  # reasons kept for the lines that could not be read; the rest are counted
MAX_LINE = 512 * 2**20  # characters of one line; a longer one is not read (torch writes none)
MAX_PAYLOAD = 512 * 2**20  # characters of one record's payload, likewise

# "V1129 11:28:36.564000 1900 torch/_dynamo/utils.py:2350] {...}" (a rank prefix like
# "[rank0]:" may stand before the level letter in some torch versions).
_HEADER = re.compile(
    r"^(?:\[rank\d+\]:)?(?P<level>[VIWEC])(?P<date>\d{4}) (?P<time>[\d:.]+) +(?P<pid>\d+) "
    r"(?P<where>[^\]]*)\](?: \[[^\]]*\])* (?P<json>\{.*)$"
)
_CONTEXT_KEYS = frozenset(
    {
        "frame_id",
        "frame_compile_id",
        "attempt",
        "has_payload",
        "compiled_autograd_id",
        "rank",
        "stack",
        "subgraph_name",
    }
)


@dataclass(frozen=True)
class CompileId:
    """torch's compile id: frame `0`, its compile `1`, attempt `0` -> "0/1"; a restart "0/0_1"."""

    frame_id: int | None
    frame_compile_id: int | None
    attempt: int = 0
    compiled_autograd_id: int | None = None

    @property
    def key(self) -> tuple[int | None, int | None, int | None]:
        # Records of every attempt of one compile belong to that compile.
        return (self.compiled_autograd_id, self.frame_id, self.frame_compile_id)

    def __str__(self) -> str:
        text = f"{self.frame_id}/{self.frame_compile_id}"
        if self.attempt:
            text += f"_{self.attempt}"
        if self.compiled_autograd_id is not None:
            text = f"!{self.compiled_autograd_id}/{text}"
        return text


@dataclass
class Record:
    """One structured-trace record."""

    kind: str  # the record's name; for artifacts, the artifact's name ("recompile_reasons")
    metadata: Any  # the value under the record's name
    payload: str | None
    compile_id: CompileId | None
    line: int  # 1-based line of the header in the file
    pid: int | None = None
    rank: int | None = None
    is_artifact: bool = False
    context: dict[str, Any] = field(default_factory=dict)
    written: str | None = None  # the header's date and time: "1202 11:20:09.416000"


@dataclass
class Skipped:
    line: int
    reason: str


@dataclass
class TraceLog:
    path: str | None
    records: list[Record]  # empty while records are read one at a time (iter_records)
    strings: dict[int, str]  # torch interns file names: {"str": [name, index]}
    skipped: list[Skipped]
    lines_read: int = 0
    records_read: int = 0
    skipped_more: int = 0  # lines that could not be read beyond the MAX_SKIPPED listed

    def skip(self, line: int, reason: str) -> None:
        if len(self.skipped) < MAX_SKIPPED:
            self.skipped.append(Skipped(line, reason))
        else:
            self.skipped_more += 1

    def string(self, index: Any) -> str | None:
        """The file name torch interned as `index`, or None if the trace never said."""
        if isinstance(index, int):
            return self.strings.get(index)
        if isinstance(index, str):
            return index
        return None


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


# json.loads(text, strict=...) would make a decoder for each record: one of each, made once
_STRICT = json.JSONDecoder(strict=True)
_LOOSE = json.JSONDecoder(strict=False)


def json_value(text: str, strict: bool = True) -> Any:
    """json.loads, but a lone surrogate (JSON may escape one, "\\ud800"; a line read from bytes
    that were not UTF-8 holds one for each such byte) comes back as U+FFFD: a string no UTF-8
    writer could write or terminal show is never passed on. `strict=False` takes control
    characters (a raw tab, "\\r" or NUL) inside strings, as json.loads does.
    Raises ValueError (JSONDecodeError) and RecursionError as json.loads does."""
    if isinstance(text, str) and not text.startswith("\ufeff"):
        value = (_STRICT if strict else _LOOSE).decode(text)
    else:  # (json.loads's own answer: a byte-order mark, or not text)
        value = json.loads(text, strict=strict)
    if _SURROGATE_ESCAPE.search(text) or (not text.isascii() and _SURROGATE.search(text)):
        return without_surrogates(value)
    return value


def without_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value) if _SURROGATE.search(value) else value
    if isinstance(value, list):
        return [without_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {without_surrogates(key): without_surrogates(item) for key, item in value.items()}
    return value


class UnreadableInput(ValueError):
    """A path compilescope will not read: not a regular file (a device, a pipe, a socket)."""


GZIP_MAGIC = b"\x1f\x8b"


def open_trace(path: str | Path, errors: str = "surrogateescape") -> IO[str]:
    """The file at `path` opened for reading as text (as open_trace_bytes opens it). Lines end
    at "\\n" only (a "\\r" inside a payload is the payload's), and bytes that are not UTF-8 are
    read as they are (surrogateescape: one lone surrogate each), for a payload's checksum;
    iter_records passes none of them on (U+FFFD)."""
    return io.TextIOWrapper(open_trace_bytes(path), encoding="utf-8", errors=errors, newline="\n")


def open_trace_bytes(path: str | Path) -> BinaryIO:
    """The file at `path` opened for reading, only if it is a regular file: a pipe would make us
    wait forever and /dev/zero never ends, so those are refused (UnreadableInput) before a byte
    is read. Links are followed: reading through one writes nothing. A file compressed with gzip
    (a cluster's `trace.log.gz`) is read decompressed (the reader's own bounds apply to what
    comes out)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)  # non-blocking: opening a pipe with no writer returns at once
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise UnreadableInput(f"{path}: {_kind(mode)}, not a regular file: compilescope reads only files and folders")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        if os.pread(fd, 2, 0) == GZIP_MAGIC:  # a trace compressed where it was written (trace.log.gz)
            import gzip

            return gzip.GzipFile(fileobj=os.fdopen(fd, "rb"), mode="rb")  # type: ignore[return-value]
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "a special file"


def check_input(path: str | Path) -> None:
    """UnreadableInput where `path` (links followed) is neither a regular file nor a folder."""
    mode = os.stat(path).st_mode
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise UnreadableInput(f"{path}: {_kind(mode)}, not a regular file or a folder: compilescope reads only files and folders")


def read_trace(source: str | Path | Iterable[str], name: str | None = None) -> TraceLog:
    """Parse a trace file (or any iterable of its lines) into records, all kept in
    `TraceLog.records` (for a file of any size, iter_file_records reads them one at a time)."""
    if isinstance(source, (str, Path)):
        with open_trace_bytes(source) as stream:
            log = TraceLog(path=str(source), records=[], strings={}, skipped=[])
            log.records.extend(iter_file_records(stream, log))
            return log
    log = TraceLog(path=name, records=[], strings={}, skipped=[])
    log.records.extend(iter_records(source, log))
    return log


# One record as read, before its header is understood: the number of its first line; its
# header line (without the line end), None where the block is payload lines with no line before
# them, or a _LongLine/_BrokenTail; its payload lines as written ("\t...\n" each, ends kept);
# how many lines the block is; whether its payload was too long to keep (then "").
_Block = tuple[int, "str | None", str, int, bool]


def iter_records(lines: Iterable[str], log: TraceLog) -> Iterator[Record]:
    """The records in `lines` (each a line of the file, as read), one at a time as they are
    read; interned strings go into `log.strings` and what cannot be read into `log.skipped`."""
    return _records(_line_blocks(lines), log, frozenset())


def iter_file_records(stream: BinaryIO, log: TraceLog, passed_over: frozenset[str] = frozenset()) -> Iterator[Record]:
    """The records of a trace file opened in binary (open_trace_bytes), one at a time: the file
    is read in large pieces and split into records where a line starts without a tab, so a
    payload's lines are never handled one by one (a 30 MB log holds some 200,000 of them).

    A record whose name is in `passed_over` (kinds the caller does not read: torch writes
    thousands of `describe_tensor`s) is counted but not decoded, where its header says no more
    than that: no payload, no rank, and a record was read before it. Such a record is not
    checked either: one damaged is not said in `log.skipped`."""
    return _records(_byte_blocks(stream), log, passed_over)


# the record's name, where torch writes it: the first key ({"describe_tensor": {...}, ...})
_FIRST_KEY = re.compile(r'\{"([A-Za-z0-9_]+)": ')


def _records(blocks: Iterable[_Block], log: TraceLog, passed_over: frozenset[str]) -> Iterator[Record]:
    lines = 0
    for number, head, payload, count, too_long in blocks:
        lines = number + count - 1
        if isinstance(head, _BrokenTail):
            log.skip(number, f"the rest of the file could not be decompressed ({head.why})")
            continue
        match = None
        if head is None:
            pass
        elif isinstance(head, _LongLine):
            log.skip(number, f"a line longer than {MAX_LINE // 2**20} MB: not read")
        elif head.rstrip("\r").strip():
            match = _HEADER.match(head.rstrip("\r"))
            if match is None:
                log.skip(number, "not a structured-trace line")
        if match is None:  # the block's payload lines have no record before them
            first = number if head is None else number + 1
            for orphan in range(first, number + count):
                log.skip(orphan, "payload line without a record before it")
            continue
        if passed_over and log.records_read:
            text = match.group("json")
            named = _FIRST_KEY.match(text)
            if named and named.group(1) in passed_over and '"has_payload"' not in text and '"rank"' not in text:
                log.records_read += 1
                continue
        record = _finish_record(log, number, match, payload, too_long)
        if record is not None:
            log.records_read += 1
            yield record
    log.lines_read = lines


class _LongLine(str):
    """What is kept of a line longer than MAX_LINE: its first characters, marked."""


class _BrokenTail(str):
    """A compressed file that stops decompressing (cut short, or corrupt): where, and why."""

    why = ""


def _broken(error: BaseException) -> _BrokenTail:
    tail = _BrokenTail("")
    tail.why = f"{type(error).__name__}: {str(error)[:120]}" if str(error) else type(error).__name__
    return tail


def _line_blocks(lines: Iterable[str]) -> Iterator[_Block]:
    """Records of lines given one by one (ends kept or not): what iter_records reads."""
    number, start, head, count = 0, 1, None, 0
    payload: list[str] = []
    size = 0  # characters kept of the block's payload; over MAX_PAYLOAD, none are
    for number, raw in enumerate(lines, start=1):
        if raw.startswith("\t"):
            count += 1
            if size <= MAX_PAYLOAD:
                size += MAX_PAYLOAD + 1 if isinstance(raw, _LongLine) else len(raw)
                payload.append(raw if raw.endswith("\n") else raw + "\n")
                if size > MAX_PAYLOAD:
                    payload = []  # not read: nothing of it is kept
            continue
        if count:
            yield start, head, "".join(payload), count, size > MAX_PAYLOAD
        start, count, payload, size = number, 1, [], 0
        head = raw if isinstance(raw, (_LongLine, _BrokenTail)) else raw.removesuffix("\n")
    if count:
        yield start, head, "".join(payload), count, size > MAX_PAYLOAD


_CHUNK = 1 << 22  # bytes read at a time (a compressed file gives what one piece decompresses to)
_BOUNDARY = re.compile(rb"\n(?!\t)")  # a line end before a line that is not a payload line


class _Pending:
    """The bytes of the record being read, kept until the line that starts the next one. One
    longer than MAX_LINE + MAX_PAYLOAD is read through: only its first line's start and the
    number of lines it spans are kept."""

    def __init__(self, number: int) -> None:
        self.number = number  # the line the record starts at
        self.pieces: list[bytes] = []
        self.size = 0
        self.start: bytes | None = None  # set once it is too long: its first MAX_LINE + 1 bytes
        self.newlines = 0  # line ends in what was read through

    def add(self, piece: bytes) -> None:
        self.pieces.append(piece)
        self.size += len(piece)
        if self.size > MAX_LINE + MAX_PAYLOAD:
            data = b"".join(self.pieces)
            if self.start is None:
                self.start = data[: MAX_LINE + 1]
            self.newlines += data.count(b"\n")
            self.pieces, self.size = [data[-1:]], 1  # its last byte: whether a line ended there

    def block(self) -> _Block:
        """The record as a _Block: its header line and payload decoded (bytes that are not
        UTF-8 kept as lone surrogates, for the payload's checksum)."""
        data = b"".join(self.pieces)
        if self.start is not None:  # too long: what ends its lines, and its start
            count = self.newlines + data[1:].count(b"\n") + (not data.endswith(b"\n"))
            data = self.start
        else:
            count = data.count(b"\n") + (not data.endswith(b"\n"))
        head: str | None = None
        rest = data
        if not data.startswith(b"\t"):
            end = data.find(b"\n")
            line, rest = (data, b"") if end < 0 else (data[:end], data[end + 1 :])
            if len(line) > MAX_LINE:
                head = _LongLine(line[:1].decode("utf-8", "surrogateescape"))
            else:
                head = line.decode("utf-8", "surrogateescape")
        too_long = self.start is not None or len(rest) > MAX_PAYLOAD
        return self.number, head, "" if too_long else rest.decode("utf-8", "surrogateescape"), count, too_long


def _byte_blocks(stream: BinaryIO) -> Iterator[_Block]:
    """Records of a binary stream, split at each line that does not start with a tab by a
    regular expression over large pieces of the file (C, not a Python loop per line)."""
    read = getattr(stream, "read1", stream.read)  # a compressed file: what was read before a break stands
    pending = _Pending(1)
    while True:
        try:
            chunk = read(_CHUNK)
        except (EOFError, OSError, zlib.error) as error:  # gzip: cut short, or corrupt
            number = pending.number
            for block in _last(pending):
                number = block[0] + block[3]
                yield block
            yield number, _broken(error), "", 1, False
            return
        if not chunk:
            yield from _last(pending)
            return
        if pending.size and pending.pieces[-1].endswith(b"\n") and chunk[:1] != b"\t":
            pending = yield from _ended(pending)  # the record ended where the last piece did
        start = 0
        for match in _BOUNDARY.finditer(chunk):
            end = match.end()
            if end == len(chunk):
                break  # the next piece's first byte says whether a record ends here
            pending.add(chunk[start:end])
            pending = yield from _ended(pending)
            start = end
        if start < len(chunk):
            pending.add(chunk[start:])


def _ended(pending: _Pending) -> Generator[_Block, None, _Pending]:
    block = pending.block()
    yield block
    return _Pending(block[0] + block[3])


def _last(pending: _Pending) -> Iterator[_Block]:
    if pending.size or pending.start is not None:
        yield pending.block()


def _finish_record(log: TraceLog, number: int, match: re.Match[str], payload_lines: str, too_long: bool) -> Record | None:
    """The record of a header line and its payload lines as written ("\\t...\\n" each), or None
    where it is not one (said in log.skipped) or is an interned string (kept in log.strings)."""
    try:
        data = json_value(match.group("json"), strict=False)  # a raw "\\r" or NUL in a string: kept
    except json.JSONDecodeError as error:
        log.skip(number, f"record is not valid JSON ({error.msg})")
        return None
    except ValueError:  # a number of more digits than Python reads
        log.skip(number, "record holds a number too long to read")
        return None
    except RecursionError:
        log.skip(number, "record is nested too deeply to read")
        return None
    if not isinstance(data, dict):
        log.skip(number, "record is not a JSON object")
        return None
    kind = next((key for key in data if key not in _CONTEXT_KEYS), None)
    if kind is None:
        log.skip(number, "record has no name")
        return None
    metadata = data[kind]

    payload: str | None = None
    if too_long:
        log.skip(number, f"payload of {_describe(kind, metadata)} is longer than {MAX_PAYLOAD // 2**20} MB: not read")
    elif "has_payload" in data:
        payload = _payload_text(payload_lines)
        whole = _hashes_to(payload, data["has_payload"])
        if not whole and "\r" in payload:
            # line ends of another system ("\r\n"), not a "\r" of the payload's own
            other = _payload_text(payload_lines, crlf=True)
            if whole := _hashes_to(other, data["has_payload"]):
                payload = other
        if not whole:
            # A file cut off mid-write, or edited: keep the record's metadata, but never
            # explain from a payload we know is not what torch wrote.
            log.skip(number, f"payload of {_describe(kind, metadata)} is incomplete or damaged")
            payload = None
            if not payload_lines:
                return None
        elif not payload.isascii() and _SURROGATE.search(payload):
            payload = _SURROGATE.sub("\ufffd", payload)  # bytes that were not UTF-8: never passed on

    if kind == "str":
        if isinstance(metadata, list) and len(metadata) == 2 and isinstance(metadata[0], str) and _is_int(metadata[1]):
            log.strings[metadata[1]] = metadata[0]
        else:
            log.skip(number, "string record in an unknown shape")
        return None

    is_artifact = kind == "artifact" and isinstance(metadata, dict) and isinstance(metadata.get("name"), str)
    if is_artifact:
        kind = metadata["name"]

    compile_id = None
    if "frame_id" in data or "frame_compile_id" in data:
        compile_id = CompileId(
            frame_id=_int_or_none(data.get("frame_id")),
            frame_compile_id=_int_or_none(data.get("frame_compile_id")),
            attempt=_int_or_none(data.get("attempt")) or 0,
            compiled_autograd_id=_int_or_none(data.get("compiled_autograd_id")),
        )
    context = {key: data[key] for key in data if key in _CONTEXT_KEYS}
    return Record(
        kind=kind,
        metadata=metadata,
        payload=payload,
        compile_id=compile_id,
        line=number,
        pid=_int_or_none(match.group("pid")),
        rank=_int_or_none(data.get("rank")),
        is_artifact=is_artifact,
        context=context,
        written=f"{match.group('date')} {match.group('time')}",
    )


def _payload_text(lines: str, crlf: bool = False) -> str:
    """The payload as torch wrote it, from its lines as written ("\\t...\\n" each): each line
    without the tab before it, joined by newlines. Every other character is the payload's own,
    "\\r" too; with `crlf`, a "\\r" before a line's end is taken as part of the line end (a file
    whose line ends another system rewrote)."""
    # every line starts with its tab, so each "\n\t" is a line end and the next line's tab
    text = lines[1:].removesuffix("\n").replace("\n\t", "\n")
    if crlf:
        text = text.replace("\r\n", "\n").removesuffix("\r")
    return text


def _hashes_to(payload: str, digest: Any) -> bool:
    """Whether `payload` is what `digest` (has_payload: md5 of the payload's UTF-8) was made of.
    A payload read from bytes that were not UTF-8 is checked as those bytes."""
    try:
        data = payload.encode("utf-8")
    except UnicodeEncodeError:
        try:
            data = payload.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:  # a lone surrogate not read from bytes (lines given as str)
            data = payload.encode("utf-8", "replace")
    return hashlib.md5(data, usedforsecurity=False).hexdigest() == digest


def _describe(kind: str, metadata: Any) -> str:
    if kind == "artifact" and isinstance(metadata, dict):
        return f"artifact {_short(metadata.get('name'))!r}"
    return repr(_short(kind))


def _short(value: Any, limit: int = 80) -> Any:
    # A record's name from elsewhere can be of any length: a reason names at most its start.
    return value[:limit] + "…" if isinstance(value, str) and len(value) > limit else value


def _is_int(value: Any) -> bool:
    # at most 64 bits, as torch writes ids and ranks: a longer one is not an id
    return isinstance(value, int) and not isinstance(value, bool) and -(2**63) < value < 2**63


def _int_or_none(value: Any) -> int | None:
    """An id or a rank as torch writes them: an int, or digits (the pid of the header)."""
    if _is_int(value):
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 18:
        return int(value)
    return None


def trace_files(path: str | Path) -> list[Path]:
    """The trace files at `path`: the file itself, or every `*.log` (or `*.log.gz`) in a
    TORCH_TRACE folder (one per process, so one per rank of a distributed job)."""
    target = Path(path)
    if target.is_dir():
        # is_file(): regular files only (links followed), never a pipe someone named *.log
        found = [p for p in target.iterdir() if p.name.endswith((".log", ".log.gz")) and p.is_file()]
        return sorted(found, key=_natural)
    return [target]


def _natural(path: Path) -> list[Any]:
    """A name's order as a person counts: "rank_2" before "rank_10"."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", path.name)]
