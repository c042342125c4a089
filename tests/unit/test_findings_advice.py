"""Advice that holds when pasted (issue 40): a recompile's fix says when marking a dimension
dynamic cannot remove it (a size of 1 first, a dynamic version kept to a range that leaves the
old size out), names what else changed between the versions (torch's reason names only the
first guard that failed), rewrites the caller's line for a number passed as a tensor, and finds
a module compiled whole by the name the program calls it by. On traces of the corpus's programs
(tests/programs/corpus, recorded by tests/traces/record); tests/test_corpus.py pastes each fix
into the program and runs it with real torch."""

from __future__ import annotations

from compilescope.findings.arguments import call_with_argument, callee_expression
from recorded import flat, found, one, session


def test_a_dynamic_version_kept_to_a_range_is_no_place_for_mark_dynamic() -> None:
    # GIVEN an mnist-like conv net: batches of 64, a last batch of 8; torch's dynamic version for
    # 8 holds only while 2 <= x.size()[0] <= 15 (conv2d on the CPU bounds it)
    size = one(found("corpus_mnist_like"), kind="recompile", title_has="dimension 0")
    fix = flat(size.fix)
    # THEN the fix says marking cannot remove the recompile, and why, from torch's own guard
    assert "Marking the dimension dynamic would not remove this recompile" in fix
    assert "0/1, holds only while 2 <= x.size()[0] <= 15" in fix
    assert "nn/modules/conv.py:560" in fix
    # AND offers what can (the last batch dropped or padded), not mark_dynamic or --try dynamic
    assert "drop_last=True" in fix and "pad it to the others' size" in fix
    assert "mark_dynamic(" not in fix
    assert "dynamic" not in size.try_fixes


def test_a_size_of_one_first_is_said_to_be_compiled_in_whatever_is_marked() -> None:
    # GIVEN a decoder called on a sequence growing from 1 token
    size = one(found("corpus_generate_decoder"), kind="recompile", title_has="dimension 1")
    assert "(1 → 2)" in size.title
    fix = flat(size.fix)
    # THEN the fix says torch compiles a size of 0 or 1 in, and what to do instead
    assert "the first size was 1, and torch compiles a size of 0 or 1 as a constant, always" in fix
    assert "make the first call with a size of 2 or more there" in fix
    assert "mark_dynamic(" not in fix and "dynamic" not in size.try_fixes


def test_sizes_that_go_on_past_two_are_still_told_to_mark_the_dimension() -> None:
    # GIVEN limited(), compiled with dynamic=False and called with sizes 1, 2, 3, ... 8
    size = one(found("diagnosis"), kind="recompile", title_has="of limited")
    fix = flat(size.fix)
    # THEN marking helps from 2 on: it is offered, not refused for the first size's 1
    assert "Marking the dimension dynamic would not remove" not in fix
    assert "mark it dynamic before the first call: torch._dynamo.mark_dynamic(" in fix and "dynamic" in size.try_fixes


def test_what_else_changed_between_the_versions_is_said_with_how_to_keep_it() -> None:
    # GIVEN a BERT classifier called as compiled(**batch) on batches padded to their longest
    # sentence, whose forward sets config.problem_type on its first call (labels given)
    size = one(found("corpus_hf_dynamic_padding"), kind="recompile")
    fix = flat(size.fix)
    # THEN both padded inputs are marked, as the line has them
    assert 'torch._dynamo.mark_dynamic(batch["input_ids"], 1) and torch._dynamo.mark_dynamic(batch["attention_mask"], 1)' in fix
    # AND the value torch's reason does not name is said, with the setting that keeps it, on the
    # name the line calls
    assert "`self.config.problem_type` was None in 0/0 and 'single_label_classification' in 0/1" in fix
    assert "`compiled.config.problem_type = 'single_label_classification'` before `outputs = compiled(**batch)`" in fix


def test_a_number_passed_as_a_tensor_is_the_callers_line_rewritten() -> None:
    # GIVEN a float `alpha` passed to a compiled training step, a new value each step
    value = one(found("corpus_custom_autograd"), kind="recompile")
    fix = flat(value.fix)
    # THEN the fix is the call's line with that argument wrapped, at the call's place
    assert (
        "`loss = train_step(x, torch.randint(0, 3, (32,)), torch.randint(0, 2, (32,)), torch.tensor(alpha))` at corpus/custom_autograd.py:57"
        in fix
    )
    assert value.where.endswith("corpus/custom_autograd.py:57")


