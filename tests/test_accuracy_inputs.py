"""run --check-accuracy on what a graph is given and gives back (issue 45): an input the graph
changes in place is compared after the call, and the program sees it changed once; a backend of
the user's own that computes something else is named as the stage. Real subprocesses, real
torch.compile with the aot_eager backend and a backend function (no Inductor: fast)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import compilescope
from conftest import run_cli

PROGRAM = textwrap.dedent(
    """\
    import torch


    def off_by_a_little(gm, example_inputs):
        def run(*args):
            return [value + 1e-3 for value in gm(*args)]
        return run


    @torch.compile(backend=off_by_a_little)
    def wave(x, y):
        return (x * y).sin()


    @torch.compile(backend="aot_eager")
    def counted(x, counts):
        counts.add_(1)
        return x.cos() * 2


    torch.manual_seed(0)
    x, counts = torch.randn(4, 4), torch.zeros(3)
    for _ in range(2):
        print(round(wave(x, x).sum().item(), 5), round(counted(x, counts).sum().item(), 5), counts.tolist())
    """
)


def test_an_input_changed_in_place_is_compared_and_a_users_backend_is_named(tmp_path: Path) -> None:
    # GIVEN a function that changes an input in place, and one compiled by a backend of the user's that adds 1e-3
    (tmp_path / "prog.py").write_text(PROGRAM)
    plain = subprocess.run([sys.executable, "prog.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    # WHEN it is run with --check-accuracy
    run = run_cli("run", "--check-accuracy", "--no-html", "prog.py", cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    # THEN the program saw its counts go up once a call, as without the flag
    assert run.stdout == plain.stdout and "[2.0, 2.0, 2.0]" in run.stdout
    session = compilescope.load(tmp_path / "compilescope-prog.json")
    [wave] = session.frame("wave").compiles[0].accuracy
    [counted] = session.frame("counted").compiles[0].accuracy
    # and the input changed in place was compared after each call, and matched
    assert [c.outcome for c in counted.calls] == ["matches", "matches"]
    changed = [v.what for v in counted.calls[0].compared]
    assert changed == ["output 0", "input counts after the call (changed in place)"], changed
    # and the user's backend is the stage that differs, by the 1e-3 it adds
    assert [c.outcome for c in wave.calls] == ["differs", "differs"]
    assert abs((wave.calls[0].compared[0].max_abs or 0) - 1e-3) < 1e-6
    assert [(s.stage, s.matches) for s in wave.stages] == [
        ("aot_eager", True),
        ("aot_eager_decomp_partition", True),
        ("off_by_a_little", False),
    ]
    [finding] = [f for f in session.explain() if f.kind == "accuracy"]
    assert "The difference comes from the backend off_by_a_little" in finding.fix
    # and no minifier script: torch's minifier needs a backend it can name
    assert wave.minifier is not None and wave.minifier.minify is None and "named by a string" in (wave.minifier.why or "")
    assert (
        "No minifier script: torch's minifier needs a backend named by a string it can look up; off_by_a_little is a function of yours"
        in finding.fix
    )
