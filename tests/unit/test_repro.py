"""compilescope repro's script, from committed traces (the scripts themselves run in the e2e test)."""

from __future__ import annotations

from pathlib import Path

import pytest

from compilescope.app.repro import find_compile
from compilescope.render.repro import CannotRepro, compiled_with, graphs_to_run, repro_script
from compilescope.session.build import load_trace

TRACES = Path(__file__).resolve().parents[1] / "traces"


def test_an_inductor_compile_is_rebuilt_from_torchs_runnable_with_its_symbol_hints() -> None:
    session = load_trace(TRACES / "quickstart.log.gz")[0]
    _, c = find_compile(session, "1/2_1")
    graphs = graphs_to_run(session, c)
    assert [g.kind for g in graphs] == ["runnable"] and graphs[0].symbols == {"s77": 16}
    assert compiled_with(c).name == "inductor"
    text = repro_script(session, c, "f", "compilescope repro q.log 1/2_1 -o r.py")
    compile(text, "r.py", "exec")  # valid Python
    assert "TORCHINDUCTOR_CACHE_DIR'] =" not in text


def test_an_eager_compile_is_rebuilt_from_dynamos_graph_and_its_inputs() -> None:
    session = load_trace(TRACES / "lstm.log.gz")[0]
    _, c = find_compile(session, "0/0_1")
    (graph,) = graphs_to_run(session, c)
    assert compiled_with(c).name == "aot_eager"
    assert [i[:5] for i in graph.inputs] == [
        ("tensor", "L_self_modules_encoder_parameters_weight_", "float32", (200, 32), (32, 1)),
        ("tensor", "L_input_", "int64", (35, 4), (4, 1)),
    ]


def test_a_compile_without_a_graph_says_why() -> None:
    session = load_trace(TRACES / "gpt2_loss_logging.log.gz")[0]
    _, c = find_compile(session, "5/0")
    with pytest.raises(CannotRepro, match="made no graph"):
        graphs_to_run(session, c)


def test_a_compile_named_without_its_restart_suffix_is_found_and_its_script_rewritten(tmp_path: Path) -> None:
    from compilescope.app.repro import write_repro
    from compilescope.outputs import OutputError

    session = load_trace(TRACES / "lstm.log.gz")[0]
    # "0/0" is the one compile torch wrote as "0/0_1" (Dynamo restarted it)
    assert find_compile(session, "0/0")[1].compile_id == "0/0_1"
    out = tmp_path / "repro.py"
    said = write_repro(session, "0/0", str(out), "lstm.log.gz")
    assert said.startswith("Wrote ") and "compile 0/0_1 (RNNModel.forward)" in said
    assert "compilescope repro lstm.log.gz 0/0_1 -o" in out.read_text()
    # a second time over its own script: written again; over the user's own file: refused
    write_repro(session, "0/0_1", str(out), "lstm.log.gz")
    mine = tmp_path / "mine.py"
    mine.write_text("x = 1\n")
    with pytest.raises(OutputError, match="did not write"):
        write_repro(session, "0/0", str(mine), "lstm.log.gz")
    assert mine.read_text() == "x = 1\n"


def test_an_attention_backwards_dropout_seed_and_offset_are_found_among_its_inputs() -> None:
    # GIVEN a backward graph as torch's fx_graph_runnable writes it (GPT-2's, recorded on an H200):
    # torch's fake tensors put the seed and offset on the GPU, where eager attention keeps them on
    # the CPU, and a backward handed GPU ones crashes the process
    from compilescope.render.repro import _attention_seeds

    code = (
        "class Repro(torch.nn.Module):\n"
        "    def forward(self, primals_1, permute_2, clone, clone_1, expand_1, getitem_5, getitem_6, getitem_7, getitem_8, tangents_1):\n"
        "        permute_15 = torch.ops.aten.permute.default(tangents_1, [0, 2, 1, 3])\n"
        "        bw = torch.ops.aten._scaled_dot_product_efficient_attention_backward.default(permute_15, permute_2, clone, clone_1,"
        " expand_1, getitem_5, getitem_6, getitem_7, getitem_8, 0.1, [True, True, True, False], scale = 0.17)\n"
        "        fl = torch.ops.aten._scaled_dot_product_flash_attention_backward.default(permute_15, permute_2, clone, clone_1,"
        " getitem_5, getitem_6, None, None, 16, 16, 0.1, True, primals_1, tangents_1, scale = 0.17)\n"
        "        return (bw, fl)\n"
    )
    # THEN their positions among the graph's inputs are known, by the kind of attention
    assert _attention_seeds(code) == {"efficient": [7, 8], "flash": [0, 9]}
    assert _attention_seeds("def forward(self, x):\n    return torch.ops.aten.relu.default(x)\n") == {}
    assert _attention_seeds("not python(") == {}
