"""What `compilescope run` adds to a program that compiles nothing, seen from inside the program:
no Dynamo or Inductor loaded through us (a second or more of imports), no process started (the
`uname -p` that platform.platform() runs, say), and a garbage collector that sees what it sees
under python. And a program that does compile still gets everything recorded, although capture
attaches to Dynamo only once the program imports it. Real subprocesses; see docs/cli.md ("What
run costs") and benchmarks/run_overhead.py for the wall times."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from conftest import run_cli

# A program that watches, to the interpreter's exit (after compilescope has written its outputs:
# an audit hook says each event as it happens), which of torch's compiler modules get loaded and
# which processes are started.
WATCH = textwrap.dedent(
    """
    import sys

    def audit(event, args):
        if event in ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork"):
            print("WATCH started " + event, flush=True)
        elif event == "import" and args[0] in ("torch._dynamo", "torch._inductor", "torch._inductor.config"):
            print("WATCH loaded " + args[0], flush=True)

    sys.addaudithook(audit)
    """
)


def watched(stdout: str) -> dict:
    said = [line.split()[1:] for line in stdout.splitlines() if line.startswith("WATCH ")]
    return {
        "loaded": sorted({what for kind, what in said if kind == "loaded"}),
        "started": [what for kind, what in said if kind == "started"],
    }


def test_a_program_that_compiles_nothing_loads_no_dynamo_and_starts_no_process(tmp_path: Path) -> None:
    # GIVEN a program that imports torch, computes, and compiles nothing
    (tmp_path / "plain.py").write_text(WATCH + "import torch\nprint(torch.ones(3).sum().item())\n")

    # WHEN it runs under python and under compilescope run (default outputs)
    plain = subprocess.run([sys.executable, "plain.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    ours = run_cli("run", "plain.py", cwd=tmp_path, timeout=300)

    # THEN it printed the same, and saw the same, to the end of the process: no Dynamo or
    # Inductor imported, no process started, by the program or by compilescope
    assert plain.returncode == ours.returncode == 0, ours.stderr[-3000:]
    assert ours.stdout == plain.stdout
    assert watched(ours.stdout) == {"loaded": [], "started": []}
    # and the outputs are there: the session and its trace (no HTML report: nothing to show)
    for suffix in (".json", ".log"):
        assert (tmp_path / f"compilescope-plain{suffix}").is_file()
    assert not (tmp_path / "compilescope-plain.html").exists() and "No HTML report" in ours.stderr
    data = json.loads((tmp_path / "compilescope-plain.json").read_text())
    assert data["frames"] == [] and data["program"]["exit_status"] == 0
    # the C++ compiler is Inductor's to choose: not asked when Inductor was never loaded
    assert data["environment"]["torch"] and data["environment"]["compiler"] is None


def test_compilescope_objects_stay_out_of_the_programs_garbage_collections(tmp_path: Path) -> None:
    # GIVEN a program that counts the objects the garbage collector tracks when it starts
    (tmp_path / "count.py").write_text("import gc\nprint(len(gc.get_objects()))\n")
    plain = subprocess.run([sys.executable, "count.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    # WHEN it runs under compilescope
    ours = run_cli("run", "count.py", cwd=tmp_path, timeout=300)
    # THEN the collector sees no more objects than under python: compilescope's own (its
    # modules, rich's) are frozen out of it, so they add no work to the program's collections
    assert ours.returncode == 0, ours.stderr[-3000:]
    assert int(ours.stdout) <= int(plain.stdout)


def test_capture_attaches_to_dynamo_when_the_program_imports_it(tmp_path: Path) -> None:
    # GIVEN a program that compiles only after some work, through torch.compile's own import of
    # Dynamo (nothing imports it before)
    (tmp_path / "late.py").write_text(
        WATCH
        + textwrap.dedent(
            """
            import torch
            x = torch.ones(3)
            print("before", "torch._dynamo" in sys.modules)

            def step(x):
                if x.sum().item() > 0:
                    return torch.sin(x) * 2.0
                return x

            print("result", float(torch.compile(step, backend="eager")(x).sum()))
            """
        )
    )
    # WHEN it runs under compilescope
    result = run_cli("run", "late.py", cwd=tmp_path, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "before False" in result.stdout
    # THEN the compiles, their graphs, and Dynamo's code (from the bytecode hook, set when Dynamo
    # was imported) are all in the session, and the C++ compiler is named
    data = json.loads((tmp_path / "compilescope-late.json").read_text())
    step = next(frame for frame in data["frames"] if frame["name"] == "step")
    first = step["compiles"][0]
    assert first["graph_breaks"] and first["graphs"][0]["ops"] == ["sum"]
    assert "def step" in first["original_code"]["source"]
    assert first["transformed_code"]["source"]
    resume = next(frame for frame in data["frames"] if frame["name"].startswith("torch_dynamo_resume_in_step"))
    assert resume["compiles"][0]["transformed_code"]["source"]
    assert data["environment"]["compiler"]
    # and no process was started but the program's own (Inductor was not used: backend="eager")
    assert watched(result.stdout)["started"] == []
