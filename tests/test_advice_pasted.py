"""The advice as a user meets it (issue 40): each program of tests/traces/programs/ is run through
a real `compilescope run`; the code a finding gives is pasted into a copy of the program at the
place the finding names, and the program is run again: it must run (no NameError) and have the
effect claimed (no recompile, no graph break, the forward compiled).

Real torch, backend="eager" (the findings are Dynamo's): a few seconds a run.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import compilescope
from conftest import run_cli

PROGRAMS = Path(__file__).resolve().parent / "traces" / "programs"


def _run(folder: Path, name: str):
    """`compilescope run` of folder/name.py: its result, session and findings."""
    result = run_cli("run", "--no-html", f"{name}.py", cwd=folder)
    assert result.returncode == 0, result.stderr[-3000:]
    session = compilescope.load(folder / f"compilescope-{name}.json")
    return result, session, session.explain()


def _copy(name: str, folder: Path) -> Path:
    target = folder / f"{name}.py"
    shutil.copy(PROGRAMS / f"{name}.py", target)
    return target


def _run_original(tmp_path: Path, name: str):
    """`compilescope run` of the program as it is, in tmp_path/original (tmp_path is left for
    the copy the fix is pasted into)."""
    original = tmp_path / "original"
    original.mkdir()
    _copy(name, original)
    return _run(original, name)


def _one(found: list, kind: str):
    chosen = [f for f in found if f.kind == kind]
    assert len(chosen) == 1, [f.title for f in found]
    return chosen[0]


def _paste_before(program: Path, fix: str) -> list[str]:
    """Paste the fix's mark_dynamic calls before the line it names ("before `CODE` at FILE:LINE"),
    indented as that line is; the calls pasted."""
    text = " ".join(fix.split())
    calls = re.findall(r"torch\._dynamo\.mark_dynamic\([^()]*(?:\[[^\]]*\])?[^()]*\)", text)
    place = re.search(r"before `(?P<code>[^`]+)` at \S+?:(?P<line>\d+)", text)
    assert calls and place, fix
    lines = program.read_text().splitlines()
    index = int(place.group("line")) - 1
    assert lines[index].strip() == place.group("code")
    indent = lines[index][: len(lines[index]) - len(lines[index].lstrip())]
    lines[index:index] = [indent + call for call in calls]
    program.write_text("\n".join(lines) + "\n")
    return calls


@pytest.fixture(scope="module")
def ragged(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("ragged")
    _copy("ragged", folder)
    return folder, _run(folder, "ragged")


def test_mark_dynamic_pasted_before_the_located_line_runs_and_removes_the_recompile(ragged, tmp_path: Path) -> None:
    # GIVEN the mnist-like loop's finding: its last batch of 8 compiled forward again
    _, (_, session, found) = ragged
    assert len(session.recompiles) == 1
    size = _one(found, "recompile")
    # WHEN its mark_dynamic line is pasted where it says, and the program runs again
    program = _copy("ragged", tmp_path)
    assert _paste_before(program, size.fix) == ["torch._dynamo.mark_dynamic(data, 0)"]
    _, pasted, _ = _run(tmp_path, "ragged")
    # THEN it runs (no NameError) and nothing compiles again
    assert pasted.recompiles == [] and pasted.compiles


def test_drop_last_as_the_finding_writes_it_removes_the_recompile(ragged, tmp_path: Path) -> None:
    _, (_, _, found) = ragged
    fix = " ".join(_one(found, "recompile").fix.split())
    written = re.search(r"\((DataLoader\(dataset, batch_size=64, drop_last=True\))\)", fix)
    assert written, fix
    program = _copy("ragged", tmp_path)
    source = program.read_text()
    assert "DataLoader(dataset, batch_size=64)" in source
    program.write_text(source.replace("DataLoader(dataset, batch_size=64)", written.group(1)))
    _, dropped, _ = _run(tmp_path, "ragged")
    assert dropped.recompiles == [] and dropped.compiles


def test_mark_dynamic_of_a_dict_spread_into_the_call_runs_and_removes_the_recompile(tmp_path: Path) -> None:
    # GIVEN `logits = model(**batch)` with dynamic padding
    _, session, found = _run_original(tmp_path, "padded")
    assert len(session.recompiles) == 1
    program = _copy("padded", tmp_path)
    # WHEN the finding's lines are pasted before the call
    assert _paste_before(program, _one(found, "recompile").fix) == [
        'torch._dynamo.mark_dynamic(batch["input_ids"], 1)',
        'torch._dynamo.mark_dynamic(batch["attention_mask"], 1)',
    ]
    _, pasted, _ = _run(tmp_path, "padded")
    # THEN no recompile: both padded tensors were dynamic from the first call
    assert pasted.recompiles == [] and pasted.compiles


def test_is_causal_pasted_at_the_encoder_call_removes_the_break_and_the_mask_points_at_its_assignment(tmp_path: Path) -> None:
    # GIVEN word_language_model's Transformer: a break in torch's _detect_is_causal_mask
    _, session, found = _run_original(tmp_path, "causal")
    assert session.graph_breaks
    brk = _one(found, "graph break")
    assert brk.where.endswith("causal.py:31")
    written = re.search(r"`(output = self\.encoder\(src, mask=self\.src_mask, is_causal=True\))`", " ".join(brk.fix.split()))
    assert written, brk.fix
    # and the recompile on self.src_mask is placed at the assignment forward makes, with a fix
    mask = next(f for f in found if f.kind == "recompile" and "src_mask" in f.title)
    assert mask.where.endswith("causal.py:27") and "self.src_mask = mask" in mask.detail
    assert "register_buffer" in mask.fix
    # WHEN the line is written as the finding says
    program = _copy("causal", tmp_path)
    lines = program.read_text().splitlines()
    assert lines[30].strip() == "output = self.encoder(src, mask=self.src_mask)"
    lines[30] = lines[30].replace(lines[30].strip(), written.group(1))
    program.write_text("\n".join(lines) + "\n")
    _, fixed, _ = _run(tmp_path, "causal")
    # THEN it runs without the break
    assert fixed.graph_breaks == [] and fixed.compiles


def test_compiling_in_place_as_the_finding_says_compiles_the_forward_generate_calls(tmp_path: Path) -> None:
    # GIVEN model = torch.compile(model); model.generate(...): nothing compiled
    result, session, found = _run_original(tmp_path, "generate")
    assert session.compiles == []
    finding = _one(found, "compiled module not called")
    assert "Nothing was compiled" not in result.stderr
    written = re.search(r"replace `([^`]+)` with `([^`]+)`", " ".join(finding.fix.split()))
    assert written, finding.fix
    # WHEN the torch.compile line is replaced as the finding says
    program = _copy("generate", tmp_path)
    source = program.read_text()
    assert written.group(1) in source
    program.write_text(source.replace(written.group(1), written.group(2)))
    _, fixed, fixed_found = _run(tmp_path, "generate")
    # THEN TinyLM.forward compiles (generate's self(...) goes through the compiled call)
    assert any(f.qualname == "TinyLM.forward" or f.name == "forward" for f in fixed.frames), [f.name for f in fixed.frames]
    assert not [f for f in fixed_found if f.kind == "compiled module not called"]


def test_the_report_starts_on_a_line_of_its_own_after_an_unfinished_line(tmp_path: Path) -> None:
    # GIVEN a program whose last output is a progress bar's line, without its newline
    (tmp_path / "bar.py").write_text("import sys\nsys.stderr.write('progress 3/3 |#####|')\n")
    result = run_cli("run", "--no-save", "bar.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    # THEN compilescope's first line is a line of its own
    assert result.stderr.startswith("progress 3/3 |#####|\n"), result.stderr[:200]
    header = next(line for line in result.stderr.splitlines() if "compilescope" in line)
    assert header.startswith("compilescope"), result.stderr[:400]


def test_mark_dynamic_for_a_hugging_face_model_called_with_a_padded_dict_runs_and_removes_the_recompile(tmp_path: Path) -> None:
    # GIVEN a Hugging Face model (its forward behind transformers' decorator, **kwargs) called as model(**batch)
    pytest.importorskip("transformers")
    source = (
        "import torch, transformers\n"
        "torch.manual_seed(0)\n"
        "config = transformers.BertConfig(num_hidden_layers=1, hidden_size=32, num_attention_heads=2, intermediate_size=64, vocab_size=100)\n"
        'model = torch.compile(transformers.BertForSequenceClassification(config), backend="eager")\n'
        "for length in (8, 12, 10):\n"
        '    batch = {"input_ids": torch.randint(0, 100, (2, length)), "attention_mask": torch.ones(2, length, dtype=torch.long)}\n'
        "    out = model(**batch)\n"
    )
    original = tmp_path / "original"
    original.mkdir()
    (original / "hf.py").write_text(source)
    _, session, found = _run(original, "hf")
    assert len(session.recompiles) == 1
    program = tmp_path / "hf.py"
    program.write_text(source)
    # WHEN the finding's lines are pasted before `out = model(**batch)`
    assert _paste_before(program, _one(found, "recompile").fix) == [
        'torch._dynamo.mark_dynamic(batch["input_ids"], 1)',
        'torch._dynamo.mark_dynamic(batch["attention_mask"], 1)',
    ]
    _, pasted, _ = _run(tmp_path, "hf")
    # THEN one compile serves every length
    assert pasted.recompiles == [] and len(pasted.compiles) == 1


def test_a_tensor_made_in_the_call_is_named_marked_and_passed_as_the_fix_writes(tmp_path: Path) -> None:
    # GIVEN the quickstart, whose call makes its input in place: model(torch.randn(rows, 32)),
    # a batch of 8 rows, then 16 (Inductor: the README's example as it is)
    shutil.copy(PROGRAMS / "quickstart.py", tmp_path / "quickstart.py")
    _, _, found = _run(tmp_path, "quickstart")
    size = next(f for f in found if f.kind == "recompile" and "dimension 0" in f.title)
    fix = " ".join(size.fix.split())
    # THEN the fix gives the lines that name the tensor, mark it and pass it
    lines = re.search(
        r"`(x = torch\.randn\(rows, 32\))`, `(torch\._dynamo\.mark_dynamic\(x, 0\))`, then `(out = model\(x\))` at \S+:28", fix
    )
    assert lines, fix
    # WHEN they are written in place of line 28, as a user would, and the program run again
    program = tmp_path / "fixed" / "quickstart.py"
    program.parent.mkdir()
    source = (PROGRAMS / "quickstart.py").read_text().splitlines()
    indent = source[27][: len(source[27]) - len(source[27].lstrip())]
    source[27:28] = [indent + line for line in lines.groups()]
    program.write_text("\n".join(source) + "\n")
    _, fixed, _ = _run(program.parent, "quickstart")
    # THEN it runs, and no size change compiles anything again (the break's own value still does)
    assert fixed.compiles
    assert not [c.compile_id for c in fixed.recompiles if "size mismatch" in " ".join(c.recompile_reason)]


def test_a_global_made_a_tensor_as_the_fix_writes_removes_the_recompile_and_keeps_the_values(tmp_path: Path) -> None:
    # GIVEN a global number changed between calls, compiled in as a constant
    result, session, found = _run_original(tmp_path, "global_scale")
    assert len(session.recompiles) == 1
    fix = " ".join(_one(found, "recompile").fix.split())
    written = re.search(
        r"`(SCALE = torch\.tensor\(2\.0\))` where it is set \([^)]*global_scale\.py lines 7 and 17\), and each new value a tensor too", fix
    )
    assert written, fix
    # WHEN the global is set as the fix writes it, and each new value as a tensor too
    program = _copy("global_scale", tmp_path)
    source = program.read_text()
    assert "SCALE = 2.0\n" in source and "SCALE = 2.0 + step\n" in source
    program.write_text(
        source.replace("SCALE = 2.0\n", written.group(1) + "\n").replace("SCALE = 2.0 + step\n", "SCALE = torch.tensor(2.0 + step)\n")
    )
    pasted_result, pasted, _ = _run(tmp_path, "global_scale")
    # THEN nothing compiles again, and the program prints what it printed before
    assert pasted.recompiles == [] and pasted.compiles
    assert pasted_result.stdout == result.stdout


def test_a_torch_module_wrapped_as_the_fix_writes_compiles_and_prints_the_same(tmp_path: Path) -> None:
    # GIVEN an nn.Sequential given to module.compile(): nothing compiled, and the finding says why
    result, session, found = _run_original(tmp_path, "compiled_in_place")
    assert session.compiles == []
    fix = _one(found, "nothing compiled").fix
    written = re.search(r"`(model = torch\.compile\(model\))` \(with the same arguments\)", fix)
    assert written, fix
    # WHEN the module is wrapped as the fix writes it, with the same arguments
    program = _copy("compiled_in_place", tmp_path)
    source = program.read_text()
    assert 'model.compile(backend="eager")' in source
    program.write_text(source.replace('model.compile(backend="eager")', 'model = torch.compile(model, backend="eager")'))
    pasted_result, pasted, _ = _run(tmp_path, "compiled_in_place")
    # THEN its forward is compiled, and the program prints what it printed before
    assert [c.compile_id for c in pasted.compiles] == ["0/0"]
    assert pasted_result.stdout == result.stdout


def test_a_modules_number_attributes_made_symbolic_or_buffers_as_the_fixes_write(tmp_path: Path) -> None:
    # GIVEN modules whose number attributes change between calls (an int forward counts, a float
    # forward anneals, an int the loop sets): each value of an int compiles again
    result, session, found = _run_original(tmp_path, "module_counters")
    fixes = {name: " ".join(_one_titled(found, f"self.{name}").fix.split()) for name in ("step", "temperature", "shift")}
    assert len(session.recompiles) == 4 + 1 + 4
    program = _copy("module_counters", tmp_path)
    source = program.read_text()
    # WHEN the setting the int's fix gives is pasted after the imports
    setting = re.search(r"`(torch\._dynamo\.config\.allow_unspec_int_on_nn_module = True)` after the imports", fixes["step"])
    assert setting, fixes["step"]
    program.write_text(source.replace("import torch.nn as nn\n", f"import torch.nn as nn\n{setting.group(1)}\n", 1))
    pasted_result, pasted, _ = _run(tmp_path, "module_counters")
    # THEN each int compiles again once, at its first change, as the fix says, and the program
    # prints what it printed before
    per_function = {f.qualname.split(".")[0]: len(f.compiles) for f in pasted.frames}
    assert per_function == {"WarmupScale": 2, "Annealed": 2, "Shifted": 2}, per_function
    assert pasted_result.stdout == result.stdout
    # WHEN instead each attribute is made a buffer in place of __init__'s line, as each fix
    # writes it, and the loop sets the shift in place, as its fix says
    buffered = source
    for fix in fixes.values():
        written = re.search(r"`(self\.register_buffer\([^`]+\))` in __init__, in place of `([^`]+)`", fix)
        assert written and f"    {written.group(2)}\n" in buffered, fix
        buffered = buffered.replace(f"    {written.group(2)}\n", f"    {written.group(1)}\n")
    in_place = re.search(r"`model\.shift\.(fill_)\(value\)`", fixes["shift"])
    assert in_place and "    shifter.shift = step\n" in buffered, fixes["shift"]
    program.write_text(buffered.replace("    shifter.shift = step\n", f"    shifter.shift.{in_place.group(1)}(step)\n"))
    buffered_result, buffers, _ = _run(tmp_path, "module_counters")
    # THEN nothing compiles again, and the program prints what it printed before
    assert buffers.recompiles == [] and len(buffers.compiles) == 3
    assert buffered_result.stdout == result.stdout


def _one_titled(found: list, text: str):
    chosen = [f for f in found if f.kind == "recompile" and text in f.title]
    assert len(chosen) == 1, [f.title for f in found]
    return chosen[0]


def test_what_a_lookup_and_a_string_are_not_offered_would_not_work(tmp_path: Path) -> None:
    import subprocess
    import sys

    # GIVEN indices read with .tolist() to index a list, and a string argument: the findings
    # withhold torch's hint to capture the scalar, and dynamic=True for the string
    _, session, found = _run_original(tmp_path, "label_lookup")
    brk = next(f for f in found if f.kind == "graph break")
    string = _one(found, "recompile")
    assert "capture_scalar_outputs" not in brk.try_fixes and "dynamic" not in string.try_fixes
    assert len(session.recompiles) == 3  # the code after the break twice, the string once
    program = _copy("label_lookup", tmp_path)
    source = program.read_text()
    # WHEN the scalar is captured after all, as torch's hint says
    program.write_text(source.replace("import torch\n", "import torch\ntorch._dynamo.config.capture_scalar_outputs = True\n", 1))
    captured = subprocess.run([sys.executable, program.name], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    # THEN the program stops at the lookup, as the finding says
    assert captured.returncode != 0 and "GuardOnDataDependentSymNode" in captured.stderr, captured.stderr[-2000:]
    assert "names[i]" in captured.stderr
    # WHEN instead the loss is compiled with dynamic=True
    program.write_text(
        source.replace('@torch.compile(backend="eager")\ndef loss_fn', '@torch.compile(backend="eager", dynamic=True)\ndef loss_fn')
    )
    _, dynamic, _ = _run(tmp_path, "label_lookup")
    # THEN the string still compiles a version per value
    assert [len(f.compiles) for f in dynamic.frames if f.name == "loss_fn"] == [2]


def test_dynamic_as_offered_for_a_size_removes_its_recompile_and_not_a_loops(tmp_path: Path) -> None:
    # GIVEN a loop's count and a view's sizes passed as Python numbers: dynamic=True is offered for
    # the sizes, and said not to help the loop
    result, session, found = _run_original(tmp_path, "number_uses")
    size = next(f for f in found if f.kind == "recompile" and "shape[0]" in f.title)
    count = next(f for f in found if f.kind == "recompile" and "config.repeats" in f.title)
    assert "dynamic" in size.try_fixes and "dynamic=True can help" in " ".join(count.fix.split())
    # WHEN both functions are compiled with dynamic=True
    program = _copy("number_uses", tmp_path)
    program.write_text(program.read_text().replace('@torch.compile(backend="eager")', '@torch.compile(backend="eager", dynamic=True)'))
    pasted_result, pasted, _ = _run(tmp_path, "number_uses")
    # THEN the view compiles once, the loop still once per count, as the findings say; same output
    compiles = {f.name: len(f.compiles) for f in pasted.frames}
    assert compiles == {"regrouped": 1, "repeated": 3}, compiles
    assert pasted_result.stdout == result.stdout


def test_marking_a_dimension_torch_specializes_stops_the_program_as_the_finding_says(tmp_path: Path) -> None:
    import subprocess
    import sys

    # GIVEN a loop over a tensor's rows, compiled: the finding says marking its dimension dynamic
    # makes torch raise, and offers no mark_dynamic
    _, _, found = _run_original(tmp_path, "row_loop")
    assert "ConstraintViolationError" in _one(found, "recompile").fix
    # WHEN the dimension is marked dynamic anyway, before the calls
    program = _copy("row_loop", tmp_path)
    source = program.read_text()
    assert "    x = torch.ones(n, 3)\n" in source
    program.write_text(source.replace("    x = torch.ones(n, 3)\n", "    x = torch.ones(n, 3)\n    torch._dynamo.mark_dynamic(x, 0)\n"))
    marked = subprocess.run([sys.executable, program.name], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    # THEN torch raises ConstraintViolationError and the program stops
    assert marked.returncode != 0 and "ConstraintViolationError" in marked.stderr, marked.stderr[-2000:]
