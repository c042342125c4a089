"""run --check-accuracy's records read, explained and shown, from a committed trace
(tests/traces/accuracy.log.gz: tests/programs/accuracy_training.py --bug, Inductor's relu made
wrong on purpose), and records in shapes compilescope does not write. No torch."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from compilescope.cli import build_parser
from compilescope.cli.run import with_option_values
from compilescope.findings import INFO, PROBLEM
from compilescope.render.console import render_text as plain
from recorded import after_one_compile, session


def test_each_graph_checked_is_on_its_compile() -> None:
    s = session("accuracy")
    outcomes = {c.compile_id: [[call.outcome for call in g.calls] for g in c.accuracy] for c in s.compiles}
    assert outcomes == {"0/0": [["differs"] * 3], "1/0": [["not compared"]], "2/0": [["matches"]]}
    [model] = s.find_compile("0/0").accuracy
    assert model.backend == "inductor" and model.first_differs == "inductor"
    assert [(st.stage, st.matches) for st in model.stages] == [
        ("aot_eager", True),
        ("aot_eager_decomp_partition", True),
        ("inductor", False),
    ]
    # the gradients of the training step, named as the user writes the parameters
    assert model.gradients is not None
    assert [g.what for g in model.gradients] == [f"gradient of fn[{i}].{p}" for i in (0, 2) for p in ("weight", "bias")]
    assert model.minifier is not None and (model.minifier.minify or "").endswith("minify_0_0.py minify")
    assert s.accuracy is not None and (s.accuracy.calls_per_graph, s.accuracy.graphs_checked) == (3, 3)


def test_the_graph_that_differs_is_a_problem_with_its_stage_and_next_step() -> None:
    found = [f for f in session("accuracy").explain() if f.kind == "accuracy"]
    assert [(f.level, f.title) for f in found] == [(PROBLEM, "Compiled Sequential.forward (0/0) differs from eager")]
    [finding] = found
    assert (finding.where or "").endswith("accuracy_training.py:17") and finding.compile_ids == ("0/0",)
    assert "output 0 (float32 [8, 4]): largest difference" in finding.detail
    assert "aot_eager matches, aot_eager_decomp_partition matches, inductor differs" in finding.detail
    assert "Inductor's code for it" in finding.fix and 'backend="aot_eager"' in finding.fix
    assert finding.cost == "wrong results in 3 of 3 calls checked"


def test_the_terminal_says_each_graphs_check_and_the_runs() -> None:
    text = " ".join(plain(session("accuracy")).split())
    assert "Accuracy against eager: 3 graphs checked (first 3 calls of each): 1 differs, 1 matches, 1 not compared" in text
    assert "accuracy: differs from eager in 3 of 3 calls checked: output 0 (float32 [8, 4])" in text
    assert "accuracy: not compared: the graph draws random numbers" in text
    assert "accuracy: matches eager in 1 call checked" in text


def test_a_run_without_the_flag_says_nothing_of_accuracy() -> None:
    s = session("tiny")
    assert s.accuracy is None and not any(c.accuracy for c in s.compiles)
    assert "ccuracy" not in plain(s) and not [f for f in s.explain() if f.kind == "accuracy"]


def test_records_in_other_shapes_are_skipped_with_a_reason(tmp_path: Path) -> None:
    s = after_one_compile(
        tmp_path,
        {"compilescope_accuracy": {"graph": 0, "outcome": "matches"}},  # no compile id
        {"compilescope_accuracy": {"compile_id": {"frame_id": 7, "frame_compile_id": 0}, "outcome": "matches"}},
        {"compilescope_accuracy": ["not", "an object"]},
        {"compilescope_accuracy": {"compile_id": {"frame_id": 0, "frame_compile_id": 0}, "outcome": "odd", "compared": "x"}},
    )
    assert any("an accuracy check: not in the shape" in why for why in s.skipped)
    assert any("compile 7/0: the trace has no compile with that id" in why for why in s.skipped)
    [graph] = s.find_compile("0/0").accuracy
    assert [c.outcome for c in graph.calls] == ["not checked"] and graph.calls[0].compared == []


def test_all_matching_is_one_note(tmp_path: Path) -> None:
    value = {"what": "output 0", "matches": True, "shape": [2], "dtype": "float32", "max_abs": 1e-7}
    s = after_one_compile(
        tmp_path,
        {
            "compilescope_accuracy": {
                "compile_id": {"frame_id": 0, "frame_compile_id": 0},
                "call": 1,
                "outcome": "matches",
                "compared": [value],
            }
        },
    )
    found = [f for f in s.explain() if f.kind == "accuracy"]
    assert [(f.level, f.title) for f in found] == [(INFO, "No compiled graph differs from eager (1 of 1 graph checked match)")]


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (["run", "--check-accuracy", "p.py", "--check-accuracy"], ["run", "--check-accuracy=3", "p.py", "--check-accuracy"]),
        (["run", "--check-accuracy", "5", "p.py"], ["run", "--check-accuracy", "5", "p.py"]),
        (["run", "--json", "a.json", "--check-accuracy", "p.py"], ["run", "--json", "a.json", "--check-accuracy=3", "p.py"]),
        (["run", "-m", "pkg", "--check-accuracy"], ["run", "-m", "pkg", "--check-accuracy"]),
    ],
)
def test_a_bare_flag_gets_its_default_and_the_programs_arguments_are_its_own(given: list[str], expected: list[str]) -> None:
    parser = build_parser(only="run")
    assert with_option_values(parser, given) == expected
    parsed = parser.parse_args(with_option_values(parser, given))
    assert isinstance(parsed, argparse.Namespace) and parsed.check_accuracy in (3, 5, None)
