"""One clean set of outputs per process: ranks under torchrun, and the program's children.

Real torchrun with gloo on the CPU, real multiprocessing (spawn, fork, forkserver) compiling
with Inductor, real subprocesses: each process's compiles are in its own trace, and a Python
child that could not be followed is named, with why.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import compilescope
from conftest import free_port, run_cli
from test_traces_from_elsewhere import RANKS

POOLS = textwrap.dedent(
    """
    import multiprocessing as mp
    import subprocess
    import sys
    import torch

    def work(n):
        step = torch.compile(lambda x: torch.cos(x) * n)  # Inductor
        return float(step(torch.ones(8)).sum())

    if __name__ == "__main__":
        for method in ("spawn", "fork", "forkserver"):
            with mp.get_context(method).Pool(1) as pool:
                print(method, pool.map(work, [2]), flush=True)
        # Python children started by the program: one followed, two that cannot be
        subprocess.run([sys.executable, "-c", "import torch; torch.compile(lambda x: x + 1, backend='eager')(torch.ones(1)); print('sub')"], check=True)
        subprocess.run([sys.executable, "-I", "-c", "print('isolated')"], check=True)
        subprocess.run([sys.executable, "-c", "print('bare')"], env={"PATH": "/usr/bin:/bin"}, check=True)
    """
)


def test_children_are_matched_to_the_commands_that_started_them() -> None:
    from compilescope.record.children import describe

    python = sys.executable
    parent, child, via_shell, other, fork = 5_000_001, 5_000_002, 5_000_003, 5_000_004, 5_000_005  # above any pid_max
    lines = [
        {"started": {"by": parent, "how": "subprocess.Popen", "argv": [python, "-c", "pass"], "environment_kept": None, "by_torch": False}},
        {
            "child": {
                "pid": child,
                "parent_pid": parent,
                "argv": [python, "-c", "pass"],
                "how": "started",
                "trace": "/nowhere/t.pid5000002.log",
                "rank": 3,
            }
        },
        {"started": {"by": parent, "how": "os.system", "argv": ["/bin/sh", "-c", "python3 y.py --fast"], "environment_kept": None}},
        {
            "child": {
                "pid": via_shell,
                "parent_pid": parent,
                "argv": ["/usr/bin/python3", "y.py", "--fast"],
                "how": "started",
                "trace": None,
            }
        },
        {"started": {"by": parent, "how": "subprocess.Popen", "argv": ["python3", "-E", "x.py"], "environment_kept": None}},
        {"started": {"by": parent, "how": "subprocess.Popen", "argv": [python, "z.py"], "environment_kept": False}},
        {"started": {"by": parent, "how": "subprocess.Popen", "argv": ["git", "status"], "environment_kept": None}},
        {"started": {"by": parent, "how": "subprocess.Popen", "argv": [python, "-c", "probe"], "environment_kept": True, "by_torch": True}},
        {"started": {"by": parent, "how": "subprocess.Popen", "argv": ["/opt/other/bin/python3.9", "w.py"], "environment_kept": None}},
        {
            "not_followed": {
                "pid": other,
                "parent_pid": parent,
                "argv": ["/opt/other/bin/python3.9", "w.py"],
                "why": "/opt/other/bin/python3.9 cannot import compilescope (ModuleNotFoundError)",
            }
        },
        {"child": {"pid": fork, "parent_pid": child, "argv": [python, "-c", "pass"], "how": "forked", "trace": None}},
    ]
    found = {(c.pid, c.command): (c.how, c.followed, c.why_not, c.rank) for c in describe(lines)}
    name = Path(python).name
    assert found == {
        (child, f"{name} -c pass"): ("started", True, None, 3),
        (via_shell, "python3 y.py --fast"): ("started", True, None, None),
        (fork, f"fork of pid {child}"): ("forked", True, None, None),
        (other, "python3.9 w.py"): ("started", False, "/opt/other/bin/python3.9 cannot import compilescope (ModuleNotFoundError)", None),
        (None, "python3 -E x.py"): ("started", False, "python -E ignores PYTHONPATH, where compilescope's start-up hook is", None),
        (None, f"{name} z.py"): (
            "started",
            False,
            "it was given an environment of its own, without compilescope's start-up hook on PYTHONPATH",
            None,
        ),
    }


@pytest.mark.slow
def test_compiles_in_child_processes_are_each_in_their_own_trace(tmp_path: Path) -> None:
    (tmp_path / "pools.py").write_text(POOLS)
    result = run_cli("run", "pools.py", cwd=tmp_path)
    # THEN the program ran to its end, each worker computing what it computes
    assert result.returncode == 0, result.stderr[-3000:]
    value = 8 * 2 * math.cos(1.0)
    printed = [line.partition(" ") for line in result.stdout.splitlines()]
    assert [what for what, _, _ in printed] == ["spawn", "fork", "forkserver", "sub", "isolated", "bare"]
    assert all(math.isclose(json.loads(rest)[0], value, rel_tol=1e-5) for _, _, rest in printed[:3])
    session = compilescope.load(tmp_path / "compilescope-pools.json")
    assert not session.compiles  # the program's own process compiled nothing itself
    children = session.children or []
    compiled = [c for c in children if c.compiles]
    # one worker per pool (spawn, fork, forkserver), and the followed subprocess
    assert sorted(c.how for c in compiled) == ["forked", "forked", "started", "started"], [(c.command, c.compiles) for c in children]
    workers = [c for c in compiled if c.how == "forked" or c.command == "multiprocessing worker (spawn)"]
    assert len(workers) == 3 and all(c.kernels == 1 for c in workers)  # each worker's Inductor kernel
    for child in compiled:
        trace = Path(child.trace or "")
        assert trace.parent == tmp_path and trace.name == f"compilescope-pools.pid{child.pid}.log"
        own = compilescope.load(trace)
        assert own.compiles and own.compiles[0].graphs, child.command
        ops = own.compiles[0].graphs[0].ops
        assert ops in (["cos", "mul"], ["add"]), ops
    spawn_worker = next(c for c in compiled if c.command == "multiprocessing worker (spawn)")
    assert spawn_worker.trace is not None and compilescope.load(spawn_worker.trace).kernels[0].aten_ops is not None
    # the two Python children compilescope could not follow are named, with why
    missed = {c.command: c.why_not for c in children if not c.followed}
    assert missed == {
        "python3 -I -c print('isolated')".replace(
            "python3", Path(sys.executable).name
        ): "python -I ignores PYTHONPATH, where compilescope's start-up hook is",
        f"{Path(sys.executable).name} -c print('bare')": "it was given an environment of its own, without compilescope's start-up hook on PYTHONPATH",
    }, missed
    # and the user is told where the compiling happened
    assert "4 child processes compiled too: 4 compiles (the program's own process compiled nothing)" in result.stderr
    assert "2 Python child processes not followed" in result.stderr
    assert f"compilescope report compilescope-pools.pid{spawn_worker.pid}.log" in result.stderr
    assert "Nothing was compiled" not in result.stderr


def test_run_no_children_changes_nothing_in_the_environment(tmp_path: Path) -> None:
    (tmp_path / "env.py").write_text("import os\nprint(os.environ.get('PYTHONPATH'), 'COMPILESCOPE_CHILDREN' in os.environ)\n")
    followed = run_cli("run", "env.py", cwd=tmp_path, env={"PYTHONPATH": "/mine"})
    alone = run_cli("run", "--no-children", "env.py", cwd=tmp_path, env={"PYTHONPATH": "/mine"})
    assert alone.stdout == "/mine False\n"
    path, marker = followed.stdout.split()
    assert path.endswith(os.pathsep + "/mine") and "compilescope" in path and marker == "True"
    # a child of the program sees sys.path as without compilescope
    (tmp_path / "child.py").write_text(
        "import subprocess, sys\nsubprocess.run([sys.executable, '-c', 'import sys; print(sys.path[1:])'])\n"
    )
    plain = subprocess.run([sys.executable, "child.py"], cwd=tmp_path, capture_output=True, text=True)
    ours = run_cli("run", "child.py", cwd=tmp_path)
    assert ours.stdout == plain.stdout


@pytest.mark.slow
def test_each_rank_under_torchrun_writes_its_own_files(tmp_path: Path) -> None:
    # GIVEN a two-rank job (gloo on loopback) in which only rank 1 recompiles, each rank run
    # under compilescope by torchrun
    (tmp_path / "job.py").write_text(RANKS + "print('rank', rank, 'done')\n")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--nproc_per_node=2",
            f"--master_port={free_port()}",
            "--no-python",
            sys.executable,
            "-m",
            "compilescope",
            "run",
            "job.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "MASTER_ADDR": "127.0.0.1", "COLUMNS": "120"},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    # THEN each rank has its own trace, session and report, each with its own compiles only
    for rank, compiles in ((0, 1), (1, 2)):
        log = (tmp_path / f"compilescope-job.rank{rank}.log").read_bytes()
        assert b"\0" not in log
        pids = {line.split()[2] for line in log.decode().splitlines() if line.startswith("V")}
        assert len(pids) == 1, pids  # one process wrote it
        session = json.loads((tmp_path / f"compilescope-job.rank{rank}.json").read_text())
        assert session["rank"] == rank
        assert sum(len(f["compiles"]) for f in session["frames"]) == compiles
        assert (tmp_path / f"compilescope-job.rank{rank}.html").is_file()
    assert not (tmp_path / "compilescope-job.json").exists()
    assert "compilescope (rank 1): 2 compiles, 1 recompile" in result.stderr  # rank 1's one line
    assert "Every rank together: compilescope report compilescope-job.rank*.json" in result.stderr
    # and report reads them back as one job's ranks
    together = run_cli("report", "compilescope-job.rank0.json", "compilescope-job.rank1.json", cwd=tmp_path)
    assert together.returncode == 0, together.stderr
    assert "rank 0: 1 compile, 0 recompiles" in together.stdout
    assert "rank 1: 2 compiles, 1 recompile" in together.stdout
    assert "Where the ranks diverged" in together.stdout
