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
    assert (
        "2 functions compiled (1 of them the code after a graph break) · 5 compiles (3 recompiles) · 5 graphs"
        " · 1 graph break (place), 2 graph break occurrences · 7 kernels · compile time 10.44 s"
    ) in text
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


def test_an_expected_recompile_is_information_not_a_problem() -> None:
    # GIVEN the real run of grad_mode.py: forward compiled in training, then again under no_grad
    from compilescope.findings import INFO

    recompile = next(f for f in found("grad_mode") if f.kind == "recompile")
    # THEN its finding says it is expected, and is marked as information (●), not a warning (▲)
    assert recompile.title == "Global state changed: 1 recompile of forward"
    assert "This is expected" in recompile.fix and recompile.level == INFO
    text = render_text(session("grad_mode"), width=100)
    assert " ● Global state changed: 1 recompile of forward" in text
    assert "▲" not in text and "✖" not in text


def test_the_header_says_a_crashed_programs_exception_on_one_line_without_its_escapes() -> None:
    # GIVEN grad_mode.py, which raised a RuntimeError whose message has colour escapes (ESC [ 1;31m)
    run = session("grad_mode")
    assert run.program is not None and "\x1b[1;31m" in (run.program.exception or "")
    # THEN the header gives it one line of its own, without the escapes, in the terminal,
    # the HTML report and the plain view
    lines = render_text(run, width=100).splitlines()
    assert lines[0] == "compilescope · script grad_mode.py · exit status 1 · ran 2.1 s"
    assert lines[1] == "raised RuntimeError: evaluation failed:"
    from compilescope.render.html import report_data
    from compilescope.render.text import short_message

    assert report_data(run)[0]["exception_line"] == "RuntimeError: evaluation failed:"
    # (a long message of several lines is one bounded line)
    said = short_message("ValueError: \x1b[31mbad\x1b[0m\n" + "x" * 300 + "\x1b]0;title\x07\x07")
    assert "\n" not in said and "\x1b" not in said and "[31m" not in said and len(said) == 90 and said.endswith("…")


def test_compile_ids_are_explained_where_they_are_shown() -> None:
    # GIVEN the quickstart's run, whose ids include restarted attempts (0/1_1)
    text = flat(render_text(session("quickstart"), width=100))
    # THEN the terminal says what frame/compile and the _N attempt mean, as the HTML page does
    assert (
        "Compile ids are torch's frame/compile: 0/1 is the second version compiled of the first function Dynamo met; "
        "_N after it, the attempt that made it after torch restarted its analysis (0/1_1: its second attempt"
    ) in text
    # said once, where ids are first shown: the findings name 0/1_1 before the functions list
    assert text.count("Compile ids are torch's") == 1
    assert text.index("Block.forward 0/1_1: tensor 'x'") < text.index("Compile ids are torch's") < text.index("Compiled functions")
    from compilescope.render.html import report_data

    assert report_data(session("quickstart"))[0]["compile_id_note"].startswith("Compile ids are torch's frame/compile")
    # (a run without restarts is not told about them)
    assert "_N" not in render_text(session("grad_mode"), width=100)


def test_a_profile_run_does_not_advise_profile() -> None:
    # GIVEN `run --profile` of tiny.py on Python 3.11, where calls per version are not recorded
    run = session("tiny-profiled-py311.json")
    assert run.profile is not None and (run.calls_recorded or "").startswith("not recorded on Python 3.11")
    # THEN the header says that this run's --profile counted the calls, not to run --profile
    text = flat(render_text(run, width=100))
    assert "`compilescope run --profile` counts them" not in text
    assert "this run's --profile counted the calls of compiled code from torch.profiler instead (below)" in text
    from compilescope.render.html import report_data

    assert "this run's --profile counted" in report_data(run)[0]["calls_recorded"]


def test_bench_says_its_verdict_in_words_piped_and_leads_its_page_with_it() -> None:
    # GIVEN `bench bench_mlp.py:make --backends eager` as it saved its results (a real run:
    # compiled took 1.67x as long, on a quiet machine)
    from compilescope.render.html import report_data
    from compilescope.render.sections.runtime import runtime
    from compilescope.render.terminal import console_for

    run = session("bench_mlp.json")
    (bench,) = run.benchmarks
    assert bench.verdict == "slower" and bench.speedup is not None and bench.conditions is not None and not bench.conditions.busy
    # WHEN its table is printed into a pipe (no colour: a CI log)
    stream = io.StringIO()
    for part in runtime(run):
        console_for(stream).print(part)
    piped = flat(stream.getvalue())
    assert "\x1b[" not in stream.getvalue()
    # THEN the verdict is words, with the speedup
    assert f"speedup: slower {bench.speedup:.2f}x" in piped
    # AND the page leads with the verdict and the machine's state, as the terminal says them
    data, _ = report_data(run)
    ((config, verdict, notes),) = [(x["config"], x["verdict"], x["notes"]) for x in data["bench_lead"]]
    assert (config, verdict) == ("eager/default/inference", f"slower {bench.speedup:.2f}x")
    assert notes[0] == bench.verdict_why and notes[0] in piped
    assert notes[-1].startswith("measured on a quiet machine (other processes used 0.0 cores' worth of CPU while it measured")
    # (the page drawn in Chromium: tests/test_report_browser.py)
