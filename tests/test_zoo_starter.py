"""The zoo's workers forked from a starter that imported torch once (benchmark/starter.py): each
stands where a fresh worker process stands, in a process group of its own that the time limit
ends whole, with its parent's environment; and where the starter cannot start, the workers start
afresh and measure all the same."""

from __future__ import annotations

import dataclasses
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from compilescope.benchmark.measure import Config
from compilescope.benchmark.spawn import Starter, TimedOut, run_worker

# make() says, into the file $PROBE_OUT, what its process is like when the model is built
PROBE = """
import json, os, sys
import torch


def make():
    facts = {
        "pid": os.getpid(),
        "group": os.getpgid(0),
        "flag": os.environ.get("PROBE_FLAG"),
        "argv0": os.path.basename(sys.argv[0]),
        "torch_modules": sorted(m for m in sys.modules if m == "torch" or m.startswith("torch.")),
    }
    with open(os.environ["PROBE_OUT"], "w") as handle:
        json.dump(facts, handle)
    return torch.nn.Linear(4, 4), (torch.randn(2, 4),)
"""

# make() starts a process of its own (as Inductor's compile pool does), says its pid, and hangs
HANGS = """
import os, subprocess, time


def make():
    child = subprocess.Popen(["sleep", "600"])
    with open(os.environ["PROBE_OUT"], "w") as handle:
        handle.write(str(child.pid))
    time.sleep(600)
"""


def _spec(target: str) -> dict[str, Any]:
    config = Config(backend="eager", training=False, device="cpu")
    return {"target": target, "config": dataclasses.asdict(config), "runs": 2, "warmup": 1, "first_call_only": True}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/stat").read_text().split()[2] if Path(f"/proc/{pid}/stat").exists() else "X"
    return status not in ("Z", "X")  # (a zombie has ended; its parent, sleep's, is gone)


@pytest.fixture
def starter():
    started = Starter(["torch"])
    yield started
    started.close()


def test_a_forked_worker_stands_where_a_fresh_one_does(tmp_path: Path, starter: Starter) -> None:
    (tmp_path / "probe.py").write_text(PROBE)
    facts = {}
    for how, given in (("fresh", None), ("forked", starter)):
        out = tmp_path / f"{how}.json"
        env = {**os.environ, "PROBE_OUT": str(out), "PROBE_FLAG": how}
        result = run_worker(_spec(f"{tmp_path / 'probe.py'}:make"), env, 120, given)
        assert "error" not in result and result["first_call_s"] > 0, result
        facts[how] = json.loads(out.read_text())
    assert starter.ready, starter.why
    fresh, forked = facts["fresh"], facts["forked"]
    # THEN the forked worker has the environment it was given, and a process group of its own
    assert forked["flag"] == "forked" and fresh["flag"] == "fresh"
    assert forked["group"] == forked["pid"] and fresh["group"] == fresh["pid"]
    assert forked["argv0"] == fresh["argv0"] == "worker.py"
    # AND the same torch is imported, no more: Dynamo and Inductor are still the first call's to import
    assert forked["torch_modules"] == fresh["torch_modules"]
    assert not any(m.startswith("torch._inductor") for m in forked["torch_modules"])


def test_the_time_limit_ends_a_forked_worker_and_what_it_started(tmp_path: Path, starter: Starter) -> None:
    (tmp_path / "hangs.py").write_text(HANGS)
    out = tmp_path / "child.pid"
    env = {**os.environ, "PROBE_OUT": str(out)}
    began = time.monotonic()
    with pytest.raises(TimedOut):
        run_worker(_spec(f"{tmp_path / 'hangs.py'}:make"), env, 8, starter)
    assert time.monotonic() - began < 30
    # THEN the process it started has ended with it
    child = int(out.read_text())
    deadline = time.monotonic() + 5
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(child)
    # AND the starter forks the next worker as before
    (tmp_path / "probe.py").write_text(PROBE)
    result = run_worker(_spec(f"{tmp_path / 'probe.py'}:make"), {**env, "PROBE_OUT": str(tmp_path / "p.json")}, 120, starter)
    assert "error" not in result, result


def test_a_starter_that_cannot_import_leaves_the_workers_to_start_afresh(tmp_path: Path) -> None:
    broken = Starter(["torch", "no_such_module_here"])
    try:
        assert not broken.ready and "no_such_module_here" in broken.why
        (tmp_path / "probe.py").write_text(PROBE)
        out = tmp_path / "p.json"
        result = run_worker(_spec(f"{tmp_path / 'probe.py'}:make"), {**os.environ, "PROBE_OUT": str(out)}, 120, broken)
        assert "error" not in result and result["first_call_s"] > 0, result
        assert json.loads(out.read_text())["group"] == json.loads(out.read_text())["pid"]
    finally:
        broken.close()
