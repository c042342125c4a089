"""The live progress line: while the program compiles, one status line on the terminal (which
function, which compile, which stage, seconds so far, a spinner), so that a long compile does
not look like a hang.

Driven by the records torch writes as it compiles (record/handler.py hands each one here):
`dynamo_start` names the function of a frame, `chromium_event` begins ("ph": "B") and ends
("E") each stage, with its compile id. A daemon thread redraws the line every TICK_S while a
stage is open; the line is erased as soon as the last open stage ends (in the program's own
thread, before it goes on), when the run stops it, and on any error of ours.

Only on a terminal (stderr is one when the run starts) and never under `run --quiet`: nothing
is written otherwise, and the cost is one attribute check per record. What is written goes to a
descriptor of our own on that terminal (opened non-blocking, not inherited by the program's
children), so the program's sys.stderr is never touched.

The line is drawn on the line below the cursor, and the cursor is put back where the program
left it when the line is erased (VT100's save and restore cursor): a program line left
unfinished before the compile ("Compiling... " then the compile, then "done") stays as the
program wrote it. A line that torch or another thread writes while a stage is open may be
overwritten by the program's next line; nothing here can see those writes.
"""

from __future__ import annotations

import os
import time

# threading is imported once the program has imported torch (which imports it): a program that
# never does pays for none of it (docs/cli.md, "What run costs")
TYPE_CHECKING = False
if TYPE_CHECKING:
    import threading
    from collections.abc import Callable
    from typing import Any

TICK_S = 0.2  # how often the seconds and the spinner are redrawn
SHOW_AFTER_S = 0.5  # a compile shorter than this never shows the line (no flicker)
SPINNER = "|/-\\"
# VT100: a line made below (scrolling if the cursor is on the last one) without moving the
# cursor's column (index, reverse index), the cursor saved, then down to the new line's start
OPEN_LINE = "\x1bD\x1bM\x1b7\x1bD\r"
CLEAR_TO_END = "\x1b[K"
CLOSE_LINE = "\r" + CLEAR_TO_END + "\x1b8"  # the line cleared, the cursor back where it was


def status_text(function: str | None, compile_id: str | None, stage: str, seconds: float, tick: int, width: int) -> str:
    """The status line: "/ compilescope: compiling forward (compile 0/0), 12.3 s,
    inductor_compile", cut to fit in `width` columns (a line that wraps could not be erased with \\r).
    An unknown function or compile id is left out, never guessed."""
    what = "compiling" + (f" {function}" if function else "") + (f" (compile {compile_id})" if compile_id else "")
    text = f"{SPINNER[tick % len(SPINNER)]} compilescope: {what}, {seconds:.1f} s, {stage}"
    most = max(width - 1, 10)
    return text if len(text) <= most else text[: most - 3] + "..."


class Stage:
    __slots__ = ("name", "compile_id", "began")

    def __init__(self, name: str, compile_id: str | None, began: float) -> None:
        self.name = name
        self.compile_id = compile_id
        self.began = began


class StatusLine:
    """The line's state and drawing, without threads or torch: what the open stages are, what
    to write to show them and to erase them. `write` gets the exact characters for the
    terminal; `clock` is time.monotonic in a run."""

    def __init__(
        self, write: Callable[[str], None], clock: Callable[[], float] = time.monotonic, width: Callable[[], int] = lambda: 80
    ) -> None:
        self._write = write
        self._clock = clock
        self._width = width
        self.stages: list[Stage] = []  # open stages, outermost first
        self.functions: dict[str, str] = {}  # frame id ("0") -> the function Dynamo compiles there
        self.shown = False  # the line is on the terminal now
        self._ticks = 0

    def frame_started(self, frame_id: object, function: str) -> None:
        self.functions[str(frame_id)] = function

    def began(self, name: str, compile_id: str | None) -> None:
        self.stages.append(Stage(name, compile_id, self._clock()))

    def ended(self, name: str) -> None:
        """A stage ended: the innermost open one of that name is closed (and the line erased
        once none is open)."""
        for at in range(len(self.stages) - 1, -1, -1):
            if self.stages[at].name == name:
                del self.stages[at:]
                break
        if not self.stages:
            self.erase()

    def draw(self) -> None:
        """Show the innermost open stage, once the compile has run SHOW_AFTER_S."""
        if not self.stages:
            return
        now = self._clock()
        seconds = now - self.stages[0].began
        if seconds < SHOW_AFTER_S and not self.shown:
            return
        inner = self.stages[-1]
        compile_id = next((s.compile_id for s in reversed(self.stages) if s.compile_id), None)
        function = self.functions.get(_frame_of(compile_id)) if compile_id else None
        text = status_text(function, compile_id, inner.name, seconds, self._ticks, self._width())
        self._ticks += 1
        self._write(("\r" if self.shown else OPEN_LINE) + text + CLEAR_TO_END)
        self.shown = True

    def erase(self) -> None:
        if self.shown:
            self.shown = False
            self._write(CLOSE_LINE)


