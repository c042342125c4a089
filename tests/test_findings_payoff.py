"""Did compiling pay off (issue 18): where `run`'s call times (Python 3.12+) and --profile's
kernel times show a compiled call spent mostly outside its kernels, a finding says so with the
figures; where they cannot tell, it names the measurement that would. Real runs, real Inductor."""

from __future__ import annotations

from pathlib import Path

import compilescope
from conftest import python312, run_cli

TINY = """\
import torch

@torch.compile
def add_one(x):
    return x + 1

x = torch.ones(4)
for _ in range(300):
    add_one(x)
"""


def test_a_tiny_compiled_function_is_said_to_spend_its_calls_outside_kernels(tmp_path: Path) -> None:
    (tmp_path / "tiny.py").write_text(TINY)
    result = run_cli("run", "--no-html", "--profile", "tiny.py", cwd=tmp_path, python=python312())
    assert result.returncode == 0, result.stderr[-3000:]
    session = compilescope.load(tmp_path / "compilescope-tiny.json")
    (paid,) = [f for f in session.explain() if f.kind == "paid off"]
    assert paid.level == "warning" and paid.title.startswith("add_one: most of each compiled call is outside its kernels (")
    (compiled,) = session.frame("add_one").compiles
    assert compiled.calls is not None and compiled.calls.calls == 300
    assert f"{compiled.calls.median_us:.1f} µs a call" in paid.title
    assert paid.cost_s is not None and "outside kernels in 300 compiled calls" in paid.cost
    assert "Compile a larger region around add_one" in paid.fix and "compilescope bench" in paid.fix


def test_without_kernel_times_run_names_what_would_tell(tmp_path: Path) -> None:
    (tmp_path / "tiny.py").write_text(TINY)
    result = run_cli("run", "--no-html", "tiny.py", cwd=tmp_path, python=python312())
    assert result.returncode == 0, result.stderr[-3000:]
    session = compilescope.load(tmp_path / "compilescope-tiny.json")
    (paid,) = [f for f in session.explain() if f.kind == "paid off"]
    assert paid.level == "info" and "whether compiling it pays off, run cannot tell" in paid.title
    assert "compilescope run --profile" in paid.fix and "compilescope bench file.py:make" in paid.fix
    assert paid.cost_s is None and paid.cost.startswith("not measured")
