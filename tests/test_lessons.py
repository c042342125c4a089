"""The lessons of the tutorial our users follow, as this repository's lesson programs
(tests/programs/lessons: the same models, the same facts dug out of torch by hand, printed in the
same lines), captured by compilescope two ways: through `compilescope run` in a subprocess
("cli"), and in-process inside `compilescope.capture()` ("capture", as a notebook user would).
Where the tutorial's own scripts lie beside the repository (`../shared/tutorial`, on this
project's machines and in CI), each test also runs the original through `compilescope run`
("tutorial"); elsewhere that run skips, saying so.

Each lesson prints facts it dug out of torch by hand (log redirection, string splitting). The
same run is captured by compilescope, so every assertion compares what the lesson printed with
what compilescope found in that very run: nothing is hard-coded from the tutorial's printout,
whose numbers came from another machine.
"""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

import compilescope
from compilescope.session.model import Session
from conftest import LESSONS, CliRun, copy_lesson, run_lesson, tutorial

pytestmark = pytest.mark.slow


def search(pattern: str, text: str, flags: int = 0) -> re.Match[str]:
    """re.search that fails the test, showing the text, where the pattern is not found."""
    match = re.search(pattern, text, flags)
    assert match is not None, f"{pattern!r} not in:\n{text[-3000:]}"
    return match


def capture_lesson(name: str, folder: Path, capfd: pytest.CaptureFixture[str]) -> tuple[CliRun, Session]:
    """The lesson's own main(), in this process, inside compilescope.capture()."""
    script = copy_lesson(name, folder)
    capfd.readouterr()
    with compilescope.capture() as session:
        runpy.run_path(str(script), run_name="__main__")
    out, err = capfd.readouterr()
    return CliRun(0, out, err + str(session), folder), session


@pytest.fixture(params=["cli", "capture", "tutorial"])
def lesson_run(request: pytest.FixtureRequest, tmp_path: Path, capfd: pytest.CaptureFixture[str]):
    source = tutorial() if request.param == "tutorial" else LESSONS  # (skips where the tutorial is not here)

    def run(name: str) -> tuple[CliRun, Session]:
        if request.param == "capture":
            return capture_lesson(name, tmp_path, capfd)
        return run_lesson(name, tmp_path, source=source)

    return run


@pytest.fixture(params=["here", "tutorial"])
def lessons(request: pytest.FixtureRequest) -> Path:
    """Where the lesson programs come from: this repository, and the tutorial's own where it is here."""
    return tutorial() if request.param == "tutorial" else LESSONS


def printed_after(text: str, heading: str) -> list[str]:
    """The indented lines a lesson printed under a heading line."""
    lines = text.splitlines()
    start = lines.index(heading)
    block = []
    for line in lines[start + 1 :]:
        if not line.startswith(" "):
            break
        block.append(line.strip())
    return block


# ---- lesson 3: the first call pays for compiling; a warm cache pays less -----------------------


