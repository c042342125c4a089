"""Inductor's graphs before and after its groups of passes (session/passes.py,
session/records/passes.py, render/sections/passes.py), on traces of real runs.

tests/traces/passes.log.gz is tests/traces/programs/passes.py (tests/traces/record passes): a
function whose joint graph loses the alias `x[:, :]` made, and whose post-grad graph has
`mm + mm` made into an `mm` and an `addmm` by Inductor's pattern matcher.
"""

from __future__ import annotations

import json
from pathlib import Path

from compilescope.render.html import report_data
from compilescope.session import jsonio
from compilescope.session.build import build_from_lines
from compilescope.session.passes import OpChange, side_by_side
from recorded import cli, flat, portable, record_bytes, session


def _stages(name: str) -> list[tuple[str, str | None, str | None, list[OpChange] | None]]:
    return [
        (s.stage, s.before and s.before.record, s.after and s.after.record, s.changes) for c in session(name).compiles for s in c.passes
    ]


def test_each_stages_graphs_and_the_ops_its_passes_changed() -> None:
    # GIVEN a run where Inductor's passes rewrote the graph
    # THEN each group of passes has its graph before and after, from torch's own records, and
    # the ops counted differently after it: the joint passes dropped an alias, the post-grad
    # pattern made `mm + mm` one mm and an addmm
    assert _stages("passes") == [
        ("pre-grad", "before_pre_grad_graph", "after_pre_grad_graph", []),
        ("joint", "before_joint_graph", "after_joint_graph", [OpChange("aten.alias.default", 1, 0)]),
        (
            "post-grad",
            "before_post_grad_graph",
            "inductor_post_grad_graph",
            [OpChange("aten.add.Tensor", 1, 0), OpChange("aten.mm.default", 2, 1), OpChange("aten.addmm.default", 0, 1)],
        ),
    ]
    (pre_grad, _, post_grad) = session("passes").compiles[0].passes
    assert pre_grad.before is not None and pre_grad.before.ops == ["getitem", "mm", "mm", "add"]  # torch's functions, pre-grad
    assert (post_grad.lines_removed, post_grad.lines_added) == (3, 2)


def test_report_show_passes_says_what_changed_and_the_lines(capsys) -> None:
    status, out, _ = cli(capsys, "report", str(portable("passes.log.gz")), "--show", "passes")
    text = flat(out)
    assert status == 0
    assert "pre-grad: 4 ops before and after, the same ops" in text
    assert "joint: 4 ops → 3: aten.alias.default −1" in text
    assert "post-grad: 3 ops → 2: aten.add.Tensor −1, aten.mm.default −1, aten.addmm.default +1" in text
    # the lines it changed, without FX's "x = None" tails; and that torch names no pattern
    assert '+ addmm_default: "f32[8, 16][16, 1]cpu" = torch.ops.aten.addmm.default(mm, arg2_1, arg' in text
    assert '- add: "f32[8, 16][16, 1]cpu" = torch.ops.aten.add.Tensor(mm, mm_1) ' in text
    assert "torch's trace names no pattern its passes matched" in text


def test_a_stage_not_in_the_trace_is_said_never_guessed(capsys) -> None:
    # a trace with none of these records (its graphs from the caches of an earlier run)
    _, out, _ = cli(capsys, "report", str(portable("causal.log.gz")), "--show", "passes")
    assert "not in this trace (torch 2.13.0+cpu): no graph of Inductor's passes for this compile" in flat(out)
    # a graph the caches had: torch wrote the post-grad graph alone, and its passes did not run
    _, out, _ = cli(capsys, "report", str(portable("cache_keys-warm.log.gz")), "--show", "passes")
    assert "post-grad: 4 ops after its passes; the graph before them: the AOT Autograd cache had this graph" in flat(out)
    # a training graph: the joint graph before the partition, and torch prints none after
    assert _stages("lstm")[0] == ("joint", "aot_joint_graph", None, None)
    _, out, _ = cli(capsys, "report", str(portable("lstm.log.gz")), "--show", "passes")
    assert "joint: 4 ops before its passes; the graph after them: torch prints none for a training graph" in flat(out)


def _record(kind: str, payload: str | None, artifact: bool = True) -> bytes:
    ids = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0}
    head = {"artifact": {"name": kind, "encoding": "string"}, **ids} if artifact else {kind: {}, **ids}
    return record_bytes(head, None if payload is None else payload.encode())


def test_older_torchs_records_and_a_malformed_one() -> None:
    # GIVEN an older torch's records of their own name (the graph before the pre-grad passes,
    # the post-grad graph), and an artifact with no graph in it
    start = record_bytes(
        {"dynamo_start": {"stack": [{"line": 7, "name": "f", "filename": "/u/app.py"}]}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0}
    )
    pre = _record("inductor_pre_grad_graph", "def forward(self, L_x_):\n    relu = torch.relu(L_x_)\n    return (relu,)", artifact=False)
    post = _record("inductor_post_grad_graph", 'relu: "f32[4]" = torch.ops.aten.relu.default(arg0_1)', artifact=False)
    empty = _record("before_post_grad_graph", "  ")
    lines = [line + "\n" for part in (start, pre, post, empty) for line in part.decode().splitlines()]
    built = build_from_lines(lines, "t.log").session
    # THEN each is read as the stage it is, the empty one skipped and said
    (c,) = built.compiles
    assert [(s.stage, s.before and s.before.ops, s.after and s.after.ops) for s in c.passes] == [
        ("pre-grad", ["relu"], None),
        ("post-grad", None, ["aten.relu.default"]),
    ]
    assert built.skipped == ["line 8: 'before_post_grad_graph' has no graph: left unknown"]


def test_the_json_and_the_pages_side_by_side_rows(tmp_path: Path) -> None:
    # the session's JSON keeps each stage whole, and reads back the same
    saved = jsonio.save(session("passes"), tmp_path / "s.json")
    data = json.loads(saved.read_text())
    post_grad = data["frames"][0]["compiles"][0]["passes"][2]
    assert post_grad["stage"] == "post-grad" and post_grad["changes"][2] == {"op": "aten.addmm.default", "before": 0, "after": 1}
    assert jsonio.loads(saved.read_text()).compiles[0].passes == session("passes").compiles[0].passes
    # the page's rows: the two graphs aligned, each changed row marked
    _, blocks = report_data(session("passes"))
    details = next(json.loads(b) for b in blocks if '"passes"' in b and '"stages"' in b)
    rows = details["passes"]["stages"][2]["rows"]
    assert [how for _, _, how in rows].count("same") == len(rows) - 3
    assert [how for _, _, how in rows if how != "same"] == ["changed", "changed", "removed"]


def test_side_by_side_aligns_what_is_the_same() -> None:
    rows, cut = side_by_side("a\nb\nc\nd", "a\nB\nc\nd\ne")
    assert rows == [("a", "a", "same"), ("b", "B", "changed"), ("c", "c", "same"), ("d", "d", "same"), (None, "e", "added")]
    assert not cut
    assert side_by_side("a\nb\nc", "a", limit=2) == ([("a", "a", "same"), ("b", None, "removed")], True)
