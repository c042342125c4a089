"""Traces compilescope did not start: a distributed job's ranks, a program killed mid-run."""

from __future__ import annotations

import textwrap
from pathlib import Path

import compilescope
from compilescope.session.model import Compile, Frame, Session
from conftest import run_cli, torchrun_traced

RANKS = textwrap.dedent(
    """
    import torch
    import torch.distributed as dist

    dist.init_process_group("gloo")
    rank = dist.get_rank()

    def step(x):
        return torch.sin(x) * 2.0

    compiled = torch.compile(step, backend="eager")
    compiled(torch.ones(4))
    if rank == 1:
        compiled(torch.ones(4, 4))  # only rank 1 sees a second shape: it compiles again
    dist.barrier()
    dist.destroy_process_group()
    """
)


def test_report_on_a_distributed_jobs_ranks(tmp_path: Path) -> None:
    # GIVEN a two-rank job (gloo on loopback) that wrote TORCH_TRACE itself, one log per rank
    (tmp_path / "ranks.py").write_text(RANKS)
    torchrun_traced(tmp_path, "ranks.py", 2)
    # WHEN it is explained
    result = run_cli("report", "traces", cwd=tmp_path)
    # THEN the ranks are compared, and the rank that compiled differently stands out with its guard
    assert result.returncode == 0, result.stderr
    assert "rank 0: 1 compile, 0 recompiles" in result.stdout
    assert "rank 1: 2 compiles, 1 recompile" in result.stdout
    shown = " ".join(result.stdout.split())
    assert "Where the ranks diverged ▲ recompiles rank 0: none rank 1: 1 recompile" in shown
    assert "only it: step 0/1: tensor 'x' rank mismatch. expected 1, actual 2" in shown
    sessions = compilescope.load_all(tmp_path / "traces")
    assert sorted(s.rank for s in sessions if s.rank is not None) == [0, 1] and all(s.rank is not None for s in sessions)

    only_one = run_cli("report", "traces", "--rank", "1", "--json", "r1.json", cwd=tmp_path)
    assert only_one.returncode == 0 and "Ranks" not in only_one.stdout and "rank 1" in only_one.stdout
    assert compilescope.load(tmp_path / "r1.json").rank == 1
    assert run_cli("report", "traces", "--rank", "5", cwd=tmp_path).returncode == 2


def test_program_killed_mid_run_leaves_a_readable_trace(tmp_path: Path) -> None:
    # GIVEN a program that compiles, then dies without any cleanup (no atexit, no finally)
    (tmp_path / "dies.py").write_text(
        "import os, torch\ntorch.compile(lambda x: torch.cos(x) + 1, backend='eager')(torch.ones(2))\nos._exit(7)\n"
    )
    result = run_cli("run", "dies.py", cwd=tmp_path)
    assert result.returncode == 7  # the status the program chose
    assert not (tmp_path / "compilescope-dies.json").exists()  # nothing ran after os._exit
    # THEN the trace written so far (never named: the hidden file it was written to) explains
    # what was compiled, asked for by its name, and says the program did not finish
    report = run_cli("report", "compilescope-dies.log", cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert "compilescope-dies.log was never named" in report.stderr
    assert "2 ops: cos, add" in report.stdout
    assert "the program did not finish" in report.stdout


def test_a_large_program_stays_readable() -> None:
    frames = [
        Frame(name=f"layer_{i}", filename="/m.py", lineno=i, compiles=[Compile(compile_id=f"{i}/0", status="ok")]) for i in range(300)
    ]
    text = str(Session(frames=frames))
    assert "300 functions compiled" in text
    assert "layer_24" in text and "layer_25 " not in text
    assert "… 275 more functions (--all to list them all" in text
    assert len(text.splitlines()) < 120
