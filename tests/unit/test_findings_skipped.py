"""Graph breaks costed by what they leave without torch.compile, torch's hints that name a setting
offered as `--try` fixes, and fixes offered only where they can remove the break (issue 40, items
3 and 4). Traces recorded from tests/traces/programs/ (lstm.py, quickstart.py, scalar_branch.py)."""

from __future__ import annotations

import io

from compilescope.findings.skipped import hinted_fixes
from compilescope.render.compare import print_comparison
from compilescope.session.model import CallTimes
from recorded import flat, found, fresh, one, session


def test_an_unresumable_break_says_the_rest_of_the_function_runs_eagerly() -> None:
    # GIVEN an LSTM model compiled whole: Dynamo cannot trace nn.LSTM and skips the rest of forward
    items = found("lstm")
    brk = one(items, kind="graph break")
    # THEN the finding says, in plain words, what runs without torch.compile and what is compiled
    assert brk.title == "Graph break in RNNModel.forward at programs/lstm.py:23: the rest of RNNModel.forward runs without torch.compile"
    assert (
        "the rest of RNNModel.forward from line 23 (self.rnn, self.drop, self.decoder, decoded.view, F.log_softmax) "
        "runs without torch.compile on every call; only the code before it (2 ops: embedding, dropout) is compiled." in flat(brk.detail)
    )
    # and its cost is that work on every call, estimated from the recorded code and said so
    assert brk.cost_s is None and brk.recurs
    assert brk.cost == (
        "the work after the break, on every call: estimated from the code of RNNModel.forward as the run recorded it: "
        "5 of the 7 calls in RNNModel.forward come from the break's line on (not timed: run times it on Python 3.12+, and with --profile)"
    )
    assert brk.level == "problem"  # most of the function's calls are left eager


def test_work_left_eager_on_every_call_ranks_before_a_one_off_recompile() -> None:
    items = found("lstm")
    recompile = one(items, kind="recompile")
    assert recompile.cost_s is not None and recompile.cost_s > 0  # measured, 230 ms of compiling
    assert items[0].kind == "graph break" and items.index(recompile) == 1


def test_torchs_hint_naming_a_setting_is_offered_as_a_try() -> None:
    brk = one(found("lstm"), kind="graph break")
    assert "Set torch._dynamo.config.allow_rnn=True" in brk.fix  # torch's own hint, verbatim
    assert brk.try_fixes == ("config.allow_rnn=True",)
    assert brk.try_command == "compilescope run --try config.allow_rnn=True lstm.py"


def test_hints_are_read_as_the_fixes_run_try_sets() -> None:
    assert hinted_fixes(["Set torch._dynamo.config.allow_rnn=True to enable experimental support"]) == ["config.allow_rnn=True"]
    assert hinted_fixes(["Set `torch._dynamo.config.capture_scalar_outputs = True` or `export X=1`"]) == ["capture_scalar_outputs"]
    assert hinted_fixes(["Use `torch.cond` to express dynamic control flow."]) == []


def test_where_calls_were_timed_the_cost_is_their_time() -> None:
    # GIVEN the LSTM session with the calls each version served, as run records them on Python
    # 3.12 (this trace was recorded on 3.11: the calls are set here, as the recorder writes them)
    lstm = fresh("lstm")
    for version, calls, ms in zip(lstm.frames[0].compiles, (7, 1), (41.5, 4.5), strict=True):
        version.calls = CallTimes(calls=calls, total_ms=ms)
    brk = one(lstm.explain(), kind="graph break")
    # THEN the cost is their time, said as measured, with what it includes
    assert brk.cost_s is not None and abs(brk.cost_s - 0.046) < 1e-9
    assert brk.cost.startswith(
        "46 ms in 8 calls that ran the rest of RNNModel.forward without torch.compile, on every call "
        "(measured: each call's whole host time, the compiled part before the break included)"
    )
    assert brk.cost_line() == f"Cost: 46 ms ({brk.cost})"


