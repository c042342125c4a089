"""Views as blocks: a section written once, drawn by the terminal, the tour's page and the report.

A view is a function of a Session (or a part of one: a benchmark's profile, a compile) that
returns a list of blocks: a `Heading`, `Lines` of styled text, a `Table`, `Code`. It says what
to show and in which words; it does not say how to draw it. Each output draws the blocks its
own way:

- the terminal: `to_rich(blocks)` gives rich renderables (a Table becomes render.terminal's
  FitTable, which fits the terminal or prints its rows as lines; Code becomes rich's Syntax),
  printed through render.terminal.printable (bounded, control characters escaped);
- the tour's static page: `to_html(blocks)` gives HTML elements (a real <table>, so Chinese and
  Thai line up as the browser's fonts draw them), every string escaped as it is written;
- the report page (render/html.py, static/report.js): `to_data(blocks)` gives JSON data (each
  block a small dict, each line a list of [text, style] spans), which the page's one generic
  renderer, `drawBlocks` in report.js, puts in the DOM with textContent only.

Styles are rich's names ("dim", "bold", "yellow", "dim italic"); to_html and to_data keep those
the pages draw (STYLES) as class names.

To add a section once:

1. write the view, `def my_view(session: Session) -> list[Block]`, beside the others in
   render/sections/ (runtime.py's bench_view and kernel_time_view are the examples);
2. the terminal: add `*to_rich(my_view(session))` to the renderables render/console.py
   composes (printable bounds and escapes them there);
3. the report page: add `"my_view": _data(to_data(my_view(session)))` to render/html.py's
   views_data (which cuts each string to the page's limits), and in static/report.js draw it
   where it belongs with `drawBlocks(views.my_view)` (or `drawBlocks(view, "closed")`: the view
   folded under its first table's title, built when opened).

The tour (tour/views.py) writes its lessons' views the same way; its page draws them with
to_html.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.style import Style
from rich.text import Text

from compilescope.render.terminal import KEEP, Column, FitTable


@dataclass
class Heading:
    text: str


@dataclass
class Lines:
    """Lines as they are, styled in parts (dim, cyan...); `mono`: columns of code-like text. A
    Text may hold several lines (a note of many lines, drawn as one)."""

    lines: list[Text]
    mono: bool = False


@dataclass
class Table:
    """A table: its columns (render.terminal.Column), its rows of cells, and rows that hold a
    note instead of figures ("no figures (below)": the first cell, then the note). `box`: the
    terminal's border, a name in rich.box ("HEAVY_HEAD", "SIMPLE_HEAD")."""

    columns: list[Column]
    rows: list[list[str | Text]] = field(default_factory=list)
    title: str | None = None
    box: str = "HEAVY_HEAD"
    note_rows: set[int] = field(default_factory=set)

    def add_row(self, *cells: str | Text) -> None:
        self.rows.append(list(cells))

    def add_note(self, first: str | Text, note: Text) -> None:
        self.note_rows.add(len(self.rows))
        self.rows.append([first, note])


@dataclass
class Code:
    text: str
    lexer: str  # "cpp" or "python"
    more: str | None = None  # what was left out ("… 12 more lines")


Block = Heading | Lines | Table | Code


def to_rich(blocks: Iterable[Block]) -> list:
    """The blocks as rich renderables, for render.terminal.printable."""
    from rich import box as boxes

    out: list = []
    for block in blocks:
        if isinstance(block, Heading):
            out.append(Text(block.text, style="bold"))
        elif isinstance(block, Lines):
            out.extend(block.lines)
        elif isinstance(block, Table):
            table = FitTable(block.columns, title=block.title, box=getattr(boxes, block.box))
            for index, row in enumerate(block.rows):
                if index in block.note_rows:
                    table.add_note(row[0], row[1] if isinstance(row[1], Text) else Text(row[1]))
                else:
                    table.add_row(*row)
            out.append(table)
        else:
            from rich.syntax import Syntax  # pygments: only when code is shown

            out.append(Syntax(block.text, block.lexer, line_numbers=False, word_wrap=True, theme="ansi_dark"))
            if block.more:
                out.append(Text(block.more, style="dim"))
    return out


# The styles the pages draw, by class name; any other part of a style is left out.
STYLES = ("dim", "bold", "italic", "cyan", "green", "red", "yellow", "magenta")

STYLE = """
.view h3 { font-size: 15px; margin: 14px 0 6px; }
.view .mono, .view pre { font-family: ui-monospace, "Noto Sans Mono", "Noto Sans Mono CJK SC", monospace; font-size: 12.5px; }
.view .mono div { white-space: pre-wrap; }
.view table { border-collapse: collapse; margin: 6px 0 10px; font-size: 13.5px; }
.view caption { text-align: left; font-weight: 600; padding: 4px 0; }
.view th, .view td { border: 1px solid #d0d7de; padding: 3px 8px; vertical-align: top; }
.view th { background: #f6f8fa; text-align: left; white-space: nowrap; } .view .right { text-align: right; }
.view .dim { color: #666; } .view .bold { font-weight: 600; } .view .cyan { color: #0b7285; }
.view .green { color: #1a7f37; } .view .red { color: #cf222e; } .view .yellow { color: #9a6700; }
"""
"""The tour page's CSS for to_html's elements."""


