"""Every findings rule on real traces (tests/traces/): one finding per cause, its measured cost,
where to act, the fix; ranked by cost. The programs are in tests/traces/programs/."""

from __future__ import annotations

from compilescope.findings.before_compile import said_for
from compilescope.findings.finding import Finding, ranked
from compilescope.findings.ranks import from_children
from compilescope.session.model import ChildProcess
from recorded import flat, found, fresh, one, session


def test_one_size_change_met_by_two_functions_is_one_finding() -> None:
    size = one(found("diagnosis"), kind="recompile", title_has="dimension 1")
    assert size.title == "The size of dimension 1 changed (16 → 24): 2 recompiles of encode, decode"
    assert "One change, 2 functions compiled again: encode, decode." in size.detail
    # where to act: the user's call; this trace does not say encode's parameters, so the fix
    # says which argument the tensor is, never `x`, a name the line at the call does not have
    assert size.where.endswith("programs/diagnosis.py:24")
    assert "mark_dynamic(x," not in size.fix
    assert (
        "torch._dynamo.mark_dynamic(t, 1) on the tensor passed as `x` to encode before `step(torch.ones(4, n))` at programs/diagnosis.py:24"
        in size.fix
    )
    assert size.cost_s is not None and size.cost == f"{size.cost_s * 1000:.0f} ms compiling 2 versions"
    assert size.try_command == "compilescope run --try dynamic diagnosis.py"


def test_a_dtype_change_says_the_cast() -> None:
    dtype = one(found("diagnosis"), kind="recompile", title_has="dtype")
    assert dtype.title == "The dtype of an input changed (Float → Double): 1 recompile of cast"
    # (this trace does not say cast's parameters: the cast is said of the argument, not of `x`,
    # a name the caller's line does not have)
    assert "(`.to(torch.float32)` on the tensor passed as `x`)" in dtype.fix and dtype.try_fixes == ()


def test_a_number_compiled_in_as_a_constant_names_it_and_its_line() -> None:
    constant = one(found("diagnosis"), kind="recompile", title_has="constant")
    assert constant.title == "`s` in scale was compiled in as a constant (0.5): 1 recompile"
    assert "Guard failed: s == 0.5 (from `return x * s` at programs/diagnosis.py:47)" in constant.detail
    assert "torch.tensor(...) of the number the call passes as `s`" in constant.fix


def test_a_length_compiled_in_is_not_advised_a_tensor_or_dynamic() -> None:
    items = found("lengths")
    arguments = one(items, kind="recompile", title_has="positional arguments")
    assert (
        arguments.title
        == "The number of items in the positional arguments it was called with changed: 2 recompiles of total (its versions before had 1, 2)"
    )
    assert "Guard failed: len(args) == 1" in arguments.detail
    assert "no setting makes a length dynamic" in arguments.fix and "Call it the same way each time" in arguments.fix
    listed = one(items, kind="recompile", title_has="`items`")
    assert listed.title == "The number of items in `items` changed: 2 recompiles of stack (its versions before had 1, 2)"
    assert "stack them into one tensor" in listed.fix
    for finding in (arguments, listed):
        assert "torch.tensor(" not in finding.fix and finding.try_fixes == () and finding.try_command is None


def test_a_flag_compiled_in_is_advised_nothing_to_change() -> None:
    # (the zoo's Whisper in training: a flag of transformers' cache, `is_updated`, was advised
    # torch.tensor() and dynamic=True; a flag as a tensor makes its `if` a graph break)
    flag = one(found("flag"), kind="recompile")
    assert flag.title == "`training` in step is a flag, True or False, compiled in: 1 recompile"
    assert "Guard failed: training == True (from `if training:` at programs/flag.py:10)" in flag.detail
    assert flag.fix.startswith("`training` is a flag, True or False, and Dynamo compiles each value in")
    assert "nothing to change" in flag.fix and "torch.tensor(" not in flag.fix and "dynamic=True" not in flag.fix
    assert flag.try_fixes == () and flag.try_command is None


def test_functions_sharing_one_code_are_one_finding_that_points_at_the_breaks(tmp_path) -> None:
    # (the zoo's Whisper in training: transformers' decorators' wrappers, each compiled once per
    # function it wraps after the LayerDrop break, were explained as `len(args)` changing, with
    # the advice to call the function the same way each time)
    items = found("shared_code")
    shared = one(items, kind="recompile")
    assert shared.title == "2 functions compiled one by one, each as a version of a code it shares with others (`wrapper`): 1 recompile"
    assert shared.level == "warning"  # a consequence: the breaks' findings lead
    assert "`wrapper`: 1/0_1 encode, 1/1_1 decode" in shared.detail
    assert "(`len(args) == 1` in 1/1_1). These recompiles are not changes of your inputs." in shared.detail
    assert "Calls served: `wrapper`: 1/0_1 (encode) 2, 1/1_1 (decode) 2 (of 4 calls)" in shared.detail
    assert "This run has 6 graph breaks (the first at programs/shared_code.py:23: Data-dependent branching): remove them" in shared.fix
    assert "Call it the same way" not in shared.fix and shared.try_fixes == () and shared.try_command is None
    # the function each version was compiled for is kept in the saved session
    saved = tmp_path / "shared.json"
    session("shared_code").save(saved)
    import compilescope

    (wrapper,) = [frame for frame in compilescope.load(saved).frames if frame.name == "wrapper"]
    assert [c.for_function for c in wrapper.compiles] == ["encode", "decode"] and wrapper.shared_by == ["encode", "decode"]
    assert wrapper.label_of(wrapper.compiles[1]) == "decode (through `wrapper`)"


