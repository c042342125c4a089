"""The record kinds a Session is built from, and which part of session/records/ reads each: one
table (kinds.KINDS) of the families' handlers, each kind read by one family, and a record of any
other kind passed over without a guess."""

from __future__ import annotations

import json

import pytest

from compilescope.session import jsonio
from compilescope.session.build import build_from_lines
from compilescope.session.records.kinds import FAMILIES, KINDS, merged
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
    "inductor_provenance_tracking_kernel_stack_traces",
    "inductor_collective_schedule",
    "optimize_ddp_split_child",
    "compilation_metrics",
    "compilation_metrics_runtime",
    "bwd_compilation_metrics",
    "chromium_event",
    "torch_version",
}
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


def test_a_record_of_a_kind_not_read_is_passed_over() -> None:
    # GIVEN a trace of one compile, and the same trace with a record of a kind nobody reads
    start = _line("dynamo_start", {"stack": [{"line": 7, "name": "f", "filename": "/u/app.py"}]})
    metrics = _line("compilation_metrics", {"graph_op_count": 2})
    plain = build_from_lines([start, metrics], "t.log").session
    unread = build_from_lines([start, metrics, _line("a_kind_from_a_newer_torch", {"x": 1})], "t.log").session
    # THEN nothing is learned from it, and nothing is said to be skipped
    assert "a_kind_from_a_newer_torch" not in KINDS
    assert unread.skipped == []
    assert jsonio.dumps(unread) == jsonio.dumps(plain)
