"""The report: one self-contained HTML file (no torch, no network).

The page is a small vanilla-JS app (static/report.js) over the session's JSON, both inlined,
with highlight.js (BSD-3, static/highlight.min.js) for the generated code. Rendering happens in
the browser and lazily (a compile's details when it is opened), so a session of hundreds of
compiles and thousands of kernels opens quickly. The sections written once as views for the
terminal and the page (render/blocks.py: bench's table, the kernel time tables) come as block
data (views_data), which report.js's one generic renderer, drawBlocks, draws.

Bounded: the page's main JSON holds what the overview and the navigation need; each compile's
details (graphs, guards, kernels, code) and each .py file are a JSON block of their own, parsed
when opened, up to DETAILS_BUDGET characters in all (a session past it keeps its first compiles'
details, and the page says how many it left out); one string is cut at TEXT_LIMIT characters
(code) or NAME_LIMIT (names), with a note. The session's JSON keeps everything whole.

Safety: user strings reach the page only as JSON inside <script type="application/json">, with
"<", ">" and "&" escaped as \\u003c etc. so they cannot end the script element; the JS puts them
in the DOM with textContent, never innerHTML. The Content-Security-Policy allows only the
page's own inline scripts (by hash) and styles, and no network at all.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import functools
import gc
import hashlib
import html
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from compilescope._version import __version__
from compilescope.findings.accuracy import checks_said, graph_said, peaks_said
from compilescope.findings.rules import Finding, findings
from compilescope.outputs import write_text
from compilescope.render.blocks import to_data
from compilescope.render.memory import MEANING as MEMORY_MEANING
from compilescope.render.memory import memory_line
from compilescope.render.pyfiles import guard_function, guard_name, python_files
from compilescope.render.sections.passes import passes_page_data
from compilescope.render.sections.runtime import bench_lead, bench_view, kernel_time_view
from compilescope.render.terminal import size_text
from compilescope.render.text import short_message
from compilescope.session import surrogates_escaped
from compilescope.session.counts import LABELS, calls_recorded_said, compile_id_note, counts
from compilescope.session.jsonio import field_names
from compilescope.session.model import Compile, Frame, Session

_STATIC = Path(__file__).with_name("static")


@functools.cache
def asset(name: str) -> str:
    """A file of static/ (a script, the CSS) as text, to inline in a page."""
    return (_STATIC / name).read_text(encoding="utf-8")


def script_json(data: Any) -> str:
    """`data` as JSON to put inside a <script type="application/json"> element: nothing in it
    can end the element ("<", ">" and "&" escaped), and a lone surrogate is JSON's escape."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return (
        surrogates_escaped(text)  # a lone surrogate, as JSON's escape (UTF-8 cannot hold it)
        .replace("&", "\\u0026")
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def csp_hash(text: str) -> str:
    """The Content-Security-Policy's source for an inline script: "sha256-<its hash>"."""
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


# What the page holds is bounded, so that any session gives a page a browser opens; the
# session's JSON keeps everything whole.
TEXT_LIMIT = 1_000_000  # characters of one text the page shows (code, torch's whole message)
NAME_LIMIT = 10_000  # characters of any other string (a name, a path, a reason)
DETAILS_BUDGET = 48_000_000  # characters of compiles' details (and .py files) in the page
FRAMES_BLOCK = 16_000_000  # characters of the functions' index per JSON block
MAX_FINDINGS = 2000  # findings in the page (a finding per recompile: a session of 100,000 has as many)
# strings shown as blocks of text: cut at TEXT_LIMIT; every other string at NAME_LIMIT
_TEXT_KEYS = frozenset({"code", "inductor_code", "guards_text", "text", "source", "explanation", "hint", "context", "restarts"})
# a compile's fields that the page reads only when the compile is opened
_DETAIL_KEYS = (
    "failed_guards",
    "restarts",
    "graph_breaks",
    "graphs",
    "guards",
    "guards_text",
    "dynamic",
    "aot",
    "kernels",
    "inductor_code",
    "transformed_code",
    "original_code",
    "records",
    "passes",
)
_COUNTED = ("graphs", "kernels", "graph_breaks", "guards", "dynamic")


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n… {size_text(text[limit:])} more, in the session's JSON"


