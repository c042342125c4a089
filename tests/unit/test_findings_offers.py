"""What a finding offers and says, read from committed traces (tests/traces/): only fixes that can
remove what the finding is about, one finding per cause, and a program's message in plain words."""

from __future__ import annotations

from compilescope.findings.before_compile import plain_message
from compilescope.findings.offers import already_set, print_as_fstring, print_of_tensor
from recorded import found, one


def test_a_crashed_programs_coloured_error_is_said_in_plain_words() -> None:
    # GIVEN a program that raised a coloured error (terminal escapes) before compiling anything
    crashed = [f for f in found("crashed") if f.kind == "nothing compiled"]
    # THEN the finding says the error without its escapes, as the program's words
    assert len(crashed) == 1 and crashed[0].title == "The program failed before torch.compile compiled anything"
    assert crashed[0].detail.splitlines()[0] == "ValueError: bad config:"
    assert not any(ch != "\n" and not ch.isprintable() for ch in crashed[0].detail)


def test_escapes_and_control_characters_are_left_out_but_newlines_kept() -> None:
    text = "\x1b[1;31mbad\x1b[0m:\r\n  lr \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ is\tnot \x1b[33m'fast'\x1b[0m\x07\x00"
    assert plain_message(text) == "bad:\n  lr link is not 'fast'"


def test_a_break_that_gives_up_the_function_is_one_finding_not_also_a_failed_compile() -> None:
    # GIVEN a break inside a for loop, for which torch gave up compiling f ("Skipping the function
    # and falling back to eager"): its compile is recorded as failed
    items = found("loop_break")
    # THEN the break's finding is the one finding about it, and it carries the failed compile's time
    assert [f.kind for f in items if f.level == "problem"] == ["graph break"]
    assert not [f for f in items if f.kind == "compile failed"]
    assert items[0].cost.endswith("67 ms on the compile torch gave up")
    # and torch's capture_scalar_outputs hint, which cannot help (the value decides an `if`), is not quoted
    assert "capture_scalar_outputs = True" not in " ".join(f.fix for f in items)


def test_a_compile_that_failed_is_still_a_finding_of_its_own() -> None:
    failed = [f for f in found("diagnosis") if f.kind == "compile failed"]
    assert len(failed) == 1 and failed[0].title.startswith("Compiling ")


def _break_in(trace: str, function: str):
    (brk,) = [f for f in found(trace) if f.kind == "graph break" and f.title.startswith(f"Graph break in {function} at")]
    return brk


def test_reorder_print_is_offered_for_a_print_of_tensors_and_strings() -> None:
    # GIVEN print("y is", y): torch names its arguments' types ['str', 'Tensor'], all reorderable
    brk = _break_in("print_args", "scaled")
    assert brk.try_fixes == ("reorder-print",)
    assert "reorderable_logging_functions" in brk.fix and "cannot remove" not in brk.fix


def test_reorder_print_is_not_offered_for_a_print_of_a_size_and_the_fstring_is() -> None:
    # GIVEN print("shape", y.shape): a torch.Size, which torch cannot move after the graph
    brk = _break_in("print_args", "shaped")
    # THEN reordering is not offered, the finding says why, and gives the print as one f-string
    assert brk.try_fixes == () and brk.try_command is None
    assert brk.fix.startswith(
        "--try reorder-print cannot remove this break: torch moves a print after the graph only when its arguments are "
        "tensors, constants and strings, and this one prints a torch.Size (torch names its arguments' types: str, Size)"
    )
    assert 'Here: replace line 18 with\n    print(f"shape {y.shape}")\n' in brk.fix
    assert "reorderable_logging_functions" not in brk.fix  # torch's hint to reorder it, left out


def test_capture_dynamic_output_shape_ops_is_offered_where_the_result_stays_a_tensor() -> None:
    brk = _break_in("nonzero_use", "picked")
    assert brk.try_fixes == ("capture_dynamic_output_shape_ops",) and "cannot remove" not in brk.fix


