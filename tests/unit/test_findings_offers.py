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
