"""`compilescope run` says the memory its program held (docs/cli.md, "Memory"): a real run of a
small CPU program in a subprocess, its session's JSON, the terminal's line, the report and
`compilescope report` on the saved session; and the program's own output is the same as under
python. The CUDA figures are tested on a GPU (tests/test_gpu.py); the session's reading of the
record, malformed ones included, in tests/unit/test_memory.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import CliRun, run_cli

# A program that starts a child process holding 768 MiB, then holds 256 MiB at once itself, in a
# tensor it then frees; it compiles a function (aot_eager: no C++ compile, a few seconds).
PROGRAM = """
import subprocess
import sys

import torch

subprocess.run([sys.executable, "-c", "held = bytearray(768 << 20); print(len(held))"], check=True)
big = torch.ones(64 << 20)  # 64 Mi float32: 256 MiB
print(float(big[:4].sum()))
del big


@torch.compile(backend="aot_eager")
def scaled(x):
    return torch.sin(x) * 2 + 1


print(scaled(torch.ones(4)).tolist())
"""

# What starts `compilescope run`: a process holding 1 GiB (as a notebook's kernel, a pytest run or
# a launcher with a dataset may), which Linux's ru_maxrss would count as the program's own.
LAUNCHER = """
import subprocess
import sys

held = bytearray(1 << 30)
for page in range(0, len(held), 4096):  # (each page touched: resident)
    held[page] = 1
sys.exit(subprocess.run([sys.executable, "-m", "compilescope", *sys.argv[1:]]).returncode)
"""

MiB = 1 << 20


def test_run_says_the_programs_cpu_high_water_mark_and_no_cuda(tmp_path: Path) -> None:
    # GIVEN the program, run by python and by compilescope run, started by a process holding 1 GiB
    (tmp_path / "held.py").write_text(PROGRAM)
    (tmp_path / "launcher.py").write_text(LAUNCHER)
    plain = subprocess.run(
        [sys.executable, "held.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300, env={**os.environ, "COLUMNS": "120"}
    )
    launched = subprocess.run(
        [sys.executable, "launcher.py", "run", "held.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "COLUMNS": "120"},
    )
    result = CliRun(launched.returncode, launched.stdout, launched.stderr, tmp_path)
    assert result.returncode == plain.returncode == 0, result.stderr[-3000:]
    # THEN the program printed the same (its child's line included)
    assert (
        result.stdout
        == plain.stdout
        == "805306368\n4.0\n[2.6829419136047363, 2.6829419136047363, 2.6829419136047363, 2.6829419136047363]\n"
    )
    # AND the session holds its high-water mark (the 256 MiB it held at once, and more: torch; not
    # its launcher's 1 GiB), its child's, and no CUDA figure: it never started CUDA
    saved = json.loads((tmp_path / "compilescope-held.json").read_text())
    memory = saved["memory"]
    assert 256 * MiB < memory["cpu_peak_bytes"] < 768 * MiB, memory
    assert memory["children_peak_bytes"] >= 768 * MiB, memory
    assert memory["cuda"] == [] and memory["no_cuda"] == "the program did not start CUDA" and memory["unknown"] == []
    # AND the terminal says it in one line, in MiB or GiB, with no CUDA figure
    shown = " ".join(result.stderr.split())
    said = shown.split("Memory: ", 1)[1].split(" 1 function compiled", 1)[0]
    print(said)
    assert said.startswith("CPU high-water ") and ", a child process " in said
    assert "cuda" not in said.lower()
    # AND the report and `compilescope report` on the saved session say the same line
    assert ("Memory: " + said) in (tmp_path / "compilescope-held.html").read_text()
    report = run_cli("report", "compilescope-held.json", cwd=tmp_path)
    assert report.returncode == 0 and ("Memory: " + said) in " ".join(report.stdout.split())
