"""compilescope bench: eager against torch.compile, with the compile bill next to the savings."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from compilescope.app.errors import CommandError
from compilescope.app.view import open_command
from compilescope.choices import SIZES
from compilescope.outputs import absolute, check_writable

BACKENDS = ("eager", "aot_eager", "inductor")
MODES = ("default", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


def _choices(text: str, allowed: tuple[str, ...], option: str) -> tuple[str, ...]:
    items = tuple(item.strip() for item in text.split(",") if item.strip())
    wrong = [item for item in items if item not in allowed]
    if wrong or not items:
        raise CommandError(f"{option}: choose from {', '.join(allowed)} (got {text!r})")
    return items


def check_device(device: str, hint: str = "") -> None:
    """--device, for bench and zoo: cpu, cuda or cuda:N."""
    if not re.fullmatch(r"cpu|cuda(:\d+)?", device):
        raise CommandError(f"--device: cpu or cuda (got {device!r}){hint}")


def _by_name(args: argparse.Namespace):  # -> ByName | None
    """A model by name's size and config, checked before anything runs."""
    from compilescope.benchmark.by_name import ByName, is_by_name, missing_libraries, missing_said, parse_overrides

    if not is_by_name(args.target):
        if args.size or args.config:
            raise CommandError("--size and --config are for a model by name (hf:MODEL_TYPE, timm:NAME), not a file.py:make target")
        return None
    if not args.target.partition(":")[2].strip():
        raise CommandError(f"{args.target!r}: name the model after the colon (hf:gpt2, timm:resnet50)")
    try:
        config = parse_overrides(args.config)
    except ValueError as error:
        raise CommandError(str(error)) from None
    missing = missing_libraries([args.target])  # (before minutes of work, in one line: exit 2)
    if missing:
        raise CommandError(f"{args.target} needs {missing_said(missing)}")
    return ByName(args.target, args.size or "tiny", config)


class BenchCommand:
    """Measure eager against compiled for a model: speedup, compile cost, break-even.

    compilescope bench models.py:make
    compilescope bench models.py:make --backends eager,aot_eager,inductor --train --json out.json
    compilescope bench hf:gpt2 --size tiny        # a Hugging Face architecture, random weights
    compilescope bench timm:resnet50 --size base  # a timm model

    make() returns (model_or_function, example_inputs). hf:MODEL_TYPE builds transformers' default
    config for that model type (--size tiny: a few small layers; --config key=value,... sets the
    rest), never downloading, with inputs that fit it (token ids and mask, pixel values, labels
    for --train). Each configuration runs in fresh worker
    processes: the first call with a cold compile cache (no compiled code; Inductor's CPU probes,
    run once first, as a user's cache holds them) and with the filled one (warm),
    then eager and compiled calls taking turns (a warm-up until their times stop falling, then
    --runs timed calls; medians and IQR), peak memory, and compiled-vs-eager accuracy. Each
    row's verdict (faster, slower, about even, too noisy to say) says whether the figures settle
    it; a busy machine or a wide spread is measured again, and said.
    """

    @staticmethod
    def prepare_parser(parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "target",
            metavar="file.py:make | hf:MODEL_TYPE | timm:NAME",
            help="a file and the function in it that returns (model, inputs), or a model by name",
        )
        parser.add_argument(
            "--size", choices=SIZES, help="a model by name: tiny (a few small layers, the default) or base (its default config)"
        )
        parser.add_argument(
            "--config", metavar="KEY=VALUE,...", help="a model by name: config values to set (after --size), e.g. n_layer=4"
        )
        parser.add_argument("--backends", default="inductor", help=f"comma-separated: {', '.join(BACKENDS)} (default inductor)")
        parser.add_argument("--modes", default="default", help=f"inductor modes, comma-separated: {', '.join(MODES)} (default: default)")
        parser.add_argument("--train", action="store_true", help="also measure a training step (forward, backward, SGD step)")
        parser.add_argument("--train-only", action="store_true", help="measure only the training step")
        parser.add_argument(
            "--device", default=None, help="cpu or cuda (default: where make() puts the model and its inputs; a model by name: cpu)"
        )
        parser.add_argument("--runs", type=int, default=50, help="timed calls of each (default 50)")
        parser.add_argument(
            "--warmup",
            type=int,
            default=3,
            help="untimed calls of each first, at least (default 3); the warm-up goes on until the per-call times stop falling",
        )
        parser.add_argument(
            "--warmup-s",
            type=float,
            default=None,
            metavar="SECONDS",
            help="warm up for at least this long (default 1 on a CPU, 2 on a GPU, while its clocks rise)",
        )
        parser.add_argument(
            "--profile",
            action="store_true",
            help="also profile the compiled calls: time per kernel, its ATen ops and source lines; on a GPU against the device's measured limits",
        )
        parser.add_argument("--json", metavar="PATH", help="save the results (a session with 'benchmarks')")
        parser.add_argument("--html", metavar="PATH", help="write the report with the results")

    def run(self, args: argparse.Namespace) -> int:
        from rich.console import Console
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
        from rich.text import Text

        from compilescope.benchmark import Plan, configs, run_plan
        from compilescope.benchmark.target import BenchError
        from compilescope.render.sections.runtime import runtime
        from compilescope.render.terminal import console_for

        backends = _choices(args.backends, BACKENDS, "--backends")
        modes = _choices(args.modes, MODES, "--modes")
        if args.runs < 2 or args.warmup < 0 or (args.warmup_s is not None and not 0 <= args.warmup_s <= 3600):
            raise CommandError("--runs must be at least 2, --warmup at least 0 and --warmup-s between 0 and 3600")
        # Where the results go is checked before minutes of measuring, not after.
        for given, what in ((args.json, "the results"), (args.html, "the report")):
            if given:
                check_writable(absolute(given), what)
        if args.json and args.html and absolute(args.json) == absolute(args.html):
            raise CommandError("--json and --html name the same file: give each its own")
        by_name = _by_name(args)
        training = (True,) if args.train_only else ((False, True) if args.train else (False,))
        if args.device is not None:
            check_device(args.device, "; left out, bench measures where make() puts the model")
        device = args.device or "auto"
        count = len(configs(backends, modes, training, device))
        console = Console(file=sys.stderr, highlight=False)
        with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=console, transient=True) as progress:
            task = progress.add_task("starting", total=count * (3 if args.profile else 2))

            def step(label: str) -> None:
                progress.update(task, description=label, advance=1 if progress.tasks[0].description != "starting" else 0)
                if not console.is_terminal:  # (piped, a CI log: no live display, so a line per step)
                    console.print(Text(f"compilescope bench: {label}"))

            plan = Plan(
                backends,
                modes,
                training,
                device,
                args.runs,
                args.warmup,
                args.warmup_s,
                progress=step,
                profile=args.profile,
                by_name=by_name,
            )
            try:
                session = run_plan(args.target, (), plan)
            except BenchError as error:
                raise CommandError(str(error)) from None
        # The terminal's width, or 100 columns when piped; the tables fit it or become lines.
        out = console_for(sys.stdout)
        for part in runtime(session):  # the table, and with --profile each kernel table
            out.print(part)
        if args.json:
            session.save(args.json)
            print(f"Saved the results to {args.json}", file=sys.stderr)
        if args.html:
            from compilescope.render.html import write_html

            path = Path(args.html)
            write_html(session, path)
            print(f"The report: {path}   open it with: {open_command(str(path))}", file=sys.stderr)
        # Exit 1 when nothing could be measured at all (make() failed, say): a script that
        # checks the status should not take an empty table for a result.
        return 1 if all(b.skipped for b in session.benchmarks) else 0