def to_html(blocks: Iterable[Block]) -> str:
    """The blocks as HTML elements (the tour's page), every string escaped."""
    e = html.escape
    parts = ['<div class="view">\n']
    for block in blocks:
        if isinstance(block, Heading):
            parts.append(f"<h3>{e(block.text)}</h3>\n")
        elif isinstance(block, Lines):
            kind = "mono" if block.mono else "text"
            parts.append(f'<div class="{kind}">' + "".join(f"<div>{_html_spans(line)}</div>" for line in block.lines) + "</div>\n")
        elif isinstance(block, Table):
            parts.append("<table>")
            if block.title:
                parts.append(f"<caption>{e(block.title)}</caption>")
            parts.append("<tr>" + "".join(f'<th class="{c.justify}">{e(c.header)}</th>' for c in block.columns) + "</tr>")
            for index, row in enumerate(block.rows):
                if index in block.note_rows:
                    first, note = row[0], row[1]
                    span = len(block.columns) - 1
                    parts.append(f'<tr><td>{_html_spans(first)}</td><td colspan="{span}">{_html_spans(note)}</td></tr>')
                    continue
                cells = zip(block.columns, row, strict=False)
                parts.append("<tr>" + "".join(f'<td class="{c.justify}">{_html_spans(cell)}</td>' for c, cell in cells) + "</tr>")
            parts.append("</table>\n")
        else:
            parts.append(f'<pre class="code {e(block.lexer)}">{e(block.text)}</pre>\n')
            if block.more:
                parts.append(f'<div class="dim">{e(block.more)}</div>\n')
    parts.append("</div>\n")
    return "".join(parts)


def to_data(blocks: Iterable[Block]) -> list[dict[str, Any]]:
    """The blocks as JSON data (the report page's report.js draws them with drawBlocks):

        {"kind": "heading", "text": str}
        {"kind": "lines", "mono": bool, "lines": [spans, ...]}
        {"kind": "table", "title": str | None, "columns": [{"header", "justify", "long"}],
         "rows": [{"cells": [spans, ...], "note": bool}]}
        {"kind": "code", "text": str, "lexer": str, "more": str | None}

    where `spans` is a line's text as [text, style] pairs, style a space-separated list of
    STYLES ("" for none). A cell's spans may hold newlines; a Lines' Text of several lines is
    a line each."""
    out: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, Heading):
            out.append({"kind": "heading", "text": block.text})
        elif isinstance(block, Lines):
            lines = [spans(part) for line in block.lines for part in line.split("\n", allow_blank=False)]
            out.append({"kind": "lines", "mono": block.mono, "lines": lines})
        elif isinstance(block, Table):
            out.append(
                {
                    "kind": "table",
                    "title": block.title,
                    "columns": [{"header": c.header, "justify": c.justify, "long": c.long} for c in block.columns],
                    "rows": [
                        {"cells": [spans(cell) for cell in row], "note": index in block.note_rows} for index, row in enumerate(block.rows)
                    ],
                }
            )
        else:
            out.append({"kind": "code", "text": block.text, "lexer": block.lexer, "more": block.more})
    return out


_CONSOLE = Console(width=10_000, color_system=None, emoji=False, highlight=False, markup=False)


def spans(value: str | Text) -> list[list[str]]:
    """A line's text as [text, style] pairs: each part with the STYLES it has, in order, the
    parts of one style joined; a space rich was told to keep (render.terminal.KEEP) a space."""
    if isinstance(value, str):
        return [[value.replace(KEEP, " "), ""]] if value else []
    out: list[list[str]] = []
    # (a Text without spans renders without its own style: the console adds it; so it is added here)
    base = _CONSOLE.get_style(value.style) if value.style else Style()
    for segment in value.render(_CONSOLE, end=""):
        style = base + (segment.style or Style())
        classes = [name for name, on in (("dim", style.dim), ("bold", style.bold), ("italic", style.italic)) if on]
        if style.color is not None and style.color.name in STYLES:
            classes.append(style.color.name)
        said = " ".join(classes)
        text = segment.text.replace(KEEP, " ")
        if not text:
            continue
        if out and out[-1][1] == said:
            out[-1][0] += text
        else:
            out.append([text, said])
    return out


def _html_spans(value: str | Text) -> str:
    """A line's text, escaped, each styled part in a <span> whose classes name its style."""
    out = []
    for text, classes in spans(value):
        out.append(f'<span class="{classes}">{html.escape(text)}</span>' if classes else html.escape(text))
    return "".join(out)
