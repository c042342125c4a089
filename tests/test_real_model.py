"""A real model: Hugging Face BERT built from its config (random weights, no download)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

import compilescope
from compilescope.findings.rules import PROBLEM

transformers = pytest.importorskip("transformers")
pytestmark = pytest.mark.slow


def test_bert_compiled_and_explained(tmp_path: Path) -> None:
    torch.manual_seed(0)
    config = transformers.BertConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=2, intermediate_size=128, vocab_size=1000)
    model = transformers.BertModel(config).eval()
    torch._dynamo.reset()  # another test may have compiled BertModel in this process already
    ids = torch.randint(0, 1000, (2, 16))
    with torch.no_grad():
        expected = model(ids).last_hidden_state
        session = compilescope.explain(model, ids)

    assert session.program is not None and session.program.exception is None
    compiles = session.compiles
    assert compiles and all(c.status in ("ok", "graph break") for c in compiles)
    ops = [op for c in compiles for g in c.graphs for op in g.ops]
    assert "embedding" in ops and ops.count("linear") >= 2 * 6  # q, k, v, out, two MLP layers per layer
    assert len(session.kernels) >= 5
    library = [k for k in session.kernels if k.kind == "library call"]
    fused = [k for k in session.kernels if k.kind == "cpp"]
    assert library and fused
    assert any("aten.native_layer_norm" in (k.aten_ops or []) for k in fused)
    assert all(k.code for k in fused)
    assert session.total_compile_time_s and session.total_compile_time_s > 0
    inference = compiles[0].aot.inference
    assert inference is not None and "aten.embedding.default" in inference.ops
    assert not [f for f in session.explain() if f.level == PROBLEM]
    text = str(session)
    assert "compile time" in text and "cpp_fused_" in text

    # the session survives a round trip through JSON
    session.save(str(tmp_path / "bert.json"))
    assert compilescope.load(tmp_path / "bert.json").kernels == session.kernels
    # and explaining changed nothing the model computes
    with torch.no_grad():
        assert torch.equal(model(ids).last_hidden_state, expected)