def test_a_resumable_break_keeps_its_compile_cost() -> None:
    brk = one(found("quickstart"), kind="graph break")
    assert not brk.recurs and "runs without torch.compile" not in brk.title
    assert brk.cost.endswith("compiling 3 extra versions (the functions and the code after it, compiled separately)")


def test_a_scalar_deciding_an_if_is_not_offered_capture_scalar_outputs() -> None:
    # GIVEN quickstart's `if x.mean().item() > 0.5:`
    brk = one(found("quickstart"), kind="graph break")
    # THEN capturing the scalar is not offered, and the fix says why and what can work instead
    assert brk.try_fixes == () and brk.try_command is None
    assert "capture_scalar_outputs = True" not in brk.fix  # (torch's hint to do it is left out)
    text = flat(brk.fix)
    assert "decides the `if` on the same line" in text and "cannot remove this break" in text
    assert "torch then breaks on the data-dependent branch instead" in text
    # and the `if` written with torch.where, at the lines it replaces
    assert "replace lines 18-19 with\n    x = torch.where(x.mean() > 0.5, x * 0.5, x)\n" in brk.fix
    assert "torch.cond(pred, true_fn, false_fn, operands)" in text


def test_a_scalar_that_decides_a_later_if_is_found_in_the_code_after_it() -> None:
    items = found("scalar_branch")
    best = one(items, kind="graph break", title_has="keep_best")
    assert best.try_fixes == ()
    assert "decides `loss < best` after it" in flat(best.fix)
    assert "torch.where(cond, a, b) for a value" in flat(best.fix)  # no one-assignment `if` to rewrite
    # while a scalar only multiplied is still offered the capture, which removes its break
    scaled = one(items, kind="graph break", title_has="scaled")
    assert scaled.try_fixes == ("capture_scalar_outputs",)
    assert "capture_scalar_outputs = True" in scaled.fix


def test_a_try_runs_new_findings_carry_their_explanation_and_fix() -> None:
    # GIVEN scalar_branch.py as it is and with capture_scalar_outputs (recorded with --apply-fix)
    before, after = session("scalar_branch"), session("scalar_branch-capture")
    assert after.fixes is not None
    stream = io.StringIO()
    print_comparison(before, after, ["capture_scalar_outputs"], stream=stream)
    shown = stream.getvalue()
    new = shown.split("New with the fix:", 1)[1]
    # THEN the break the fix moved to the `if` is new, shown whole: torch's reason, cost, fix
    assert "Graph break in keep_best at programs/scalar_branch.py:10" in new
    assert "Data-dependent branching" in new and "Cost:" in new
    assert "→ Control flow that depends on a tensor's values cannot be traced; torch.where or torch.cond" in flat(new)
    # and the breaks it removed are gone
    gone = flat(shown.split("Gone with the fix:", 1)[1].split("New with the fix:", 1)[0])
    assert "✓ Graph break in keep_best at programs/scalar_branch.py:9" in gone and "✓ Graph break in scaled" in gone


def _break(code: str, lines: list[str], at: int, reason: str = "Unsupported Tensor.item() call with capture_scalar_outputs=False"):
    """A break as the session holds it: torch's line, and the source lines around it (from line 10)."""
    from compilescope.session.model import GraphBreak

    return GraphBreak(reason=reason, code=code.strip(), lineno=at, context=lines, context_start=10)


