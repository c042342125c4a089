"""compilescope run --check-accuracy's whole-call check (issue 45, "Dynamo's capture"): each
function torch.compile made, called as the program calls it, against its own Python run eagerly.
Real subprocesses and real torch.compile (the eager and aot_eager backends: Inductor is not the
point here; tests/test_accuracy_run.py has it)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import compilescope
from conftest import ROOT, run_cli

pytestmark = pytest.mark.slow
PROGRAM = ROOT / "tests" / "programs" / "accuracy_guards.py"


def _python(folder: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=folder, capture_output=True, text=True, timeout=600)


def _plain_and_checked(folder: Path, name: str, source: str) -> tuple[subprocess.CompletedProcess, Any, compilescope.Session]:
    """The program run by python, then by `compilescope run --check-accuracy`: both runs, and
    the session; both ran to the end, and the program printed the same under both."""
    (folder / f"{name}.py").write_text(source)
    plain = _python(folder, f"{name}.py")
    assert plain.returncode == 0, plain.stderr[-2000:]
    run = run_cli("run", "--check-accuracy", "--no-html", f"{name}.py", cwd=folder)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout == plain.stdout
    return plain, run, compilescope.load(folder / f"compilescope-{name}.json")


def test_a_result_wrong_in_dynamos_capture_is_found_and_its_fix_pasted_makes_it_match(tmp_path: Path) -> None:
    # GIVEN a program that changes a global while compiled code runs without its guards checked
    shutil.copy(PROGRAM, tmp_path / "prog.py")
    plain = _python(tmp_path, "prog.py")
    assert plain.returncode == 0, plain.stderr[-2000:]
    # WHEN it is run with --check-accuracy
    run = run_cli("run", "--check-accuracy", "--no-html", "prog.py", cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    # THEN the program printed what it prints without us (the stale result included)
    assert run.stdout == plain.stdout
    session = compilescope.load(tmp_path / "compilescope-prog.json")
    # and the call that ran the stale code is a problem, named as Dynamo's, at the user's line
    [finding] = [f for f in session.explain() if f.kind == "accuracy"]
    assert finding.title == "Compiled scaled differs from its own Python run eagerly: Dynamo's capture"
    assert (finding.where or "").endswith("prog.py:38")
    said = " ".join(run.stderr.split())
    assert "1 differs (1 in Dynamo's capture), 1 matches, 2 not checked" in said
    assert "Take skip_guard_eval_unsafe=True out of torch.compiler.set_stance" in said

    # WHEN the fix it gives is pasted: the stance taken out, its lines kept
    source = (tmp_path / "prog.py").read_text()
    stance = "with torch.compiler.set_stance(skip_guard_eval_unsafe=True):\n"
    head, tail = source.split(stance)
    body, rest = tail.split('print("model:', 1)
    (tmp_path / "fixed.py").write_text(head + textwrap.dedent(body) + 'print("model:' + rest)
    again = run_cli("run", "--check-accuracy", "--no-html", "fixed.py", cwd=tmp_path)
    assert again.returncode == 0, again.stderr[-3000:]
    # THEN the function is compiled again for the new value, and every call matches
    fixed = compilescope.load(tmp_path / "compilescope-fixed.json")
    assert fixed.accuracy is not None
    [scaled] = [c for c in fixed.accuracy.callables if c.name == "scaled"]
    assert [c.outcome for c in scaled.calls] == ["matches", "matches"]
    assert not [f for f in fixed.explain() if f.kind == "accuracy" and f.level == "problem"]
    # and the program now prints the value it meant: sin(x) * 3, half as much again as sin(x) * 2
    first, second = (ast.literal_eval(line.split(": ", 1)[1]) for line in again.stdout.splitlines()[:2])
    assert second == pytest.approx([v * 1.5 for v in first], rel=1e-5)


ODD = """
import copy
import torch


class Settings:  # an object that cannot be copied (a handle, a lock, a connection)
    scale = 2.0

    def __deepcopy__(self, memo):
        raise TypeError("Settings holds a handle and cannot be copied")


@torch.compile(backend="aot_eager")
def bump(x, settings):
    x.add_(1)  # (the call's own argument, changed in place: compared after the call)
    return x * settings.scale


torch.manual_seed(0)
norm = torch.compile(torch.nn.BatchNorm1d(4), backend="aot_eager")  # (its running statistics change in place)
a = torch.randn(3)
print("bump:", bump(a, Settings()).tolist(), a.tolist())


@torch.compile(backend="aot_eager")
def bump_plain(x):
    x.add_(1)
    return x * 2


print("plain:", bump_plain(a).tolist(), a.tolist())


