"""The Session built from real traces (tests/traces/, recorded by tests/traces/record): the
facts torch wrote, put where a reader looks for them."""

from __future__ import annotations

import json

import pytest

from compilescope.session.benchmarks import Benchmark, Profile
from compilescope.session.jsonio import SessionFormatError, loads
from recorded import TRACES, fresh, session


def test_frames_versions_and_statuses_of_the_quickstart() -> None:
    s = session("quickstart")
    forward, resume = s.frames
    # the name users know, and the code after the graph break under the function it continues
    assert forward.label == "Block.forward" and forward.qualname == "Block.forward"
    assert resume.is_resume and resume.resumes == "forward line 18" and resume.label == "forward (after line 18)"
    assert [(c.compile_id, c.status) for c in forward.compiles] == [("0/0_1", "graph break"), ("0/1_1", "graph break")]
    assert [(c.compile_id, c.status) for c in resume.compiles] == [("1/0", "ok"), ("1/1", "ok"), ("1/2_1", "ok")]
    # a recompile's reason, as expected and actual
    (guard,) = forward.compiles[1].failed_guards
    assert (guard.subject, guard.what, guard.expected, guard.actual) == ("x", "size mismatch at index 0", "8", "16")


def test_kernels_name_the_aten_ops_they_fused() -> None:
    first = session("quickstart").frames[0].compiles[0]
    assert {k.name: k.aten_ops for k in first.kernels} == {
        "cpp_fused_add_mean_relu_0": ["aten.add", "aten.mean", "aten.relu"],
        "addmm": ["aten.t", "aten.addmm"],
    }
    assert first.aot is not None and first.aot.inference is not None and first.aot.forward is None
    assert "cpp_fused_add_mean_relu_0" in (first.inductor_code or "")


def test_guards_in_plain_words_and_the_dimension_made_dynamic() -> None:
    forward = session("quickstart").frames[0]
    static, dynamic = forward.compiles
    assert "x is a float32 tensor of size [8, 32], stride [32, 1], requires_grad=False" in [g.plain for g in static.guards]
    assert "x is a float32 tensor of size [any, 32], stride [32, 1], requires_grad=False" in [g.plain for g in dynamic.guards]
    (symbol,) = [d for d in dynamic.dynamic if d.kind == "symbol"]
    assert symbol.source == "L['x'].size()[0]"


def test_a_guards_place_torch_shortened_is_the_functions_own_file() -> None:
    # torch writes guard places relative to its own folder's parent; where the compiled
    # function's file ends with that text, the session holds the full path
    resume = session("quickstart").frames[1]
    (guard,) = resume.compiles[1].failed_guards
    assert guard.subject == "___stack0" and guard.user_code == "if x.mean().item() > 0.5:"
    assert guard.filename == resume.filename and guard.filename.endswith("/tests/traces/programs/quickstart.py")
    assert guard.lineno == 18


def test_the_recompile_limits_refusal_belongs_to_its_function() -> None:
    limited = session("diagnosis").frame("limited")
    *versions, refused = limited.compiles
    assert len(versions) == 8 and refused.compile_id == "3/8" and refused.status == "failed"
    assert refused.failure == "Unsupported: Dynamo recompile limit exceeded"
    assert any("torch._dynamo.config.recompile_limit" in hint for hint in refused.failure_hints)
    assert limited.calls_without_compiled_code is not None and limited.calls_without_compiled_code.calls == 2


def test_calls_per_version_and_their_order_recorded_on_python_312() -> None:
    norm = session("flipflop").frame("norm")
    assert [c.calls.calls for c in norm.compiles if c.calls] == [20, 20]
    assert norm.call_order is not None and len(norm.call_order) == 40 and not norm.call_order_cut
    assert session("flipflop").calls_recorded.startswith("sys.monitoring (Python 3.12)")


def test_a_failed_compile_keeps_the_real_error_and_the_users_line() -> None:
    (failed,) = session("diagnosis").frame("matmul").compiles
    assert failed.status == "failed"
    assert failed.failure.startswith("TorchRuntimeError: ") and "a and b must have same reduction dim" in failed.failure
    assert failed.failure_filename.endswith("programs/diagnosis.py") and failed.failure_lineno == 66


def test_hook_failures_recorded_in_the_trace_are_said(tmp_path) -> None:
    # the code hook's record, as record/hook_failures.py writes it when the hook failed
    text = (TRACES / "tiny-profiled.json").read_text()
    data = json.loads(text)
    data["capture_problems"] = ["reading Dynamo's code back for 0/0 (add_one) failed: AttributeError: x (generated.py:81 in _on_new_code)"]
    s = loads(json.dumps(data))
    (said,) = [f for f in s.explain() if f.kind == "recording failed"]
    assert said.title == "compilescope could not record everything for this run"
    assert "0/0 (add_one) failed: AttributeError" in said.detail and "ran and compiled as usual" in said.fix


def test_a_benchmark_saved_before_its_profile_was_one_object_still_loads() -> None:
    old = json.loads((TRACES / "tiny-profiled.json").read_text())
    old["benchmarks"] = [
        {
            "config": "inductor/default/inference", "backend": "inductor", "mode": "default", "training": False,
            "eager_ms": 0.02, "compiled_ms": 0.03,
            "kernels": [{"name": "cpp_fused_add_0", "kind": "cpp", "calls": 10, "total_us": 4.0, "share": 1.0, "where": "cpu"}],
            "profiled_calls": 10, "compiled_regions": {"0/0": 10}, "profile_notes": [],
        },
        {"config": "eager/default/inference", "backend": "eager", "mode": "default", "training": False, "kernels": [], "profile_error": None},
    ]  # fmt: skip
    profiled, plain = loads(json.dumps(old)).benchmarks
    assert isinstance(profiled, Benchmark) and isinstance(profiled.profile, Profile)
    assert profiled.profile.config == "inductor/default/inference" and profiled.profile.profiled_calls == 10
    assert [k.name for k in profiled.profile.kernels] == ["cpp_fused_add_0"] and profiled.profile.compiled_regions == {"0/0": 10}
    assert plain.profile is None  # nothing was profiled: no empty profile made up


def test_a_status_the_model_does_not_know_is_refused_by_path() -> None:
    data = json.loads((TRACES / "tiny-profiled.json").read_text())
    data["frames"][0]["compiles"][0]["status"] = "great"
    with pytest.raises(
        SessionFormatError, match=r'frames\[0\]\.compiles\[0\]\.status: expected one of "ok", "graph break", .* got "great"'
    ):
        loads(json.dumps(data))


def test_a_saved_session_loads_back_the_same() -> None:
    s = fresh("diagnosis")
    again = loads(s.to_json())
    assert again == s and str(again) == str(s)
