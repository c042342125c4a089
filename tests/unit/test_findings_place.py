"""Fixes written for the caller's code, at the user's own place (issue 40, items 2 and 6), on
traces of small programs in the style of the common public ones (tests/traces/programs/:
ragged, padded, causal, whole, generate). What the advice does when pasted into the program is
tested with real torch in tests/test_advice_pasted.py."""

from __future__ import annotations

import pytest

from compilescope.findings.arguments import expression_at_call, which_argument
from compilescope.session.model import Frame
from recorded import TRACES, flat, found, one, session


def test_a_ragged_last_batch_suggests_drop_last_then_marks_the_callers_tensor() -> None:
    # GIVEN an mnist-like loop whose DataLoader gives batches of 64, then 8 once
    size = one(found("ragged"), kind="recompile")
    assert size.title == "The size of dimension 0 changed (64 → 8): 1 recompile of TinyNet.forward"
    fix = flat(size.fix)
    # THEN drop_last=True comes first, and the tensor is named as the line `output = model(data)` has it
    assert fix.index("drop_last=True") < fix.index("mark_dynamic")
    assert "torch._dynamo.mark_dynamic(data, 0) before `output = model(data)` at programs/ragged.py:28" in fix
    assert "mark_dynamic(x," not in fix  # forward's parameter: a NameError at the caller's line
    assert size.where.endswith("programs/ragged.py:28")


def test_a_dict_spread_into_the_call_names_the_dicts_keys() -> None:
    # GIVEN `logits = model(**batch)`, each batch padded to its longest sequence
    size = one(found("padded"), kind="recompile")
    fix = flat(size.fix)
    # THEN both padded tensors torch made dynamic, as the caller holds them
    assert (
        'torch._dynamo.mark_dynamic(batch["input_ids"], 1) and torch._dynamo.mark_dynamic(batch["attention_mask"], 1) '
        "before `logits = model(**batch)` at programs/padded.py:36"
    ) in fix
    assert "drop_last" not in fix  # the sequence length grew: no last batch


def test_a_break_in_torchs_code_is_located_at_the_compiled_functions_own_call() -> None:
    # GIVEN forward calling nn.TransformerEncoder with a mask: torch breaks in _detect_is_causal_mask
    brk = one(found("causal"), kind="graph break")
    # THEN the place is forward's line that calls into torch (torch's traceback leaves it out),
    # not the line that called forward, and the fix is the one that applies there
    assert brk.where.endswith("programs/causal.py:31")
    assert "Your code leads there from programs/causal.py:31 in forward" in flat(brk.detail)
    assert "pass is_causal=True with it at programs/causal.py:31" in flat(brk.fix)
    assert "keep the value a tensor" not in brk.fix


def test_every_recompile_finding_has_a_fix() -> None:
    for name in ("causal", "ragged", "padded", "whole", "diagnosis", "quickstart", "flag", "flipflop", "lengths", "shared_code"):
        for finding in found(name):
            if finding.kind in ("recompile", "recompile limit", "flip-flop"):
                assert finding.fix.strip(), (name, finding.title)


def test_a_module_compiled_whole_is_placed_at_the_users_compile_call() -> None:
    # GIVEN torch.compile(nn.Sequential(...)): Dynamo compiles torch's wrapper `inner`
    whole = session("whole")
    wrapper = next(f for f in whole.frames if f.name == "inner")
    # THEN it is named by the module and placed at the user's torch.compile call, not in torch's files
    assert wrapper.label == "Sequential.forward"
    assert wrapper.place is not None and wrapper.place.endswith("programs/whole.py:14")
    size = one(found("whole"), kind="recompile")
    assert "torch._dynamo.mark_dynamic(batch, 0) before `out = model(batch)` at programs/whole.py:18" in flat(size.fix)
    assert "through torch's" not in size.title


def test_a_compiled_plain_function_is_called_from_the_users_line() -> None:
    # GIVEN compiled_scale = torch.compile(scale), called at whole.py:19 (torch's stack leaves the caller out)
    scale = session("whole").frame("scale")
    assert scale.compiles[0].called_from[-1].endswith("programs/whole.py:19 in <module>")
    assert scale.compiles[0].call_code == "scaled = compiled_scale(batch)"
    assert scale.parameters == ["x"]


