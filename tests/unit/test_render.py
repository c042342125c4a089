"""The terminal, the HTML report, the .py files and --try's comparison, rendered from real
traces (tests/traces/): what each shows, in the order the findings rank, with every string from
the program escaped."""

from __future__ import annotations

import io
import json
import re

from compilescope.render.compare import print_comparison
from compilescope.render.console import render_text
from compilescope.render.html import render_html
from compilescope.render.pyfiles import python_files
from recorded import flat, found, fresh, session


def test_the_terminal_shows_header_summary_findings_and_functions() -> None:
    text = flat(render_text(session("quickstart"), width=100))
    assert text.startswith("compilescope · script quickstart.py")
    assert "2 functions compiled · 5 compiles (3 recompiles) · 5 graphs · 2 graph breaks · 7 kernels · compile time 10.44 s" in text
    what, functions = text.split("Compiled functions", 1)
    assert "What to look at" in what and "Graph break in Block.forward at programs/quickstart.py:18" in what
    assert "Block.forward" in functions and "forward (after line 18)" in functions


def test_the_terminal_keeps_to_its_width() -> None:
    for width in (60, 100, 160):
        lines = render_text(session("diagnosis"), width=width).splitlines()
        assert max(len(line) for line in lines) <= width, width


def test_control_characters_from_a_trace_are_shown_not_sent_to_the_terminal() -> None:
    s = fresh("flipflop")
    s.frames[0].name = "norm\x1b[2J\x07"
    text = render_text(s, width=100)
    assert "\x1b" not in text and "\x07" not in text and "norm" in text


def test_the_report_is_one_self_contained_file_with_the_findings_in_order() -> None:
    html = render_html(session("diagnosis"))
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=\"?https?:", html)
    embedded = re.search(r'<script type="application/json" id="compilescope-data">(.*?)</script>', html, re.S)
    assert embedded is not None
    data = json.loads(embedded.group(1))
    assert [f["title"] for f in data["findings"]] == [f.title for f in found("diagnosis")]
    assert data["compilescope"] and data["session"]["schema"] == "compilescope/1"


def test_a_name_that_closes_the_script_tag_stays_data() -> None:
    s = fresh("flipflop")
    s.frames[0].name = "</script><script>alert(1)</script>"
    html = render_html(s)
    assert "<script>alert(1)" not in html and "alert(1)" in html


def test_the_py_files_are_valid_python_in_the_order_the_program_ran() -> None:
    files = python_files(session("quickstart"))
    assert [f.name for f in files] == ["01_forward.py"]
    (text,) = [f.text for f in files]
    compile(text, "01_forward.py", "exec")  # valid Python
    functions = re.findall(r"^def (\w+)", text, re.M)
    # the function as Dynamo got it, then each version's guard and code, in the order they ran
    assert functions[:3] == ["forward", "__guard_0_0_1_for_forward", "__transformed_code_0_0_1_for_forward"]
    assert functions.index("__guard_1_0_for_torch_dynamo_resume_in_forward_at_18") < functions.index("__guard_0_1_1_for_forward")


def test_try_compares_two_runs_row_by_row_and_names_what_went() -> None:
    before, after = fresh("flipflop"), fresh("flipflop")
    after.frames[0].compiles = after.frames[0].compiles[:1]  # as if the fix removed the recompile
    after.fixes = ["torch._dynamo.config.automatic_dynamic_shapes ... (dynamic)"]
    out = io.StringIO()
    print_comparison(before, after, ["dynamic=True"], stream=out)
    text = flat(out.getvalue())
    assert text.startswith("compilescope · the program as it is, and with dynamic=True")
    assert "Gone with the fix: ✓ The size of dimension 0 changed (16 → 8)" in text
