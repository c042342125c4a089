"""The terminal toolkit: what every terminal view (render/console.py, render/sections/, the
tour, zoo, cluster and diff views, `compilescope bench`) prints through.

Every string from the user's program goes into rich `Text` objects, never into markup, so a
name like "[bold]" or "<script>" shows literally. What is printed then passes `printable()`, the
one place that bounds and escapes it for the terminal, as the HTML report escapes markup:

- control characters (ESC, which starts a terminal's escape sequences, and the rest of C0 and
  C1, and the bidirectional overrides) show as visible text, `␛` or `\\x9b`, never raw: a log from
  elsewhere cannot retitle the terminal, clear it, or hide text;
- a line of more than LINE_LIMIT characters, or a text of more than TEXT_LINES lines, is cut
  with a note of how much more there is (the session's JSON keeps the whole value), so one
  100 MB string prints as a line, not as 100 MB.

Newlines stay where the renderer means them; in a one-line field (a name, a path, a reason)
`one_line_of()` shows them too.

Also here: keeping a phrase on one line when rich wraps (`together`, `keep_phrases`), the
table that fits its output or prints its rows as lines (`FitTable`), the grid with a hanging
indent (`hanging`), the words for what is unknown, seconds, durations and paths, and
`console_for`, the Console for a stream.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from compilescope.render.text import escape_control, one_line, width_for

# ---- what reaches the terminal ----------------------------------------------------------------
LINE_LIMIT = 2000  # characters of one printed line of a value
TEXT_LINES = 20_000  # lines of one printed block (an AOT graph's ops, a kernel's code)

# A space rich must not break a line at: a noncharacter (never in text meant for reading) that
# the last step before the terminal, Escaped, turns back into a space once rich has laid the
# text out. A one-line field from the program shows its own as "\ufdd0" (render.text.LINE_BREAKS).
KEEP = "\ufdd0"
# what reads wrong cut in two: "expected 8, actual 16", "(8 → 16)"
_PHRASES = re.compile(r"expected [^\s,]{1,40}, actual [^\s,]{1,40}|\([^\s()]{1,40} → [^\s()]{1,40}\)")


def together(phrase: str) -> str:
    """A short phrase that stays on one line when rich wraps the text around it."""
    return phrase.replace(" ", KEEP)


def keep_phrases(text: str) -> str:
    """`text` with the phrases that read wrong cut in two (_PHRASES) kept on one line each."""
    return _PHRASES.sub(lambda match: together(match.group()), text)


def one_line_of(value: Any) -> str:
    """A one-line field from the user's program (a name, a path, a reason) as text."""
    return one_line(value if isinstance(value, str) else str(value))


def size_text(text: str) -> str:
    """How big a piece of text is, for a note: "12,345 characters", "99.9 MB"."""
    if len(text) < 100_000:
        return f"{len(text):,} characters"
    return f"{len(text.encode('utf-8', 'surrogatepass')) / 1e6:.1f} MB"


def bounded_text(text: Text) -> Text:
    """The Text with each line cut at LINE_LIMIT characters and at most TEXT_LINES lines, each
    cut said; styles kept. Linear in the text's length, however it is cut."""
    plain = text.plain
    if len(plain) <= LINE_LIMIT:
        return text
    lines = plain.split("\n")
    if len(lines) <= TEXT_LINES and max(map(len, lines)) <= LINE_LIMIT:
        return text
    # contiguous ranges over the whole text: (start, end, None) kept, (start, end, note) cut
    ranges: list[tuple[int, int, str | None]] = []
    position = 0
    for index, line in enumerate(lines):
        if index == TEXT_LINES:
            rest = plain[position:]
            ranges.append((position, len(plain), f"… {len(lines) - index:,} more lines ({size_text(rest)}), in the session's JSON"))
            break
        end = position + len(line)
        if len(line) > LINE_LIMIT:
            ranges.append((position, position + LINE_LIMIT, None))
            ranges.append((position + LINE_LIMIT, end, f"… {size_text(plain[position + LINE_LIMIT : end])} more, in the session's JSON"))
        else:
            ranges.append((position, end, None))
        if index < len(lines) - 1:
            ranges.append((end, end + 1, None))  # the newline
        position = end + 1
    pieces = text.divide([start for start, _, _ in ranges[1:]])
    out = Text(style=text.style, end=text.end, justify=text.justify, overflow=text.overflow, no_wrap=text.no_wrap)
    for piece, (_, _, note) in zip(pieces, ranges):
        out.append_text(piece if note is None else Text(note, style="dim italic"))
    return out


