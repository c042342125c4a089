"""Guards in plain words, read from torch's own guard tree (`dynamo_cpp_guards_str`) of real
runs: one per guard torch wrote, each about the subject its own text names; the tree's managers
(`GuardManager`, `KeyManager`, `ValueManager`, ...) reach the subjects and are no guards.
containers.py (tests/traces/programs/) compiles an nn.Sequential, an nn.ModuleList and an
nn.ModuleDict, functions of a dict and of a tuple, one reading a global and two reading a closure
variable."""

from __future__ import annotations

import re

import pytest

from compilescope.findings import aspects
from compilescope.session.model import Compile, Guard
from recorded import cli, flat, session

# a line of torch's tree that is a guard: `+- KIND: check`, KIND in capitals (managers are
# `GuardManager: ...`, `DictGuardManager: ...`, `KeyManager: GuardManager: ...`, ...)
_GUARD_LINE = re.compile(r"^(?:\| )*\+- [A-Z][A-Z0-9_]*: ", re.MULTILINE)


def compile_of(function: str) -> Compile:
    (only,) = session("containers").frame(function).compiles
    return only


def guard(c: Compile, text: str) -> Guard:
    """The one guard whose check is exactly torch's text."""
    found = [g for g in c.guards if g.text == text]
    assert len(found) == 1, f"{len(found)} guards with the text {text!r}"
    return found[0]


@pytest.mark.parametrize("function", ["inner", "forward", "of_dict", "of_tuple", "of_global", "of_closure", "shift"])
def test_one_guard_per_guard_line_of_torchs_tree_and_no_manager_among_them(function: str) -> None:
    c = compile_of(function)
    assert len(c.guards) == len(_GUARD_LINE.findall(c.guards_text)) > 0
    assert not [g.kind for g in c.guards if g.kind.endswith("Manager") or "Manager" in g.text]


def test_a_sequentials_submodule_keys_are_about_its_submodules() -> None:
    c = compile_of("inner")  # nn.Sequential(Linear, ReLU), compiled whole: torch calls it `fn`
    first = guard(c, "list(dict.keys(L['fn']._modules))[0] == '0'")
    assert (first.kind, first.plain) == ("EQUALS_MATCH", "the first key of fn's submodules is '0'")
    assert first.source == "list(dict.keys(L['fn']._modules))[0]"
    second = guard(c, "list(dict.keys(L['fn']._modules))[1] == '1'")
    assert second.plain == "the second key of fn's submodules is '1'"
    # the wrong subject once carried over from the guard before (F.relu.__code__) is gone
    assert not [g.plain for g in c.guards if "__code__ ==" in g.plain]
    assert guard(c, "L['fn']._modules['1'].inplace == False").plain == "fn[1].inplace == False"
    linear = next(g for g in c.guards if g.kind == "TYPE_MATCH" and g.source == "L['fn']._modules['0']")
    assert linear.plain == "the type of fn[0] is exactly Linear"
    weight = next(g for g in c.guards if g.kind == "TENSOR_MATCH" and g.source == "L['fn']._modules['0']._parameters['weight']")
    assert weight.plain == "fn[0].weight is a float32 tensor of size [4, 4], stride [4, 1], requires_grad=True"
    code = next(g for g in c.guards if g.kind == "ID_MATCH" and (g.source or "").endswith(".F.relu.__code__"))
    assert code.plain == "the code of torch.nn.modules.linear.F.relu is the very same object as when compiled"


def test_a_module_list_and_a_module_dict_inside_a_module() -> None:
    c = compile_of("forward")  # Stack: self.layers (ModuleList), self.heads (ModuleDict)
    key = guard(c, "list(dict.keys(L['self']._modules['layers']._modules))[1] == '1'")
    assert key.plain == "the second key of self.layers's submodules is '1'"
    layer = next(
        g for g in c.guards if g.kind == "TENSOR_MATCH" and g.source == "L['self']._modules['layers']._modules['1']._parameters['bias']"
    )
    assert layer.plain == "self.layers[1].bias is a float32 tensor of size [4], stride [1], requires_grad=True"
    head = next(g for g in c.guards if g.kind == "TYPE_MATCH" and g.source == "L['self']._modules['heads']._modules['down']")
    assert head.plain == "the type of self.heads['down'] is exactly Linear"
    assert guard(c, "not ___dict_contains('__getitem__', L['self']._modules['heads'].__dict__)").plain == (
        "self.heads has no attribute '__getitem__' of its own (in its __dict__): its class's is used"
    )


