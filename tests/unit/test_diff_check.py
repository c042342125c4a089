"""`compilescope diff` and `compilescope check` on committed traces, called in process: the two
ranks of a real DDP job where rank 1 alone recompiled (tests/traces/ranks/ddp), and the real
run of tests/traces/programs/diagnosis.py (graph breaks, recompiles)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import compilescope
from compilescope.cli import main
from recorded import TRACES, cli, rewritten

DDP = TRACES / "ranks" / "ddp"
RANK0, RANK1 = sorted(str(p) for p in DDP.iterdir())
DIAGNOSIS = str(TRACES / "diagnosis.log.gz")


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_diff_of_two_ranks_names_the_recompile_and_its_guard(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, out, err = cli(capsys, "diff", str(DDP), str(DDP), "--rank", "0", "--against-rank", "1", "--json", "d.json", "--html", "d.html")
    assert status == 0, err
    shown = " ".join(out.split())
    assert f"compilescope diff · {DDP} rank 0 → {DDP} rank 1" in shown
    assert "recompiles 0 1 +1" in shown  # the runs side by side
    assert "recompiles: 0 → 1 + inner 0/1: tensor 'args[0]' size mismatch at index 0. expected 8, actual 12" in shown
    assert "compiles: 1 → 2 + 0/1 inner (ok)" in shown
    assert "dynamic-shape decisions: 0 → 2 + inner 0/1: automatic dynamic for L['args'][0] dim 0 = 8 -> 12" in shown
    data = json.loads((tmp_path / "d.json").read_text(encoding="utf-8"))
    assert data["schema"] == "compilescope/diff/1"
    assert data["recompiles"] == {
        "added": ["inner 0/1: tensor 'args[0]' size mismatch at index 0. expected 8, actual 12"],
        "removed": [],
        "before": 0,
        "after": 1,
    }
    assert data["graph_breaks"] == {"added": [], "removed": [], "before": 0, "after": 0}
    assert [f["what"] for f in data["compile_time"]][:1] == ["compile time, in all"]
    page = (tmp_path / "d.html").read_text(encoding="utf-8")
    assert "+ inner 0/1: tensor &#x27;args[0]&#x27; size mismatch at index 0. expected 8, actual 12" in page
    assert "<script" not in page


def test_a_run_against_itself_changed_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = cli(capsys, "diff", DIAGNOSIS, DIAGNOSIS)
    assert status == 0
    assert "Nothing changed in what torch.compile did" in out
    changes = compilescope.diff(DIAGNOSIS, DIAGNOSIS)
    assert changes.nothing_changed and all(not a.added and not a.removed for a in changes.aspects)


def test_diff_says_which_rank_to_compare_when_one_side_has_many(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = cli(capsys, "diff", str(DDP), RANK0)
    assert status == 2
    assert f"{DDP} holds 2 ranks (0, 1) and the other side one: say which with --rank N" in err
    status, _, err = cli(capsys, "diff", str(DDP), str(DDP), "--rank", "7")
    assert status == 2 and f"no trace of rank 7 in {DDP} (it holds 0, 1)" in err


def test_diff_of_two_folders_goes_rank_by_rank(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = cli(capsys, "diff", str(DDP), str(DDP))
    assert status == 0
    shown = " ".join(out.split())
    assert shown.count("Nothing changed in what torch.compile did") == 2
    assert f"{DDP} rank 0 → {DDP} rank 0" in shown and f"{DDP} rank 1 → {DDP} rank 1" in shown


def test_check_exit_status_and_violations(capsys: pytest.CaptureFixture[str]) -> None:
    # within its limits: 0
    status, out, _ = cli(capsys, "check", RANK0, "--max-recompiles", "0", "--max-graph-breaks", "0")
    assert status == 0 and out.startswith("compilescope check: passed (at most 0 graph breaks (places), at most 0 recompiles)")
    # past them: 1, each violation in a line, naming the rank of a job
    status, out, _ = cli(capsys, "check", str(DDP), "--max-recompiles", "0")
    assert status == 1
    assert out.splitlines()[1] == (
        "  ✖ rank 1: 1 recompile, more than the 0 allowed (the first: 0/1: tensor 'args[0]' size mismatch at index 0. expected 8, actual 12)"
    )
    status, out, _ = cli(capsys, "check", str(DDP), "--max-compile-s", "0.01")
    assert status == 1 and out.count("compile time") == 2  # both ranks, each in its line
    # nothing new against a baseline: rank 1 has a recompile rank 0 did not
    status, out, _ = cli(capsys, "check", RANK1, "--baseline", RANK0)
    assert status == 1 and "1 new recompile compared with the baseline: inner 0/1: tensor 'args[0]'" in out
    assert cli(capsys, "check", RANK0, "--baseline", RANK1)[0] == 0  # fewer is not new
    # the Python API, for a test
    assert compilescope.check(RANK0, max_recompiles=0) == []
    assert compilescope.check(RANK1, baseline=RANK0) == [
        "1 new recompile compared with the baseline: inner 0/1: tensor 'args[0]' size mismatch at index 0. expected 8, actual 12"
    ]


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["check", "nothing.json", "--max-recompiles", "0"], "compilescope check: no such file or folder: nothing.json"),
        (
            ["check", DIAGNOSIS],
            "compilescope check: nothing to check: give --max-graph-breaks, --max-recompiles, --max-compile-s or --baseline",
        ),
        (["diff", DIAGNOSIS, "missing.log"], "compilescope diff: no such file or folder: missing.log"),
    ],
)
def test_bad_input_is_one_line_and_status_2(capsys: pytest.CaptureFixture[str], argv: list[str], said: str) -> None:
    status, _, err = cli(capsys, *argv)
    assert status == 2
    assert err.strip() == said


def test_check_refuses_a_negative_limit(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["check", DIAGNOSIS, "--max-graph-breaks", "-1"])
    assert exited.value.code == 2
    assert "argument --max-graph-breaks: must be 0 or more: -1" in capsys.readouterr().err


def test_two_torch_versions_of_one_program(capsys: pytest.CaptureFixture[str]) -> None:
    # tests/traces/programs/quickstart.py run by `compilescope run --trace` under torch 2.13.0 (CPU
    # build, Python 3.11) and 2.14.1 (the CUDA build, on the CPU), each with an empty Inductor cache
    versions = TRACES / "versions"
    status, out, _ = cli(capsys, "diff", str(versions / "quickstart-torch-2.13.0.log.gz"), str(versions / "quickstart-torch-2.14.1.log.gz"))
    assert status == 0
    shown = " ".join(out.split())
    assert "torch 2.13.0+cpu → 2.14.1+cu130" in shown
    # the same compiles, breaks, recompiles, guards and kernels in both: only the times moved
    changes = compilescope.diff(versions / "quickstart-torch-2.13.0.log.gz", versions / "quickstart-torch-2.14.1.log.gz")
    assert all(not a.added and not a.removed for a in changes.aspects)
    assert changes.aspect("kernels").before == changes.aspect("kernels").after == 7
    stages = {f.what: (f.before, f.after) for f in changes.compile_time}
    assert set(stages) >= {"compile time, in all", "Dynamo (tracing Python)", "AOT Autograd", "C++/Triton compiler"}
    assert all(before and after for before, after in stages.values())
    for what, (before, after) in stages.items():
        assert f"{what}: {before:.2f} s → {after:.2f} s" in shown


def test_per_call_times_and_bench_figures_before_and_after(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # GIVEN the real run of tiny.py (300 calls recorded on Python 3.12), and the same run as if
    # each call had taken twice as long and as if bench had measured it (figures set by hand:
    # what diff does with them is the point)
    from compilescope.session.benchmarks import Benchmark
    from recorded import fresh

    before, after = fresh("tiny"), fresh("tiny")
    calls = after.frames[0].compiles[0].calls
    assert calls is not None and calls.median_us is not None
    calls.median_us *= 2
    before.benchmarks = [Benchmark("inductor/default/inference", "inductor", "default", False, eager_ms=2.0, compiled_ms=1.0, speedup=2.0)]
    after.benchmarks = [Benchmark("inductor/default/inference", "inductor", "default", False, eager_ms=2.0, compiled_ms=1.6, speedup=1.25)]
    before.save(str(tmp_path / "before.json"))
    after.save(str(tmp_path / "after.json"))
    # WHEN they are compared
    status, out, _ = cli(capsys, "diff", "before.json", "after.json", "--json", "d.json")
    assert status == 0
    # THEN the median per call and the bench figures are given before and after, the changes marked
    shown = " ".join(out.split())
    median = before.frames[0].compiles[0].calls.median_us
    assert f"▲ add_one: median per call: {median:.1f} µs → {2 * median:.1f} µs (+100%)" in shown
    assert "inductor/default/inference: eager: 2.0 ms → 2.0 ms (+0%)" in shown
    assert "▲ inductor/default/inference: compiled: 1.0 ms → 1.6 ms (+60%)" in shown
    assert "▲ inductor/default/inference: speedup: 2.00× → 1.25× (-38%)" in shown
    data = json.loads((tmp_path / "d.json").read_text(encoding="utf-8"))
    speedup = next(f for f in data["bench"] if f["what"].endswith("speedup"))
    assert speedup == {
        "what": "inductor/default/inference: speedup",
        "before": 2.0,
        "after": 1.25,
        "change": -0.75,
        "unit": "×",
        "notable": True,
    }


QUICKSTART = TRACES / "quickstart.log.gz"


def _counts_said(text: str) -> dict[str, str]:
    """The quickstart's counts as a view says them: the figure next to each count's words."""
    import re

    shown = " ".join(text.split())
    found = {}
    for words in ("functions compiled", "compiles", "recompiles", "graph breaks (places)", "graph break occurrences"):
        table = re.search(rf"(?:^|\s){re.escape(words)} (\d+) (\d+)", shown)  # a row of the table: before, after
        if table:
            assert table.group(1) == table.group(2), shown
            found[words] = table.group(1)
    return found


def test_one_vocabulary_of_counts_in_the_run_try_diff_check_json_and_html(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # GIVEN the real run of quickstart.py: Block.forward and the code after its graph break (2
    # functions), 5 compiles (3 recompiles), one break at line 18 met by 2 compiles
    from compilescope.render.compare import comparison
    from compilescope.render.console import render_text
    from compilescope.render.html import report_data
    from compilescope.render.terminal import console_for, printable
    from recorded import session

    run = session("quickstart")
    # WHEN each view says its counts
    said = " ".join(render_text(run, width=100).split())
    # THEN the run says each in its words
    assert "2 functions compiled (1 of them the code after a graph break) · 5 compiles (3 recompiles)" in said
    assert "1 graph break (place), 2 graph break occurrences" in said
    # and --try's table and diff's table give the same figures by the same words
    import io

    stream = io.StringIO()
    console_for(stream).print(printable(comparison(run, run, ["capture_scalar_outputs"])))
    expected = {"functions compiled": "2", "compiles": "5", "recompiles": "3", "graph breaks (places)": "1", "graph break occurrences": "2"}
    assert _counts_said(stream.getvalue()) == expected
    status, out, _ = cli(capsys, "diff", str(QUICKSTART), str(QUICKSTART))
    assert status == 0 and _counts_said(out) == expected
    # check counts the same: one place, met twice
    status, out, _ = cli(capsys, "check", str(QUICKSTART), "--max-graph-breaks", "0")
    assert status == 1
    assert "✖ 1 graph break (place) (2 graph break occurrences), more than the 0 allowed" in out
    # the session's JSON and the HTML report carry the same counts and words
    run.save(str(tmp_path / "q.json"))
    counts = json.loads((tmp_path / "q.json").read_text(encoding="utf-8"))["counts"]
    assert {k: counts[k] for k in ("functions", "compiles", "recompiles", "graph_break_places", "graph_break_occurrences")} == {
        "functions": 2,
        "compiles": 5,
        "recompiles": 3,
        "graph_break_places": 1,
        "graph_break_occurrences": 2,
    }
    page, _ = report_data(run)
    assert page["counts"] == counts
    assert page["count_words"]["graph_break_places"] == ["graph break (place)", "graph breaks (places)"]
    assert page["count_words"]["graph_break_occurrences"][1] == "graph break occurrences"
    assert page["count_words"]["functions"][1] == "functions compiled"
    assert compilescope.load(tmp_path / "q.json").frames  # (the derived key does not stop it loading)


def _reworded(tmp_path: Path, old: str, new: str) -> Path:
    """A copy of the quickstart's trace with torch's reason for its break worded anew (as another
    torch version words it), each payload's checksum made to match, as torch writes it."""
    path = tmp_path / "reworded.log"
    path.write_text(rewritten(QUICKSTART, lambda text: text.replace(old, new)), encoding="utf-8")
    return path