def _data(value: Any, key: str = "") -> Any:
    """A dataclass (or a value in one) as JSON data for the page, each string cut to its limit."""
    if isinstance(value, str):
        return _cut(value, TEXT_LIMIT if key in _TEXT_KEYS else NAME_LIMIT)
    if value is None or isinstance(value, (int, float)):  # (the most common, first: a page visits every value)
        return value
    names = field_names(type(value))
    if names is not None:
        return _field_data(value, names)
    if isinstance(value, (list, tuple)):
        return [_data(item, key) for item in value]
    if isinstance(value, dict):
        return {_cut(str(name), NAME_LIMIT): _data(item) for name, item in value.items()}
    return value


def _field_data(value: Any, names: Iterable[str]) -> dict[str, Any]:
    """_data of a dataclass's fields `names`: a value that _data would give back as it is (None,
    a number, a string shorter than any limit) is taken here without a call, as most are."""
    out = {}
    for name in names:
        item = getattr(value, name)
        if item is None or (isinstance(item, str) and len(item) <= NAME_LIMIT) or isinstance(item, (int, float)):
            out[name] = item
        else:
            out[name] = _data(item, name)
    return out


def finding_data(f: Finding) -> dict[str, Any]:
    """A finding as the page's script reads it: its fields and the lines the terminal prints."""
    return {**_data(f), "act_line": _data(f.act_line()), "cost_line": _data(f.cost_line()), "try_line": _data(f.try_line())}


def _fields(value: Any, leave_out: tuple[str, ...]) -> dict[str, Any]:
    """A dataclass's fields as page data (_data), but those named in `leave_out`."""
    return _field_data(value, [name for name in field_names(type(value)) or () if name not in leave_out])


class _Blocks:
    """Parts of the page in their own <script type="application/json"> elements, parsed only
    when shown (a compile's details, a .py file), up to DETAILS_BUDGET characters in all."""

    def __init__(self, budget: int) -> None:
        self.texts: list[str] = []
        self.left = budget

    def add(self, data: Any) -> int | None:
        """The block's number, or None where it would go over the budget (then it is left out)."""
        text = script_json(data)
        if len(text) > self.left:
            self.left = 0  # and every later one: the page holds the first ones, in order
            return None
        self.left -= len(text)
        self.texts.append(text)
        return len(self.texts) - 1


def _compile_index(frame: Frame, compile_: Compile, blocks: _Blocks, made: dict[int, str], torch: str | None = None) -> dict[str, Any]:
    """What the page needs of a compile before it is opened; its details go to a block. Its
    guard function goes into `made` too (by id() of the compile), for python_files."""
    index = _fields(compile_, _DETAIL_KEYS)
    index["counts"] = {name: len(getattr(compile_, name)) for name in _COUNTED}
    # [what it found, outcome, its memory], as the terminal says them
    index["accuracy_said"] = [[*graph_said(graph), peaks_said(graph)] for graph in compile_.accuracy]
    index["details"] = None
    if blocks.left:  # (past the budget, nothing more is made)
        details = {name: _data(getattr(compile_, name), name) for name in _DETAIL_KEYS}
        details["passes"] = _data(passes_page_data(compile_, torch))  # (side by side, for report.js)
        if compile_.guards and compile_.transformed_code is not None:
            try:
                made[id(compile_)] = function = guard_function(guard_name(frame, compile_), compile_.guards, compile_.compile_id)
                details["guard_function"] = _cut(function, TEXT_LIMIT)
            except (ValueError, RecursionError, MemoryError):  # guards too odd to write as Python
                details["guard_function"] = None
        index["details"] = blocks.add(details)
    return index


