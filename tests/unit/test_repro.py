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
