"""Building the report is no slower than tlparse 0.4.3 on the same TORCH_TRACE log.

The log is a real one: a BERT training run (two steps and a recompile) traced by torch itself
with TORCH_TRACE. Both tools run as commands, end to end, taking turns; medians are compared.
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


def test_html_is_built_no_slower_than_tlparse(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    tlparse = shutil.which("tlparse", path=os.path.dirname(sys.executable)) or shutil.which("tlparse")
    assert tlparse, "tlparse 0.4.3 is a test dependency (pip install tlparse==0.4.3)"
    version = subprocess.run([tlparse, "--version"], capture_output=True, text=True).stdout.strip()
    assert version == "tlparse 0.4.3"

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
    ours, theirs = [], []
    for _ in range(5):
        ours.append(timed(ours_cmd, tmp_path))
        theirs.append(timed(theirs_cmd, tmp_path))
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
