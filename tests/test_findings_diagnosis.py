"""From symptoms to a diagnosis (issue 18): each cause once, ranked by what it cost, with where to
act in the user's code and advice that fits it.

Real programs under a real `compilescope run` (backend="eager": the findings are about Dynamo).
The program of most tests (tests/traces/programs/diagnosis.py) runs on Python 3.12, where `run` records
the calls each compiled version served, so the calls that ran uncompiled are measured too.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

import compilescope
from compilescope.findings.finding import Finding
from compilescope.findings.rules import findings
from conftest import ROOT, python312, run_cli

PROGRAMS = ROOT / "tests" / "traces" / "programs"  # (tests/unit reads the traces they were recorded into)
PROGRAM = PROGRAMS / "diagnosis.py"


@pytest.fixture(scope="module")
def diagnosed(tmp_path_factory):
    folder = tmp_path_factory.mktemp("diagnosis")
    shutil.copy(PROGRAM, folder / "diagnosis.py")
    result = run_cli("run", "diagnosis.py", cwd=folder, python=python312())
    assert result.returncode == 0, result.stderr[-3000:]
    session = compilescope.load(folder / "compilescope-diagnosis.json")
    return folder, result, session, findings(session)


def one(found: list[Finding], **facts) -> Finding:
    """The one finding with these facts (title_has: a part of its title)."""
    part = facts.pop("title_has", "")
    matching = [f for f in found if part in f.title and all(getattr(f, k) == v for k, v in facts.items())]
    assert len(matching) == 1, [(f.kind, f.title) for f in found]
    return matching[0]


def test_one_input_change_met_by_two_functions_is_one_finding(diagnosed) -> None:
    # GIVEN step() calling two compiled functions, run with sequence lengths 16, 24, 32
    _, result, session, found = diagnosed
    assert len([c for f in session.frames if f.name in ("encode", "decode") for c in f.compiles if c.recompile_reason]) == 2
    # THEN one finding says the one change, naming both functions and the line that passed it
    change = one(found, kind="recompile", title_has="dimension 1")
    assert change.title == "The size of dimension 1 changed (16 → 24): 2 recompiles of encode, decode"
    assert change.frames == ("encode", "decode")
    # (encode's own caller, the line inside step: torch's stack leaves it out; the tensor as
    # that line has it, not encode's `x`)
    assert change.where is not None and change.where.endswith("/diagnosis.py:20")
    assert "torch._dynamo.mark_dynamic(ids, 1) before `return decode(encode(ids))`" in " ".join(change.fix.split())
    assert change.cost_s is not None and change.cost_s > 0 and "compiling 2 versions" in change.cost
    assert " ".join(result.stderr.split()).count("The size of dimension 1 changed") == 1


def test_the_recompile_limit_is_said_with_its_cause_and_the_calls_it_left_uncompiled(diagnosed) -> None:
    # GIVEN limited(), compiled with dynamic=False, called with ten sizes
    _, _, session, found = diagnosed
    # THEN the refused compile belongs to `limited` (torch's record of it names no function)
    assert [f.name for f in session.frames if f.name in ("unknown", "limited")] == ["limited"]
    assert len(session.frame("limited").compiles) == 9
    # and one finding holds the cause (dimension 0 kept changing) and its effect (the limit)
    limit = one(found, kind="recompile", title_has="recompile limit")
    assert limit.level == "problem"
    assert limit.title.startswith("The size of dimension 0 changed (1 → 2 → 3 → 4 → … → 8): 7 recompiles of limited")
    assert "torch._dynamo.config.recompile_limit = 8" in limit.detail
    assert "2 calls ran without compiled code" in limit.detail  # the ninth and tenth
    assert "in 2 uncompiled calls" in limit.cost and "on the refused compile" in limit.cost
    assert "Raise torch._dynamo.config.recompile_limit (now 8)" in limit.fix
    assert "dynamic=False keeps every size static" in limit.fix
    assert not [f for f in found if f.kind in ("recompile limit", "compile failed") and "limited" in f.frames]


def test_each_cause_gets_advice_that_fits_it(diagnosed) -> None:
    _, _, _, found = diagnosed
    dtype = one(found, kind="recompile", title_has="dtype")
    assert dtype.title == "The dtype of an input changed (Float → Double): 1 recompile of cast"
    assert "(torch.ones(3, dtype=torch.float64).to(torch.float32))" in " ".join(dtype.fix.split())  # as the call has it
    constant = one(found, kind="recompile", title_has="`s` in scale")
    assert constant.title == "`s` in scale was compiled in as a constant (0.5): 1 recompile"
    assert "torch.tensor(s)" in constant.fix  # the caller's `s`: scale(torch.ones(3), s)
    backend = one(found, kind="recompile", title_has="more than one torch.compile")
    assert "BACKEND_MATCH" in backend.detail and "id=0x" not in backend.detail
    assert "Compile it once and reuse the result" in backend.fix
    assert "was made by torch.compile(backend='eager'); " in backend.detail and " by torch.compile(backend='aot_eager')" in backend.detail
    # print(float(y.mean())): one break (its two reasons on one line), and no `if` in the advice
    printed = one(found, kind="graph break", title_has="in shout")
    assert "Tensor.item()" in printed.detail and "builtin operator" in printed.detail
    assert "`if`" not in printed.fix and "printed or logged" in printed.fix
    # a failed compile keeps torch's own error, not only "when making fake tensor call"
    failed = one(found, kind="compile failed")
    assert "a and b must have same reduction dim, but got [4, 8] X [5, 3]" in failed.detail
    # torch's own break in the optimizer's step: said, with nothing to remove
    optimizer = one(found, kind="graph break", title_has="optim/optimizer.py")
    assert optimizer.level == "info" and optimizer.in_user_code is False
    assert "on purpose" in optimizer.fix and "Remove" not in optimizer.fix
    assert optimizer.where is not None and optimizer.where.endswith("/diagnosis.py:92")  # optimizer.step()


def test_findings_are_ranked_by_measured_cost(diagnosed) -> None:
    _, _, _, found = diagnosed
    measured = [f.cost_s for f in found if f.cost_s is not None]
    assert len(measured) >= 7
    assert measured == sorted(measured, reverse=True)
    first_unmeasured = next(i for i, f in enumerate(found) if f.cost_s is None)
    assert all(f.cost_s is None for f in found[first_unmeasured:])
    assert found[-1].kind == "compile time"


def _places_of(python: Path) -> dict[str, Path]:
    """Where compilescope, torch and runpy are for `python`, as the run under it imports them."""
    done = subprocess.run(
        [
            str(python),
            "-c",
            "import json, runpy, compilescope, torch; print(json.dumps([compilescope.__file__, torch.__file__, runpy.__file__]))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    package, torch_init, runpy_file = json.loads(done.stdout)
    return {"compilescope": Path(package).resolve().parent, "torch": Path(torch_init).resolve().parent, "runpy": Path(runpy_file).resolve()}


def _inside(place: str, folder: Path) -> bool:
    """Whether a place ("file", "file:line" or "file:line in fn") is `folder` or inside it."""
    head, said, function = place.rpartition(" in ")
    if said and "/" not in function:
        place = head
    return Path(re.sub(r":\d+$", "", place)).resolve().is_relative_to(folder)


def test_no_place_to_act_is_in_runpy_or_compilescope(diagnosed) -> None:
    folder, _, session, found = diagnosed
    # compilescope's package (where the run imported it from), torch's and runpy: matched by
    # where they are, not by a name in the path (a clone is often a folder named compilescope,
    # with torch in its .venv: that is not compilescope's code)
    places = _places_of(python312())
    ours = [places["compilescope"], places["runpy"]]
    # the saved trace's stacks start at the program, as under python (not at runpy, nor at
    # compilescope's run, which executed it)
    files: dict[int, str] = {}
    starts = 0
    for line in (folder / "compilescope-diagnosis.log").read_text(encoding="utf-8").splitlines():
        if '{"str": ' in line:
            name, index = json.loads(line[line.index("{") :])["str"]
            files[index] = name
        elif '{"dynamo_start": ' in line:
            starts += 1
            stack = json.loads(line[line.index("{") :])["dynamo_start"]["stack"]
            names = [files.get(entry["filename"], "?") for entry in stack]
            assert not [n for n in names if n.startswith("<frozen runpy") or any(_inside(n, place) for place in ours)], names
            assert names[0].endswith("/diagnosis.py"), names
    assert starts >= 10
    for c in session.compiles:
        for caller in c.called_from:
            assert not any(_inside(caller, place) for place in ours), caller
    for finding in found:
        if finding.where:
            assert "<frozen" not in finding.where, finding
            assert not any(_inside(finding.where, place) for place in [*ours, places["torch"]]), finding


def test_the_json_terminal_and_report_hold_the_same_findings_in_the_same_order(diagnosed) -> None:
    folder, result, session, found = diagnosed
    saved = json.loads((folder / "compilescope-diagnosis.json").read_text(encoding="utf-8"))["findings"]
    assert [f["title"] for f in saved] == [f.title for f in found]
    assert set(saved[0]) >= {"kind", "title", "detail", "fix", "where", "in_user_code", "compile_ids", "frames", "ranks", "cost_s", "cost"}
    assert saved[0]["cost_s"] == pytest.approx(found[0].cost_s)
    shown = " ".join(result.stderr.split())
    places = [shown.find(" ".join(f.title.split())) for f in found[:6]]
    assert -1 not in places and places == sorted(places)
    report = run_cli("report", "compilescope-diagnosis.json", "--html", "again.html", cwd=folder)
    assert report.returncode == 0, report.stderr
    page = (folder / "again.html").read_text(encoding="utf-8")
    places = [page.find(json.dumps(f.title, ensure_ascii=False)[1:-1].replace("<", "\\u003c")) for f in found[:6]]
    assert -1 not in places and places == sorted(places)


def test_compiling_ddp_itself_captures_nothing_and_says_what_to_compile(tmp_path: Path) -> None:
    # GIVEN torch.compile(DDP(model)) (gloo, one process): DDP's forward breaks the graph before
    # the model runs, so the model runs eagerly
    # (the program whose trace tests/unit reads too)
    shutil.copy(PROGRAMS / "ddp.py", tmp_path / "ddp.py")
    result = run_cli("run", "--no-html", "ddp.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    session = compilescope.load(tmp_path / "compilescope-ddp.json")
    assert session.compiles and not any(c.op_count for c in session.compiles)
    found = findings(session)
    # THEN the first thing said is that nothing was captured, and the fix
    first = found[0]
    assert first.kind == "captured nothing" and first.level == "problem"
    assert "the code ran eagerly" in first.title
    assert "DDP(torch.compile(model))" in first.fix
    assert first.where is not None and first.where.endswith("/ddp.py:15")
    # and the breaks inside torch's DDP point at the user's call, not at torch's lines
    ddp_break = one(found, kind="graph break", title_has="parallel/distributed.py")
    assert ddp_break.in_user_code is False and ddp_break.library and ddp_break.library.startswith("torch ")
    assert "Your code leads there from" in ddp_break.detail and ddp_break.where == first.where


def test_a_hugging_face_model_trained_with_two_lengths_gets_one_finding_per_cause(tmp_path: Path) -> None:
    # GIVEN GPT-2 (from its config, random weights) trained four steps, at lengths 16 and 24:
    # transformers' decorators, its loss and its output dataclass are compiled as functions of
    # their own, and a logger.warning_once in its loss breaks the graph in each
    pytest.importorskip("transformers")
    (tmp_path / "train.py").write_text(
        textwrap.dedent(
            """\
            import torch
            import transformers

            torch.manual_seed(0)
            config = transformers.GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=1000)
            model = transformers.GPT2LMHeadModel(config)
            optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
            step_model = torch.compile(model, backend="eager")
            for length in (16, 16, 24, 24):
                ids = torch.randint(0, 1000, (2, length))
                out = step_model(input_ids=ids, labels=ids)
                out.loss.backward()
                optimizer.step()
                optimizer.zero_grad()
            """
        )
    )
    result = run_cli("run", "--no-html", "train.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    session = compilescope.load(tmp_path / "compilescope-train.json")
    assert len(session.recompiles) >= 4 and len(session.graph_breaks) >= 4  # what torch reported
    found = findings(session)
    # THEN two causes, two findings (and the compile time)
    assert [f.kind for f in found] == ["recompile", "graph break", "compile time"], [f.title for f in found]
    lengths, logging = found[0], found[1]
    # the functions by the names users know, the wrappers said as such
    assert lengths.title.startswith("The size of dimension 1 changed (16 → 24): ")
    assert "GPT2LMHeadModel.forward" in lengths.title and "wrapper" not in lengths.title
    assert "GPT2LMHeadModel.forward (through transformers' `wrapper`)" in lengths.detail
    assert "__init__ <string>" not in lengths.title and "__init__" in lengths.title
    # where to act: the user's tensor, at the user's call
    assert "torch._dynamo.mark_dynamic(ids, 1) before `out = step_model(input_ids=ids, labels=ids)` at " in lengths.fix
    assert lengths.where is not None and lengths.where.endswith("/train.py:11")
    assert lengths.cost_s is not None and lengths.cost_s > 0
    # the break is transformers' logging: said once, with the user's line that leads there
    import transformers

    assert logging.in_user_code is False and logging.library == f"transformers {transformers.__version__}"
    assert session.environment.libraries and session.environment.libraries["transformers"] == transformers.__version__
    assert "Met while compiling 4 functions" in logging.detail
    assert "Your code leads there from " in logging.detail and logging.where == lengths.where
    assert "torch._dynamo.config.ignore_logging_functions" in logging.fix
    shown = " ".join(result.stderr.split()).split("What to look at")[1].split("Compiled functions")[0]
    assert shown.count("The size of dimension 1 changed") == 1 and shown.count("logging.Logger method") == 1


def test_a_ddp_job_under_torchrun_gets_one_finding_per_cause_across_its_ranks(tmp_path: Path) -> None:
    # GIVEN torch.compile(DDP(model)) run by torchrun on two ranks (gloo): each rank is a child
    # process of the launcher, with a trace of its own
    shutil.copy(PROGRAMS / "ddp_whole_ranks.py", tmp_path / "ddp.py")
    result = run_cli("run", "--no-html", "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2", "ddp.py", cwd=tmp_path)
    if result.returncode != 0:
        # Known, not yet mended (and older than this test): now and then, followed gloo ranks
        # die of SIGABRT as they exit, after their traces are complete ("terminate called
        # without an active exception"; 1 run in 15 here, none in 20 without compilescope).
        # Anything else is a failure.
        assert "terminate called without an active exception" in result.stderr, result.stderr[-3000:]
    saved = json.loads((tmp_path / "compilescope-run.json").read_text(encoding="utf-8"))
    ranks = sorted(c["rank"] for c in saved["children"] if c["compiles"])
    assert ranks == [0, 1]
    # THEN the launcher's explanation says each cause once, with the ranks it was seen on
    nothing = [f for f in saved["findings"] if f["kind"] == "captured nothing"]
    assert len(nothing) == 1 and nothing[0]["ranks"] == [0, 1]
    assert nothing[0]["title"] == "torch.compile captured nothing: the code ran eagerly (ranks 0, 1)"
    assert "DDP(torch.compile(model))" in nothing[0]["fix"]
    assert saved["findings"][0]["kind"] == "captured nothing"  # the costliest, first
    assert "the most of 2 (they compile at the same time)" in nothing[0]["cost"]
    shown = " ".join(result.stderr.split()).split("What to look at")[1].split("Child processes")[0]
    assert shown.count("captured nothing") == 1
    assert "--try ignore-logging" not in shown  # DDP's Logger is not Python's logging


def test_calls_that_flip_flop_between_versions_are_said_with_their_cause(tmp_path: Path) -> None:
    # GIVEN two sizes in turn, each its own static version (dynamic=False): A B A B ...
    (tmp_path / "flip.py").write_text(
        textwrap.dedent(
            """\
            import torch

            @torch.compile(backend="eager", dynamic=False)
            def f(x):
                return x * 2

            small, large = torch.ones(8), torch.ones(16)
            for _ in range(20):
                f(small)
                f(large)
            """
        )
    )
    result = run_cli("run", "--no-html", "flip.py", cwd=tmp_path, python=python312())
    assert result.returncode == 0, result.stderr[-3000:]
    session = compilescope.load(tmp_path / "compilescope-flip.json")
    assert len(session.frame("f").call_order) == 40  # the calls, in order, one version each time
    # THEN the one cause (the size) says that the calls flip-flop between its two versions
    (size,) = [f for f in findings(session) if f.kind in ("recompile", "flip-flop")]
    assert (
        size.title
        == "The size of dimension 0 changed (8 → 16): 1 recompile of f; calls flip-flop between its versions (39 switches in 40 calls)"
    )
    assert "0/0 ×1 → 0/1 ×1 → 0/0 ×1" in size.detail
