"""run --check-accuracy's whole-call check read, explained and shown, from a committed trace
(tests/traces/accuracy_guards.log.gz: tests/programs/accuracy_guards.py, a global changed while
compiled code runs without its guards checked), and its records in shapes compilescope does not
write. No torch."""

from __future__ import annotations

from pathlib import Path

from compilescope.findings import PROBLEM
from compilescope.render.console import render_text as plain
from compilescope.session.jsonio import dumps, loads
from recorded import after_one_compile, session


def test_each_compiled_function_has_its_whole_calls() -> None:
    checks = session("accuracy_guards").accuracy
    assert checks is not None and checks.callables_unavailable is None
    found = {c.name: c for c in checks.callables}
    assert sorted(found) == ["Sequential", "broken", "noted", "scaled"]
    # the global changed under skip_guard_eval_unsafe: the second call differs, its graph matched
    scaled = found["scaled"]
    assert [(c.call, c.outcome, c.cause, c.guards_skipped) for c in scaled.calls] == [
        (1, "matches", None, False),
        (2, "differs", "dynamo", True),
    ]
    wrong = scaled.calls[1]
    assert wrong.compiles == ["0/0"] and (wrong.called_at or "").endswith("accuracy_guards.py:38")
    [value] = wrong.compared
    assert (value.what, value.shape, value.matches) == ("output 0", [4], False) and (value.max_rel or 0) > 0.3
    # torch's own nn.Sequential: named by its class, placed where the program compiled it
    assert found["Sequential"].matches and (found["Sequential"].compiled_at or "").endswith("accuracy_guards.py:33")
    # a graph break and a replayed side effect: not run a second time, with the reason
    assert [c.outcome for c in found["broken"].calls] == ["not checked"]
    assert "broke into more graphs" in (found["broken"].calls[0].why or "")
    assert "side effects" in (found["noted"].calls[0].why or "")


def test_a_call_wrong_in_dynamos_capture_is_a_problem_at_the_users_line() -> None:
    found = [f for f in session("accuracy_guards").explain() if f.kind == "accuracy"]
    assert [(f.level, f.title) for f in found] == [(PROBLEM, "Compiled scaled differs from its own Python run eagerly: Dynamo's capture")]
    [finding] = found
    # where to act: the call made under the stance, not the function's definition
    assert (finding.where or "").endswith("accuracy_guards.py:38") and finding.compile_ids == ("0/0",)
    assert "it matches eager on that same call" in finding.detail
    assert "skip_guard_eval_unsafe=True" in finding.detail and "skip_guard_eval_unsafe=True out of" in finding.fix
    assert finding.cost == "wrong results in 1 of 2 calls checked"
    assert "minify" not in finding.fix  # (the graph matches: torch's minifier has nothing to shrink)


def test_the_terminal_says_the_whole_calls_checked() -> None:
    text = " ".join(plain(session("accuracy_guards")).split())
    assert (
        "whole calls against their Python run eagerly: 4 functions checked: 1 differs (1 in Dynamo's capture), 1 matches, 2 not checked"
        in text
    )
    assert "Compiled scaled differs from its own Python run eagerly: Dynamo's capture" in text
    # and why the calls not run a second time were not, each function's reason after the counts
    assert "; broken: its calls not checked: it broke into more graphs" in text
    assert "; noted: its calls not checked: Dynamo replays Python side effects" in text


def test_calls_not_checked_for_one_reason_are_said_together() -> None:
    from compilescope.findings.accuracy_calls import whole_calls_said
    from compilescope.session.accuracy import CompiledCallable, WholeCall

    s = session("accuracy_guards")
    assert s.accuracy is not None
    late = "a forward hook on Net.0 (Linear) was registered after its first call"
    s.accuracy.callables = [
        CompiledCallable(
            "Net", calls=[WholeCall(1, "matches"), WholeCall(2, "not checked", why=late), WholeCall(3, "not checked", why=late)]
        ),
        CompiledCallable("step", calls=[WholeCall(1, "not checked", why=late)]),
        CompiledCallable("f", calls=[WholeCall(1, "not checked", why="it broke into more graphs")]),
    ]
    said = whole_calls_said(s) or ""
    assert said.endswith(
        f"3 functions checked: 1 matches, 2 not checked; Net (2 of its 3 calls), step: their calls not checked: {late}; "
        "f: its calls not checked: it broke into more graphs"
    ), said


def test_the_whole_calls_survive_the_sessions_json() -> None:
    s = session("accuracy_guards")
    again = loads(dumps(s))
    assert again.accuracy is not None and s.accuracy is not None and again.accuracy.callables == s.accuracy.callables


def test_a_call_whose_stage_is_not_known_says_so_and_odd_records_are_read_safely(tmp_path: Path) -> None:
    wrong = {"what": "output 0", "matches": False, "shape": [2], "dtype": "float32", "max_abs": 0.5, "judged": "not within"}
    s = after_one_compile(
        tmp_path,
        # a program that ended before the checks' end record: the calls are still there
        {
            "compilescope_accuracy_call": {
                "callable": "f",
                "call": 1,
                "outcome": "differs",
                "compared": [wrong],
                "compile_ids": [{"frame_id": 0}],
            }
        },
        {"compilescope_accuracy_call": {"callable": "g", "outcome": "odd", "cause": "gremlins", "compared": "x", "compile_ids": "y"}},
    )
    assert s.accuracy is not None
    f, g = s.accuracy.callables
    assert (f.calls[0].outcome, f.calls[0].cause) == ("differs", None)
    assert (g.calls[0].outcome, g.calls[0].cause, g.calls[0].compared, g.calls[0].compiles) == ("not checked", None, [], [])
    [finding] = [x for x in s.explain() if x.kind == "accuracy"]
    assert finding.title == "Compiled f differs from its own Python run eagerly"
    assert "so neither is the stage" in finding.detail and "--check-accuracy=N" in finding.fix
