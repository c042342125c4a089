"""Inductor's passes as a user meets them: `compilescope run --show passes` on a program whose
graph Inductor's post-grad pattern rewrites (`mm + mm` made one mm and an addmm), compiled for
real on this machine's CPU."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import ROOT, run_cli

PROGRAM = ROOT / "tests" / "traces" / "programs" / "passes.py"


def test_run_show_passes_shows_the_post_grad_rewrite(tmp_path: Path) -> None:
    # GIVEN a program whose graph Inductor's passes rewrite (its caches off: the passes run)
    shutil.copy(PROGRAM, tmp_path / "passes.py")
    # WHEN it runs under compilescope with --show passes
    run = run_cli("run", "--no-html", "--show", "passes", "passes.py", cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    text = " ".join(run.stderr.split())
    # THEN each group of passes is said, and the post-grad one with the ops it changed and the lines
    assert "pre-grad: 4 ops before and after, the same ops" in text
    assert "post-grad: 3 ops → 2: aten.add.Tensor −1, aten.mm.default −1, aten.addmm.default +1" in text
    assert "+ addmm_default:" in text and "torch.ops.aten.addmm.default(mm, arg2_1, arg" in text
    # AND the session's JSON holds the graphs before and after
    (post_grad,) = [
        s for s in run.session_json("compilescope-passes.json")["frames"][0]["compiles"][0]["passes"] if s["stage"] == "post-grad"
    ]
    assert "aten.addmm.default" in post_grad["after"]["code"] and "aten.addmm.default" not in post_grad["before"]["code"]