def test_the_recompile_limit_is_said_with_the_recompiles_that_led_to_it() -> None:
    items = found("diagnosis")
    limit = one(items, kind="recompile", title_has="recompile limit")
    assert limit.level == "problem"
    assert limit.title.endswith("7 recompiles of limited; the recompile limit stopped compiling limited")
    assert "the limit (torch._dynamo.config.recompile_limit = 8)" in limit.detail
    assert "2 calls ran without compiled code" in limit.detail
    assert "Raise torch._dynamo.config.recompile_limit (now 8)" in limit.fix
    assert "on the refused compile" in limit.cost and "in 2 uncompiled calls" in limit.cost
    assert not [f for f in items if f.kind == "recompile limit"]  # not a second finding of its own


def test_a_module_compiled_by_two_calls_names_both_settings() -> None:
    backend = one(found("diagnosis"), kind="recompile", title_has="more than one torch.compile")
    assert backend.title == "Twice.forward is compiled by more than one torch.compile(...) call: 1 recompile"
    assert "9/0 was made by torch.compile(backend='eager'); 9/1 by torch.compile(backend='aot_eager')" in backend.detail
    assert "Compile it once and reuse the result." in backend.fix


def test_a_print_of_a_tensors_value_is_one_break_with_both_reasons() -> None:
    shout = one(found("diagnosis"), kind="graph break", title_has="shout")
    assert shout.title == "Graph break in shout at programs/diagnosis.py:57"
    assert "Unsupported Tensor.item() call" in shout.detail and "Failed to trace builtin operator" in shout.detail
    # neither fix (nor both) removes it: tests/test_run_try_offers.py tries them
    assert shout.try_fixes == ()
    assert "That code ran in 2 calls of its own" in shout.detail  # the resume function's calls (3.12)


def test_torchs_own_break_in_the_optimizer_is_information_pointing_at_the_users_call() -> None:
    optimizer = one(found("diagnosis"), kind="graph break", title_has="_use_grad")
    assert optimizer.level == "info" and "nothing to change in your code" in optimizer.fix
    assert optimizer.where.endswith("programs/diagnosis.py:92") and "optimizer.step()" in optimizer.detail


def test_a_failed_compile_gives_the_error_and_torchs_hint() -> None:
    failed = one(found("diagnosis"), kind="compile failed")
    assert failed.title == "Compiling matmul failed (8/0) at programs/diagnosis.py:66"
    assert "a and b must have same reduction dim" in failed.detail and "run it without torch.compile" in failed.fix


def test_a_value_carried_over_a_break_is_part_of_the_break() -> None:
    items = found("quickstart")
    brk = one(items, kind="graph break")
    assert "torch compiled it in as a constant (1.0546164512634277): a new value compiled that code again, 1 recompile (1/1)" in brk.detail
    assert "Removing the break removes these recompiles too." in brk.detail
    assert not any("___stack" in f.title + f.fix for f in items)


def test_compiling_ddp_itself_captures_nothing_and_says_what_to_compile() -> None:
    items = found("ddp")
    first = items[0]
    assert first.kind == "captured nothing" and first.level == "problem"
    assert "put no operation in any graph: the code ran eagerly" in first.detail
    assert "DDP(torch.compile(model))" in first.fix and first.where.endswith("programs/ddp.py:15")
    torch_break = one(items, kind="graph break", title_has="parallel/distributed.py")
    assert torch_break.in_user_code is False and torch_break.library.startswith("torch 2.13")
    assert "Your code leads there from programs/ddp.py:15" in torch_break.detail


def test_calls_that_flip_flop_between_versions_are_said_with_the_cause() -> None:
    size = one(found("flipflop"), kind="recompile")
    assert size.title.endswith("calls flip-flop between its versions (39 switches in 40 calls)")
    assert "each switch fails the guards of the version tried first" in size.detail


