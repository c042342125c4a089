"""benchmarks/merge_zoo.py on committed H200 parts: a sweep split across device calls, one result."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "2026-12-03-h200-zoo"
# hf part 6: Qwen2 out of memory, Gemma "fail"; part 7, after the fix: both again, and Swin
PARTS = [str(RESULTS / "hf-base-amp-train-part6.json"), str(RESULTS / "hf-base-amp-train-part7.json")]


def merge(tmp_path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    command = [
        sys.executable,
        str(ROOT / "benchmarks" / "merge_zoo.py"),
        *options,
        str(tmp_path / "all.json"),
        str(tmp_path / "all.html"),
        *PARTS,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def test_a_model_in_two_parts_is_refused_unless_measured_again(tmp_path: Path) -> None:
    refused = merge(tmp_path)
    assert refused.returncode == 1
    assert "hf:gemma is in more than one part (hf-base-amp-train-part7.json); --measured-again takes the last" in refused.stderr
    assert not (tmp_path / "all.json").exists()

    merged = merge(tmp_path, "--measured-again")
    assert merged.returncode == 0, merged.stderr
    result = json.loads((tmp_path / "all.json").read_text())
    # THEN each model once, with the later part's result, in the order first measured
    assert [(m["name"], m["status"]) for m in result["models"]] == [("hf:qwen2", "pass"), ("hf:gemma", "pass"), ("hf:swin", "pass")]
    # AND the summary is computed again over them; the command says what replaced what
    assert result["summary"]["pass_rate"] == 1.0 and result["summary"]["counts"]["fail"] == 0
    assert "[hf-base-amp-train-part7.json measured hf:gemma again: its result replaces the earlier part's]" in result["command"]
    assert "hf:gemma" in (tmp_path / "all.html").read_text()
