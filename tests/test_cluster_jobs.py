"""A job's ranks, two runs, and a CI gate, end to end: real torchrun jobs (gloo on the CPU, a
compiled DDP model, one rank made to diverge), each rank writing its own TORCH_TRACE log;
`compilescope report FOLDER`, `diff` and `check` as subprocesses, as a user runs them."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest

import compilescope
from conftest import run_cli, torchrun_traced

pytestmark = pytest.mark.slow

PROGRAMS = Path(__file__).parent / "traces" / "programs"


def torchrun(folder: Path, ranks: int, divergent: int) -> Path:
    """The DDP job (tests/traces/programs/ddp_ranks.py) on `ranks` ranks, rank `divergent` alone
    getting one longer batch; its TORCH_TRACE folder."""
    shutil.copy(PROGRAMS / "ddp_ranks.py", folder / "job.py")
    return torchrun_traced(folder, "job.py", ranks, {"DIVERGENT_RANK": str(divergent)})


@pytest.mark.parametrize(("ranks", "divergent", "alike"), [(2, 1, "rank 0"), (4, 2, "ranks 0, 1, 3")])
def test_the_rank_that_diverged_is_named_and_the_others_grouped(tmp_path: Path, ranks: int, divergent: int, alike: str) -> None:
    # GIVEN a real DDP job in which one rank alone got a longer batch
    traces = torchrun(tmp_path, ranks, divergent)
    # WHEN its folder is reported, with the job's JSON and page
    result = run_cli("report", "traces", "--json", "job.json", "--html", "job.html", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    shown = " ".join(result.stdout.split())
    # THEN the ranks alike are one group, the divergent rank another, with the guard that failed
    assert f"compilescope · {ranks} ranks · traces" in shown
    assert f"▲ recompiles {alike}: none rank {divergent}: 1 recompile only it: " in shown
    assert "size mismatch at index 0. expected 8, actual 12" in shown
    assert "the other ranks wait at the next collective" in shown
    assert "compiled longest:" in shown or "per rank, about even" in shown  # (which rank: as the clock says)
    data = json.loads((tmp_path / "job.json").read_text(encoding="utf-8"))
    assert [r["rank"] for r in data["ranks"]] == list(range(ranks))
    recompiles = next(d for d in data["divergences"] if d["aspect"] == "recompiles")
    assert [g["ranks"] for g in recompiles["groups"]] == [[r for r in range(ranks) if r != divergent], [divergent]]
    # DDPOptimizer's split of the graph at DDP's buckets is in every rank's session
    for rank in data["ranks"]:
        pieces = rank["frames"][0]["compiles"][0]["ddp_pieces"]
        assert [p["name"] for p in pieces] == ["submod_0", "submod_1", "submod_2"]
    assert (tmp_path / "job.html").stat().st_size > 0
    assert compilescope.load_all(traces)[divergent].recompiles


def test_diff_and_check_before_and_after_a_fix(tmp_path: Path) -> None:
    # GIVEN a program with a graph break (a print inside the compiled function), run under
    # compilescope, then fixed (the print moved out) and run again
    program = textwrap.dedent(
        """\
        import torch

        @torch.compile(backend="eager")
        def step(x):
            y = torch.sin(x) * 2
            print("step")  # BREAK
            return y + 1

        for n in (4, 4, 6):
            step(torch.ones(n))
        """
    )
    (tmp_path / "train.py").write_text(program)
    before = run_cli("run", "--no-html", "--json", "before.json", "train.py", cwd=tmp_path)
    assert before.returncode == 0, before.stderr
    (tmp_path / "train.py").write_text(program.replace('print("step")  # BREAK', "pass"))
    after = run_cli("run", "--no-html", "--json", "after.json", "train.py", cwd=tmp_path)
    assert after.returncode == 0, after.stderr
    # WHEN they are compared
    result = run_cli("diff", "before.json", "after.json", "--json", "changes.json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    # THEN the break is gone, and so is the function Dynamo made to resume after it
    changes = json.loads((tmp_path / "changes.json").read_text(encoding="utf-8"))
    assert changes["graph_breaks"]["added"] == []
    # (the same break, met in both compiles of step: the second size recompiled it)
    (gone,) = set(changes["graph_breaks"]["removed"])
    assert len(changes["graph_breaks"]["removed"]) == 2
    assert gone.startswith("Failed to trace builtin operator at ") and 'train.py:6) in step: print("step")' in gone
    assert len(changes["graph_break_places"]["removed"]) == 1  # one place, met by both compiles
    assert changes["graph_break_places"]["removed"][0].startswith("Failed to trace builtin operator at ")
    assert any("after line" in f for f in changes["compiled_functions"]["removed"])
    shown = " ".join(result.stdout.split())
    assert "graph breaks (places): 1 → 0" in shown and "graph break occurrences: 2 → 0" in shown and "− " in shown
    # AND the CI gate: the old run fails a no-break rule, the new one passes it and has nothing
    # new since the old; the old one against the new as its baseline has a new break
    failed = run_cli("check", "before.json", "--max-graph-breaks", "0", cwd=tmp_path)
    assert failed.returncode == 1 and "more than the 0 allowed (the first: " in failed.stdout
    passed = run_cli("check", "after.json", "--max-graph-breaks", "0", "--baseline", "before.json", cwd=tmp_path)
    assert passed.returncode == 0, passed.stdout
    assert "passed (at most 0 graph breaks (places), nothing new since before.json)" in passed.stdout
    regressed = run_cli("check", "before.json", "--baseline", "after.json", cwd=tmp_path)
    assert (
        regressed.returncode == 1
        and "1 new graph break (place) compared with the baseline: Failed to trace builtin operator" in regressed.stdout
    )


def test_the_fix_said_for_an_fsdp_model_captures_its_blocks(tmp_path: Path) -> None:
    # GIVEN the fix the FSDP finding gives (tests/unit/test_cluster.py: torch.compile of the sharded
    # root captures nothing): each block's forward compiled after sharding, on two ranks
    (tmp_path / "job.py").write_text(
        textwrap.dedent(
            """\
            import torch
            import torch.distributed as dist
            from torch.distributed.fsdp import fully_shard

            dist.init_process_group("gloo")
            model = torch.nn.Sequential(*[torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU()) for _ in range(2)])
            for block in model:
                fully_shard(block)
            fully_shard(model)
            for block in model:
                block.forward = torch.compile(block.forward, backend="aot_eager")
            for _ in range(2):
                model(torch.randn(8, 64)).sum().backward()
            dist.destroy_process_group()
            """
        )
    )
    torchrun_traced(tmp_path, "job.py", 2)
    # THEN every rank captured the blocks' operations, and nothing says it ran eagerly
    result = run_cli("report", "traces", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "captured nothing" not in result.stdout and "no graph" not in result.stdout
    for session in compilescope.load_all(tmp_path / "traces"):
        assert session.graph_count >= 1 and any("linear" in g.ops for c in session.compiles for g in c.graphs)