def test_a_tiny_compiled_call_spends_its_time_outside_kernels() -> None:
    paid = one(found("tiny-profiled.json"), kind="paid off")
    assert paid.level == "warning" and paid.title.startswith("add_one: most of each compiled call is outside its kernels (")
    assert paid.cost_s is not None and "outside kernels in 300 compiled calls" in paid.cost
    # without --profile's kernel times, run says which measurement would tell
    unsure = one(found("tiny"), kind="paid off")
    assert unsure.level == "info" and "run cannot tell" in unsure.title and unsure.cost.startswith("not measured")
    assert "compilescope run --profile" in unsure.fix


def test_compile_time_by_stage_and_what_the_cache_did() -> None:
    time = one(found("quickstart"), kind="compile time")
    assert time.title.startswith("Compiling took ") and time.title.endswith(" s in all")
    assert "C++/Triton compiler" in time.detail and "Dynamo (tracing Python)" in time.detail
    assert "The FX graph cache served 1 of 5 Inductor graphs from disk" in time.fix


def test_calls_that_ran_without_compiled_code_are_counted() -> None:
    uncompiled = [f for f in found("ddp") if f.kind == "calls without compiled code"]
    assert [f.title for f in uncompiled] == [
        "DistributedDataParallel._inside_ddp_forward (through python's `helper`): 116 of 118 calls ran without compiled code",
        "_GeneratorContextManager.__init__: 62 of 64 calls ran without compiled code",
    ]


def test_a_program_that_never_compiled_is_told_why() -> None:
    never = said_for("script", 0, None, imported_torch=False)
    assert never[:2] == ("info", "Nothing was compiled: the program never imported torch")
    crashed = said_for("script", 1, "ValueError: bad input", imported_torch=True)
    assert crashed[:2] == ("problem", "The program failed before torch.compile compiled anything")
    assert crashed[2].startswith("ValueError: bad input") and "Fix that error" in crashed[3]
    exited = said_for("module", 3, None, imported_torch=True)
    assert exited[1] == "The program exited with status 3 before torch.compile compiled anything"
    quiet = said_for("capture", 0, None, imported_torch=True)
    assert quiet[0] != "problem" and "torch._dynamo.reset()" in quiet[2]


def test_findings_are_ranked_by_measured_cost_then_severity() -> None:
    items = found("diagnosis")
    measured = [f for f in items if f.cost_s is not None]
    assert [f.cost_s for f in measured] == sorted((f.cost_s for f in measured), reverse=True)
    assert items[: len(measured)] == measured  # the unmeasured come after
    mixed = [Finding("info", "a"), Finding("problem", "b"), Finding("warning", "c", cost_s=0.5), Finding("warning", "d", cost_s=2.0)]
    assert [f.title for f in ranked(mixed)] == ["d", "c", "b", "a"]


def test_ranks_with_the_same_cause_are_one_finding_with_the_most_any_rank_spent() -> None:
    zero, one_ = fresh("flipflop"), fresh("flipflop")
    one_.frames[0].compiles[1].compile_time_s = 2.5  # rank 1 spent longer on its recompile
    children = [
        ChildProcess(pid=10, parent_pid=1, command="train.py", how="started", followed=True, rank=0),
        ChildProcess(pid=11, parent_pid=1, command="train.py", how="started", followed=True, rank=1),
    ]
    merged = from_children([(children[0], zero.explain()), (children[1], one_.explain())])
    size = one(merged, kind="recompile")
    assert size.ranks == (0, 1) and size.cost_s == 2.5


def test_the_terminal_says_the_findings_in_their_order() -> None:
    text = flat(str(session("diagnosis")))
    titles = [flat(f.title) for f in found("diagnosis")]
    places = [text.find(title) for title in titles]
    assert -1 not in places and places == sorted(places), titles


def test_reduce_overhead_says_per_graph_whether_cuda_graphs_ran_and_why_not() -> None:
    # recorded on an H200 (tests/traces/record): a CPU tensor in `mixed` makes torch give them up
    items = found("cuda_graphs")
    skipped = one(items, kind="cuda graphs", title_has="not used")
    assert skipped.title == "CUDA graphs not used for 1 graph of mixed: cpu device (arg1_1)"
    assert skipped.where.endswith("programs/cuda_graphs.py:15") and "CPU tensors" in skipped.fix
    assert skipped.cost.startswith("not measured")
    used = one(items, kind="cuda graphs", title_has="CUDA graphs used for")
    assert used.title == 'CUDA graphs used for 1 graph of 2 (mode="reduce-overhead")' and "fast 0/0 ×2" in used.detail


def test_max_autotune_says_what_it_chose_for_each_operation() -> None:
    tuned = one(found("autotuned"), kind="autotuning")
    assert tuned.title == "max-autotune benchmarked kernels for 2 operations: a library kernel won 0, a Triton template 2"
    assert "mm: chose triton_mm_1 (0.0317 ms) of 16 choices" in tuned.detail
    assert "addmm: chose triton_mm_19 (0.0321 ms) of 17 choices" in tuned.detail
