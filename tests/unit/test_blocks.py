"""Views as blocks (render/blocks.py): a section written once is drawn by the terminal and the
report page with the same facts, each styled part of a line kept with its style."""

from __future__ import annotations

import io

from rich.console import Console
from rich.text import Text

from compilescope.render.blocks import Lines, Table, spans, to_data, to_html, to_rich
from compilescope.render.html import report_data
from compilescope.render.sections.runtime import bench_view, kernel_time_view, verdict_text
from compilescope.render.terminal import Column, printable
from recorded import flat, session


def terminal(blocks: list, width: int = 200) -> str:
    buffer = io.StringIO()
    Console(file=buffer, width=width, color_system=None, highlight=False).print(printable(to_rich(blocks)))
    return buffer.getvalue()


def said(data: list[dict]) -> list[str]:
    """Each piece of text the page would show of these blocks (a cell's lines apart)."""
    out = []
    for block in data:
        if block["kind"] == "table":
            out += [block["title"], *(c["header"] for c in block["columns"])]
            cells = [cell for row in block["rows"] for cell in row["cells"]]
        elif block["kind"] == "lines":
            cells = block["lines"]
        else:
            cells = []
        out += [line for cell in cells for line in "".join(text for text, _ in cell).split("\n") if line]
    return out


def test_the_bench_table_says_the_same_facts_in_the_terminal_and_on_the_page() -> None:
    # GIVEN bench's saved results (a real run: compiled took 1.67x as long)
    run = session("bench_mlp.json")
    view = bench_view(run)
    # WHEN the view is drawn for the terminal, and given to the page as data
    printed = flat(terminal(view))
    data, _ = report_data(run)
    # THEN the page's data is the view's, and each thing it says the terminal says too
    assert data["views"]["bench"] == to_data(view)
    pieces = said(data["views"]["bench"])
    assert "slower 0.60x" in pieces and "never" in pieces
    for piece in pieces:
        assert flat(piece) in printed, piece


def test_the_page_lists_every_kernel_the_terminal_lists_the_first_ones() -> None:
    # GIVEN a session whose profile has more kernels than the terminal lists
    run = session("tiny-profiled.json")
    assert run.profile is not None
    profile = run.profile
    many = type(profile)(**{**vars(profile), "kernels": profile.kernels * 20})
    # WHEN the kernel time view is drawn for each
    printed = flat(terminal(kernel_time_view(many)))
    (table, _) = to_data(kernel_time_view(many, limit=None))
    # THEN the terminal shows 15 and counts the rest; the page has all 20
    assert "… 5 more kernels in the JSON" in printed
    assert len(table["rows"]) == 20 and table["title"] in printed


def test_a_lines_styled_parts_are_kept_as_spans() -> None:
    # GIVEN a verdict (one phrase: its spaces kept together for the terminal) and a note in parts
    note = Text("", style="dim")
    note.append("eager: ", style="bold")
    note.append("busy\nquiet")
    # THEN the page gets [text, style] pairs, the spaces as spaces, each line of the note apart
    assert spans(verdict_text("slower", 0.6)) == [["slower 0.60x", "red"]]
    assert to_data([Lines([note])])[0]["lines"] == [[["eager: ", "dim bold"], ["busy", "dim"]], [["quiet", "dim"]]]


def test_a_note_row_and_the_strings_of_a_program_are_escaped_on_each_page() -> None:
    # GIVEN a table with a note row whose texts a program chose
    table = Table([Column("configuration"), Column("eager ms", "right")])
    table.add_note(Text("<script>alert(1)</script>"), Text("no figures: </script>", style="yellow"))
    # THEN the tour's page escapes them, and the report's data carries them as text
    page = to_html([table])
    assert "<script>" not in page and "&lt;script&gt;" in page and 'colspan="1"' in page
    (data,) = to_data([table])
    assert data["rows"] == [{"cells": [[["<script>alert(1)</script>", ""]], [["no figures: </script>", "yellow"]]], "note": True}]