def test_a_module_compiled_whole_is_found_by_the_name_it_is_called_by() -> None:
    # GIVEN DDP(torch.compile(Sequential)) called as F.cross_entropy(model(x), y), on rank 0
    size = one(found("corpus_ddp_step.rank0"), kind="recompile")
    assert size.title.endswith("of Sequential.forward")
    # THEN the tensor is the one model(x) passes, not cross_entropy's first argument
    assert "torch._dynamo.mark_dynamic(x, 0) before `loss = F.cross_entropy(model(x), y)`" in flat(size.fix)


def test_the_callers_line_is_rewritten_only_where_the_argument_is_written_in_it() -> None:
    frame = session("corpus_custom_autograd").frames[0]
    assert frame.parameters == ["x", "y", "domain", "alpha"]
    assert call_with_argument("loss = train_step(a, b, c, alpha)", frame, "alpha", "torch.tensor({})") == (
        "loss = train_step(a, b, c, torch.tensor(alpha))"
    )
    assert call_with_argument("loss = train_step(a, b, c, alpha=s * 2)", frame, "alpha", "torch.tensor({})") == (
        "loss = train_step(a, b, c, alpha=torch.tensor(s * 2))"
    )
    # (a line torch quoted in part parses only in brackets: no rewrite rather than a shifted one)
    assert call_with_argument("a, b, c, alpha)", frame, "alpha", "torch.tensor({})") is None
    assert call_with_argument("loss = step(*args)", frame, "alpha", "torch.tensor({})") is None


def test_the_object_a_method_is_called_on_is_named_as_the_line_has_it() -> None:
    frame = next(f for f in session("corpus_hf_dynamic_padding").frames if f.parameters and f.parameters[0] == "self")
    assert callee_expression("outputs = compiled(**batch)", frame) == "compiled"
    assert callee_expression("outputs = self.models['bert'](**batch)", frame) == "self.models['bert']"
    assert callee_expression("outputs = make()(**batch)", frame) is None  # no name for the object


def test_a_global_number_compiled_in_is_made_a_tensor_where_it_is_set() -> None:
    # GIVEN a function reading a global number that the program changes between calls
    constant = one(found("global_scale"), kind="recompile")
    # THEN it is named as the global it is, and the fix makes the global a tensor (a global is
    # read, not passed: "pass it as a tensor" would name no call to change)
    assert constant.title == "The global `SCALE` in scaled was compiled in as a constant (2.0): 1 recompile"
    fix = flat(constant.fix)
    assert "`SCALE = torch.tensor(2.0)` where it is set (programs/global_scale.py lines 7 and 17), and each new value a tensor too" in fix
    assert "passed as" not in fix and "dynamic" in constant.try_fixes


def test_a_module_of_torchs_own_compiled_in_place_is_said_to_compile_nothing_and_to_be_wrapped() -> None:
    # GIVEN an nn.Sequential given to module.compile(): Dynamo skipped every frame of its calls
    s = session("compiled_in_place")
    assert s.compiles == [] and [(m.module, m.in_place) for m in s.compiled_modules or []] == [("Sequential", True)]
    [nothing] = [f for f in s.explain() if f.kind == "nothing compiled"]
    # THEN it says why, not "check that the compiled object is the one called"
    assert nothing.title == "Nothing was compiled: Sequential.compile() compiles nothing, its code is all torch.nn's"
    assert "modules/container.py" in nothing.detail and "skipped every frame" in nothing.detail
    assert "`model = torch.compile(model)`" in nothing.fix and "the one called" not in nothing.fix
    # AND no finding says its forward was never called through a compiled module (none was made)
    assert not [f for f in s.explain() if f.kind == "compiled module not called"]


def test_a_globals_assignments_are_found_at_top_level_and_under_global_not_in_locals(tmp_path) -> None:
    from compilescope.findings.arguments import global_assignments

    program = tmp_path / "prog.py"
    program.write_text(
        "SCALE = 1.0\n"  # 1: the global
        "def local():\n"
        "    SCALE = 2.0\n"  # 3: a local of the same name: not the global
        "def setter():\n"
        "    global SCALE\n"
        "    SCALE = 3.0\n"  # 6: the global, declared so
        "class Config:\n"
        "    SCALE = 4.0\n"  # 8: a class attribute
        "for SCALE in (5.0, 6.0):\n"  # 9: a loop over the global
        "    pass\n"
    )
    assert global_assignments(str(program), "SCALE") == [1, 6, 9]
    assert global_assignments(str(tmp_path / "gone.py"), "SCALE") == []