def bounded(renderable: Any) -> Any:
    """A renderable with its texts bounded (see the module's docstring)."""
    if isinstance(renderable, Text):
        return bounded_text(renderable)
    if isinstance(renderable, Group):
        return Group(*[bounded(item) for item in renderable.renderables])
    # rich.syntax (and pygments under it) is imported only where code is shown: no Syntax to
    # bound before then
    syntax = sys.modules.get("rich.syntax")
    if syntax is not None and isinstance(renderable, syntax.Syntax):
        code = renderable.code
        if len(code) <= LINE_LIMIT * 100 and all(len(line) <= LINE_LIMIT for line in code.split("\n")):
            return renderable
        kept = [line[:LINE_LIMIT] for line in code.split("\n", TEXT_LINES)[:TEXT_LINES]]
        shown = "\n".join(kept)
        if len(shown) > LINE_LIMIT * 100:
            shown = shown[: LINE_LIMIT * 100]
        renderable.code = shown
        return Group(
            renderable,
            Text(
                f"… the code is {size_text(code)}; {size_text(shown)} of it shown here, the whole of it in the session's JSON",
                style="dim italic",
            ),
        )
    if isinstance(renderable, Table):
        for column in renderable.columns:
            column._cells = [bounded(cell) if isinstance(cell, Text) else cell for cell in column._cells]
    return renderable


class Escaped:
    """Renders what it holds, with the control characters in its text shown visibly: the last
    step before the terminal, after rich laid the text out (rich's own control sequences,
    styles and cursor moves, are not text and pass). Spaces kept together (KEEP) become
    spaces again, and the blank padding rich leaves at the end of a line is dropped (piped
    into a file, every line would end in spaces)."""

    def __init__(self, renderable: Any) -> None:
        self.renderable = renderable

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        held: list[Segment] = []  # blanks that are trailing if a line ends before more text
        for segment in console.render(self.renderable, options):
            if segment.control is not None:
                yield from held
                held.clear()
                yield segment
                continue
            text = segment.text.replace(KEEP, " ") if KEEP in segment.text else segment.text
            text = escape_control(text)
            if _shows_blanks(segment.style):
                yield from held
                held.clear()
                yield segment if text is segment.text else Segment(text, segment.style)
                continue
            for index, piece in enumerate(text.split("\n")):
                if index:
                    held.clear()
                    yield Segment.line()
                content = piece.rstrip(" ")
                if content:
                    yield from held
                    held.clear()
                    yield Segment(content, segment.style)
                if len(content) < len(piece):
                    held.append(Segment(piece[len(content) :], segment.style))
        yield from held


def _shows_blanks(style: Any) -> bool:
    """Whether spaces in this style are visible (a background, an underline)."""
    return style is not None and bool(style.bgcolor or style.underline or style.strike or style.reverse)


def printable(renderables: Iterable[Any]) -> Escaped:
    """What to print for these renderables: bounded and escaped (the module's docstring)."""
    return Escaped(Group(*[bounded(item) for item in renderables]))


def unknown(value: object, suffix: str = "") -> str:
    """The value as text ("12 µs" with its suffix), or "unknown" where torch did not say it."""
    return "unknown" if value is None else f"{value}{suffix}"


def seconds(value: float | None) -> str:
    """A time in seconds as the terminal shows it ("1.25 s"), or "unknown"."""
    return "unknown" if value is None else f"{value:.2f} s"


