"""The zoo's work between its command line (cli/zoo.py) and the sweep (benchmark/zoo.py): the
models named, the libraries they need checked, each model's run examined by compilescope as
`compilescope run` would explain it (examine: a test of compilescope itself), and the sweep
shown as it goes, with what is measured saved after each model."""

from __future__ import annotations

import ast
import contextlib
import signal
import sys
import time
import traceback
from collections.abc import Iterator
from pathlib import Path

from compilescope.app.errors import CommandError
from compilescope.session.zoo import ZooModel, ZooRun

TYPE_CHECKING = False
if TYPE_CHECKING:
    from compilescope.benchmark.zoo import ZooPlan


def model_names(suites: str | None, models: str | None) -> tuple[str, list[str]]:
    """The suite's label and the models to sweep, in order. `--models` names models of the
    suites asked (gpt2, resnet50), or any model by its full name (hf:xlnet, timm:dla34,
    models.py:make); without it, every model of the suites."""
    from compilescope.benchmark.suites import HF, SUITES, TIMM

    asked = [s.strip() for s in (suites or "").split(",") if s.strip()]
    wrong = [s for s in asked if s not in SUITES]
    if wrong:
        raise CommandError(f"--suite: choose from {', '.join(SUITES)} (got {suites!r})")
    if not models:
        asked = asked or ["hf"]
        return ",".join(asked), [name for suite in asked for name in SUITES[suite]]
    names = []
    for item in (m.strip() for m in models.split(",")):
        if not item:
            continue
        if ":" in item:
            names.append(item)
        elif item in TIMM and (not asked or "timm" in asked) and item not in HF:
            names.append(f"timm:{item}")
        elif "timm" in asked and "hf" not in asked:
            names.append(f"timm:{item}")
        else:
            names.append(f"hf:{item}")
    if not names:
        raise CommandError("--models: name at least one model (gpt2,bert or hf:t5,timm:resnet50)")
    if len(set(names)) != len(names):
        raise CommandError(f"--models names a model twice: {models!r}")
    return ",".join(asked) or "models", names


def _where(error: BaseException) -> str:
    """Where in compilescope an error was raised ("render/html.py:120"), for the bug report."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if "compilescope" in f.filename]
    if not frames:
        return ""
    last = frames[-1]
    return f" (at {last.filename.split('compilescope/')[-1]}:{last.lineno})"


def examine(trace: Path, row: ZooModel, session_path: Path | None, backend: str = "inductor", environment: dict | None = None) -> None:
    """What compilescope makes of the model's run, as `compilescope run` would: its session,
    findings, terminal view, HTML report and decompiled files. Fills the row's compile figures;
    each step that raises, and each fact the session lost, is a problem of compilescope's."""
    from compilescope.findings.rules import findings
    from compilescope.render.console import render_text
    from compilescope.render.html import render_html
    from compilescope.render.pyfiles import python_files
    from compilescope.session.loading import load_all
    from compilescope.session.model import error_summary

    problems = row.compilescope_problems
    try:
        sessions = load_all(trace)
        session = sessions[0]
    except Exception as error:
        problems.append(f"reading its trace: {error_summary(error)}{_where(error)}")
        return
    row.compiles = len(session.compiles)
    row.recompiles = len(session.recompiles)
    row.graph_breaks = len(session.graph_breaks)
    if environment is not None:  # (each model adds what the ones before did not load: timm, transformers)
        env = session.environment
        libraries = env.libraries or {}
        facts = {"python": env.python, "torch": env.torch, "transformers": libraries.get("transformers"), "timm": libraries.get("timm")}
        facts |= {"triton": env.triton, "device": env.device}
        environment.update({k: v for k, v in facts.items() if v and k not in environment})
    found: list = []
    steps = (
        ("explaining it", lambda: found.extend(findings(session))),  # (ranked already)
        ("its terminal view", lambda: render_text(session, found=found)),
        ("its HTML report", lambda: render_html(session, found)),
        ("its decompiled files", lambda: [ast.parse(f.text, f.name) for f in python_files(session)]),
    )
    for what, step in steps:
        try:
            step()
        except Exception as error:
            problems.append(f"{what}: {error_summary(error)}{_where(error)}")
    top = next((f for f in found if f.kind == "graph break"), None)
    if top is not None:
        row.top_break = f"{top.title}: {top.detail.splitlines()[0]}" if top.detail else top.title
    # Facts a run that compiled must have left in its session
    if row.status == "pass" and row.cold_compile_s is not None:
        if not session.compiles:
            problems.append("lost: the model compiled, but its session holds no compile")
        elif backend == "inductor" and not session.kernels:
            problems.append("lost: Inductor compiled the model, but its session holds no kernel")
        if session.compiles and not any(c.transformed_code is not None for c in session.compiles):
            problems.append(f"lost: no decompiled code for Dynamo's bytecode ({session.decompiled or 'no reason given'})")
    if session_path is not None:
        try:
            session.save(str(session_path), found)
        except Exception as error:
            problems.append(f"saving its session: {error_summary(error)}{_where(error)}")


