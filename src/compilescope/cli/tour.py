"""compilescope tour: the lab's nine lessons, run on this machine and explained with its figures."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from compilescope.app.errors import CommandError


class TourCommand:
    """A guided tour of what torch.compile does, on this machine: nine small lessons, each run
    for real in its own process under compilescope, each explained with the figures it measured.

    compilescope tour                  # lesson by lesson: Enter for the next, q to stop
    compilescope tour --all --lang zh  # straight through, in Chinese (en, zh, th)
    compilescope tour --lesson 5       # one lesson
    compilescope tour --json tour.json --no-html

    Writes compilescope-tour.html where it runs (--html PATH elsewhere, --no-html none). The
    compile cache is shared by the lessons and kept between tours, so a second tour is faster.
    """

    @staticmethod
    def prepare_parser(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--all", action="store_true", help="go straight through, without pausing (so does a run without a terminal)")
        parser.add_argument("--lesson", type=int, metavar="N", help="run lesson N only (1 to 9)")
        parser.add_argument("--lang", choices=("en", "zh", "th"), help="the language (default: the locale's, else English)")
        parser.add_argument("--html", metavar="PATH", help="where to write the page (default: compilescope-tour.html here)")
        parser.add_argument("--no-html", action="store_true", help="write no page")
        parser.add_argument("--json", metavar="PATH", help="also write the lessons and their facts as JSON")
        parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu", help="where the lessons run (default: cpu)")
        parser.add_argument(
            "--work", metavar="DIR", help="keep each lesson's session and trace in DIR (lessonN/1/...), to look at with compilescope report"
        )

    def run(self, args: argparse.Namespace) -> int:
        from rich.text import Text

        from compilescope.outputs import absolute, check_writable, write_text
        from compilescope.render.blocks import to_rich
        from compilescope.render.terminal import console_for, printable
        from compilescope.render.text import one_line
        from compilescope.tour.messages import done, language, say
        from compilescope.tour.page import tour_page
        from compilescope.tour.plan import COUNT, LESSONS, run_one
        from compilescope.tour.run import LessonFailed

        lang = language(args.lang)
        if args.lesson is not None and not 1 <= args.lesson <= COUNT:
            raise CommandError(say("error.lesson", lang, count=str(COUNT), given=str(args.lesson)))
        html_path = None if args.no_html else Path(args.html or "compilescope-tour.html")
        for target, what in ((html_path, "the page"), (Path(args.json) if args.json else None, "the JSON")):
            if target is not None:  # before anything runs
                check_writable(absolute(target), what)
        if args.device == "cuda":
            _check_gpu(lang)
        pause = not args.all and args.lesson is None and sys.stdin.isatty()
        cache = _cache_folder()
        out = console_for(sys.stdout)
        err = console_for(sys.stderr)
        out.print(Text(say("tour.title", lang), style="bold underline"))
        results = []
        started = time.perf_counter()
        chosen = [lesson for lesson in LESSONS if args.lesson is None or lesson.number == args.lesson]
        with contextlib.ExitStack() as stack:
            if args.work:
                work = str(Path(args.work).absolute())
                Path(work).mkdir(parents=True, exist_ok=True)
            else:
                work = stack.enter_context(tempfile.TemporaryDirectory(prefix="compilescope-tour-"))
            for index, lesson in enumerate(chosen):
                program = lesson.programs[0]
                with err.status(say("tour.running", lang, number=str(lesson.number), count=str(COUNT), program=program)):
                    try:
                        result = run_one(lesson, Path(work), cache, lang, args.device)
                    except LessonFailed as error:
                        raise CommandError(str(error)) from None
                results.append(result)
                out.print()
                out.print(Text(f"{result.number}. {result.title}", style="bold"))
                out.print(Text(result.text))
                for line in result.lines:
                    out.print(Text(f"  {one_line(line)}"))
                if result.view:
                    out.print(printable(to_rich(result.view)))
                if pause and index < len(chosen) - 1:
                    out.print(Text(say("tour.next", lang), style="dim"))
                    if sys.stdin.readline().strip().lower().startswith("q"):
                        break
        total = time.perf_counter() - started
        out.print()
        out.print(Text(done(lang, total, len(results)), style="dim"))
        if args.json:
            data = {
                "lang": lang,
                "seconds": total,
                "lessons": [
                    {"number": r.number, "title": r.title, "facts": r.facts, "text": r.text, "lines": r.lines, "seconds": r.seconds}
                    for r in results
                ],
            }
            write_text(args.json, json.dumps(data, ensure_ascii=False, indent=1), "the JSON")
        if html_path is not None:
            write_text(html_path, tour_page(results, lang, total), "the page")
            print(say("tour.page", lang, path=one_line(str(html_path))), file=sys.stderr)
        return 0


def _check_gpu(lang: str) -> None:
    """--device cuda: stop before any lesson where torch sees no GPU (asked of torch in a process
    of its own, as the lessons will run; the command itself does not import torch)."""
    import subprocess

    from compilescope.tour.messages import say

    probe = "import torch; print(torch.cuda.is_available(), torch.__version__)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    if done.returncode != 0:
        raise CommandError(say("error.no_torch", lang, error=(done.stderr.strip().splitlines() or ["?"])[-1]))
    available, version = done.stdout.split()
    if available != "True":
        raise CommandError(say("error.no_gpu", lang, torch=version))


def _cache_folder() -> Path:
    """The tour's Inductor cache, kept between tours: $XDG_CACHE_HOME/compilescope/tour."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = Path(base) / "compilescope" / "tour"
    folder.mkdir(parents=True, exist_ok=True)
    return folder