def test_check_baseline_matches_a_break_by_its_place_not_by_torchs_words(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # GIVEN the quickstart's run, and the same run with torch's reason for its break worded anew
    old = "Unsupported Tensor.item() call with capture_scalar_outputs=False"
    reworded = _reworded(tmp_path, old, "Tensor.item() is not traced (capture_scalar_outputs is off)")
    again = compilescope.load(reworded)
    assert not again.skipped
    assert {b.reason for b in again.graph_breaks} == {"Tensor.item() is not traced (capture_scalar_outputs is off)"}
    # WHEN it is checked against the first run
    status, out, _ = cli(capsys, "check", str(reworded), "--baseline", str(QUICKSTART))
    # THEN the break at the same place (quickstart.py:18, in forward) is not new
    assert status == 0, out
    assert out.startswith("compilescope check: passed (nothing new since")
    # and diff matches it too, saying only that torch worded it anew
    changes = compilescope.diff(QUICKSTART, reworded)
    assert all(not a.added and not a.removed for a in changes.aspects)
    assert changes.reworded_breaks == [
        f"forward at programs/quickstart.py (`if x.mean().item() > 0.5:`): {old} → Tensor.item() is not traced (capture_scalar_outputs is off)"
    ]
    status, out, _ = cli(capsys, "diff", str(QUICKSTART), str(reworded))
    assert "~ forward at programs/quickstart.py (`if x.mean().item() > 0.5:`): " + old in " ".join(out.split())
    # and a run without that break, against a run with it, names the break by its place
    status, out, _ = cli(capsys, "check", str(QUICKSTART), "--baseline", str(TRACES / "tiny.log.gz"))
    assert status == 1
    assert "1 new graph break (place) compared with the baseline: " + old + " at programs/quickstart.py:18" in " ".join(out.split())
