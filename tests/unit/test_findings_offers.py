"""What a finding offers and says, read from committed traces (tests/traces/): only fixes that can
remove what the finding is about, one finding per cause, and a program's message in plain words."""

from __future__ import annotations

from compilescope.findings.before_compile import plain_message
from recorded import found


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
