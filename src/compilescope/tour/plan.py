"""The nine lessons: which program each runs, its facts (facts.py), the text that states its
point with this run's figures (messages.py), and the view of compilescope's that shows it (the
compiled function with the right details, the kernels and their code, the benchmark table).

`run_all` runs the lessons asked for, in order, and gives each as a LessonResult; the command
(cli/tour.py) shows them in the terminal, and writes the page and the JSON.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compilescope.findings.finding import seconds
from compilescope.render.blocks import Block
from compilescope.session.model import Frame
from compilescope.tour import facts, views
from compilescope.tour.messages import say
from compilescope.tour.run import LessonRun, run_lesson

COUNT = 9


@dataclass
class LessonResult:
    number: int
    title: str
    text: str  # the point, with this run's figures
    facts: dict[str, Any]
    lines: list[str] = field(default_factory=list)  # more of the text, a line each
    view: list[Block] = field(default_factory=list)  # what it shows of compilescope's view (views.py)
    seconds: float = 0.0  # how long the lesson's runs took


def _s(value: float | None) -> str:
    return "?" if value is None else seconds(value)


def _yes(value: bool, lang: str, words: tuple[str, str] = ("word.yes", "word.no")) -> str:
    return say(words[0] if value else words[1], lang)


def _frames(run: LessonRun, name: str) -> list[Frame]:
    return facts.frames(run.session, name)


def lesson_1(runs: list[LessonRun], lang: str) -> LessonResult:
    found = facts.setup(runs[0])
    compilers = found["compilers"]
    text = say(
        "lesson.1.text",
        lang,
        python=found["python"],
        torch=found["torch"],
        gpu=_yes(found["gpu"], lang),
        gxx=_yes(compilers.get("g++", False), lang, ("word.found", "word.not_found")),
        clang=_yes(compilers.get("clang++", False), lang, ("word.found", "word.not_found")),
        python_h=_yes(found["python_h"], lang, ("word.found", "word.not_found")),
        missing=found["missing_compiler"] or "?",
    )
    return LessonResult(1, say("lesson.1.title", lang), text, found)


def lesson_2(runs: list[LessonRun], lang: str) -> LessonResult:
    found = facts.toy(runs[0])
    lines = [
        say(
            "lesson.2.call",
            lang,
            call=c["call"],
            guard=c["guard"],
            action=say("lesson.2.compile" if c["compiled"] else "lesson.2.reuse", lang),
        )
        for c in found["calls"]
    ]
    text = say("lesson.2.text", lang, calls=str(len(found["calls"])), compiled=str(found["compiled"]))
    return LessonResult(2, say("lesson.2.title", lang), text, found, lines)


def lesson_3(runs: list[LessonRun], lang: str) -> LessonResult:
    found = facts.first_call(runs[0], runs[1])
    cold, warm = found["cold"], found["warm"]
    text = say(
        "lesson.3.text",
        lang,
        wrap=_s(cold["wrap_s"]),
        wrapper=found["wrapper"],
        wrapped=found["wrapped"],
        first=_s(cold["calls_s"][0]),
        second=_s(cold["calls_s"][1]),
        compile=_s(cold["compile_s"]),
        warm_first=_s(warm["calls_s"][0]),
        hits=str(warm["cache_hits"]),
    )
    return LessonResult(3, say("lesson.3.title", lang), text, found, view=views.first_calls(cold, warm, lang))


def lesson_4(runs: list[LessonRun], lang: str) -> LessonResult:
    found = facts.graph(runs[0])
    text = say(
        "lesson.4.text",
        lang,
        graphs=str(found["graphs"]),
        operations=str(found["operations"]),
        breaks=str(found["graph_breaks"]),
        guards=str(found["guards"]),
        x_guard=views.tensor_guard(found["x_guard"], "x", lang),
    )
    view = [item for f in _frames(runs[0], "TinyNet") for c in f.compiles for item in views.graph_and_guards(f, c, lang)]
    return LessonResult(4, say("lesson.4.title", lang), text, found, view=view)


def lesson_5(runs: list[LessonRun], lang: str) -> LessonResult:
    found = facts.recompile(runs[0])
    times = [t for _, t in found["calls"]]
    failed = found["failed_guard"]
    text = say(
        "lesson.5.text",
        lang,
        first=_s(times[0]),
        again=_s(times[1]),
        failed=failed["text"] if failed else "?",
        second=_s(times[2]),
        dynamic=views.tensor_guard(found["dynamic_guard"], "x", lang),
        third=_s(times[5]),
        compiles=str(found["compiles"]),
        sizes=str(len(found["sizes_seen"])),
    )
    view = views.versions([c for f in _frames(runs[0], "TinyNet") for c in f.compiles], lang)
    return LessonResult(5, say("lesson.5.title", lang), text, found, view=view)


def lesson_6(runs: list[LessonRun], lang: str) -> LessonResult:
    found = facts.training(runs[0])
    text = say(
        "lesson.6.text",
        lang,
        forward=str(len(found["forward"] or [])),
        backward=str(len(found["backward"] or [])),
        inference=str(len(found["inference"] or [])),
    )
    view = [item for f in _frames(runs[0], "TinyNet") for c in f.compiles for item in views.aot_graphs(c, lang)]
    return LessonResult(6, say("lesson.6.title", lang), text, found, view=view)


def _kernels(made: list[dict[str, Any]]) -> str:
    return ", ".join(f"{k['name']} ({' + '.join(k['aten_ops'] or ['?'])})" for k in made) or "?"


def lesson_7(runs: list[LessonRun], lang: str) -> LessonResult:
    found = facts.kernels(runs[0])
    two, one = found["two_trips_s"], found["one_trip_s"]
    text = say(
        # the toy is timed on this machine, as it is: where one trip was not the faster, say so
        "lesson.7.text" if one < two else "lesson.7.text_not_shown",
        lang,
        two_trips=_s(two),
        one_trip=_s(one),
        bias_kernels=_kernels(found["models"]["BiasThenRelu"]),
        matmul_kernels=_kernels(found["models"]["MatmulThenRelu"]),
    )
    view = [
        item
        for name in ("BiasThenRelu", "MatmulThenRelu")
        for f in _frames(runs[0], name)
        for c in f.compiles
        for item in views.kernels(name, c, lang)
    ]
    return LessonResult(7, say("lesson.7.title", lang), text, found, view=view)


def lesson_8(runs: list[LessonRun], lang: str) -> LessonResult:
    found = facts.graph_breaks(runs[0])
    brk = found["WithIf"]["breaks"][0] if found["WithIf"]["breaks"] else {"line": "?", "reason": "?"}
    text = say(
        "lesson.8.text",
        lang,
        line=str(brk["line"]),
        reason=brk["reason"],
        if_graphs=str(found["WithIf"]["graphs"]),
        where_graphs=str(found["WithWhere"]["graphs"]),
        error=found["fullgraph"].get("WithIf") or "?",
    )
    breaks = [item for f in _frames(runs[0], "WithIf") for c in f.compiles for item in views.graph_breaks(f, c, lang)]
    view = breaks + views.fullgraph(found["fullgraph"], lang)
    return LessonResult(8, say("lesson.8.title", lang), text, found, view=view)


def lesson_9(runs: list[LessonRun], lang: str) -> LessonResult:
    found = facts.faster(runs[0])
    lines = []
    for m in found["models"]:
        ratio = m["speedup"]
        verdict = (
            "lesson.9.faster"
            if ratio and ratio > views.FASTER
            else "lesson.9.slower"
            if ratio and ratio < views.SLOWER
            else "lesson.9.even"
        )
        lines.append(
            say(
                "lesson.9.model",
                lang,
                model=f"{m['model']} ({m['size']}×{m['size']})",
                first=_s(m["first_call_s"]),
                eager=f"{m['eager_ms']:.3f} ms",
                compiled=f"{m['compiled_ms']:.3f} ms",
                ratio=f"{ratio:.2f}" if ratio else "?",
                verdict=say(verdict, lang),
            )
        )
    environment = runs[0].session.environment if runs[0].session else None
    device = (environment.device if environment else None) or say("word.unknown", lang)
    view = views.benchmark(found["models"], device, lang)
    return LessonResult(9, say("lesson.9.title", lang), say("lesson.9.text", lang), found, lines, view=view)


@dataclass(frozen=True)
class Lesson:
    number: int
    programs: tuple[str, ...]  # run in order; lesson 3 runs its program twice (cold, warm)
    explain: Callable[[list[LessonRun], str], LessonResult]
    under_compilescope: bool = True
    cold: bool = False  # its first run gets an empty Inductor cache of its own


LESSONS = [
    Lesson(1, ("l1_setup.py",), lesson_1),
    Lesson(2, ("l2_toy.py",), lesson_2, under_compilescope=False),
    Lesson(3, ("l3_first_call.py", "l3_first_call.py"), lesson_3, cold=True),
    Lesson(4, ("l4_graph.py",), lesson_4),
    Lesson(5, ("l5_recompile.py",), lesson_5),
    Lesson(6, ("l6_training.py",), lesson_6),
    Lesson(7, ("l7_kernels.py",), lesson_7),
    Lesson(8, ("l8_graph_breaks.py",), lesson_8),
    Lesson(9, ("l9_faster.py",), lesson_9),
]
assert len(LESSONS) == COUNT


def run_one(lesson: Lesson, work: Path, cache: Path, lang: str, device: str = "cpu") -> LessonResult:
    """Run one lesson's programs (each in its own process) and explain it in `lang`."""
    started = time.perf_counter()
    runs = []
    for index, program in enumerate(lesson.programs):
        own_cache = cache
        if lesson.cold:
            own_cache = work / f"lesson{lesson.number}-cache"
            if index == 0:
                shutil.rmtree(own_cache, ignore_errors=True)  # cold: nothing compiled before
        folder = work / f"lesson{lesson.number}" / str(index + 1)
        runs.append(run_lesson(program, folder, own_cache, device, lesson.under_compilescope))
    result = lesson.explain(runs, lang)
    result.seconds = time.perf_counter() - started
    return result


def run_all(numbers: list[int], work: Path, cache: Path, lang: str, device: str = "cpu") -> Iterator[LessonResult]:
    for lesson in LESSONS:
        if lesson.number in numbers:
            yield run_one(lesson, work, cache, lang, device)