def counter():
    total = torch.zeros(3)

    @torch.compile(backend="aot_eager")
    def add(x):  # (a closure's tensor changed in place: Dynamo names it L['total'], as if an argument)
        total.add_(x)
        return total.clone()

    return add


add = counter()
add(a)
print("closure:", add(a).tolist())
print("norm:", norm(torch.randn(5, 4)).sum().item(), norm.running_mean.tolist())


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 3)

    @torch.compile(backend="aot_eager")  # (a compiled method: the module comes as its first argument)
    def forward(self, x):
        return torch.relu(self.fc(x))


print("method:", Net()(a).tolist())
print("what torch.compile wrapped:", bump_plain.__wrapped__.__code__.co_name, bump_plain.__name__)
"""


def test_in_place_changes_are_compared_and_an_uncopyable_argument_is_not_checked_with_its_reason(tmp_path: Path) -> None:
    # GIVEN calls that change their argument or their module's buffers in place, and an
    # argument that refuses to be copied
    # WHEN it is run with --check-accuracy, THEN its output is its own
    _, run, session = _plain_and_checked(tmp_path, "odd", ODD)
    checks = session.accuracy
    assert checks is not None
    found = {c.name: c for c in checks.callables}
    # and the argument that cannot be copied is said, the program untouched
    [call] = found["bump"].calls
    assert call.outcome == "not checked" and "could not be copied" in (call.why or "") and "holds a handle" in (call.why or "")
    # and the argument changed in place is compared after the call, as the eager run left it
    [call] = found["bump_plain"].calls
    assert call.outcome == "matches"
    assert [v.what for v in call.compared] == ["output 0", "argument 0 after the call (changed in place)"]
    # and the module whose buffers change is run on its own copy, and matches
    assert found["BatchNorm1d"].matches
    # and a compiled method, its module an argument, is run with a copy of the module
    assert found["Net.forward"].matches
    # and a closure's tensor changed in place is not run again (it would be changed twice)
    closure = found["counter.<locals>.add"].calls
    assert [c.outcome for c in closure] == ["not checked", "not checked"]
    assert "changes L['total'] in place, not one of its arguments" in (closure[0].why or "")


HOOKED = """
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(8, 8), nn.ReLU())
model = torch.compile(net, backend="eager")


@torch.compile(backend="eager")
def step(x):
    return net(x) * 2


@torch.compile(backend="eager")
def scaled(x):
    if not torch.compiler.is_compiling():  # (left out of the compiled code, as libraries do with warnings)
        print("scaled ran eagerly")
    return x.sin() * 2


x = torch.randn(2, 8)
model(x)
step(x)
seen = []
net[0].register_forward_hook(lambda module, args, out: seen.append(out.shape))
for _ in range(3):
    model(x)
    step(x)
    scaled(x)
# torch does not guard on hooks: the compiled code never calls the hook registered after it
print(len(seen))
"""


def test_the_checks_eager_runs_call_no_late_hook_and_no_code_left_out_of_compiling(tmp_path: Path) -> None:
    # GIVEN a module and a function that calls it (a global), both compiled, and a forward hook
    # that appends to the program's list, registered after their first calls: the compiled code
    # never calls it (torch does not guard on hooks), so the program prints 0; and a function
    # that prints only where it is not compiling
    # WHEN it is run with --check-accuracy
    plain, run, session = _plain_and_checked(tmp_path, "hooked", HOOKED)
    # THEN the checks' eager runs called no hook and printed nothing: the program printed what it
    # prints without us (the eager runs take the paths Dynamo traced: is_compiling() True)
    assert plain.stdout == run.stdout == "0\n"
    # AND each function's first call was checked, the later ones not, with the hook named
    assert session.accuracy is not None
    calls = {c.name: [(call.outcome, call.why) for call in c.calls] for c in session.accuracy.callables}
    assert set(calls) == {"Sequential", "step", "scaled"}, calls
    assert calls.pop("scaled") == [("matches", None)] * 3
    for outcomes in calls.values():
        assert outcomes[0] == ("matches", None)
        assert [o for o, _ in outcomes[1:]] == ["not checked", "not checked"]
        assert all(
            (why or "").startswith("a forward hook on Sequential.0 (Linear) was registered after its first call") for _, why in outcomes[1:]
        )
    # AND the terminal says why they were not checked
    said = " ".join(run.stderr.split())
    assert (
        "Sequential (2 of its 3 calls), step (2 of its 3 calls): their calls not checked: "
        "a forward hook on Sequential.0 (Linear) was registered after its first call"
    ) in said
    assert "skip_nnmodule_hook_guards" in said


REORDERED = """
import logging

import torch

