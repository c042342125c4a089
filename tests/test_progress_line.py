"""The live progress line of `compilescope run` (record/progress.py), on a real pseudo-terminal:
shown while the program compiles, erased when the compile ends, the program's own output left
as it wrote it; never written under --quiet or where stderr is not a terminal."""

from __future__ import annotations

import fcntl
import os
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

# A compile of a second or so (aot_eager: no C++), long enough for the line to show and move;
# a line left unfinished before it, as "Compiling... done" programs do.
PROGRAM = """\
import torch

def step(x):
    for _ in range(200):
        x = torch.sin(x) * 1.01 + torch.cos(x)
    return x

print("before", flush=True)
print("partial...", end="", flush=True)
out = torch.compile(step, backend="aot_eager")(torch.randn(4))
print(" done", tuple(out.shape))
"""
RUN = [sys.executable, "-m", "compilescope", "run", "--no-save", "--no-explanation"]
OPEN_LINE, CLOSE_LINE = "\x1bD\x1bM\x1b7\x1bD\r", "\r\x1b[K\x1b8"
STATUS = re.compile(r"[|/\\-] compilescope: compiling step \(compile 0/0\), (\d+\.\d) s, (\w+)\x1b\[K")


def _on_terminal(*args: str, cwd: Path, stderr: int | None = None) -> tuple[subprocess.Popen, int]:
    """`compilescope run ARGS` with stdout (and stderr, unless given) on a new pseudo-terminal
    100 columns wide."""
    leader, follower = os.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    process = subprocess.Popen(
        [*RUN, *args], cwd=cwd, stdin=subprocess.DEVNULL, stdout=follower, stderr=follower if stderr is None else stderr
    )
    os.close(follower)
    return process, leader


def _read_all(leader: int) -> str:
    out = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the terminal's last writer has closed it
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    return out.decode()


def test_the_line_shows_on_a_terminal_and_never_in_redirected_output(tmp_path: Path) -> None:
    # GIVEN a program whose compile takes a second or so
    (tmp_path / "slow.py").write_text(PROGRAM)
    # WHEN it runs on a terminal, then with stderr redirected to a file
    shown, shown_out = _on_terminal("slow.py", cwd=tmp_path)
    on_terminal = _read_all(shown_out)
    with open(tmp_path / "stderr.txt", "w") as stderr:
        redirected, redirected_out = _on_terminal("slow.py", cwd=tmp_path, stderr=stderr.fileno())
        beside_a_file = _read_all(redirected_out)
    assert shown.wait(timeout=300) == redirected.wait(timeout=300) == 0

    # THEN on the terminal, below the program's unfinished line, the status line says which
    # function, which compile, how long and which stage, redrawn as the seconds go
    assert on_terminal.startswith("before\r\npartial..." + OPEN_LINE), on_terminal
    draws = STATUS.findall(on_terminal)
    assert len(draws) >= 2, on_terminal
    seconds = [float(s) for s, _ in draws]
    assert seconds == sorted(seconds) and seconds[0] >= 0.5
    # ... and it is erased when the compile ends, the cursor back at the end of the program's
    # line: with the line's own writes taken out, the output is the program's, byte for byte
    assert re.sub(re.escape(OPEN_LINE) + ".*" + re.escape(CLOSE_LINE), "", on_terminal, flags=re.S) == "before\r\npartial... done (4,)\r\n"
    assert on_terminal.count(CLOSE_LINE) == on_terminal.count(OPEN_LINE) == 1
    # AND with stderr redirected, neither the file nor the terminal gets any of it (--quiet's
    # "never" is tested on a terminal in tests/unit/test_progress_status.py)
    assert beside_a_file == "before\r\npartial... done (4,)\r\n"
    assert (tmp_path / "stderr.txt").read_text() == ""