def _frame_of(compile_id: str) -> str:
    """The frame's number in a compile id: "0" in "0/1", "[0/1]", "!2/0/1" (compiled autograd's
    prefix left out)."""
    text = compile_id.strip("[]")
    if text.startswith("!"):
        parts = text.split("/")
        return parts[1] if len(parts) > 2 else ""
    return text.split("/")[0]


class Progress:
    """The status line on the terminal, with the thread that keeps it moving. Never raises: on
    any error of ours the line is given up (erased if it can be) and the program goes on."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._pid = os.getpid()  # a forked child of the program draws nothing
        self._line = StatusLine(self._write, width=self._columns)
        self._changed: threading.Condition | None = None  # set by start()
        self._thread: threading.Thread | None = None
        self._closed = False

    @classmethod
    def for_terminal(cls) -> Progress | None:
        """A Progress on stderr's terminal, or None where stderr is no terminal. The terminal
        is opened afresh (a dup of fd 2 would share the program's flags): ours is non-blocking,
        so that a paused terminal (Ctrl-S) never holds up a compile for our line, and it is not
        inherited by the program's children. Called before the program runs: it may replace
        stderr."""
        try:
            if not os.isatty(2):
                return None
            return cls(os.open(os.ttyname(2), os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK))
        except OSError:
            return None

    def start(self) -> Progress:
        """Ready to draw (the program has imported torch)."""
        import threading

        self._changed = threading.Condition(threading.Lock())
        return self

    def on_record(self, metadata: dict[str, Any], payload: object) -> None:
        """One record torch wrote (from the handler, in the thread that compiles)."""
        if self._closed or self._changed is None or os.getpid() != self._pid:
            return
        try:
            if "chromium_event" in metadata and isinstance(payload, str):
                self._on_event(payload)
            elif "dynamo_start" in metadata:
                stack = metadata["dynamo_start"].get("stack")
                if stack and isinstance(stack[-1], dict) and "frame_id" in metadata:
                    with self._changed:
                        self._line.frame_started(metadata["frame_id"], str(stack[-1].get("name")))
        except Exception:
            self.close()

    def _on_event(self, payload: str) -> None:
        import json
        import threading

        event = json.loads(payload)
        phase, name = event.get("ph"), event.get("name")
        if phase not in ("B", "E") or not isinstance(name, str):
            return
        args = event.get("args")
        compile_id = args.get("compile_id") if isinstance(args, dict) else None
        assert self._changed is not None  # (on_record's check)
        with self._changed:
            if phase == "B":
                self._line.began(name, compile_id if isinstance(compile_id, str) and compile_id != "None" else None)
                if self._thread is None:
                    self._thread = threading.Thread(target=self._keep_drawing, name="compilescope-progress", daemon=True)
                    self._thread.start()
                self._changed.notify()
            else:
                self._line.ended(name)

    def _keep_drawing(self) -> None:
        assert self._changed is not None
        try:
            with self._changed:
                while not self._closed:
                    if self._line.stages:
                        self._line.draw()
                        self._changed.wait(TICK_S)
                    else:
                        self._changed.wait()
        except Exception:
            self._closed = True

    def close(self) -> None:
        """Erase the line and stop (the end of the program, or an error of ours)."""
        if self._closed or os.getpid() != self._pid:
            return
        self._closed = True
        try:
            if self._changed is not None:  # (else never started: nothing drawn)
                with self._changed:
                    self._line.stages.clear()
                    self._line.erase()
                    self._changed.notify()
        except Exception:
            pass
        try:
            os.close(self._fd)
        except OSError:
            pass

    def _write(self, text: str) -> None:
        try:
            os.write(self._fd, text.encode("utf-8", "replace"))
        except BlockingIOError:  # a paused terminal: this drawing is dropped, the compile goes on
            pass

    def _columns(self) -> int:
        try:
            return os.get_terminal_size(self._fd).columns or 80  # (0: a terminal that never said)
        except OSError:
            return 80