def test_the_torch_where_rewrite_is_given_only_where_it_computes_the_same() -> None:
    from compilescope.findings.skipped import scalar_decides_branch, where_rewrite

    # an `if` with an `else` assigning the same name: both sides become torch.where's
    lines = [
        "    def f(x):",
        "        if x.sum().item() > 0:",
        "            y = x + 1",
        "        else:",
        "            y = x - 1",
        "        return y",
    ]
    brk = _break(lines[1], lines, 11)
    rewrite = where_rewrite(brk)
    assert rewrite is not None and (rewrite.first, rewrite.last) == (11, 14)
    assert rewrite.code == "        y = torch.where(x.sum() > 0, x + 1, x - 1)"
    # where the lines the trace has stop before the `if` ends, it may go on (an `else` beyond
    # them): no rewrite, unless the version's recorded code shows the whole `if`
    assert where_rewrite(_break(lines[1], lines[:3], 11)) is None
    # `and` needs Python's bool again; two statements are not one value: no rewrite, the general advice
    for body in (
        ["        if x.sum().item() > 0 and x.max().item() < 1:", "            x = x * 2"],
        ["        if x.sum().item() > 0:", "            x = x * 2", "            print(x)"],
    ):
        assert where_rewrite(_break(body[0], ["    def f(x):", *body, "        return x"], 11)) is None
    # a conditional expression is a branch too; a value only used is not
    ternary = "        y = x * 2 if x.sum().item() > 0 else x"
    assert (
        scalar_decides_branch(_break(ternary, ["    def f(x):", ternary], 11), [])
        == "the conditional expression (`a if … else b`) on the same line"
    )
    used = "        scale = x.sum().item()"
    assert scalar_decides_branch(_break(used, ["    def f(x):", used, "        return x * scale"], 11), []) is None
    # a later `if` on the value, seen in the source lines the trace has
    later = [
        "    def f(x, best):",
        "        loss = x.mean().item()",
        "        if loss < best:",
        "            best = loss",
        "        return best",
    ]
    assert scalar_decides_branch(_break(later[1], later, 11), []) == "`if loss < best` after it"


def test_a_break_torch_cannot_handle_leaves_the_whole_function_eager() -> None:
    # GIVEN a break inside a for loop: torch skips the whole function ("graph break in loop")
    brk = one(found("loop_break"), kind="graph break")
    # THEN the finding says the whole function runs without torch.compile, and ranks first
    assert brk.title == "Graph break in f at programs/loop_break.py:12: f runs without torch.compile"
    assert (
        "torch could not handle this break (a graph break inside a for/while loop, which torch does not support), so it "
        "skipped the whole of f: it runs without torch.compile on every call, as plain Python; nothing of it is compiled."
        in flat(brk.detail)
    )
    assert brk.recurs and brk.level == "problem" and found("loop_break")[0].title == brk.title
    assert brk.cost == "not measured: all of f, on every call (run times it on Python 3.12+); 67 ms on the compile torch gave up"
    # and its `if` on .item() gets torch.where, not capture_scalar_outputs
    assert brk.try_fixes == () and "x = torch.where(x.sum() > 100, x - 1, x)" in brk.fix


def test_a_break_in_a_called_function_leaves_eager_only_what_is_not_compiled_apart() -> None:
    # GIVEN GPT-2 compiled whole, whose loss_function logs a warning: torch cannot resume in
    # GPT2LMHeadModel.forward, at its line calling loss_function; loss_function and the output
    # dataclass it then makes are compiled as functions of their own
    found_ = found("gpt2_loss_logging")
    brk = one(found_, kind="graph break")
    detail = flat(brk.detail)
    # THEN the rest is said from forward's own line, with what it calls
    assert "the rest of GPT2LMHeadModel.forward from line 703 (self.loss_function, CausalLMOutputWithCrossAttentions)" in detail
    # AND what of it is compiled apart, so no work is said to recur eagerly on every call
    assert "self.loss_function, CausalLMOutputWithCrossAttentions are compiled as functions of their own" in detail
    assert "what runs without torch.compile is the Python between them" in detail
    assert not brk.recurs
    # AND the recompile, which costs compiles, ranks before it
    assert [f.kind for f in found_] == ["recompile", "graph break", "compile time"]


def test_an_unresumable_break_whose_rest_does_the_work_still_ranks_first() -> None:
    lstm = found("lstm")
    assert lstm[0].kind == "graph break" and lstm[0].recurs
