"""The record kinds a Session is built from, and which part of session/records/ reads each: one
table (kinds.KINDS) of the families' handlers, each kind read by one family; the kinds torch
writes that none reads passed over by design (kinds.PASSED_OVER); a record of any other kind
passed over without a guess, but counted and said."""

from __future__ import annotations

import ast
import importlib.util
import json
from pathlib import Path

import pytest

from compilescope.session import jsonio
from compilescope.session.build import build_from_lines, load_trace
from compilescope.session.records.kinds import FAMILIES, KINDS, PASSED_OVER, merged
from compilescope.trace import ours

# torch's records (docs: DESIGN.md, "Where facts come from") and compilescope's own (trace/ours.py)
TORCH_KINDS = {
    "dynamo_start",
    "dynamo_output_graph",
    "dynamo_cpp_guards_str",
    "dynamo_graph_break_reason",
    "recompile_reasons",
    "create_symbol",
    "create_unbacked_symbol",
    "symbolic_shape_specialization",
    "guard_added_fast",
    "aot_forward_graph",
    "aot_backward_graph",
    "aot_inference_graph",
    "inductor_output_code",
    "fx_graph_runnable",
    "inductor_provenance_tracking_kernel_stack_traces",
    "inductor_collective_schedule",
    "optimize_ddp_split_child",
    "compilation_metrics",
    "compilation_metrics_runtime",
    "bwd_compilation_metrics",
    "chromium_event",
    "torch_version",
    "aot_joint_graph",
    "inductor_pre_grad_graph",
    "inductor_post_grad_graph",
    *(f"{side}_{stage}_graph" for side in ("before", "after") for stage in ("pre_grad", "joint", "post_grad")),
    *(f"{cache}_cache_{outcome}" for cache in ("fx_graph", "aotautograd") for outcome in ("hit", "miss", "bypass")),
}
TRACES = Path(__file__).resolve().parents[1] / "traces"
OUR_KINDS = {value for name, value in vars(ours).items() if name.endswith("_RECORD")}


def test_each_record_kind_is_read_by_one_family() -> None:
    # GIVEN the record kinds each family's module reads
    claimed: dict[str, list[str]] = {}
    for family, handlers in FAMILIES.items():
        for kind in handlers:
            claimed.setdefault(kind, []).append(family)
    # THEN none is read by two, and the one table holds them all
    assert {kind: families for kind, families in claimed.items() if len(families) > 1} == {}
    assert set(KINDS) == set(claimed)


def test_a_kind_two_families_claim_is_refused() -> None:
    def handler(state, record) -> None:
        pass

    with pytest.raises(ValueError, match="'dynamo_start' is read by two families: dynamo and other"):
        merged({"dynamo": {"dynamo_start": handler}, "other": {"dynamo_start": handler}})


def test_torchs_records_and_compilescopes_own_are_read() -> None:
    assert set(KINDS) == TORCH_KINDS | OUR_KINDS


def _line(kind: str, facts: object) -> str:
    return f"V1129 11:28:36.564000 1900 torch/_dynamo/x.py:1] {json.dumps({kind: facts, 'frame_id': 0, 'frame_compile_id': 0, 'attempt': 0})}\n"


def test_a_record_of_a_kind_not_known_is_counted_and_said() -> None:
    # GIVEN a trace of one compile, and the same trace with records of kinds nobody reads
    start = _line("dynamo_start", {"stack": [{"line": 7, "name": "f", "filename": "/u/app.py"}]})
    metrics = _line("compilation_metrics", {"graph_op_count": 2})
    plain = build_from_lines([start, metrics], "t.log").session
    newer = _line("a_kind_from_a_newer_torch", {"x": 1})
    unread = build_from_lines([start, metrics, newer, newer, _line("describe_tensor", {"id": 0})], "t.log").session
    # THEN nothing is learned from them; the kind torch writes today and compilescope passes over
    # by design is not said, the unknown one is, with how many records
    assert "a_kind_from_a_newer_torch" not in KINDS and "describe_tensor" in PASSED_OVER
    assert unread.skipped == [
        "2 records of a kind this compilescope does not know, passed over unread (a newer torch's?): 'a_kind_from_a_newer_torch' (2)"
    ]
    unread.skipped = []
    assert jsonio.dumps(unread) == jsonio.dumps(plain)


def test_kinds_past_the_hundredth_are_counted_together() -> None:
    start = _line("dynamo_start", {"stack": [{"line": 7, "name": "f", "filename": "/u/app.py"}]})
    lines = [start] + [_line(f"kind_{i:03}", {}) for i in range(150)]
    (said,) = build_from_lines(lines, "t.log").session.skipped
    assert said.startswith("150 records of 101 kinds this compilescope does not know")
    assert "'(other kinds)' (50)" in said and said.endswith(", and 91 more kinds")


def test_an_artifact_of_any_name_is_passed_over_without_a_word() -> None:
    start = _line("dynamo_start", {"stack": [{"line": 7, "name": "f", "filename": "/u/app.py"}]})
    artifact = _line("artifact", {"name": "an_artifact_torch_names_later", "encoding": "string"})
    assert build_from_lines([start, artifact], "t.log").session.skipped == []


def test_no_committed_trace_holds_a_kind_not_known() -> None:
    # torch 2.13's records, in every trace the tests read: each kind is read or passed over by
    # design, so no report of them says "does not know"
    for path in sorted(TRACES.rglob("*.log*")):
        for session in load_trace(path):
            assert not [s for s in session.skipped if "does not know" in s], path


def test_every_kind_torchs_source_names_is_read_or_passed_over() -> None:
    # torch's own source (read, not imported: the unit tier never imports torch) names the kinds
    # it writes as the first argument of trace_structured and dtrace_structured
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("torch is not installed here: its source cannot be read")
    root = Path(next(iter(spec.submodule_search_locations)))
    named = set()
    for path in root.rglob("*.py"):
        text = path.read_text(encoding="utf-8", errors="replace")
        if "trace_structured(" not in text:
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
                if name in ("trace_structured", "dtrace_structured") and isinstance(node.args[0].value, str):
                    named.add(node.args[0].value)
    assert len(named) > 20, named
    assert named - set(KINDS) - set(PASSED_OVER) == set()
