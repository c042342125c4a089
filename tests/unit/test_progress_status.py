"""The live progress line's text and its drawing and erasing (record/progress.py's StatusLine),
on a fake clock: what reaches the terminal, character for character."""

from __future__ import annotations

from compilescope.record.progress import CLEAR_TO_END, CLOSE_LINE, OPEN_LINE, SHOW_AFTER_S, StatusLine, status_text


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def line_on(clock: Clock, width: int = 100) -> tuple[StatusLine, list[str]]:
    written: list[str] = []
    return StatusLine(written.append, clock, lambda: width), written


def test_text_names_function_compile_seconds_and_stage() -> None:
    assert status_text("forward", "0/1", "inductor_compile", 12.345, 0, 100) == (
        "| compilescope: compiling forward (compile 0/1), 12.3 s, inductor_compile"
    )
    # the spinner turns with each redraw
    assert [status_text("f", "0/0", "s", 1, tick, 100)[0] for tick in range(5)] == ["|", "/", "-", "\\", "|"]


def test_unknown_function_or_compile_is_left_out_not_guessed() -> None:
    assert status_text(None, "1/0", "bytecode_tracing", 2, 0, 100) == "| compilescope: compiling (compile 1/0), 2.0 s, bytecode_tracing"
    assert status_text(None, None, "autotune", 2, 0, 100) == "| compilescope: compiling, 2.0 s, autotune"


def test_text_fits_the_terminal_so_that_it_never_wraps() -> None:
    text = status_text("a_very_long_function_name_" * 4, "0/0", "inductor_compile", 3, 0, 40)
    assert len(text) == 39 and text.endswith("...")


def test_a_short_compile_shows_nothing() -> None:
    clock = Clock()
    line, written = line_on(clock)
    line.began("entire_frame_compile", "0/0")
    clock.now += SHOW_AFTER_S / 2
    line.draw()
    line.ended("entire_frame_compile")
    assert written == []


def test_a_long_compile_is_drawn_below_redrawn_in_place_and_erased_when_it_ends() -> None:
    # GIVEN a compile of `forward` in its second stage, past the moment the line shows
    clock = Clock()
    line, written = line_on(clock)
    line.frame_started(0, "forward")
    line.began("entire_frame_compile", "0/0")
    clock.now += 1.0
    line.began("bytecode_tracing", "0/0")
    clock.now += 0.25
    # WHEN the timer draws twice, the inner stage ends, and the timer draws again
    line.draw()
    clock.now += 0.25
    line.draw()
    line.ended("bytecode_tracing")
    line.draw()
    assert line.shown
    # THEN the first draw opens a line below the program's (its cursor saved), later ones
    # redraw in place; the seconds count from the compile's start; the stage is the innermost
    assert written == [
        OPEN_LINE + "| compilescope: compiling forward (compile 0/0), 1.2 s, bytecode_tracing" + CLEAR_TO_END,
        "\r/ compilescope: compiling forward (compile 0/0), 1.5 s, bytecode_tracing" + CLEAR_TO_END,
        "\r- compilescope: compiling forward (compile 0/0), 1.5 s, entire_frame_compile" + CLEAR_TO_END,
    ]
    # AND when the last open stage ends, the line is erased and the cursor put back, once
    line.ended("entire_frame_compile")
    line.erase()
    line.draw()
    assert written[3:] == [CLOSE_LINE] and not line.shown


def test_an_end_without_its_begin_closes_nothing() -> None:
    clock = Clock()
    line, written = line_on(clock)
    line.began("entire_frame_compile", "1/0")
    line.ended("compile_attempt_0")
    clock.now += 1
    line.draw()
    assert [stage.name for stage in line.stages] == ["entire_frame_compile"]
    assert "compiling (compile 1/0), 1.0 s, entire_frame_compile" in written[0]


def test_compiled_autograd_and_bracketed_ids_find_their_frame() -> None:
    clock = Clock()
    line, written = line_on(clock)
    line.frame_started(2, "loss_fn")
    for compile_id in ("[2/1]", "!0/2/1"):
        line.began("backend_compile", compile_id)
        clock.now += 1
        line.draw()
        line.ended("backend_compile")
    assert [f"compiling loss_fn (compile {i})" in text for text, i in zip(written[::2], ("[2/1]", "!0/2/1"))] == [True, True]


def test_the_line_is_drawn_only_on_a_terminal_and_not_under_quiet(tmp_path) -> None:
    # GIVEN stderr on a real pseudo-terminal, then on a pipe (fd 2 itself, as the program's)
    import os

    from compilescope.record.recorder import Capture

    def shows(stderr: int, progress: bool) -> bool:
        saved = os.dup(2)
        os.dup2(stderr, 2)
        try:
            recorder = Capture(tmp_path / "trace.log", wait_for_torch=True, progress=progress)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        shown = recorder.shows_progress
        recorder.finish_without_torch()
        return shown and not recorder.shows_progress

    leader, follower = os.openpty()
    reader, writer = os.pipe()
    try:
        # WHEN a run's recorder starts with and without --quiet (progress=not plan.quiet)
        # THEN only the terminal without --quiet gets the line (and it is gone at the end)
        assert [shows(follower, True), shows(follower, False), shows(writer, True)] == [True, False, False]
    finally:
        for fd in (leader, follower, reader, writer):
            os.close(fd)