def check_libraries(names: list[str]) -> None:
    """Before anything runs: the libraries the models need that are not installed, said in one
    line; where no model can run without them, that line is the error (exit status 2)."""
    from compilescope.benchmark.by_name import library_of, missing_libraries, missing_said

    missing = missing_libraries(names)
    if not missing:
        return
    blocked = [name for name in names if library_of(name) in missing]
    said = f"{len(blocked)} of the {len(names)} models need {missing_said(missing)}"
    if len(blocked) == len(names):
        raise CommandError(said)
    print(f"compilescope zoo: {said} (they will error)", file=sys.stderr)


@contextlib.contextmanager
def terminated_as_interrupt() -> Iterator[list[str]]:
    """SIGTERM (a job's time limit, `timeout`) ends the sweep as Ctrl-C does: the workers
    stopped, what was measured written. Yields the signals received, by name."""
    received: list[str] = []

    def on_term(number: int, frame: object) -> None:
        received.append("SIGTERM")
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, on_term)
    except ValueError:  # not the main thread (called from Python): leave SIGTERM alone
        yield received
        return
    try:
        yield received
    finally:
        signal.signal(signal.SIGTERM, previous)


def sweep_shown(plan: ZooPlan, run: ZooRun, names: list[str], json_path: str | None) -> None:
    """The sweep, each model examined (examine) as it finishes, shown on stderr as it goes (a
    live display on a terminal, a line per model in a log); `run` filled with the rows, the
    summary and, where Ctrl-C or SIGTERM ended it early, why it stopped. With `json_path`, the
    results are saved after each model, so that what was measured is kept whatever ends it."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.text import Text

    from compilescope.benchmark.compile_cache import Seed
    from compilescope.benchmark.zoo import sweep
    from compilescope.findings.finding import plural
    from compilescope.render.sections.runtime import verdict_words
    from compilescope.session.zoo import summarize

    began = time.perf_counter()
    done: list[ZooModel] = []
    running: list[str] = []
    order = {name: index for index, name in enumerate(names)}

    def settle(stopped: str | None) -> None:
        run.models = sorted(done, key=lambda row: order[row.name])
        run.wall_s = time.perf_counter() - began
        run.summary = summarize(run.models)
        run.stopped = stopped

    console = Console(file=sys.stderr, highlight=False)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        first = "Inductor's CPU probes (once per machine)" if plan.backend == "inductor" else "starting"
        task = progress.add_task(first, total=len(names))
        if not console.is_terminal:  # (piped: what the live display would show, as lines)
            progress.console.print(Text(f"compilescope zoo: {plural(len(names), 'model')}; {first}"))

        def started(name: str) -> None:
            running.append(name)
            progress.update(task, description=", ".join(running))
            if not console.is_terminal:  # (piped, a CI log: no live display, so a line per model)
                progress.console.print(Text(f"{name}: started ({len(done) + len(running)} of {len(names)})"))

        def finished(row: ZooModel) -> None:
            done.append(row)
            running.remove(row.name)
            progress.update(task, advance=1, description=", ".join(running) or "done")
            speed = verdict_words(row.verdict, row.speedup) if row.speedup is not None else ""  # (words: a log has no colour)
            line = f"{row.name}: {row.status} {speed}".rstrip()
            if row.reason:
                line += f" ({row.reason[:160]})"
            if row.compilescope_problems:
                line += f" · compilescope failed: {row.compilescope_problems[0][:160]}"
            progress.console.print(Text(line))  # (Text: "hf:llama:" is no emoji code, a reason no markup)
            if json_path:  # what is measured is kept, whatever ends the sweep later
                settle(f"in progress: {len(done)} of {len(names)} models measured")
                run.save(json_path)

        def seeded(cold: Seed) -> None:
            run.cold_cache = cold.describe()
            progress.update(task, description="starting")

        def check(trace: Path, row: ZooModel, session_path: Path | None) -> None:
            examine(trace, row, session_path, plan.backend, run.environment)

        stopped = None
        with terminated_as_interrupt() as signals:
            try:
                sweep(plan, check, started, finished, lambda text: progress.console.print(Text(text)), seeded)
            except KeyboardInterrupt:
                why = signals[-1] if signals else "Ctrl-C"
                stopped = f"stopped ({why}) after {len(done)} of {len(names)} models"
    settle(stopped)
