"""compilescope zoo: many real models, each compiled and measured in processes of its own, with
the figures of PyTorch's inductor dashboard; and each model's run explained by compilescope, as a
test of compilescope itself."""

from __future__ import annotations

import argparse
import ast
import contextlib
import datetime
import signal
import sys
import time
import traceback
from collections.abc import Iterator
from pathlib import Path

from compilescope.choices import DEFAULT_TIME_LIMIT_S, SIZES
from compilescope.cli.bench import MODES, check_device
from compilescope.cli.errors import CommandError
from compilescope.cli.options import open_command
from compilescope.outputs import absolute, check_writable
from compilescope.session.zoo import ZooModel, ZooRun

BACKENDS = ("eager", "aot_eager", "inductor")


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


def _check_libraries(names: list[str]) -> None:
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
def _terminated_as_interrupt() -> Iterator[list[str]]:
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


class ZooCommand:
    """Real Hugging Face and timm models, each compiled and measured in processes of its own.

    compilescope zoo --suite hf --size tiny                 # every HF architecture, small
    compilescope zoo --models gpt2,bert,t5 --json zoo.json --html zoo.html
    compilescope zoo --suite timm --size base --device cuda --amp
    compilescope zoo --models hf:llama,models.py:make --train

    Each model is built from its config with random weights (nothing is downloaded; see
    `compilescope bench hf:MODEL_TYPE`), then measured as bench does in two processes (an empty
    compile cache, then the filled one) under one time limit, while compilescope records what
    torch.compile did. Per model: pass, fail (torch.compile raised, or its result differs from
    eager's), error (the model did not build or run eagerly) or timeout, with the reason;
    compiles, graph breaks and the costliest one, recompiles; speedup, cold and warm compile
    time, memory, accuracy. The summary: pass rate, geometric-mean speedup, median compile
    time, memory compression (eager / compiled peak, on a GPU). Exit status 1 where
    compilescope itself failed to explain a model's run (a bug of ours: please report it).
    """

    @staticmethod
    def prepare_parser(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--suite", help="hf, timm, or hf,timm (default hf, where --models names none)")
        parser.add_argument(
            "--models", metavar="A,B,...", help="these models only: gpt2,bert (of the suite) or hf:xlnet, timm:dla34, file.py:make"
        )
        parser.add_argument(
            "--size", choices=SIZES, default="tiny", help="tiny (a few small layers, the default) or base (the default config)"
        )
        parser.add_argument("--config", metavar="KEY=VALUE,...", help="config values to set on every model by name, after --size")
        parser.add_argument("--device", default="cpu", help="cpu or cuda (default cpu)")
        parser.add_argument(
            "--train", action="store_true", help="measure a training step (forward, backward, SGD step) instead of inference"
        )
        parser.add_argument(
            "--amp", action="store_true", help="inference with the model in bfloat16; training under torch.autocast(bfloat16)"
        )
        parser.add_argument("--backend", choices=BACKENDS, default="inductor", help="torch.compile's backend (default inductor)")
        parser.add_argument("--mode", choices=MODES, default="default", help="inductor's mode (default: default)")
        parser.add_argument("--runs", type=int, default=20, help="timed calls of each, eager and compiled (default 20)")
        parser.add_argument(
            "--time-limit",
            type=int,
            default=DEFAULT_TIME_LIMIT_S,
            metavar="SECONDS",
            help=f"per model, its processes together (default {DEFAULT_TIME_LIMIT_S})",
        )
        parser.add_argument("--jobs", type=int, default=1, help="models at once (default 1); on CUDA each gets a GPU of its own")
        parser.add_argument("--json", metavar="PATH", help="save the results: {models: [...], summary: {...}}")
        parser.add_argument("--html", metavar="PATH", help="write the page: a sortable table and speedup against compile time")
        parser.add_argument("--work", metavar="DIR", help="keep each model's trace and session in DIR/<model>/ (for compilescope report)")

    def run(self, args: argparse.Namespace) -> int:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
        from rich.text import Text

        from compilescope.benchmark.by_name import parse_overrides
        from compilescope.benchmark.compile_cache import Seed
        from compilescope.benchmark.zoo import ZooPlan, sweep
        from compilescope.findings.finding import plural
        from compilescope.render.sections.runtime import verdict_words
        from compilescope.render.terminal import console_for
        from compilescope.render.zoo import zoo_html, zoo_table
        from compilescope.session.zoo import summarize

        suite, names = model_names(args.suite, args.models)
        check_device(args.device)
        _check_libraries(names)
        if args.runs < 2 or args.time_limit < 1 or args.jobs < 1:
            raise CommandError("--runs must be at least 2, --time-limit and --jobs at least 1")
        for given, what in ((args.json, "the results"), (args.html, "the page")):
            if given:
                check_writable(absolute(given), what)
        if args.json and args.html and absolute(args.json) == absolute(args.html):
            raise CommandError("--json and --html name the same file: give each its own")
        work = Path(absolute(args.work)) if args.work else None
        if work is not None and work.exists() and not work.is_dir():
            raise CommandError(f"--work: {work} is a file, not a folder")
        try:
            overrides = parse_overrides(args.config)
        except ValueError as error:
            raise CommandError(str(error)) from None
        plan = ZooPlan(
            names=names,
            size=args.size,
            device=args.device,
            training=args.train,
            amp=args.amp,
            backend=args.backend,
            mode=args.mode,
            config=overrides,
            runs=args.runs,
            time_limit_s=args.time_limit,
            jobs=args.jobs,
            work=work,
        )
        run = ZooRun(
            suite=suite,
            size=args.size,
            device=args.device,
            training=args.train,
            precision=plan.precision,
            backend=args.backend,
            mode=args.mode,
            time_limit_s=args.time_limit,
            command=["compilescope", *sys.argv[1:]],
            started=datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        )
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
            first = "Inductor's CPU probes (once per machine)" if args.backend == "inductor" else "starting"
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
                if args.json:  # what is measured is kept, whatever ends the sweep later
                    settle(f"in progress: {len(done)} of {len(names)} models measured")
                    run.save(args.json)

            def seeded(cold: Seed) -> None:
                run.cold_cache = cold.describe()
                progress.update(task, description="starting")

            def check(trace: Path, row: ZooModel, session_path: Path | None) -> None:
                examine(trace, row, session_path, args.backend, run.environment)

            stopped = None
            with _terminated_as_interrupt() as signals:
                try:
                    sweep(plan, check, started, finished, lambda text: progress.console.print(Text(text)), seeded)
                except KeyboardInterrupt:
                    why = signals[-1] if signals else "Ctrl-C"
                    stopped = f"stopped ({why}) after {len(done)} of {len(names)} models"
        settle(stopped)
        out = console_for(sys.stdout)
        out.print(zoo_table(run))
        if run.stopped:
            print(run.stopped, file=sys.stderr)
        if args.json:
            run.save(args.json)
            print(f"Saved the results to {args.json}", file=sys.stderr)
        if args.html:
            from compilescope.outputs import write_text

            write_text(args.html, zoo_html(run), "the page")
            print(f"The page: {args.html}   open it with: {open_command(args.html)}", file=sys.stderr)
        if run.stopped:
            return 130
        return 1 if run.summary is not None and run.summary.compilescope_problems else 0
