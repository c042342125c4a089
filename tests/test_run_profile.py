"""`compilescope run --profile` on the recompile lesson (tests/programs/lessons/recompile.py): which
compiled version served each call, and where the compiled time went, kernel by kernel."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import run_lesson

pytestmark = pytest.mark.slow


def test_run_profile_on_the_recompile_lesson(tmp_path: Path) -> None:
    run, session = run_lesson("recompile.py", tmp_path, None, "--profile")
    calls = len(re.findall(r"^\d+ rows", run.stdout, re.M))  # the lesson's own timed calls
    profile = session.profile
    assert profile is not None and profile.profile_error is None
    first, second = (c.compile_id for c in session.compiles)
    # every call of the compiled model was served by one of its two versions
    assert sum(profile.compiled_regions.values()) == profile.profiled_calls == calls == 6
    assert set(profile.compiled_regions) == {first, second}
    assert profile.compiled_regions[first] >= 2  # the first two calls, 8 rows, before 16 came
    # the kernels, with what they were made from and the line they came from
    # kernel time leaves out the first call of each version (lazy autotuning, warm-up)
    steady = calls - len(session.compiles)
    fused = next(k for k in profile.kernels if k.name == "cpp_fused_add_relu_0")
    assert fused.kind == "cpp" and fused.aten_ops == ["aten.add", "aten.relu"] and fused.calls == steady
    assert fused.source_lines and fused.source_lines[0].endswith("return torch.relu(self.layer(x) + 1.0)")
    library = next(k for k in profile.kernels if k.kind == "library call")
    # counted inside compiled regions only
    assert library.name == "addmm" and library.calls == steady
    assert "calls served by each compiled version" in run.stderr
    assert (tmp_path / "compilescope-recompile.html").read_text().count('"compiled_regions"') >= 1