def test_a_compiled_module_whose_forward_is_never_called_is_its_own_finding() -> None:
    # GIVEN model = torch.compile(model); model.generate(...): nothing compiles
    said = found("generate")
    assert [f.kind for f in said] == ["compiled module not called"], [f.title for f in said]
    finding = said[0]
    assert finding.title == (
        "torch.compile was applied to TinyLM, but its forward was never called through the compiled module: `generate` was called instead"
    )
    assert "programs/generate.py:31 calls TinyLM.generate on it" in flat(finding.detail)
    assert finding.where.endswith("programs/generate.py:30")
    assert "replace `model = torch.compile(model, backend=\"eager\")` with `model.compile(backend='eager')`" in flat(finding.fix)


def test_a_compiled_module_whose_forward_ran_is_no_finding() -> None:
    assert session("ragged").compiled_modules and not [f for f in found("ragged") if f.kind == "compiled module not called"]


def _frame(parameters: list[str] | None, qualname: str = "Net.forward") -> Frame:
    if parameters == ["x"] and qualname == "Net.forward":
        qualname = "encode"
    return Frame(name=qualname.rsplit(".", 1)[-1], filename="/u/net.py", lineno=3, qualname=qualname, parameters=parameters)


@pytest.mark.parametrize(
    ("code", "parameters", "subject", "expected"),
    [
        ("output = model(data)", ["self", "x"], "x", ("data", True)),
        ("out, hidden = model(data, hidden)", ["self", "input", "hidden"], "input", ("data", True)),
        ("out = model(x=inputs[0])", ["self", "x"], "x", ("inputs[0]", True)),
        ("logits = model(**batch)", ["self", "input_ids", "attention_mask"], "attention_mask", ('batch["attention_mask"]', True)),
        ("y = step(torch.ones(4, n))", ["x"], "x", ("torch.ones(4, n)", False)),
        ("out = model(batch)", ["*args", "**kwargs"], "args[0]", ("batch", True)),
        # transformers' decorator: wrapper(self, *args, **kwargs), torch's source kwargs['attention_mask']
        ("out = model(**batch)", ["self", "*args", "**kwargs"], "kwargs['attention_mask']", ('batch["attention_mask"]', True)),
        ("out = model(**batch)", ["self", "*args", "**kwargs"], "input_ids", ('batch["input_ids"]', True)),
        ("out = model(input_ids=ids)", ["self", "*args", "**kwargs"], "input_ids", ("ids", True)),
        ("out = model(*inputs)", ["self", "x"], "x", None),  # where *inputs ends is not in the source
        ("loss = criterion(model(data), target)", ["self", "x"], "x", ("data", True)),  # the one call that fits
        ("return decode(encode(ids))", ["x"], "x", ("ids", True)),  # the call by the function's name (encode)
        ("out = model(data)", None, "x", None),  # parameters not recorded
        ("out = model(", ["self", "x"], "x", None),
    ],
)
def test_the_argument_at_the_call(code: str, parameters: list[str] | None, subject: str, expected: tuple[str, bool] | None) -> None:
    assert expression_at_call(code, _frame(parameters), subject) == expected


def test_an_argument_that_cannot_be_worked_out_is_said_by_position() -> None:
    assert which_argument(_frame(["self", "x"]), "x") == "the tensor passed as `x`, the 1st argument of Net.forward"
    assert (
        which_argument(_frame(["*args", "**kwargs"], "inner"), "args[0]")
        == "the tensor passed as `args[0]`, the 1st positional argument of inner"
    )


def test_the_traces_are_there() -> None:
    for name in ("ragged", "padded", "causal", "whole", "generate"):
        assert (TRACES / f"{name}.log.gz").exists()


def test_a_guard_added_in_torchs_code_is_not_given_torchs_file_as_its_place() -> None:
    from compilescope.findings.recompiles import _origin
    from compilescope.session.model import FailedGuard

    frame = _frame(["self", "src"], "TransformerModel.forward")
    # torch writes a line of its own relative to its folder
    inside = FailedGuard(text="...", user_code="return self.x", filename="_dynamo/variables/tensor.py", lineno=2606)
    assert _origin(inside, frame) == "`return self.x` in torch's code, reached from TransformerModel.forward"
    own = FailedGuard(text="...", user_code="if self.mask is None:", filename="/u/model.py", lineno=25)
    assert _origin(own, frame) == "`if self.mask is None:` at u/model.py:25"


def test_torchs_sources_as_the_compiled_functions_locals() -> None:
    from compilescope.findings.arguments import local_of

    assert local_of("L['args'][0] dim 0") == "args[0]"
    assert local_of("L['attention_mask'] dim 1") == "attention_mask"
    assert local_of("L['kwargs']['input_ids'] dim 1") == "input_ids"
    assert local_of("L['x'].size()[0]") == "x"