def short_path(path: str | None) -> str:
    """A path from the program, relative to here where it is under here, on one line."""
    if not path:
        return "unknown file"
    path = one_line_of(path)
    try:
        relative = os.path.relpath(path)
        return relative if not relative.startswith("..") else path
    except ValueError:
        return path


def limited(items: list[str], limit: int) -> str:
    """The first `limit` items, comma-separated, and how many more there are."""
    if len(items) <= limit:
        return ", ".join(items)
    return ", ".join(items[:limit]) + f", … {len(items) - limit} more"


def hanging(indent: int) -> Table:
    """Two columns: `indent` cells for a mark, then text that wraps within its own column."""
    grid = Table.grid(padding=0)
    grid.add_column(width=indent, no_wrap=True)
    grid.add_column(overflow="fold")
    return grid


def duration_us(value: float | None) -> str:
    """A duration given in µs, in the unit that reads best ("850 µs", "1.25 ms", "2.00 s")."""
    if value is None:
        return "unknown"
    if value < 1000:
        return f"{value:.0f} µs" if value >= 10 else f"{value:.1f} µs"
    if value < 1_000_000:
        return f"{value / 1000:.2f} ms"
    return f"{value / 1e6:.2f} s"


def console_for(stream: Any) -> Console:
    """The Console that prints to `stream` (sys.stdout, sys.stderr, or a copy of one) at the
    width `width_for` gives; colour only where the stream is a terminal (rich decides)."""
    return Console(file=stream, width=width_for(stream), highlight=False)


@dataclass
class Column:
    """A column of a FitTable."""

    header: str
    justify: str = "left"  # "left" or "right"
    long: bool = False  # free text (ATen ops, source lines): a line of its own when rows are lines
    label: str | None = None  # its name before each value when rows are lines (default: the header)