def report_data(session: Session, found: list[Finding] | None = None, budget: int = DETAILS_BUDGET) -> tuple[dict[str, Any], list[str]]:
    """The page's data, and its blocks (see _Blocks) as JSON text for the page. `found`: the
    session's findings, where the caller has them already; `budget`: characters of details
    (a page of many ranks shares DETAILS_BUDGET among them)."""
    found = findings(session) if found is None else found
    blocks = _Blocks(budget)
    frames = []
    embedded: list[tuple[Frame, list[Compile]]] = []
    made: dict[int, str] = {}  # guard functions, by id() of their compile: made once for both uses
    for frame in session.frames:
        light = _fields(frame, ("compiles",))
        light["label"] = _data(frame.label)
        light["compiles"] = [_compile_index(frame, c, blocks, made, session.environment.torch) for c in frame.compiles]
        frames.append(light)
        embedded.append((frame, [c for c, i in zip(frame.compiles, light["compiles"]) if i["details"] is not None]))
    shown = session
    if any(len(kept) < len(frame.compiles) for frame, kept in embedded):
        # Dynamo's code as .py files shows the compiles the page holds (the JSON has them all)
        shown = dataclasses.replace(session, frames=[dataclasses.replace(frame, compiles=kept) for frame, kept in embedded if kept])
    files = []
    try:
        python = python_files(shown, made)
    except (ValueError, RecursionError, MemoryError):  # code in the session too odd to write as Python
        python = []
    for item in python:
        files.append(
            {
                "name": _cut(item.name, NAME_LIMIT),
                "function": _cut(item.function, NAME_LIMIT),
                "compiles": _data(item.compiles),
                "text": blocks.add(_cut(item.text, TEXT_LIMIT)),
            }
        )
    # The functions go in blocks of their own too, FRAMES_BLOCK characters or so each: a page's
    # one string cannot pass the browser's limit on a string's length (V8: 2**29 characters).
    frame_blocks: list[str] = []
    part: list[str] = []
    size = 0
    for light in frames:
        text = script_json(light)
        if part and size + len(text) > FRAMES_BLOCK:
            frame_blocks.append("[" + ",".join(part) + "]")
            part, size = [], 0
        part.append(text)
        size += len(text) + 1
    if part:
        frame_blocks.append("[" + ",".join(part) + "]")
    first = len(blocks.texts)
    blocks.texts.extend(frame_blocks)
    data = {
        "session": {**_fields(session, ("frames",)), "frames": []},
        "frame_blocks": list(range(first, first + len(frame_blocks))),
        # the counts and their words (session/counts.py), as the terminal says them
        "counts": counts(session).as_json(),
        "count_words": {name: list(words) for name, words in LABELS.items()},
        "compile_id_note": compile_id_note([c.compile_id for c in session.compiles]),
        "calls_recorded": calls_recorded_said(session),  # as the terminal says it
        "accuracy_said": checks_said(session),  # run --check-accuracy's line, as the terminal says it
        # bench's verdicts in words, each with what the terminal says to judge it by (a busy
        # machine, the spread): what a bench report leads with
        "bench_lead": [{"config": c, "verdict": v, "notes": n} for c, v, n in bench_lead(session)],
        # the sections written once as views (render/blocks.py), drawn by report.js's drawBlocks
        "views": views_data(session),
        # the program's exception as the header says it: one line, its colours left out, short
        "exception_line": short_message(session.program.exception) if session.program and session.program.exception else None,
        # the program's memory as the terminal's header says it (render/memory.py), and what its figures mean
        "memory_line": memory_line(dataclasses.asdict(session.memory)) if session.memory is not None else None,
        "memory_meaning": MEMORY_MEANING,
        "findings": [finding_data(f) for f in found[:MAX_FINDINGS]],
        "findings_left_out": max(len(found) - MAX_FINDINGS, 0),
        "compilescope": __version__,
        # Dynamo's code as Python (compilescope decompile's files): each file's text in a block
        "python_files": files,
        "left_out": sum(1 for frame in frames for c in frame["compiles"] if c["details"] is None),
        "details_budget": budget,
    }
    return data, blocks.texts