logging.basicConfig(level=logging.INFO, format="%(message)s")
log = logging.getLogger("train")
torch._dynamo.config.reorderable_logging_functions.add(print)
torch._dynamo.config.ignore_logging_functions.add(log.info)


@torch.compile(backend="eager")
def printed(x):
    print("printed, after the graph")
    return x.sin() * 2


@torch.compile(backend="eager")
def logged(x):
    log.info("left out of the compiled code")
    return x.cos() * 2


for _ in range(2):
    printed(torch.ones(4))
    logged(torch.ones(4))
"""


def test_prints_dynamo_reorders_and_logging_it_leaves_out_are_not_run_again_by_the_check(tmp_path: Path) -> None:
    # GIVEN print made reorderable (the compiled code prints after its graph) and a logger's info
    # ignored (the compiled code never logs)
    # WHEN it is run with --check-accuracy
    plain, run, session = _plain_and_checked(tmp_path, "reordered", REORDERED)
    # THEN no eager run printed or logged: the program's output is its own
    assert run.stdout == plain.stdout == "printed, after the graph\n" * 2 and plain.stderr == ""
    assert "left out of the compiled code" not in run.stderr
    # AND neither function's calls were run again, each with its reason
    assert session.accuracy is not None
    whys = {c.name: {(call.outcome, call.why) for call in c.calls} for c in session.accuracy.callables}
    [(outcome, why)] = whys["printed"]
    assert outcome == "not checked" and "Dynamo calls print or a logging function after its graph" in (why or "")
    [(outcome, why)] = whys["logged"]
    assert outcome == "not checked" and (why or "").startswith("torch._dynamo.config.ignore_logging_functions is set")


DRAWN = """
import random

import numpy as np
import torch

random.seed(0)
np.random.seed(0)


@torch.compile(backend="eager")
def noisy(x):  # (numpy traced: the compiled code draws from torch's generator, eager from numpy's)
    return x + torch.as_tensor(np.random.rand(2), dtype=torch.float32)


@torch.compile(backend="eager")
def jitter(x):  # (random.random() is a graph break before any graph)
    return x * random.random()


for _ in range(2):
    noisy(torch.ones(2))
    jitter(torch.ones(2))
print(random.random(), np.random.rand())
"""


def test_the_checks_leave_pythons_and_numpys_random_streams_as_they_were(tmp_path: Path) -> None:
    # GIVEN compiled functions that draw from numpy's and Python's random generators
    # WHEN it is run with --check-accuracy, THEN the program drew the same numbers after them
    # (its generators were put back: it printed what it prints without us)
    _, _, session = _plain_and_checked(tmp_path, "drawn", DRAWN)
    # AND the numpy draw is said to be random, not wrong; the break before any graph is a break
    assert session.accuracy is not None
    calls = {c.name: [(call.outcome, call.why or "") for call in c.calls] for c in session.accuracy.callables}
    assert [o for o, _ in calls["noisy"]] == ["not compared", "not compared"]
    assert [o for o, _ in calls["jitter"]] == ["not checked", "not checked"]
    assert all("broke into more graphs (a graph break before any graph)" in why for _, why in calls["jitter"])


STEPPED = """
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(8, 1)
opt = torch.optim.AdamW(model.parameters(), lr=1e-2)


@torch.compile(backend="eager")
def step():  # (Dynamo holds the parameters and AdamW's state in the graph, not as inputs)
    opt.step()


for _ in range(3):
    x, y = torch.randn(32, 8), torch.randn(32, 1)
    opt.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    step()
    print(round(float(model.weight.sum()), 6))
"""


def test_a_compiled_optimizer_step_is_not_applied_a_second_time_by_the_checks(tmp_path: Path) -> None:
    # GIVEN a compiled AdamW step: its graph changes the parameters and the optimizer's state in
    # place, tensors Dynamo holds in the graph rather than passing them in
    # WHEN it is run with --check-accuracy, THEN the weights after each step are the program's own
    # (neither the graph's check nor the whole call's applied the update again)
    _, _, session = _plain_and_checked(tmp_path, "stepped", STEPPED)
    # AND both say why they did not run it again
    assert session.accuracy is not None
    [graph] = [c for c in session.compiles if c.accuracy]
    [checked] = graph.accuracy
    assert [c.outcome for c in checked.calls] == ["not checked"] * 3
    assert "changes in place 8 tensors it holds itself" in (checked.calls[0].why or "")
    [callable_] = session.accuracy.callables
    assert [c.outcome for c in callable_.calls] == ["not checked"] * 3
    assert (callable_.calls[0].why or "").startswith("a graph it ran changes in place 8 tensors it holds itself")
