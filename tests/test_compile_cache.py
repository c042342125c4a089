"""The cold compile cache `bench` and the zoo start from (benchmark/compile_cache.py): Inductor's
probes of the CPU, run once per machine and kept, are found by a new process in a copy of them,
so that no cold compile rebuilds them (9 s of a tiny GPT-2's 20 s here), while nothing compiled
is in it."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from compilescope.benchmark import compile_cache
from compilescope.benchmark.compile_cache import Seed, cache_env, kept_seed

pytest.importorskip("torch")

# what Inductor decides from its probes, in a new process pointed at CACHE
ASKS = "from torch._inductor.cpu_vec_isa import valid_vec_isa_list; print(sorted(str(isa) for isa in valid_vec_isa_list()))"


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file() and p.parent.name != "locks"}


def test_the_probes_kept_once_spare_every_later_cold_cache_building_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN no probes kept yet: the first command runs them and keeps them, marked complete
    root = tmp_path / "kept"
    probes = kept_seed(tmp_path / "fallback", root=root)
    assert probes.folder is not None and probes.why_not is None
    assert probes.folder.parent == root and probes.folder.name.startswith("torch-")
    assert (root / f"{probes.folder.name}.complete").exists() and not (tmp_path / "fallback").exists()
    assert [p.name for p in root.iterdir() if p.is_dir()] == [probes.folder.name]  # (its work folder gone)
    built = _files(probes.folder)
    assert any(name.endswith(".so") for name in built), built
    assert probes.describe().startswith("no compiled code, only Inductor's CPU probes")
    # WHEN a cold cache starts as their copy and a new process asks Inductor what the CPU can do
    cold = tmp_path / "cold"
    probes.start_cold(cold)
    env = {**os.environ, **cache_env(cold)}
    asked = subprocess.run([sys.executable, "-c", ASKS], env=env, capture_output=True, text=True, timeout=300)
    assert asked.returncode == 0, asked.stderr[-2000:]
    # THEN it found every probe built and built none (a new one would be a new file), and it
    # learned vector instructions from them (on an x86 machine such as this: AVX2 at least)
    assert _files(cold) == built
    if platform.machine() in ("x86_64", "AMD64"):
        assert "avx2" in asked.stdout, asked.stdout

    # AND the next command finds them kept and runs nothing
    def never(*args: object, **kwargs: object) -> Seed:
        raise AssertionError("the probes were run again")

    monkeypatch.setattr(compile_cache, "seed", never)
    assert kept_seed(tmp_path / "fallback", root=root).folder == probes.folder
    # AND a cache started where there are no probes is empty
    empty = tmp_path / "empty"
    Seed(None).start_cold(empty)
    assert empty.is_dir() and not any(empty.iterdir())
