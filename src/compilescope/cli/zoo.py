"""compilescope zoo: many real models, each compiled and measured in processes of its own, with
the figures of PyTorch's inductor dashboard; and each model's run explained by compilescope, as a
test of compilescope itself. The options are declared and checked here; the sweep and each
model's examination are app/zoo.py's."""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path

from compilescope.app.errors import CommandError
from compilescope.app.view import open_command
from compilescope.app.zoo import check_libraries, model_names, sweep_shown
from compilescope.choices import DEFAULT_TIME_LIMIT_S, SIZES
from compilescope.cli.bench import MODES, check_device
from compilescope.outputs import absolute, check_writable
from compilescope.session.zoo import ZooRun

BACKENDS = ("eager", "aot_eager", "inductor")


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
        from compilescope.benchmark.by_name import parse_overrides
        from compilescope.benchmark.zoo import ZooPlan
        from compilescope.render.terminal import console_for
        from compilescope.render.zoo import zoo_html, zoo_table

        suite, names = model_names(args.suite, args.models)
        check_device(args.device)
        check_libraries(names)
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
        sweep_shown(plan, run, names, args.json)
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