def test_capture_dynamic_output_shape_ops_is_not_offered_where_the_size_decides_a_branch() -> None:
    # GIVEN idx = torch.nonzero(...) then `if idx.shape[0] > 2:`
    brk = _break_in("nonzero_use", "counted")
    # THEN capturing the op is not offered: torch would break on the branch instead; torch.where/cond are
    assert brk.try_fixes == ()
    assert brk.fix.startswith(
        "--try capture_dynamic_output_shape_ops cannot remove this break: `idx.shape[0] > 2` after it decides a Python branch on it"
    )
    assert "torch.where(cond, a, b)" in brk.fix and "torch.cond(" in brk.fix
    assert "capture_dynamic_output_shape_ops = True" not in brk.fix  # torch's hint, left out


def test_capture_dynamic_output_shape_ops_is_not_offered_where_the_result_is_read_out() -> None:
    # GIVEN idx = torch.nonzero(...) then `rows = idx.tolist()`
    (brk,) = [f for f in found("nonzero_use") if f.kind == "graph break" and f.where and f.where.endswith("nonzero_use.py:26")]
    assert "capture_dynamic_output_shape_ops" not in brk.try_fixes
    assert brk.fix.startswith(
        "--try capture_dynamic_output_shape_ops cannot remove this break: `idx.tolist()` after it reads it out as Python values"
    )
    assert "read it out outside the compiled function" in brk.fix


def test_ignore_logging_is_offered_for_a_message_not_for_is_enabled_for() -> None:
    told, asked = _break_in("logger_calls", "told"), _break_in("logger_calls", "asked")
    assert told.try_fixes == ("ignore-logging",) and "cannot remove" not in told.fix
    assert asked.try_fixes == ()
    assert asked.fix.startswith("--try ignore-logging cannot remove this break: the call is Logger.isEnabledFor, which logs no message")
    assert "ignore_logging_functions" not in asked.fix and "ignore or reorder it" not in asked.fix


def test_a_print_is_written_as_one_fstring_only_where_that_prints_the_same() -> None:
    assert print_as_fstring('print("shape", y.shape)') == 'print(f"shape {y.shape}")'
    assert print_as_fstring('print("a{b}", x, flush=True)') == 'print(f"a{{b}} {x}", flush=True)'
    assert print_as_fstring('print("a", x, sep="")') is None  # a separator of its own
    assert print_as_fstring('print(d["k"])') is None and print_as_fstring("x = 1") is None


def test_a_hinted_setting_the_run_already_had_is_not_offered() -> None:
    assert already_set("config.allow_rnn=True", {"allow_rnn": "True"})
    assert not already_set("config.allow_rnn=True", {"allow_rnn": "False"}) and not already_set("config.allow_rnn=True", {})


def test_a_print_of_a_value_read_from_a_tensor_is_offered_the_tensors_print_not_the_fixes() -> None:
    # GIVEN print(float(y.mean())): torch breaks to read the value and again to print it
    shout = one(found("diagnosis"), kind="graph break", title_has="shout")
    # THEN neither capturing the scalar nor reordering the print is offered: the finding says why,
    # and gives the print of the tensor, which torch can move after the graph
    assert shout.try_fixes == ()
    assert shout.fix.startswith(
        "--try capture_scalar_outputs and --try reorder-print cannot remove this break: the print prints a value read out of a tensor"
    )
    assert "replace line 57 with\n    print(y.mean())\n" in shout.fix
    assert "capture_scalar_outputs = True" not in shout.fix and "reorderable_logging_functions" not in shout.fix
    assert "torch's hint: Avoid calling builtin `print` with argument types ['float']" in shout.fix


def test_a_print_of_read_values_is_written_as_a_print_of_the_tensors() -> None:
    assert print_of_tensor("print(float(y.mean()))") == "print(y.mean())"
    assert print_of_tensor('print("loss", loss.item(), flush=True)') == "print('loss', loss, flush=True)"
    assert print_of_tensor("print(y)") is None and print_of_tensor("x = float(y)") is None