def test_first_call_cold_then_warm_cache(tmp_path: Path, lessons: Path) -> None:
    # GIVEN a compile cache of its own, empty
    env = {"TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "cache")}
    # WHEN the lesson runs twice
    cold_run, cold = run_lesson("first_call.py", tmp_path, env, source=lessons)
    warm_run, warm = run_lesson("first_call.py", tmp_path, env, source=lessons)

    # THEN each run compiled forward once, on the first call
    for run, session in ((cold_run, cold), (warm_run, warm)):
        assert [f.name for f in session.frames] == ["forward"]
        (compile_,) = session.frames[0].compiles
        assert compile_.status == "ok"
        first_call = float(search(r"call 1: ([\d.]+) s", run.stdout).group(1))
        assert 0 < compile_.compile_time_s <= first_call
        assert "compile time" in run.stderr
    # the first run compiled from scratch, the second loaded from the cache, and was faster
    assert cold.compiles[0].cache.fx_graph_misses == 1 and cold.compiles[0].cache.fx_graph_hits == 0
    assert warm.compiles[0].cache.fx_graph_hits == 1
    print(f"first_call.py compiled in {cold.compiles[0].compile_time_s:.2f} s cold, {warm.compiles[0].compile_time_s:.2f} s warm")
    assert warm.compiles[0].compile_time_s < cold.compiles[0].compile_time_s


# ---- lesson 4: graphs, ops, nodes, the guard on x, how many guards ------------------------------


def test_see_graph(lesson_run) -> None:
    run, session = lesson_run("see_graph.py")
    printed = dict(re.findall(r"^(graphs|graph breaks|operations):\s+(\d+)$", run.stdout, re.M))
    # torch._dynamo.explain's compile comes first in the run
    explained = session.frames[0].compiles[0]
    assert len(explained.graphs) == int(printed["graphs"])
    assert len(explained.graph_breaks) == int(printed["graph breaks"])
    assert explained.op_count == int(printed["operations"]) == len(explained.graphs[0].ops)
    assert explained.graphs[0].ops == ["linear", "add", "relu"]

    lesson_nodes = [tuple(line.split()) for line in printed_after(run.stdout, "The graph, one line for each step:")]
    assert [(n.op, n.name) for n in explained.graphs[0].nodes] == lesson_nodes

    (lesson_guard,) = printed_after(run.stdout, "The guard on our input x:")
    eager = session.frames[0].compiles[1]  # torch.compile(net, backend="eager")
    guard_on_x = next(g for g in eager.guards if g.kind == "TENSOR_MATCH" and g.source == "L['x']")
    assert guard_on_x.text == lesson_guard
    assert guard_on_x.size == [8, 64] and guard_on_x.stride == [64, 1]
    assert guard_on_x.dtype == "float32" and guard_on_x.requires_grad is False
    assert "x is a float32 tensor of size [8, 64], stride [64, 1]" in guard_on_x.plain

    lesson_count = int(search(r"Guards in all: (\d+)", run.stdout).group(1))
    assert sum(1 for g in eager.guards if g.kind.endswith("_MATCH")) == lesson_count


# ---- lesson 5: which call compiled again, and why ------------------------------------------------


def test_recompile(lesson_run) -> None:
    run, session = lesson_run("recompile.py")
    # torch's own log line, printed by the lesson through set_logs(recompiles=True)
    torch_says = search(r"- (\d+/0: tensor 'x' .*)$", run.stderr, re.M).group(1).strip()
    forward = session.frame("forward")
    first, second = forward.compiles
    assert first.recompile_reason is None
    assert second.recompile_reason == [torch_says]
    (failed,) = second.failed_guards
    assert (failed.previous_compile, failed.subject, failed.what) == (first.compile_id, "x", "size mismatch at index 0")
    assert (failed.expected, failed.actual) == ("8", "16")
    # the terminal says it too
    assert forward.known_as == "TinyNet.forward"  # the name the lesson's reader knows
    assert "The size of dimension 0 changed (8 → 16): 1 recompile of TinyNet.forward" in run.stderr
    assert "expected 8, actual 16" in run.stderr

    # 8, 16 and 32 rows: two compiles, the second dynamic in dim 0, so 32 reuses it
    assert "32 rows, first time" in run.stdout
    assert len(session.compiles) == 2
    assert second.compile_id == first.compile_id.replace("/0", "/1")
    dynamic = session.compiles[1].dynamic
    symbol = next(d for d in dynamic if d.kind == "symbol")
    assert symbol.source == "L['x'].size()[0]" and symbol.value == "16"
    assert any(d.kind == "automatic dynamic" and d.value == "8 -> 16" for d in dynamic)
    x_guard = next(g for g in session.compiles[1].guards if g.source == "L['x']" and g.kind == "TENSOR_MATCH")
    assert x_guard.size == [None, 64]


# ---- lesson 6: forward and backward ATen graphs; the inference graph ---------------------------


def test_train_graphs_match_what_the_backend_saw(lesson_run) -> None:
    run, session = lesson_run("train_graphs.py")
    training, inference = run.stdout.split("--- inference")
    forward = printed_after(training, "FORWARD graph:")
    backward = printed_after(training, "BACKWARD graph:")
    inference_ops = printed_after(inference, "FORWARD graph:")

    first, second = session.frame("forward").compiles
    assert first.aot.forward.ops == forward
    assert first.aot.backward.ops == backward
    assert first.aot.inference is None
    assert second.aot.inference.ops == inference_ops
    assert "grad_mode" in second.recompile_reason[0]


# ---- lesson 7: the kernels Inductor wrote, what they came from, library calls ------------------


def test_see_kernels(lesson_run) -> None:
    run, session = lesson_run("see_kernels.py")
    written = re.findall(r"a kernel it wrote: (\w+)", run.stdout)
    library = re.findall(r"a library call:\s+(\w+)", run.stdout)
    made_from = re.findall(r"made from: \[([^\]]*)\]", run.stdout)
    bias_then_relu, matmul_then_relu = session.frames

    (fused,) = bias_then_relu.compiles[0].kernels
    assert fused.name == written[0] == "cpp_fused_add_relu_0"
    assert fused.kind == "cpp" and fused.aten_ops == ["aten.add", "aten.relu"]
    assert 'extern "C"' in fused.code

    kernels = {k.name: k for k in matmul_then_relu.compiles[0].kernels}
    assert written[1] in kernels and kernels[written[1]].kind == "cpp"
    assert library == ["mm"]
    assert kernels["mm"].kind == "library call"
    assert kernels["mm"].aten_ops == [op.strip() for op in made_from[0].split(",")]
    assert "cpp_fused_add_relu_0" in run.stderr  # the terminal lists the kernels


# ---- lesson 8: a graph break from .item(), its reason and line; where; fullgraph ----------------


def test_graph_break(lesson_run, tmp_path: Path) -> None:
    run, session = lesson_run("graph_break.py")
    why = search(r"why: (.*)$", run.stdout, re.M).group(1)
    with_if = session.frames[0]
    brk = with_if.compiles[0].graph_breaks[0]
    assert brk.reason == why
    source = (tmp_path / "graph_break.py").read_text().splitlines()
    assert brk.lineno == 1 + next(i for i, line in enumerate(source) if ".item()" in line)
    assert brk.code == "if x.sum().item() > 0:"
    assert brk.filename.endswith("graph_break.py") and brk.function == "forward"
    assert brk.resume_function == f"torch_dynamo_resume_in_forward_at_{brk.lineno}"
    assert session.frame(brk.resume_function).resumes == f"forward line {brk.lineno}"

    # WithWhere: one graph and no break, as the lesson printed
    printed = search(r"WithWhere\n  graphs: (\d+)  breaks: (\d+)", run.stdout)
    with_where = next(f for f in session.frames if f.name == "forward" and f.lineno != with_if.lineno)
    assert len(with_where.compiles[0].graphs) == int(printed.group(1)) == 1
    assert len(with_where.compiles[0].graph_breaks) == int(printed.group(2)) == 0

    # fullgraph=True on WithIf stopped with the error the lesson caught
    stopped = search(r"WithIf stopped with (\w+)", run.stdout).group(1)
    failed = [c for c in with_if.compiles if c.status == "failed"]
    assert failed and failed[-1].failure.startswith(f"{stopped}:")
    assert "Graph break in WithIf.forward at" in run.stderr and "torch.where" in run.stderr
