"""The compile caches a cold compile starts from: empty of any compiled code, but holding what
Inductor builds once per cache and never again, its probes of the CPU's vector instructions.

Before Inductor first generates C++ for a CPU, it compiles and loads a small test library for
each vector instruction set the CPU reports (AVX-512, AVX2, ...), to learn which the compiler
and CPU both support; the libraries go into the compile cache, and every later compile, of any
program, finds them there. On this project's two cores that took 9 s: a tiny GPT-2's cold
compile read 20 s with them and 11 s without. A user pays it the first time Inductor compiles
for the CPU with their cache (the default, /tmp/torchinductor_USER, lives until /tmp is
cleared), not once per model: a cold compile measured in a brand-new cache would put it on
every model. So `bench` and the zoo run the probes once, in a process of their own, into a seed
folder kept between runs (~/.cache/compilescope/inductor-cpu-probes/, per torch, Python and
compiler), and start each cold cache as a copy of it. (Loading the libraries to check them, a
second or so, happens in every new process, as it does for the user: that stays in the
figures.)

`python -m compilescope.benchmark.compile_cache FOLDER` runs the probes into FOLDER."""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

PROBE_TIMEOUT_S = 300


@dataclass
class Seed:
    """The probes, run into `folder`; or why not (`folder` None), for the reader of the figures."""

    folder: Path | None
    why_not: str | None = None

    def describe(self) -> str:
        """What a cold compile's cache held, in the results' words (after "it held")."""
        if self.folder is not None:
            return (
                "no compiled code, only Inductor's CPU probes, run once on this machine before"
                " (as a user's cache holds them after its first CPU compile)"
            )
        if self.why_not:
            return f"nothing: Inductor's CPU probes could not run first ({self.why_not}), so a cold compile for the CPU includes them"
        return "nothing"

    def start_cold(self, cache: Path) -> None:
        """Make `cache` a cold compile cache: a copy of the probes, or empty where there are none."""
        if self.folder is None:
            cache.mkdir(parents=True, exist_ok=True)
            return
        shutil.copytree(self.folder, cache, dirs_exist_ok=True)


def seed(folder: Path, env: dict[str, str] | None = None, timeout: float = PROBE_TIMEOUT_S) -> Seed:
    """Run Inductor's CPU probes into `folder` in a new process (the caller imports no torch)
    with the environment the workers get (the compiler they would use)."""
    folder.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "compilescope.benchmark.compile_cache", str(folder)]
    try:
        done = subprocess.run(command, env={**(env or os.environ), **cache_env(folder)}, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return Seed(None, f"Inductor's CPU probes took over {timeout:.0f} s")
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return Seed(None, f"Inductor's CPU probes failed: {last}")
    return Seed(folder)


def kept_seed(fallback: Path, env: dict[str, str] | None = None, root: Path | None = None) -> Seed:
    """The probes for this torch, this Python and this compiler, kept between runs in
    compilescope's cache folder (~/.cache/compilescope/inductor-cpu-probes/): run once per machine,
    as a user's own cache keeps them, not once per command. Run into `fallback` (the caller's
    temporary folder) where that folder cannot be written."""
    environ = os.environ if env is None else env
    root = root or Path(environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "compilescope" / "inductor-cpu-probes"
    key = _key(environ)
    kept, complete = root / key, root / f"{key}.complete"
    if complete.exists() and kept.is_dir():
        return Seed(kept)
    try:
        root.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f"{key}.", dir=root))
    except OSError:
        return seed(fallback, env)
    try:
        made = seed(work / "cache", env)
        if made.folder is None:
            return made
        shutil.rmtree(kept, ignore_errors=True)  # (one left without its mark: a run stopped while keeping it)
        try:
            os.rename(made.folder, kept)
        except OSError:  # (another run kept its own a moment before: the same probes)
            pass
        complete.write_text("the probes in the folder of this name are complete\n", encoding="utf-8")
        return Seed(kept)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _key(environ: Mapping[str, str]) -> str:
    """What the probes depend on: torch's version, the Python, the C++ compiler Inductor would
    use (CXX), the machine. (Inductor names each probe by a hash of its source and flags: a probe
    kept under a key that missed something is not found, and built again, never wrong.)"""
    try:
        torch_version = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        torch_version = "none"
    facts = "\0".join((torch_version, sys.executable, environ.get("CXX", ""), platform.machine(), platform.python_version()))
    return f"torch-{torch_version.replace('+', '-')}-{hashlib.sha256(facts.encode()).hexdigest()[:12]}"


def cache_env(cache: Path) -> dict[str, str]:
    """The variables that point Inductor, and the Triton compiler under it, at `cache` (Triton's
    own cache too: a TRITON_CACHE_DIR of the user's would make a cold compile warm)."""
    return {"TORCHINDUCTOR_CACHE_DIR": str(cache), "TRITON_CACHE_DIR": str(cache / "triton")}


def main() -> int:
    from compilescope.benchmark.torch_adapter import probe_cpu_vector_isa

    os.environ.update(cache_env(Path(sys.argv[1])))
    why_not = probe_cpu_vector_isa()
    if why_not:
        print(why_not, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