def test_a_dicts_keys_and_values_and_a_relational_guard_counted_once() -> None:
    c = compile_of("of_dict")  # for value in batch.values(), batch = {"a": x, "b": x + 1}
    assert guard(c, "list(dict.keys(L['batch']))[0] == 'a'").plain == "the first key of batch is 'a'"
    assert guard(c, "list(dict.keys(L['batch']))[1] == 'b'").plain == "the second key of batch is 'b'"
    value = next(g for g in c.guards if g.kind == "TENSOR_MATCH" and g.source == "L['batch']['b']")
    assert value.plain.startswith("batch['b'] is a float32 tensor of size [2, 4]")
    # torch writes NO_TENSOR_ALIASING in full under a, then by its bare name under b: one guard
    assert c.guards_text.count("+- NO_TENSOR_ALIASING") == 2
    (aliasing,) = [g for g in c.guards if g.kind == "NO_TENSOR_ALIASING"]
    assert aliasing.text == "check_no_aliasing(L['batch']['a'], L['batch']['b'])"
    assert aliasing.plain == "the tensors batch['a'], batch['b'] do not share memory with each other (as when compiled)"


def test_a_tuples_length_and_the_guard_written_after_the_tree() -> None:
    c = compile_of("of_tuple")  # of_tuple((x, x))
    length = guard(c, "len(L['pair']) == 2")
    assert (length.kind, length.plain, length.source) == ("LENGTH_CHECK", "pair has 2 items", "L['pair']")
    # the root's epilogue, written at the tree's first level after it
    same = guard(c, "L['pair'][0] is L['pair'][1]")
    assert same.plain == "pair[0] is the very same object as pair[1]"
    assert c.guards[-1] is same


def test_a_global_and_closure_variables_are_named_as_the_user_wrote_them() -> None:
    scale = guard(compile_of("of_global"), "G['SCALE'] == 3")
    assert (scale.plain, scale.source) == ("SCALE == 3", "G['SCALE']")
    # a function of the user's called inside: its code and the variable it closes over
    c = compile_of("of_closure")
    factor = guard(c, "G['scale'].__closure__[0].cell_contents == 0.5")
    assert factor.plain == "factor (a variable scale closes over) == 0.5"
    assert factor.user_code is not None and "HINT" not in factor.user_code  # torch's hint named it
    code = next(g for g in c.guards if g.kind == "ID_MATCH" and g.source == "G['scale'].__code__")
    assert code.plain == "the code of scale is the very same object as when compiled"
    # the compiled function's own closure variable: torch reaches it as a local of the frame
    assert guard(compile_of("shift"), "L['offset'] == 2.5").plain == "offset == 2.5"


def test_a_guard_not_understood_keeps_torchs_text() -> None:
    resume = session("quickstart").frames[1]
    value = next(g for c in resume.compiles for g in c.guards if g.text == "L['___stack0'] > 0.5")
    assert (value.kind, value.plain) == ("LAMBDA_GUARD", "L['___stack0'] > 0.5")


def test_show_guards_lists_guards_in_plain_words_and_no_managers(capsys: pytest.CaptureFixture[str]) -> None:
    from recorded import TRACES

    status, out, _ = cli(capsys, "report", str(TRACES / "containers.log.gz"), "--show", "guards")
    assert status == 0
    text = flat(out)
    c = compile_of("inner")
    assert f"guards: {len(c.guards)} (torch counts {c.guard_count} before it builds them" in text
    assert "EQUALS_MATCH the first key of fn's submodules is '0'" in text
    assert "F.relu.__code__ == '0'" not in text
    assert "KeyManager" not in text and "ValueManager" not in text and "GuardManager" not in text
    marks = sum(g.kind == "DIMENSION_DYNAMIC_MARKING_GUARD" for g in c.guards)
    assert f"and {marks} DIMENSION_DYNAMIC_MARKING_GUARD, not listed" in text


def test_diff_compares_guards_not_managers() -> None:
    items = list(aspects.guards(session("containers")))
    assert len(items) == sum(len(c.guards) for c in session("containers").compiles)
    assert not [i for i in items if "Manager" in i.key or "Manager" in i.text]


def test_a_manager_written_otherwise_is_still_no_guard_and_subjects_come_from_the_text() -> None:
    from compilescope.session.guards import parse_guard_tree

    # GIVEN the Sequential's tree with its managers' lines in a form this reader does not know
    c = compile_of("inner")
    text = re.sub(r"GuardManager: source=.*", "GuardManager (reaches something)", c.guards_text)
    guards = parse_guard_tree(text)
    # THEN each guard is still there (no manager among them), and each is about the subject its
    # own text names, as when the managers were understood
    assert [g.text for g in guards] == [g.text for g in c.guards]
    assert [g.plain for g in guards if g.kind == "EQUALS_MATCH"] == [g.plain for g in c.guards if g.kind == "EQUALS_MATCH"]
    tensors = [(g.source, g.plain) for g in guards if g.kind == "TENSOR_MATCH"]
    assert tensors == [(g.source, g.plain) for g in c.guards if g.kind == "TENSOR_MATCH"]