def test_a_modules_number_attribute_is_made_symbolic_or_a_buffer_as_its_type_needs() -> None:
    # GIVEN modules whose number attributes change between calls: an int step counter forward
    # increments, a float temperature forward anneals, an int shift the training loop sets
    found_here = found("module_counters")
    step = one(found_here, kind="recompile", title_has="self.step")
    temperature = one(found_here, kind="recompile", title_has="self.temperature")
    shift = one(found_here, kind="recompile", title_has="self.shift")
    # THEN the int forward changes: never symbolic on its own, so the setting that makes it so
    # comes first, then the buffer (in place of __init__'s line), and no "keep it stable"
    assert step.title == "WarmupScale.forward changes `self.step`, a Python int its compiled code reads as a constant: 4 recompiles"
    assert "never makes it symbolic on its own" in flat(step.detail) and "None, then a tensor" not in step.detail
    fix = flat(step.fix)
    assert fix.startswith(
        "Let torch make `self.step` symbolic: `torch._dynamo.config.allow_unspec_int_on_nn_module = True` after the imports"
    )
    assert (
        '`self.register_buffer("step", torch.tensor(0), persistent=False)` in __init__, in place of `self.step = 0` (programs/module_counters.py:15)'
        in fix
    )
    assert "`self.step += 1` then changes the tensor" in fix and "stable" not in fix
    assert step.where.endswith("module_counters.py:18") and "dynamic" not in step.try_fixes
    # AND the float: torch made it symbolic at its first change, so only the buffer is offered
    assert temperature.title.endswith("a Python float its compiled code reads as a constant: 1 recompile")
    assert "made it symbolic at its first change" in flat(temperature.detail)
    fix = flat(temperature.fix)
    assert fix.startswith("To skip that recompile, make it a tensor:") and "allow_unspec_int_on_nn_module" not in fix
    assert '`self.register_buffer("temperature", torch.tensor(1.0), persistent=False)`' in fix
    # AND the int set from outside: not "passed as" (nothing passes it), each new value set in
    # place, and the place is __init__'s line, where the buffer goes
    assert shift.title == "`self.shift` of Shifted.forward, a Python int, was compiled in as a constant (0, 1, 2, 3): 4 recompiles"
    fix = flat(shift.fix)
    assert "passed" not in fix and "allow_unspec_int_on_nn_module = True" in fix and "`model.shift.fill_(value)`" in fix
    assert shift.where.endswith("module_counters.py:38") and "dynamic" not in shift.try_fixes


def test_a_module_attribute_that_is_no_number_keeps_its_advice() -> None:
    # GIVEN a mask forward caches on the module (None, then a tensor): no number
    mask = one(found("causal"), kind="recompile", title_has="src_mask")
    # THEN its advice is the one for a cached tensor, not a number's
    assert "None, then a tensor" in mask.detail and "allow_unspec_int_on_nn_module" not in mask.fix


def test_capturing_a_scalar_that_indexes_a_python_list_is_not_offered_and_why_is_said() -> None:
    # GIVEN indices read with .tolist() and looked up in a Python list (`names[i] for i in idx`):
    # torch hints capture_scalar_outputs, which stops this program (GuardOnDataDependentSymNode)
    brk = one(found("label_lookup"), kind="graph break")
    fix = flat(brk.fix)
    # THEN the setting is neither offered nor tried, the use that rules it out is named, and
    # what can work is said
    assert "capture_scalar_outputs" not in brk.try_fixes
    assert "torch's hint" not in fix and "capture_scalar_outputs = True" not in fix
    assert "--try capture_scalar_outputs cannot remove this break: `names[i]` after it indexes a Python list with it" in fix
    assert "torch stops the program there (GuardOnDataDependentSymNode)" in fix and "Do the lookup outside the compiled function" in fix


def test_a_scalar_only_computed_with_keeps_torchs_hint_to_capture_it() -> None:
    # GIVEN a scalar read with .item() and only multiplied (scalar_branch's `scaled`)
    brk = one(found("scalar_branch"), kind="graph break", title_has="scaled")
    # THEN capturing it is still offered: nothing indexes a Python object with it
    assert "capture_scalar_outputs" in brk.try_fixes and "indexes a Python" not in brk.fix