class FitTable:
    """A table where the output is wide enough for it, and each row as lines where it is not.

    rich fits any table into any width by narrowing its columns, down to one word a line: piped
    into 80 columns, a kernel table of seven columns comes out as a column of words. Here each
    column gets room for its longest word and, where its cells are longer, for SHORT_ROOM cells
    of them (LONG_ROOM for free text), and what is left is shared out up to each column's
    widest line. Where even that is wider than the output, each row is printed as lines
    instead: its first cell, its short cells packed into lines ("calls: 2 · share: 100%"),
    then each long cell after its label.

    Cells are bounded (bounded_text) as they are added, and what is printed passes Escaped:
    `compilescope bench` prints this without printable().
    """

    SHORT_ROOM = 10
    LONG_ROOM = 20
    INDENT = 4  # the lines of a row, under its first cell

    def __init__(self, columns: list[Column], title: str | None = None, box: Any = None) -> None:
        from rich import box as boxes

        self.columns = columns
        self.title = title
        self.box = boxes.HEAVY_HEAD if box is None else box
        self.rows: list[tuple[list[Text], bool]] = []

    def add_row(self, *cells: str | Text) -> None:
        row = [bounded_text(cell if isinstance(cell, Text) else Text(cell)) for cell in cells]
        self.rows.append((row + [Text("")] * (len(self.columns) - len(row)), False))

    def add_note(self, first: str | Text, note: Text) -> None:
        """A row that has a note instead of figures ("no figures (below)")."""
        self.add_row(first, note)
        self.rows[-1] = (self.rows[-1][0], True)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        widths = self._widths(console, options)
        inner = self._table(widths) if widths is not None else self._lines(console, options)
        yield from Escaped(inner).__rich_console__(console, options)

    def _table(self, widths: list[int]) -> Table:
        # (the title as Text: a str would be read as rich markup and emoji codes, and a model
        # named hf:llama came out as "hf🦙")
        table = Table(title=Text(self.title) if self.title else None, title_justify="left", box=self.box)
        for column, width in zip(self.columns, widths):
            table.add_column(column.header, justify=column.justify, width=width, overflow="fold")  # type: ignore[arg-type]
        for cells, _ in self.rows:
            table.add_row(*cells)
        return table

    def _widths(self, console: Console, options: ConsoleOptions) -> list[int] | None:
        """Each column's width, or None where the table does not fit (rows as lines)."""
        from rich.measure import Measurement

        wide = options.update_width(10**6)
        need, cells_width, full = [], [], []
        for index, column in enumerate(self.columns):
            header = Measurement.get(console, wide, Text(column.header))
            measured = [(Measurement.get(console, wide, cells[index]), is_note) for cells, is_note in self.rows]
            longest_word = max([header.minimum, *(m.minimum for m, _ in measured)])
            widest = max([0, *(m.maximum for m, is_note in measured if not is_note)])  # (a note may wrap)
            room = self.LONG_ROOM if column.long else self.SHORT_ROOM
            need.append(max(longest_word, min(widest, room), 1))
            cells_width.append(max(need[-1], widest))
            full.append(max(cells_width[-1], header.maximum))
        # what the borders and padding take: the table with every column one cell wide
        bare = self._table([1] * len(self.columns))
        bare.title = None
        overhead = Measurement.get(console, wide, bare).maximum - len(self.columns)
        spare = options.max_width - overhead - sum(need)
        if spare < 0:
            return None
        widths = need[:]
        # what is left goes first to cells (a figure whole on its line), then to the headers
        for goal in (cells_width, full):
            spare = _share_out(widths, goal, spare)
        return widths

    def _lines(self, console: Console, options: ConsoleOptions) -> Group:
        from rich.cells import cell_len
        from rich.padding import Padding

        room = max(options.max_width - self.INDENT, 20)
        out: list = [Text(self.title, style="table.title")] if self.title else []
        long_columns = [c for c in self.columns[1:] if c.long]
        label_width = max((cell_len(c.label or c.header) for c in long_columns), default=0) + 2
        for cells, is_note in self.rows:
            out.append(Text.assemble(cells[0], style="bold"))
            parts: list = []
            if is_note:
                parts.append(cells[1])
                out.append(Padding(Group(*parts), (0, 0, 0, self.INDENT), expand=False))
                continue
            lines: list[Text] = []
            for column, cell in zip(self.columns[1:], cells[1:]):
                if column.long or not cell.plain.strip():
                    continue
                item = Text(f"{column.label or column.header}: ", style="dim")
                item.append_text(_joined_lines(cell))
                if lines and cell_len(lines[-1].plain) + 3 + cell_len(item.plain) <= room:
                    lines[-1].append(" · ", style="dim")
                    lines[-1].append_text(item)
                else:
                    lines.append(item)
            parts.extend(lines)
            grid = hanging(label_width)
            for column, cell in zip(self.columns[1:], cells[1:]):
                if column.long and cell.plain.strip():
                    grid.add_row(Text(f"{column.label or column.header}:", style="dim"), cell)
            if grid.row_count:
                parts.append(grid)
            if parts:
                out.append(Padding(Group(*parts), (0, 0, 0, self.INDENT), expand=False))
        return Group(*out)


def _share_out(widths: list[int], goal: list[int], spare: int) -> int:
    """Widen `widths` towards `goal`, evenly, with at most `spare` cells; what is left over."""
    wanting = [i for i in range(len(widths)) if goal[i] > widths[i]]
    while spare > 0 and wanting:
        share = max(1, spare // len(wanting))
        for i in list(wanting):
            give = min(share, goal[i] - widths[i], spare)
            widths[i] += give
            spare -= give
            if widths[i] >= goal[i]:
                wanting.remove(i)
            if not spare:
                break
    return spare


def _joined_lines(text: Text) -> Text:
    """A cell's lines as one line ("1.234 (1.1–1.3)"), styles kept."""
    if "\n" not in text.plain:
        return text
    return Text(" ").join(line for line in text.split("\n") if line.plain)
