"""The Python API: capture(), explain(), load(), and a Session's JSON, in-process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

import compilescope
from compilescope.session.jsonio import loads


class TinyNet(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(16, 16)

    def forward(self, x):
        return torch.relu(self.layer(x) + 1.0)


def test_explain_a_module_with_aot_eager() -> None:
    session = compilescope.explain(TinyNet(), torch.randn(4, 16), backend="aot_eager")
    (frame,) = session.frames
    assert frame.name == "forward" and frame.filename == __file__
    (compile_,) = frame.compiles
    assert compile_.status == "ok"
    assert compile_.graphs[0].ops == ["linear", "add", "relu"]
    # a training-mode call: AOT Autograd made a forward and a backward graph
    assert compile_.aot.forward is not None and compile_.aot.backward is not None
    assert "aten.addmm.default" in compile_.aot.forward.ops
    assert "aten.threshold_backward.default" in compile_.aot.backward.ops
    x_guard = next(g for g in compile_.guards if g.source == "L['x']" and g.kind == "TENSOR_MATCH")
    assert x_guard.size == [4, 16]
    assert session.environment.torch == torch.__version__
    assert session.program is not None and session.program.kind == "function" and session.program.target == "TinyNet"


def test_capture_block_sees_recompiles_and_prints() -> None:
    def scale(x, factor):
        return x * factor

    compiled = torch.compile(scale, backend="eager")
    with compilescope.capture() as session:
        compiled(torch.ones(2), 2)
        compiled(torch.ones(2), 3)  # an int argument is specialized: this recompiles
    first, second = session.frame("scale").compiles
    assert first.compile_id.endswith("/0") and second.compile_id.endswith("/1")
    assert second.recompile_reason and "factor" in second.recompile_reason[0]
    text = str(session)
    assert "`factor` in scale was compiled in as a constant (2): 1 recompile" in text and "why compiled again" in text
    assert repr(session).startswith("<compilescope.Session 1 frames, 2 compiles")


def test_explain_records_fullgraph_failure_instead_of_raising() -> None:
    def with_item(x):
        if x.sum().item() > 0:
            return x * 2
        return x

    session = compilescope.explain(with_item, torch.ones(3), backend="eager", fullgraph=True)
    (compile_,) = session.frame("with_item").compiles
    assert compile_.status == "failed"
    assert compile_.failure is not None and compile_.failure.startswith(("Unsupported:", "UserError:"))
    assert session.program is not None and session.program.exception is not None
    assert session.program.exception.split(":")[0] in ("Unsupported", "UserError")
    assert f"Compiling with_item failed ({compile_.compile_id}) at " in str(session)


def test_session_json_round_trip_and_schema_names(tmp_path: Path) -> None:
    session = compilescope.explain(TinyNet(), torch.randn(2, 16), backend="eager")
    path = tmp_path / "s.json"
    session.save(str(path))
    data = json.loads(path.read_text())
    # the names other tools may rely on (docs/schema.md)
    assert data["schema"] == "compilescope/1"
    assert {"python", "torch", "device"} <= set(data["environment"])
    frame = data["frames"][0]
    assert {"name", "filename", "lineno", "compiles"} <= set(frame)
    compile_ = frame["compiles"][0]
    assert {"compile_id", "status", "recompile_reason", "graph_breaks", "graphs", "guards", "aot", "kernels", "compile_time_s"} <= set(
        compile_
    )
    assert {"source", "kind", "text"} <= set(compile_["guards"][0])
    assert {"forward", "backward", "inference"} <= set(compile_["aot"])
    loaded = compilescope.load(path)
    assert loaded == loads(path.read_text())
    assert loaded.frames[0].compiles[0].graphs[0].ops == session.frames[0].compiles[0].graphs[0].ops
    assert str(loaded) == str(session)


def test_load_rejects_other_schema(tmp_path: Path) -> None:
    path = tmp_path / "future.json"
    path.write_text('{"schema": "compilescope/9", "frames": []}')
    with pytest.raises(ValueError, match="compilescope/9"):
        compilescope.load(path)


def test_rendering_shows_user_strings_literally() -> None:
    # rich markup in a user's name must not be interpreted (nor crash rendering)
    from compilescope.session.model import Compile, Frame, GraphBreak, Session

    brk = GraphBreak(reason="[bold red]boom[/] <script>alert(1)</script>", filename="/x/[link=evil].py", lineno=3, code="y = f('[/]')")
    session = Session(
        frames=[
            Frame(
                name="f[/]oo",
                filename="/x/[link=evil].py",
                lineno=1,
                compiles=[Compile(compile_id="0/0", status="graph break", graph_breaks=[brk])],
            )
        ]
    )
    text = str(session)
    assert "[bold red]boom[/] <script>alert(1)</script>" in text
    assert "f[/]oo" in text and "y = f('[/]')" in text


def test_explain_compiles_again_what_the_process_compiled_before() -> None:
    # GIVEN a module class explained once already in this process (a notebook cell run twice)
    class Again(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = torch.nn.Linear(4, 4)

        def forward(self, x):
            return self.linear(x).relu()

    x = torch.ones(2, 4)
    first = compilescope.explain(Again(), x, backend="eager")
    # WHEN it is explained again, on a new instance
    second = compilescope.explain(Again(), x, backend="eager")
    # THEN it was compiled again, with the same graph, and no recompile of explain()'s making
    assert len(first.compiles) == len(second.compiles) == 1
    assert first.compiles[0].graphs[0].ops == second.compiles[0].graphs[0].ops
    assert second.compiles[0].recompile_reason is None
    assert not [f for f in second.explain() if f.kind == "recompile"]


def test_a_value_carried_over_a_break_is_said_with_the_break() -> None:
    # GIVEN the README's quickstart pattern: an `.item()` decides an `if`, and its value differs per call
    def gate(x):
        y = torch.relu(x)
        if y.mean().item() > 0.5:
            y = y * 0.5
        return torch.tanh(y)

    compiled = torch.compile(gate, backend="eager")
    with compilescope.capture() as session:
        for shift in (1.0, 2.0, 3.0):
            compiled(torch.ones(8) * shift)
    # THEN the code after the break was compiled again for the value (torch's guard on `___stack0`)
    (resume,) = [f for f in session.frames if f.is_resume]
    assert any(g.subject == "___stack0" for c in resume.compiles for g in c.failed_guards)
    # AND the break's finding says it, in the user's words; no finding names Dynamo's variable
    text = str(session)
    advice = " ".join(text.split("Compiled functions")[0].split())  # (the facts below quote torch's guard as it is)
    assert "What to look at" in advice and "___stack" not in advice, advice
    assert "The value this line computed reaches the code after it as a Python number" in advice
    assert "Removing the break removes these recompiles too." in advice


def test_a_hook_that_fails_inside_a_compile_says_what_and_where() -> None:
    # GIVEN compilescope's code-reading hook, called as Dynamo calls it, with a transformed code it
    # cannot read (it must not raise into torch's compile)
    from compilescope.record.generated import GeneratedCodeRecorder

    def forward(x):
        return x + 1

    recorder = GeneratedCodeRecorder()
    for _ in range(2):
        recorder._on_new_code(forward.__code__, None)  # type: ignore[arg-type]  # it returns nothing: Dynamo keeps its code
    # THEN its record says what failed, for which version, the error and where, once, and how often
    facts = recorder.facts()
    assert facts["failed"] == 2
    first, total = facts["failures"]
    assert first.startswith("reading Dynamo's code back for unknown (forward) failed: AttributeError: ")
    assert "(generated.py:" in first and "in _on_new_code)" in first
    assert total == "reading Dynamo's code back failed 2 times in all"


def test_check_in_a_test_as_docs_cli_shows_it() -> None:
    # GIVEN a model compiled as docs/cli.md's pytest example compiles it, with one size change
    # (a class of its own: TinyNet's forward is compiled with other backends by other tests)
    class Checked(TinyNet):
        def forward(self, x):
            return torch.relu(self.layer(x))

    model = torch.compile(Checked(), backend="eager")
    with compilescope.capture() as session:
        for batch in (8, 8, 16):
            model(torch.randn(batch, 16))
    # THEN within its limits the check is an empty list; past them, one sentence per violation
    assert compilescope.check(session, max_graph_breaks=0, max_recompiles=1) == []
    (said,) = compilescope.check(session, max_recompiles=0)
    assert said.startswith("1 recompile, more than the 0 allowed (the first: ") and "expected 8, actual 16" in said
