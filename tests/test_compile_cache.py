"""The cold compile cache `bench` and the zoo start from (benchmark/compile_cache.py): Inductor's
probes of the CPU, run once into a seed, are found by a new process in a copy of it, so that no
cold compile rebuilds them (9 s of a tiny GPT-2's 20 s here), while nothing compiled is in it."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from compilescope.benchmark.compile_cache import Seed, cache_env, seed

pytest.importorskip("torch")

# what Inductor decides from its probes, in a new process pointed at CACHE
ASKS = "from torch._inductor.cpu_vec_isa import valid_vec_isa_list; print(sorted(str(isa) for isa in valid_vec_isa_list()))"


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file() and p.parent.name != "locks"}


def test_a_copy_of_the_probes_spares_a_new_process_building_them(tmp_path: Path) -> None:
    # GIVEN the probes, run once into a seed
    probes = seed(tmp_path / "seed")
    assert probes.folder is not None and probes.why_not is None
    built = _files(probes.folder)
    assert any(name.endswith(".so") for name in built), built
    assert probes.describe().startswith("no compiled code, only Inductor's CPU probes")
    # WHEN a cold cache starts as its copy and a new process asks Inductor what the CPU can do
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
    # AND a cache started where there are no probes is empty
    empty = tmp_path / "empty"
    Seed(None).start_cold(empty)
    assert empty.is_dir() and not any(empty.iterdir())
