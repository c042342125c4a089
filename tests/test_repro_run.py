"""The repro of each compile, as a user meets it: `run --decompile DIR` writes one per compile of
a real program (a small model trained a step and then run in eval mode, and a Hugging Face model
trained a step, through Inductor), each copied alone into an empty folder and run in a fresh interpreter (`python -I`:
neither the program nor compilescope on its path). Each says whether compiled matches eager; a
graph that draws random numbers (dropout in training) is said to be not compared, never a false
mismatch; and a compile made wrong on purpose (torch's own relu-bug switch) is a mismatch."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_cli

SMALL = """\
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.drop = torch.nn.Dropout(0.2)
        self.fc2 = torch.nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(self.drop(torch.relu(self.fc1(x))))


torch.manual_seed(0)
net = Net()
compiled = torch.compile(net)
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
x = torch.randn(8, 16)
compiled(x).square().mean().backward()
optimizer.step()
net.eval()
with torch.no_grad():
    print("sum", round(compiled(x).sum().item(), 4))
"""

HF = """\
import torch
import transformers

torch.manual_seed(0)
config = transformers.GPT2Config(n_layer=1, n_embd=32, n_head=2, vocab_size=100, n_positions=64)
model = transformers.GPT2LMHeadModel(config)
compiled = torch.compile(model)
ids = torch.randint(0, 100, (2, 8))
loss = compiled(input_ids=ids, labels=ids).loss
loss.backward()
print("loss", round(loss.item(), 3))
"""


def _repros(program: str, name: str, folder: Path) -> dict[str, Path]:
    """Runs the program under `run --decompile`, and copies each repro it wrote alone into its own
    empty folder."""
    (folder / name).write_text(program)
    result = run_cli("run", "--decompile", "decompiled", "--no-html", name, cwd=folder)
    assert result.returncode == 0, result.stderr[-3000:]
    written = sorted((folder / "decompiled").glob("repro_*.py"))
    assert f"Wrote {len(written)} repro scripts" in result.stderr, result.stderr[-2000:]
    copies = {}
    for script in written:
        clean = folder / "clean" / script.stem
        clean.mkdir(parents=True)
        copies[script.stem] = Path(shutil.copy(script, clean / script.name))
    return copies


def _run_alone(script: Path, *setup: str) -> subprocess.CompletedProcess[str]:
    """The script in a fresh interpreter in its own folder; `setup` lines run before it (torch's
    switches the user would set)."""
    if setup:
        command = [sys.executable, "-I", "-c", "\n".join([*setup, "import runpy", f"runpy.run_path({script.name!r}, run_name='__main__')"])]
    else:
        command = [sys.executable, "-I", script.name]
    return subprocess.run(command, cwd=script.parent, capture_output=True, text=True, timeout=300)


def test_each_repro_of_a_small_model_matches_alone_and_a_wrong_compile_does_not(tmp_path: Path) -> None:
    # GIVEN a small model with dropout, trained one step and then run in eval mode, through Inductor
    repros = _repros(SMALL, "small.py", tmp_path)
    # THEN one repro per compile: the training step's (its forward and backward graphs) and eval's
    assert sorted(repros) == ["repro_0_0", "repro_0_1"], sorted(repros)
    said = {}
    for name, script in repros.items():
        ran = _run_alone(script)
        said[name] = ran.stdout
        assert ran.returncode == 0, (name, ran.stdout, ran.stderr[-2000:])
    # the training forward draws dropout's random numbers: not compared (compiled code draws
    # others), never a false mismatch; its backward, and the eval graph, match eager
    training = said["repro_0_0"]
    assert "graph 1 of 2" in training and "not compared: the graph draws random numbers" in training, training
    assert training.rstrip().endswith("match (1 of 2 graphs compared; the others draw random numbers)"), training
    assert said["repro_0_1"].rstrip().endswith("\nmatch") and "not compared" not in said["repro_0_1"], said["repro_0_1"]
    # AND the eval graph compiled wrong on purpose (Inductor's C++ relu made to add 1) is a mismatch
    wrong = _run_alone(
        repros["repro_0_1"], "import torch._inductor.config as config", "config.cpp.inject_relu_bug_TESTING_ONLY = 'accuracy'"
    )
    assert wrong.returncode == 1, (wrong.stdout, wrong.stderr[-2000:])
    assert "MISMATCH: output 0 (torch.float32" in wrong.stdout and "distance from a float64 run: compiled" in wrong.stdout, wrong.stdout
    assert wrong.stdout.rstrip().endswith("MISMATCH in 1 of 1 graphs compared"), wrong.stdout


def test_each_repro_of_a_hugging_face_model_runs_alone_and_matches(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    # GIVEN GPT-2 built from its config (one layer, random weights), trained one step on its own
    # loss, through Inductor (its eval mode is the GPU test's)
    repros = _repros(HF, "gpt2.py", tmp_path)
    assert len(repros) >= 2, sorted(repros)
    outcomes = []
    for name, script in repros.items():
        ran = _run_alone(script)
        assert ran.returncode == 0, (name, ran.stdout, ran.stderr[-2000:])
        outcomes.append(ran.stdout.rstrip().splitlines()[-1])
    # THEN each runs alone and matches: the training step's backward (its sums, in another order
    # than eager's, judged against a float64 run as torch judges them) and the loss; the training
    # forward draws dropout's numbers and is said to be not compared
    assert all(line.startswith("match") for line in outcomes), outcomes
    assert "match (1 of 2 graphs compared; the others draw random numbers)" in outcomes, outcomes
    assert outcomes.count("match") >= 1, outcomes
