"""The corpus: programs written here in the style of common public ones (nanoGPT's trainer,
pytorch/examples' mnist and word_language_model, a Trainer-free Hugging Face loop, a diffusion
step, a torchrun DDP job, a model's own generate(), a custom autograd.Function;
tests/programs/corpus/README.md), each run through `compilescope run` as a user runs it.

What compilescope says each compiled, broke and recompiled is compared with torch's own trace of
the same run read by an independent reader (tests/programs/corpus/record_truth.py: a few dozen
lines of JSON, none of compilescope's), and that reading with the truth committed for torch
2.13.0 (tests/programs/corpus/truth/). Then every fix that contains code is pasted into a copy of
the program before the line its finding names, with that line's indentation (a setting of torch's
config after the program's imports), and the copy run by plain python under TORCH_TRACE: it must
run, and the recompile or graph break its finding is about must be gone. The facts checked are
counts, places, compile ids, break lines and the guards' expected and actual values, never the
findings' wording, which may change."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conftest import free_port, run_cli

pytestmark = pytest.mark.slow

CORPUS = Path(__file__).parent / "programs" / "corpus"
_spec = importlib.util.spec_from_file_location("record_truth", CORPUS / "record_truth.py")
assert _spec and _spec.loader
record_truth: Any = importlib.util.module_from_spec(_spec)  # (a script of the corpus's, not a package)
_spec.loader.exec_module(record_truth)

RANKS = {"ddp_step": 2}  # run by torchrun on this many ranks
PROGRAMS = [
    "nanogpt_like",
    "mnist_like",
    "lstm_lm",
    "hf_dynamic_padding",
    "unet_diffusion",
    "ddp_step",
    "generate_decoder",
    "custom_autograd",
]
TRUTH_TORCH = "2.13.0"  # the torch the committed truth was recorded with


@dataclass
class CorpusRun:
    program: Path
    session: dict  # the session `run` saved (for a torchrun job: the launcher's, its ranks as children)
    logs: list[Path]  # torch's trace of the run, one per rank
    log_sessions: list[dict]  # compilescope's reading of each of those logs

    @property
    def findings(self) -> list[dict]:
        return self.session["findings"]


_RUNS: dict[str, CorpusRun] = {}  # one `compilescope run` per program for this file's tests (xdist: --dist loadfile)


def corpus_run(name: str, tmp_path_factory: pytest.TempPathFactory) -> CorpusRun:
    if name in _RUNS:
        return _RUNS[name]
    folder = tmp_path_factory.mktemp(name)
    program = folder / f"{name}.py"
    shutil.copy(CORPUS / program.name, program)
    if name in RANKS:
        launcher = ["-m", "torch.distributed.run", "--standalone", f"--nproc-per-node={RANKS[name]}", program.name]
        result = run_cli("run", "--no-html", *launcher, cwd=folder)
        saved = "compilescope-run.json"
    else:
        result = run_cli("run", "--no-html", program.name, cwd=folder)
        saved = f"compilescope-{name}.json"
    if result.returncode != 0:
        # (known, test_findings_diagnosis.py: followed gloo ranks now and then abort as they exit,
        # after their traces are complete)
        assert name in RANKS and "terminate called without an active exception" in result.stderr, result.stderr[-3000:]
    session = json.loads((folder / saved).read_text(encoding="utf-8"))
    if name in RANKS:
        children = sorted((c for c in session["children"] if c["trace"]), key=lambda c: c["rank"])
        assert [c["rank"] for c in children] == list(range(RANKS[name]))
        logs = [Path(c["trace"]) for c in children]
        log_sessions = []
        for rank, log in enumerate(logs):
            report = run_cli("report", str(log), "--json", f"rank{rank}.json", cwd=folder)
            assert report.returncode == 0, report.stderr[-3000:]
            log_sessions.append(json.loads((folder / f"rank{rank}.json").read_text(encoding="utf-8")))
    else:
        logs, log_sessions = [folder / f"compilescope-{name}.log"], [session]
    _RUNS[name] = CorpusRun(program, session, logs, log_sessions)
    print(f"\n{name}: compilescope run's findings\n" + "\n".join(describe(f) for f in session["findings"]))
    return _RUNS[name]


def describe(finding: dict) -> str:
    return f"  [{finding['kind']}] {finding['title']}\n    where: {finding['where']}\n    fix: {finding['fix']!r}"


def compile_id(text: str) -> str:
    """torch's compile id without the attempt (compilescope writes `0/0_1` for the compile that
    restarted once; the truth keys compiles by frame and compile, `0/0`)."""
    return re.sub(r"_\d+$", "", text)


def place(name: Any, filename: str | None, lineno: int | None) -> str:
    return f"{name(filename)}:{lineno}" if filename else f"?:{lineno}"


def read_by_compilescope(session: dict, name: Any) -> dict:
    """compilescope's session as the truth's facts: frames, compile ids, breaks, failed guards."""
    frames = sorted((f["name"], name(f["filename"]), f["lineno"]) for f in session["frames"])
    compiles = {}
    for frame in session["frames"]:
        for c in frame["compiles"]:
            compiles[compile_id(c["compile_id"])] = {
                "frame": frame["name"],
                "status": c["status"],
                "graph_breaks": [(place(name, g["filename"], g["lineno"]), g["reason"]) for g in c["graph_breaks"]],
                "recompile": [(g["previous_compile"], g["text"], g["subject"], g["expected"], g["actual"]) for g in c["failed_guards"]],
            }
    return {"frames": frames, "compiles": compiles}


def read_by_truth(log: dict) -> dict:
    frames = sorted((f["name"], f["file"], f["line"]) for f in log["frames"])
    names = {f["frame_id"]: f["name"] for f in log["frames"]}
    compiles = {}
    for c in log["compiles"]:
        compiles[c["id"]] = {
            "frame": names.get(int(c["id"].split("/")[0])),
            "graph_breaks": [(g["at"], g["reason"]) for g in c["graph_breaks"]],
            "recompile": [(g["previous"], g["guard"], g.get("subject"), g.get("expected"), g.get("actual")) for g in c["recompile"]],
        }
    return {"frames": frames, "compiles": compiles}


def live_truth(run: CorpusRun) -> dict:
    return record_truth.truth(run.program, run.logs)


# --- what compilescope read, against torch's trace read independently -----------------------


@pytest.mark.parametrize("name", PROGRAMS)
def test_compilescope_reads_what_torch_wrote(name: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    # GIVEN a corpus program run through `compilescope run`, and torch's trace of that run read
    # by the corpus's own reader
    run = corpus_run(name, tmp_path_factory)
    truth = live_truth(run)
    names = record_truth.Names(run.program)
    assert len(truth["logs"]) == len(run.log_sessions) == RANKS.get(name, 1)
    for log, session in zip(truth["logs"], run.log_sessions):
        seen, true = read_by_compilescope(session, names), read_by_truth(log)
        # THEN the same functions were compiled, with the same compile ids, in each rank
        assert seen["frames"] == true["frames"]
        assert sorted(seen["compiles"]) == sorted(true["compiles"])
        for cid, compiled in true["compiles"].items():
            said = seen["compiles"][cid]
            assert said["frame"] == compiled["frame"], cid
            # AND the same graph breaks, at the same file:line, for the same reason
            assert said["graph_breaks"] == compiled["graph_breaks"], cid
            assert (said["status"] == "graph break") == bool(compiled["graph_breaks"]), cid
            # AND the same recompiles: the version whose guard failed, the guard, its expected and
            # actual values wherever torch's text says them, and its subject (compilescope names
            # `kwargs['input_ids']` by its key, `input_ids`)
            assert [r[:2] for r in said["recompile"]] == [r[:2] for r in compiled["recompile"]], cid
            for (_, _, subject, expected, actual), (_, _, true_subject, true_expected, true_actual) in zip(
                said["recompile"], compiled["recompile"]
            ):
                assert true_subject is None or (subject and subject in true_subject), (cid, subject, true_subject)
                assert true_expected is None or expected == true_expected, (cid, expected, true_expected)
                assert true_actual is None or actual == true_actual, (cid, actual, true_actual)


@pytest.mark.parametrize("name", PROGRAMS)
def test_torch_still_does_what_the_committed_truth_says(name: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    # GIVEN the truth committed for the program (recorded by plain python under TORCH_TRACE)
    committed = json.loads((CORPUS / "truth" / f"{name}.json").read_text(encoding="utf-8"))
    assert committed["torch"].startswith(TRUTH_TORCH)
    run = corpus_run(name, tmp_path_factory)
    live = live_truth(run)
    # (compilescope's trace has no torch_version record: the version is the session's)
    version = run.session["environment"]["torch"]
    assert live.pop("torch") in (None, version) and committed.pop("torch")
    if not version.startswith(TRUTH_TORCH):
        pytest.skip(f"the committed truth is torch {TRUTH_TORCH}'s; this is torch {version}")
    # THEN the run under compilescope compiled, broke and recompiled exactly as the program did
    # under plain python (compilescope observes only)
    assert live == committed


@pytest.mark.parametrize("name", PROGRAMS)
def test_findings_cover_the_truth(name: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    # GIVEN the findings `compilescope run` gave, and the truth of the same run
    run = corpus_run(name, tmp_path_factory)
    truth = live_truth(run)
    ids = {c["id"] for log in truth["logs"] for c in log["compiles"]}
    recompiled = {c["id"] for log in truth["logs"] for c in log["compiles"] if c["recompile"]}
    broken = {c["id"] for log in truth["logs"] for c in log["compiles"] if c["graph_breaks"]}

    def about(kind: str) -> set[str]:  # ("recompile limit", an "unresumable graph break": kinds of theirs)
        return {compile_id(i) for f in run.findings if kind in f["kind"] for i in f["compile_ids"]}

    # THEN every finding is about compiles that happened; every recompile and every compile
    # that broke is in one, and those findings name no other compiles
    for finding in run.findings:
        assert {compile_id(i) for i in finding["compile_ids"]} <= ids, describe(finding)
    assert about("recompile") == recompiled
    assert about("break") == broken
    # AND a finding's place to act, where it has one, is a line of the program itself
    program_lines = run.program.read_text(encoding="utf-8").count("\n")
    for finding in run.findings:
        if "recompile" in finding["kind"] or "break" in finding["kind"]:
            assert finding["where"], describe(finding)
        if finding["where"]:
            filename, _, line = finding["where"].rpartition(":")
            assert Path(filename).resolve() == run.program.resolve(), describe(finding)
            assert 1 <= int(line) <= program_lines


@pytest.mark.parametrize("name", PROGRAMS)
def test_tlparse_reads_the_same_compiles(name: str, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    # GIVEN the run's trace read by tlparse, torch's own reader (a third reading)
    tlparse = shutil.which("tlparse", path=os.path.dirname(sys.executable)) or shutil.which("tlparse")
    assert tlparse, "tlparse 0.4.3 is a test dependency (pip install tlparse==0.4.3)"
    run = corpus_run(name, tmp_path_factory)
    truth = live_truth(run)
    for rank, (log, true) in enumerate(zip(run.logs, truth["logs"])):
        out = tmp_path / f"tlparse{rank}"
        subprocess.run([tlparse, str(log), "-o", str(out), "--no-browser"], check=True, capture_output=True, timeout=300)
        directory = json.loads((out / "compile_directory.json").read_text(encoding="utf-8"))
        # (tlparse keys compiles "[0/1]", a restarted one's retry "[0/1_1]", and "[-/-]" for the rest)
        artifacts: dict[str, list[str]] = {}
        for key, entry in directory.items():
            if key != "[-/-]":
                artifacts.setdefault(compile_id(key.strip("[]")), []).extend(a["name"] for a in entry["artifacts"])
        # THEN it has the same compiles, the breaks and the recompile reasons at the same ones
        assert sorted(artifacts) == sorted(c["id"] for c in true["compiles"])
        for c in true["compiles"]:
            names = artifacts[c["id"]]
            assert sum(a.startswith("dynamo_graph_break_reason") for a in names) == len(c["graph_breaks"]), c["id"]
            assert any(a.startswith("recompile_reasons") for a in names) == bool(c["recompile"]), c["id"]


# --- the fixes, pasted where the findings say -------------------------------------------------

TORCH_CODE = re.compile(r"(?<![\w.`])torch\.[\w.]+(?:\((?:[^()]|\([^()]*\))*\)|\s*=\s*[^\s,;)]+)")


def fix_code(fix: str, program_text: str) -> list[str]:
    """The statements a fix gives: code in backticks, or torch's API written out (`torch.x.y(...)`,
    `torch.x.y = v`), that parses as one Python statement doing something (not a bare name), and
    is not quoted from the program (`output = model(data)`, `model(**batch)`)."""
    candidates = re.findall(r"`([^`\n]+)`", fix) + TORCH_CODE.findall(re.sub(r"`[^`\n]+`", " ", fix))
    code = []
    for text in candidates:
        text = text.strip().rstrip(".")
        try:
            body = ast.parse(text).body
        except SyntaxError:
            continue
        if len(body) != 1 or text in program_text or text in code:
            continue
        if isinstance(body[0], ast.Expr) and not isinstance(body[0].value, ast.Call):
            continue
        if isinstance(body[0], ast.Assign) and isinstance(body[0].targets[0], ast.Name) and not re.search(r"\s=\s", text):
            continue  # `drop_last=True`, `is_causal=True`: an argument to pass, not a statement
        code.append(text)
    return code


def test_the_code_of_a_fix_is_read_from_its_text() -> None:
    program = "for data, target in loader:\n    output = model(data)\n    model(**batch)\n"
    # today's texts: the code written out, the program's own line quoted, torch's hints
    assert fix_code(
        "mark it dynamic before the first call: torch._dynamo.mark_dynamic(x, 0) before `output = model(data)` at a.py:2, "
        "or compile with dynamic=True.",
        program,
    ) == ["torch._dynamo.mark_dynamic(x, 0)"]
    assert fix_code("torch's hint: Set torch._dynamo.config.allow_rnn=True to enable experimental support", program) == [
        "torch._dynamo.config.allow_rnn=True"
    ]
    assert fix_code(
        "torch's hint: Set `torch._dynamo.config.capture_scalar_outputs = True` or `export TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS=1`", program
    ) == ["torch._dynamo.config.capture_scalar_outputs = True"]
    # code in backticks, with the caller's expressions; arguments and names are not statements
    assert fix_code('`torch._dynamo.mark_dynamic(batch["input_ids"], 1)` before `model(**batch)`', program) == [
        'torch._dynamo.mark_dynamic(batch["input_ids"], 1)'
    ]
    assert fix_code("pass `drop_last=True` to the `DataLoader`; or `is_causal=True`; `alpha`", program) == []
    assert fix_code("Gradient mode changed (torch.no_grad vs training): expected.", program) == []


def statement_at(source: str, line: int) -> ast.stmt:
    """The innermost statement at `line` (a decorated function starts at its first decorator)."""
    best: tuple[int, ast.stmt] | None = None
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.stmt):
            continue
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        if start <= line <= (node.end_lineno or node.lineno) and (best is None or start >= best[0]):
            best = (start, node)
    assert best, f"no statement at line {line}"
    return best[1]


def _edits(code: str, statement: ast.stmt) -> bool:
    """Whether `code` is the statement at the finding's line written again (`x = self.blocks(x,
    mask=mask, is_causal=True)` for `x = self.blocks(x, mask=mask)`): the same targets assigned,
    or a call of the same function, as a user reads "write that line as ...". It replaces the line."""
    new = ast.parse(code).body[0]
    if isinstance(new, ast.Assign) and isinstance(statement, ast.Assign):
        return [ast.dump(t) for t in new.targets] == [ast.dump(t) for t in statement.targets]
    if isinstance(new, (ast.Expr, ast.Return)) and type(new) is type(statement):
        a, b = new.value, statement.value
        return isinstance(a, ast.Call) and isinstance(b, ast.Call) and ast.dump(a.func) == ast.dump(b.func)
    return False


@dataclass
class Paste:
    """One statement of a fix, where it goes in the program: lines `first`..`last` replaced by it
    (an edit of the line), or inserted before `first` (`last` = first - 1)."""

    code: str
    first: int
    last: int
    indent: int


def paste_at(source: str, code: str, line: int) -> Paste:
    """Where `code` goes in the program: a setting of torch's (`torch._dynamo.config.allow_rnn =
    True`: global, read when Dynamo compiles) after the program's imports, as a user sets it before
    anything compiles; the statement at `line` written again in its place; anything else before
    the statement at `line`."""
    if re.match(r"torch\.[\w.]*\bconfig\.\w+\s*=", code):
        imports = [node for node in ast.parse(source).body if isinstance(node, (ast.Import, ast.ImportFrom))]
        at = (imports[-1].end_lineno or imports[-1].lineno) + 1 if imports else 1
        return Paste(code, at, at - 1, 0)
    statement = statement_at(source, line)
    first = min([statement.lineno] + [d.lineno for d in getattr(statement, "decorator_list", [])])
    if _edits(code, statement):
        return Paste(code, first, statement.end_lineno or statement.lineno, statement.col_offset)
    return Paste(code, first, first - 1, statement.col_offset)


def run_pasted(program: Path, code: list[str], line: int, folder: Path) -> tuple[subprocess.CompletedProcess, list[Paste]]:
    """A copy of the program with a fix's statements pasted together (paste_at; one fix's
    statements are one change: `mark_dynamic(batch["input_ids"], 1)` and the same for
    `attention_mask`), run by plain python (or torchrun) under TORCH_TRACE=folder/trace; the run
    and where each statement went."""
    source = program.read_text(encoding="utf-8")
    pastes = [paste_at(source, statement, line) for statement in code]
    lines = source.splitlines(keepends=True)
    for paste in sorted(pastes, key=lambda p: (p.first, p.last), reverse=True):  # bottom up: lines above keep their numbers
        lines[paste.first - 1 : paste.last] = [" " * paste.indent + paste.code + "\n"]
    folder.mkdir()
    copy = folder / program.name
    copy.write_text("".join(lines), encoding="utf-8")
    if program.stem in RANKS:
        ranks = RANKS[program.stem]
        command = [sys.executable, "-m", "torch.distributed.run", f"--nproc_per_node={ranks}", f"--master_port={free_port()}", copy.name]
    else:
        command = [sys.executable, copy.name]
    env = {**os.environ, "MASTER_ADDR": "127.0.0.1", "TORCH_TRACE": str(folder / "trace")}
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=600), pastes


def what_is_left(finding: dict, before: dict, after: dict, pastes: list[Paste]) -> list[str]:
    """What the finding was about that the run with its fix still did. A recompile finding: its
    functions must recompile fewer times by at least the recompiles it named (the same change met
    under another guard, `16 <= x.size()[0]` after `mark_dynamic`, still costs a compile); a
    graph-break finding: no break at the places it named."""
    ids = {compile_id(i) for i in finding["compile_ids"]}
    was = [c for log in before["logs"] for c in log["compiles"] if c["id"] in ids]
    if "recompile" in finding["kind"]:
        functions = {c.get("name") for c in was}
        recompiled = sum(1 for log in before["logs"] for c in log["compiles"] if c.get("name") in functions and c["recompile"])
        now = [c for log in after["logs"] for c in log["compiles"] if c.get("name") in functions and c["recompile"]]
        if len(now) > recompiled - len(was):
            return [f"{c['id']} of {c.get('name')} recompiled: {c['recompile'][0]['guard']}" for c in now]
        return []
    if "break" in finding["kind"]:

        def unshifted(at: str) -> str:  # the program's lines after a paste moved by the lines it added or took
            filename, _, line = at.rpartition(":")
            if filename != before["program"]:
                return at
            moved = sum(1 - (p.last - p.first + 1) for p in pastes if int(line) > p.last)
            return f"{filename}:{int(line) - moved}"

        places = {g["at"] for c in was for g in c["graph_breaks"]}
        now = [c for log in after["logs"] for c in log["compiles"]]
        return [f"{c['id']} broke at {g['at']}: {g['reason']}" for c in now for g in c["graph_breaks"] if unshifted(g["at"]) in places]
    return []


# Today's fixes that do not run where they are pasted, or run without removing what their finding
# is about; each turns into an XPASS (a failure) when its finding is mended: then remove it here.
WRONG_TODAY: dict[str, str] = {}  # none today: every fix with code runs and has its effect


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=WRONG_TODAY[n])) if n in WRONG_TODAY else n for n in PROGRAMS]
)
def test_each_fix_with_code_runs_where_its_finding_says(name: str, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    # GIVEN the findings of the program's run
    run = corpus_run(name, tmp_path_factory)
    source = run.program.read_text(encoding="utf-8")
    truth = live_truth(run)
    failed, without_code, pasted = [], [], 0
    for finding in run.findings:
        code = fix_code(finding["fix"], source)
        if not code:
            without_code.append(f"[{finding['kind']}] {finding['title']} (fix: {finding['fix'][:200]!r})")
            continue
        filename, _, line = (finding["where"] or "").rpartition(":")
        assert filename and Path(filename).resolve() == run.program.resolve(), (
            f"nowhere in the program to paste {code}: {describe(finding)}"
        )
        # WHEN its statements are pasted where the finding says (before its line, or as that line
        # written again), and the copy run
        pasted += 1
        done, pastes = run_pasted(run.program, code, int(line), tmp_path / f"paste{pasted}")
        at = ", ".join(f"{p.code} {'at line' if p.last < p.first else 'as line'} {p.first}" for p in pastes)
        # THEN it runs
        if done.returncode != 0 or "NameError" in done.stderr:
            errors = [text for text in done.stderr.splitlines() if re.match(r"(\[rank\d+\]: )?\w+(Error|Exception)\b", text)]
            failed.append(f"{at} ({finding['title']}): exit {done.returncode}, " + " | ".join(errors[-3:]))
            continue
        # AND it has the effect claimed: the recompile or the break it is about is gone
        left = what_is_left(finding, truth, record_truth.truth(run.program, [tmp_path / f"paste{pasted}" / "trace"]), pastes)
        if left:
            failed.append(f"{at} ({finding['title']}) ran, but: " + "; ".join(left))
    if without_code:
        warnings.warn(f"{name}: findings whose fix has no code to paste:\n  " + "\n  ".join(without_code), stacklevel=1)
    assert not failed, "\n\n".join(failed)
