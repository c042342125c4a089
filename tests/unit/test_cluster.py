"""The cluster view of a job's ranks, on committed two-rank traces (tests/traces/ranks/, recorded
by tests/traces/record from real torchrun jobs, gloo on the CPU):

- ddp: DDP(torch.compile(model)) where rank 1 alone gets one longer batch and recompiles;
- collectives: a compiled function with two all_reduces (Inductor), where rank 1 alone breaks
  the graph between them, so the ranks' collective schedules differ.

`compilescope report FOLDER` is called in process; its JSON is read back as a user's script would.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

import compilescope
from compilescope.cli import main
from compilescope.findings.cluster import compare, summarize, who
from recorded import TRACES, cli

DDP = TRACES / "ranks" / "ddp"
COLLECTIVES = TRACES / "ranks" / "collectives"


def cluster_of(folder: Path):
    return compare([summarize(s, s.explain(), i) for i, s in enumerate(compilescope.load_all(folder))])


def report(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status, out, err = cli(capsys, "report", *argv)
    return status, " ".join(out.split()), err


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_rank_that_recompiled_is_named_with_its_guard_and_what_it_cost_the_others() -> None:
    cluster = cluster_of(DDP)
    assert [r.label for r in cluster.ranks] == ["rank 0", "rank 1"]
    assert cluster.problems == []
    aspects = [d.aspect for d in cluster.divergences]
    assert aspects[0] == "recompiles"  # the likeliest cause first
    assert {"recompiles", "compiles", "dynamic_shapes", "compile_time"} <= set(aspects)
    # guards of the compile both ranks made are alike (object ids differ between processes: not a divergence)
    assert "guards" not in aspects
    recompiles = cluster.divergences[0]
    (same, other) = recompiles.groups
    assert (same.labels, same.summary) == (["rank 0"], "none")
    assert (other.labels, other.summary) == (["rank 1"], "1 recompile")
    assert other.only_here == ["inner 0/1: tensor 'args[0]' size mismatch at index 0. expected 8, actual 12"]
    assert "the other ranks wait at the next collective" in recompiles.meaning
    timing = next(d for d in cluster.divergences if d.aspect == "compile_time")
    assert timing.groups[0].labels == ["rank 1"]  # the slowest first
    assert timing.summary.startswith("rank 1 compiled longest:") and "more than rank 0" in timing.summary
    # the findings of both ranks, one per cause, saying where each was seen
    assert cluster.findings[0].title == "The size of dimension 0 changed (8 → 12): 1 recompile of inner (rank 1)"
    assert cluster.findings[0].ranks == (1,)


def test_ddp_optimizer_pieces_are_read_from_the_trace() -> None:
    rank0 = compilescope.load_all(DDP)[0]
    (compile_,) = rank0.compiles
    assert [p.name for p in compile_.ddp_pieces] == ["submod_0", "submod_1", "submod_2"]
    assert [p.ops for p in compile_.ddp_pieces] == [["linear", "relu"], ["linear", "relu"], ["linear"]]
    # each piece holds one Linear(512, 512): its weight and bias, 4 bytes each
    assert {(p.parameters, p.parameter_bytes) for p in compile_.ddp_pieces} == {(2, (512 * 512 + 512) * 4)}


def test_collective_schedules_that_differ_are_a_divergence_that_can_hang_the_job() -> None:
    cluster = cluster_of(COLLECTIVES)
    collectives = next(d for d in cluster.divergences if d.aspect == "collectives")
    rank0, rank1 = sorted(collectives.groups, key=lambda g: g.labels)
    assert rank0.items == ["step 0/0: all_reduce_ → all_reduce_"]
    assert rank1.items == ["step 0/0_1: all_reduce_", "step (after line 13) 1/0: all_reduce_"]
    assert "hangs" in collectives.meaning
    breaks = next(d for d in cluster.divergences if d.aspect == "graph_breaks")
    assert breaks.groups[1].labels == ["rank 1"] and "torch._dynamo.graph_break()" in breaks.groups[1].only_here[0]
    # the guard on the rank itself: each rank's graph was specialized to its own rank
    guards = next(d for d in cluster.divergences if d.aspect == "guards")
    assert "step 0/0: rank == 0" in guards.groups[0].only_here
    assert "step 0/0_1: rank == 1" in guards.groups[1].only_here


def test_report_on_a_folder_prints_the_cluster_view(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = report(capsys, str(DDP))
    assert status == 0
    assert "compilescope · 2 ranks" in out
    assert "rank 0: 1 compile, 0 recompiles, 0 graph break occurrences, compile time" in out
    assert "rank 1: 2 compiles, 1 recompile, 0 graph break occurrences, compile time" in out
    assert "Where the ranks diverged ▲ recompiles rank 0: none rank 1: 1 recompile only it: inner 0/1: tensor 'args[0]'" in out
    assert "What to look at, across the ranks" in out
    assert f"One rank's whole explanation: compilescope report {DDP} --rank 0" in out


def test_the_json_holds_every_rank_and_the_divergences(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, _, err = report(capsys, str(DDP), "--json", "job.json", "--html", "job.html")
    assert status == 0 and "Saved the job's ranks and their comparison to job.json" in err
    data = json.loads((tmp_path / "job.json").read_text(encoding="utf-8"))
    assert data["schema"] == "compilescope/cluster/1"
    assert [r["rank"] for r in data["ranks"]] == [0, 1]
    assert data["ranks"][1]["frames"][0]["compiles"][1]["recompile_reason"]
    first = data["divergences"][0]
    assert first["aspect"] == "recompiles"
    assert [g["ranks"] for g in first["groups"]] == [[0], [1]]
    assert first["groups"][1]["only_here"] == ["inner 0/1: tensor 'args[0]' size mismatch at index 0. expected 8, actual 12"]
    assert data["problems"] == []
    # one page for the job, and the JSON reads back as the job's sessions
    assert (tmp_path / "job.html").read_text(encoding="utf-8").count('id="compilescope-r') >= 2
    assert [s.rank for s in compilescope.load_all(tmp_path / "job.json")] == [0, 1]
    # and running it again writes over the files it wrote (they are ours)
    assert report(capsys, str(DDP), "--json", "job.json")[0] == 0
    # the job's JSON is itself a job to report
    status, out, _ = report(capsys, "job.json")
    assert status == 0 and "compilescope · 2 ranks · job.json" in out and "▲ recompiles rank 0: none rank 1: 1 recompile" in out


def test_ranks_alike_are_grouped() -> None:
    assert who(["rank 0", "rank 2", "rank 3"]) == "ranks 0, 2, 3"
    assert who(["rank 1"]) == "rank 1"
    assert who([f"rank {n}" for n in range(8)]) == "ranks 0–7"
    # the same job twice over: every rank with its twin, no divergence
    logs = compilescope.load_all(DDP)
    twice = compare([summarize(s, [], i) for i, s in enumerate([logs[0], logs[0]])])
    assert [d.aspect for d in twice.divergences] == []
    assert "rank 0 appears in 2 logs" in twice.problems[0]
    # (each named by its log, so that the two can be told apart)
    assert [r.label for r in twice.ranks] == [f"rank 0 ({Path(logs[0].trace_files[0]).name})"] * 2


def test_logs_of_two_jobs_mixed_are_said_and_still_shown(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    for folder, tag in ((DDP, "a"), (COLLECTIVES, "b")):
        for log in folder.iterdir():
            shutil.copy(log, mixed / f"{tag}_{log.name}")
    status, out, _ = report(capsys, str(mixed))
    assert status == 0
    assert "▲ rank 0 appears in 2 logs" in out and "logs of more than one job or run" in out
    assert "the logs come from different programs" not in out  # (traces from elsewhere name no program)
    assert "rank 0 (a_dedicated_log_torch_trace_rank_0_" in out and "rank 0 (b_dedicated_log_torch_trace_rank_0_" in out  # each log shown


def test_a_truncated_rank_log_is_said_and_what_it_holds_is_shown(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    job = tmp_path / "job"
    job.mkdir()
    for log in DDP.iterdir():
        text = gzip.decompress(log.read_bytes())
        if "rank_1" in log.name:
            text = text[: len(text) * 2 // 3]  # cut off mid-write, as a killed rank leaves it
        (job / log.name.removesuffix(".gz")).write_bytes(text)
    status, out, _ = report(capsys, str(job))
    assert status == 0
    assert "rank 1's log is incomplete" in out and "what it holds is shown" in out
    assert "rank 1: " in out and "(log incomplete)" in out


def test_a_folder_without_logs_is_a_clear_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("not a log")
    assert main(["report", "empty"]) == 2
    assert "no trace files (*.log, *.log.gz) in empty" in capsys.readouterr().err


def test_a_model_compiled_with_no_graph_on_every_rank_is_flagged_per_rank(capsys: pytest.CaptureFixture[str]) -> None:
    # torch.compile(DDP(model)) on two ranks (tests/traces/programs/ddp_whole_ranks.py)
    status, out, _ = report(capsys, str(TRACES / "ranks" / "ddp_whole"))
    assert status == 0
    assert "rank 0: 4 compiles, 0 recompiles, 3 graph break occurrences" in out and out.count("✖ no graph: it ran eagerly") == 2
    assert "The 2 ranks compiled the same way." in out
    assert "What to look at, across the ranks ✖ torch.compile captured nothing: the code ran eagerly (ranks 0, 1)" in out
    assert "DDP(torch.compile(model))" in out


def test_ddp_optimizer_split_is_explained_once_for_the_ranks() -> None:
    cluster = cluster_of(DDP)
    (split,) = [f for f in cluster.findings if f.kind == "ddp split"]
    assert split.title == "DDPOptimizer split inner into 3 graphs at DDP's gradient buckets (ranks 0, 1)"
    assert split.detail.splitlines()[:3] == [
        "submod_0: linear, relu (2 parameters, 1.0 MB)",
        "submod_1: linear, relu (2 parameters, 1.0 MB)",
        "submod_2: linear (2 parameters, 1.0 MB)",
    ]
    assert "a bucket's all-reduce starts as soon as the backward of its piece is done" in split.detail
    assert "torch._dynamo.config.optimize_ddp = False" in split.fix
    assert cluster.findings[0].kind == "recompile"  # what cost time comes first


def test_an_fsdp_model_given_to_torch_compile_is_said_with_the_fix_for_fsdp(capsys: pytest.CaptureFixture[str]) -> None:
    # torch.compile(model) of a fully_shard-ed model on two ranks (tests/traces/programs/fsdp_ranks.py)
    status, out, _ = report(capsys, str(TRACES / "ranks" / "fsdp"))
    assert status == 0 and out.count("✖ no graph: it ran eagerly") == 2
    assert "✖ torch.compile captured nothing: the code ran eagerly (ranks 0, 1)" in out
    assert "Graph break in wrapper at _fully_shard/_fsdp_common.py:30" in out
    assert "a module sharded with FSDP (fully_shard), whose hooks torch keeps out of the compiler" in out
    assert "block.forward = torch.compile(block.forward)" in out


def test_a_log_with_no_records_is_left_out_and_said(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    job = tmp_path / "job"
    job.mkdir()
    for log in DDP.iterdir():
        shutil.copy(log, job / log.name)
    (job / "dedicated_log_torch_trace_rank_2_x.log").write_text("")
    status, out, _ = report(capsys, str(job))
    assert status == 0 and "compilescope · 2 ranks" in out
    assert "dedicated_log_torch_trace_rank_2_x.log holds no records: left out" in out
    # a folder of logs none of which holds a record is an error
    for log in job.iterdir():
        log.write_text("")
    status, _, err = cli(capsys, "report", str(job))
    assert status == 2 and "no log holds a torch structured-trace record" in err


def test_one_ranks_options_on_a_job_say_how_to_use_them(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = report(capsys, str(DDP), "--show", "guards")
    assert status == 0 and "Where the ranks diverged" in out
    assert "--show, --frame and --all apply to one rank's explanation: add --rank N" in err
    status, out, _ = report(capsys, str(DDP), "--rank", "1", "--show", "guards")
    assert status == 0 and "guards: 85 (torch counts 92" in out and "LAMBDA_GUARD" in out