def test_a_string_argument_is_a_version_per_value_not_a_tensor_to_pass() -> None:
    # GIVEN a loss whose reduction is passed as 'mean', then 'sum'
    string = one(found("label_lookup"), kind="recompile")
    fix = flat(string.fix)
    # THEN it is said to be a string, a version per value, and no tensor or dynamic=True is offered
    assert string.title == "`reduction` in loss_fn is a string, compiled in: 1 recompile"
    assert "`reduction` is a string ('mean' compiled in)" in fix and "a string cannot be passed as a tensor" in fix
    assert "torch.tensor(" not in fix and "Python number" not in fix and "dynamic" not in string.try_fixes


def test_a_loop_count_torch_specialized_back_is_offered_no_tensor_and_no_dynamic() -> None:
    # GIVEN a loop's count read from a config object: torch made it symbolic, then specialized it
    # back (range() needs the number)
    count = one(found("number_uses"), kind="recompile", title_has="config.repeats")
    fix = flat(count.fix)
    # THEN the line that needs the number is named, and neither a tensor nor dynamic=True offered
    assert "torch made `config.repeats` symbolic at its first change, but `for _ in range(config.repeats):`" in flat(count.detail)
    assert fix.startswith("Neither a tensor nor dynamic=True can help here: `for _ in range(config.repeats):`")
    assert "torch.tensor(" not in fix and "dynamic" not in count.try_fixes


def test_a_size_is_offered_dynamic_not_a_tensor() -> None:
    # GIVEN the sizes of a view passed as a tuple of ints: torch made them symbolic at the change
    size = one(found("number_uses"), kind="recompile", title_has="shape[0]")
    fix = flat(size.fix)
    # THEN no tensor is offered (a size cannot be one), and dynamic=True is, to skip the recompile
    assert "It is a size or a dimension in `x.view(shape)`, which a tensor cannot be" in fix
    assert "torch then made it symbolic" in fix and "compile with dynamic=True" in fix
    assert "torch.tensor(" not in fix and "dynamic" in size.try_fixes


def test_a_number_that_decides_a_branch_is_not_offered_as_a_tensor() -> None:
    # GIVEN `best`, a Python float compared in `if loss < best:` after an .item() break: its value
    # compiled in, then the branch's outcome
    recompiles = [f for f in found("scalar_branch") if f.kind == "recompile"]
    value = one(recompiles, title_has="`best`")
    outcome = one(recompiles, title_has="compiled again")
    # THEN neither is offered a tensor (the branch would depend on a tensor's value) or dynamic=True,
    # and the branch is named at the user's line, not torch's
    fix = flat(value.fix)
    assert fix.startswith("`best` decides the branch `if loss < best:` (programs/scalar_branch.py:10)")
    assert "torch.tensor(" not in fix and "torch.where" in fix and value.try_fixes == ()
    fix = flat(outcome.fix)
    assert fix.startswith("The branch `if loss < best:` (programs/scalar_branch.py:10) went the other way")
    assert "pass it as a tensor" not in fix and "_dynamo/" not in fix


def test_a_guards_place_is_the_users_line_not_torchs_after_it() -> None:
    # torch writes "# if loss < best:  # scalar_branch.py:10 in fn (_dynamo/variables/tensor.py:2606 in evaluate_expr)"
    places = {(g.filename or "").rsplit("/", 1)[-1] for c in session("scalar_branch").compiles for g in c.failed_guards}
    assert places == {"scalar_branch.py"}, places


def test_a_dimension_torch_specialized_back_is_not_offered_mark_dynamic() -> None:
    # GIVEN a loop over a tensor's rows in one compiled function (torch specializes the size
    # back: a version per size), the same tensor passed to another made dynamic at the change
    size = one(found("row_loop"), kind="recompile")
    fix = flat(size.fix)
    # THEN marking is said not to help, with the line that needs the size, and is not offered
    assert fix.startswith(
        "Marking the dimension dynamic would not remove this recompile: in per_row, `for i in range(x.shape[0]):` "
        "(programs/row_loop.py:17) needs the size's exact value"
    )
    assert "ConstraintViolationError" in fix and "mark_dynamic(" not in fix and "dynamic" not in size.try_fixes