def views_data(session: Session) -> dict[str, Any]:
    """The runtime section's views as page data (render/blocks.py's to_data, each string cut to
    its limit): bench's table, the run's kernel time table (run --profile), and each
    benchmark's (bench --profile; None where it has none). The page lists every kernel."""
    return {
        "bench": _data(to_data(bench_view(session))) if session.benchmarks else [],
        "profile": _data(to_data(kernel_time_view(session.profile, limit=None))) if session.profile is not None else None,
        "bench_profiles": [
            _data(to_data(kernel_time_view(b.profile, limit=None))) if b.profile is not None else None for b in session.benchmarks
        ],
    }


def render_html(session: Session, found: list[Finding] | None = None) -> str:
    title = "compilescope"
    if session.program is not None:
        title = f"compilescope · {_cut(session.program.target, 200)}"
    scripts = [asset("highlight.min.js"), asset("report.js")]
    with _no_cycle_collection():
        data, blocks = report_data(session, found)
    policy = "; ".join(
        [
            "default-src 'none'",
            "script-src " + " ".join(f"'{csp_hash(s)}'" for s in scripts),
            "style-src 'unsafe-inline'",
            "img-src data:",
            "base-uri 'none'",
            "form-action 'none'",
        ]
    )
    parts = [
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
        # compilescope.outputs recognises a report of ours by this line (to write over it).
        f'<meta name="generator" content="compilescope {__version__}">\n',
        # The policy is ours (no double quotes in it), so only &, < and > need escaping.
        f'<meta http-equiv="Content-Security-Policy" content="{html.escape(policy, quote=False)}">\n',
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
        f"<title>{html.escape(title)}</title>\n",
        f"<style>{asset('report.css')}</style>\n</head>\n<body>\n",
        '<noscript><p class="noscript">This report needs JavaScript to show the session. '
        "The same facts: <code>compilescope report</code> on the saved session.</p></noscript>\n",
        # A partial session says so first, in the page itself (also without its scripts)
        *(
            [f'<p class="incomplete" role="alert">⚠ {html.escape(session.incomplete.reason)}</p>\n']
            if session.incomplete is not None
            else []
        ),
        '<div id="app"></div>\n',
        f'<script type="application/json" id="compilescope-data">{script_json(data)}</script>\n',
    ]
    parts += [f'<script type="application/json" id="compilescope-block-{n}">{text}</script>\n' for n, text in enumerate(blocks)]
    parts += [f"<script>{s}</script>\n" for s in scripts]
    parts.append("</body>\n</html>\n")
    page = "".join(parts)
    # a name that was not UTF-8 (a script named b"caf\xe9.py"): escaped, as the terminal shows it
    return surrogates_escaped(page)


@contextlib.contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Python's cycle collector paused while the page's data is made: it makes no cycles (dicts,
    lists and strings, freed as they go), but its hundreds of thousands of new objects set the
    collector off again and again, and each full pass walks the whole session: at 30 MB of trace,
    a quarter of the page's time. Resumed after, as it was."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def write_html(session: Session, path: str | Path, found: list[Finding] | None = None) -> Path:
    """Write the report whole (compilescope.outputs: never over someone else's file)."""
    return Path(write_text(path, render_html(session, found), "the report"))


def notebook_bundle(session: Session) -> dict[str, str]:
    """Jupyter's rich display: the report in an iframe (its own document, so its CSP and
    scripts stay apart from the notebook), with the terminal text as the fallback."""
    page = render_html(session)
    frame = (
        f'<iframe srcdoc="{html.escape(page, quote=True)}" '
        'style="width: 100%; height: 640px; border: 1px solid #ddd;" '
        'sandbox="allow-scripts" title="compilescope report"></iframe>'
    )
    return {"text/html": frame, "text/plain": str(session)}
