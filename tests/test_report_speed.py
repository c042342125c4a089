"""Building the report is no slower than tlparse 0.4.3 on the same TORCH_TRACE log, and a job's
report (its ranks compared, one JSON and one page) no slower than tlparse's multi-rank report
(--all-ranks-html) on the same folder, in bounded memory.

The single log is a real one: a BERT training run (two steps and a recompile) traced by torch
itself with TORCH_TRACE. The job is 8 rank logs of about 35 MB each, made from a real DDP job's
rank logs (tests/programs/large_logs.py job). Both tools run as commands, end to end, taking
turns; medians are compared.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conftest import ARTIFACTS

pytestmark = [pytest.mark.slow, pytest.mark.measure]  # a race: alone on the machine (scripts/test --measure)

TRAIN = textwrap.dedent(
    """
    import torch
    from transformers import BertConfig, BertForMaskedLM

    torch.manual_seed(0)
    config = BertConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=2, intermediate_size=128, vocab_size=1000)
    model = BertForMaskedLM(config)
    optimizer = torch.optim.AdamW(model.parameters())
    compiled = torch.compile(model)
    for batch in (8, 8, 16):
        ids = torch.randint(0, 1000, (batch, 32))
        compiled(input_ids=ids, labels=ids).loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    """
)


def timed(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def the_tlparse() -> str:
    tlparse = shutil.which("tlparse", path=os.path.dirname(sys.executable)) or shutil.which("tlparse")
    assert tlparse, "tlparse 0.4.3 is a test dependency (pip install tlparse==0.4.3)"
    version = subprocess.run([tlparse, "--version"], capture_output=True, text=True).stdout.strip()
    assert version == "tlparse 0.4.3"
    return tlparse


def test_html_is_built_no_slower_than_tlparse(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    tlparse = the_tlparse()

    (tmp_path / "train.py").write_text(TRAIN)
    subprocess.run(
        [sys.executable, "train.py"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
        env={**os.environ, "TORCH_TRACE": str(tmp_path / "trace")},
        timeout=900,
    )
    (log,) = (tmp_path / "trace").glob("*.log")

    ours_cmd = [sys.executable, "-m", "compilescope", "report", str(log), "--html", "report.html"]
    theirs_cmd = [tlparse, str(log), "-o", "tl_out", "--overwrite", "--no-browser"]
    timed(ours_cmd, tmp_path), timed(theirs_cmd, tmp_path)  # warm the page cache for both
    ours, theirs = race(ours_cmd, theirs_cmd, tmp_path, 5)
    # The noise is measured, not assumed: each tool's median absolute deviation over its five
    # runs, relative to its median (one run slowed by the machine does not move it). "No slower"
    # allows three times that: two tools that take the same time differ by noise alone (CI once
    # measured 0.549 s against 0.545 s). A race too noisy to call is not called.
    noise = max(_deviation(ours), _deviation(theirs))
    result = {
        "log_mb": round(log.stat().st_size / 1e6, 2),
        "compilescope_median_s": round(statistics.median(ours), 3),
        "tlparse_median_s": round(statistics.median(theirs), 3),
        "runs": 5,
        "noise": round(noise, 3),
        "compilescope_s": [round(t, 3) for t in ours],
        "tlparse_s": [round(t, 3) for t in theirs],
    }
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "speed_vs_tlparse.json").write_text(json.dumps(result))
    print(result)
    assert (tmp_path / "report.html").stat().st_size > 0
    if noise > TOO_NOISY:
        pytest.skip(f"the runs deviated by more than {TOO_NOISY:.0%} of their median: too noisy to compare {result}")
    assert statistics.median(ours) <= statistics.median(theirs) * (1 + 3 * noise), result


TOO_NOISY = 0.10  # relative deviation beyond which the race is not called


def _deviation(times: list[float]) -> float:
    middle = statistics.median(times)
    return statistics.median(abs(t - middle) for t in times) / middle


def race(ours_cmd: list[str], theirs_cmd: list[str], cwd: Path, runs: int) -> tuple[list[float], list[float]]:
    """Each command `runs` times, taking turns: their seconds. tlparse's output folder of the
    run before is removed first, outside the timing (--overwrite would remove it inside)."""
    ours, theirs = [], []
    for _ in range(runs):
        ours.append(timed(ours_cmd, cwd))
        shutil.rmtree(cwd / "tl_out", ignore_errors=True)
        theirs.append(timed(theirs_cmd, cwd))
    return ours, theirs


# The report's own peak (/proc's VmHWM), and the largest peak of the worker processes it waited
# for (the ranks are read in workers, each holding one rank's session).
MEASURED = (
    "import resource, sys\n"
    "from compilescope.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "peak = next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:'))\n"
    "print(f'peaks_kb={peak} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}', file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def test_a_jobs_ranks_are_reported_no_slower_than_tlparse_all_ranks(tmp_path: Path) -> None:
    tlparse = the_tlparse()
    sys.path.insert(0, str(Path(__file__).parent / "programs"))
    import large_logs

    # GIVEN a job of 8 ranks, each log about 35 MB (rank 3 recompiled, as rank 1 did in the real job)
    logs = large_logs.job_folder(tmp_path / "job", 8, 35_000_000, divergent=3)
    total_mb = sum(p.stat().st_size for p in logs) / 1e6
    ours_cmd = [sys.executable, "-m", "compilescope", "report", "job", "--json", "job.json", "--html", "job.html"]
    theirs_cmd = [tlparse, "job", "--all-ranks-html", "-o", "tl_out", "--overwrite", "--no-browser"]
    # WHEN both report it (the page cache warmed for both first)
    timed(ours_cmd, tmp_path), timed(theirs_cmd, tmp_path)
    ours, theirs = race(ours_cmd, theirs_cmd, tmp_path, 3)
    done = subprocess.run([sys.executable, "-c", MEASURED, *ours_cmd[3:]], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    main_kb, worker_kb = (int(n) for n in done.stderr.rsplit("peaks_kb=", 1)[1].split())
    noise = max(_deviation(ours), _deviation(theirs))
    result = {
        "ranks": 8,
        "logs_mb": round(total_mb),
        "compilescope_median_s": round(statistics.median(ours), 2),
        "tlparse_median_s": round(statistics.median(theirs), 2),
        "compilescope_s": [round(t, 2) for t in ours],
        "tlparse_s": [round(t, 2) for t in theirs],
        "noise": round(noise, 3),
        "main_peak_mb": round(main_kb / 1024),
        "worker_peak_mb": round(worker_kb / 1024),
        "json_mb": round((tmp_path / "job.json").stat().st_size / 1e6),
        "html_mb": round((tmp_path / "job.html").stat().st_size / 1e6),
    }
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "ranks_vs_tlparse.json").write_text(json.dumps(result))
    print(result)
    # THEN what it found is the real job's divergence, at scale
    assert "▲ recompiles" in done.stdout and "rank 3: 78 recompiles" in done.stdout
    # in memory of one rank's session per process, not of the job's 280 MB of logs
    assert result["main_peak_mb"] < 200 and result["worker_peak_mb"] < 400, result
    # (every run of ours faster than every run of theirs settles it, however noisy the runs)
    if noise > TOO_NOISY and max(ours) > min(theirs):
        pytest.skip(f"the runs deviated by more than {TOO_NOISY:.0%} of their median: too noisy to compare {result}")
    assert statistics.median(ours) <= statistics.median(theirs) * (1 + 3 * noise), result
