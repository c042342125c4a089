"""What a lesson shows, as blocks the terminal and the page each draw in their own way.

A table drawn as text lines up only where every letter takes the cells the terminal gives it;
a browser draws Chinese and Thai from fonts whose widths are not the terminal's (a table's
borders came out ragged on the page). So a lesson's view is kept as blocks: a heading, lines, a
table, code; `to_rich` gives the terminal's renderables (render's FitTable, rich's Syntax) and
`to_html` the page's elements (a real <table>). Every string is escaped as it is written.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import dataclass, field

from rich.console import Console
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text

from compilescope.render.console import Column, FitTable


@dataclass
class Heading:
    text: str


@dataclass
class Lines:
    """Lines as they are, styled in parts (dim, cyan...); `mono`: columns of code-like text."""

    lines: list[Text]
    mono: bool = False


@dataclass
class Table:
    columns: list[Column]
    rows: list[list[str | Text]] = field(default_factory=list)
    title: str | None = None


@dataclass
class Code:
    text: str
    lexer: str  # "cpp" or "python"
    more: str | None = None  # what was left out ("… 12 more lines")


Block = Heading | Lines | Table | Code


def to_rich(blocks: Iterable[Block]) -> list:
    out: list = []
    for block in blocks:
        if isinstance(block, Heading):
            out.append(Text(block.text, style="bold"))
        elif isinstance(block, Lines):
            out.extend(block.lines)
        elif isinstance(block, Table):
            table = FitTable(block.columns, title=block.title)
            for row in block.rows:
                table.add_row(*row)
            out.append(table)
        else:
            out.append(Syntax(block.text, block.lexer, line_numbers=False, word_wrap=True, theme="ansi_dark"))
            if block.more:
                out.append(Text(block.more, style="dim"))
    return out


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


def to_html(blocks: Iterable[Block]) -> str:
    e = html.escape
    parts = ['<div class="view">\n']
    for block in blocks:
        if isinstance(block, Heading):
            parts.append(f"<h3>{e(block.text)}</h3>\n")
        elif isinstance(block, Lines):
            kind = "mono" if block.mono else "text"
            parts.append(f'<div class="{kind}">' + "".join(f"<div>{_spans(line)}</div>" for line in block.lines) + "</div>\n")
        elif isinstance(block, Table):
            parts.append("<table>")
            if block.title:
                parts.append(f"<caption>{e(block.title)}</caption>")
            parts.append("<tr>" + "".join(f'<th class="{c.justify}">{e(c.header)}</th>' for c in block.columns) + "</tr>")
            for row in block.rows:
                cells = zip(block.columns, row, strict=False)
                parts.append("<tr>" + "".join(f'<td class="{c.justify}">{_spans(cell)}</td>' for c, cell in cells) + "</tr>")
            parts.append("</table>\n")
        else:
            parts.append(f'<pre class="code {e(block.lexer)}">{e(block.text)}</pre>\n')
            if block.more:
                parts.append(f'<div class="dim">{e(block.more)}</div>\n')
    parts.append("</div>\n")
    return "".join(parts)


_CONSOLE = Console(width=10_000, color_system=None, emoji=False, highlight=False, markup=False)


def _spans(value: str | Text) -> str:
    """A line's text, escaped, each styled part in a <span> whose classes name its style."""
    if isinstance(value, str):
        return html.escape(value)
    out = []
    for segment in value.render(_CONSOLE):
        style = segment.style or Style()
        classes = [name for name, on in (("dim", style.dim), ("bold", style.bold)) if on]
        if style.color is not None and style.color.name in ("cyan", "green", "red", "yellow"):
            classes.append(style.color.name)
        text = html.escape(segment.text)
        out.append(f'<span class="{" ".join(classes)}">{text}</span>' if classes else text)
    return "".join(out).rstrip("\n")
