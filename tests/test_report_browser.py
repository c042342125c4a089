"""The HTML report in a real headless Chromium (Debian's /usr/bin/chromium, driven by Playwright).

Each test opens a report written by a real run from disk, and checks what a user sees: the
visible text of the key facts, navigation by clicking, no console errors, no network requests.
Screenshots go to test-artifacts/ for a person to look at.
"""

from __future__ import annotations

import json
import os
import shutil
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import compilescope
from compilescope.render.html import render_html, write_html
from compilescope.session.model import Compile, DecompiledCode, Frame, Graph, GraphNode, Kernel, Session
from conftest import ARTIFACTS, ROOT, run_cli, run_lesson

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

CHROMIUM = os.environ.get("COMPILESCOPE_CHROMIUM", "/usr/bin/chromium")
# As the machine's notes advise: no background networking, so only the page's own requests show.
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: install Debian's chromium (apt-get install chromium), as .ci/run does")
    with playwright_api.sync_playwright() as p:
        instance = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield instance
        instance.close()


class Opened:
    def __init__(self, browser, path: Path) -> None:
        self.page = browser.new_page(viewport={"width": 1400, "height": 1000})
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.url = path.resolve().as_uri()
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type in ("error", "warning") else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.started = time.perf_counter()
        self.page.goto(self.url)
        self.page.wait_for_selector("body[data-ready=true]", timeout=30000)
        self.ready_s = time.perf_counter() - self.started

    def text(self) -> str:
        return self.page.inner_text("body")

    def screenshot(self, name: str) -> None:
        ARTIFACTS.mkdir(exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / name), full_page=True)

    def assert_clean(self) -> None:
        assert self.errors == [], self.errors
        assert self.requests == [self.url], self.requests  # the file itself, nothing else


def test_recompile_report(browser, tmp_path: Path) -> None:
    run, session = run_lesson("recompile.py", tmp_path)
    html = tmp_path / "compilescope-recompile.html"
    assert html.exists() and f"The report: {html.name}" in run.stderr
    view = Opened(browser, html)
    # the report opens on the recompile, the guard that failed, expected vs actual
    text = view.text()
    assert "The size of dimension 0 changed (8 → 16): 1 recompile of TinyNet.forward" in text
    assert "tensor 'x' size mismatch at index 0. expected 8, actual 16" in text
    assert view.page.inner_text(".guard-failed td.expected") == "8"
    assert view.page.inner_text(".guard-failed td.actual") == "16"
    view.page.click("text=Guards that changed since version 0/0")
    view.page.wait_for_selector("#compile-view li.added")
    changed = view.page.inner_text("#compile-view")
    assert "+ x is a float32 tensor of size [any, 64]" in changed
    assert "− x is a float32 tensor of size [8, 64]" in changed
    view.screenshot("recompile.png")

    # navigation: the first version, its guards and its kernel's code
    view.page.click("#nav-compile-0")
    assert "First compile of this function" in view.page.inner_text("#compile-view")
    view.page.click("#compile-view summary:has-text('Guards:')")
    view.page.wait_for_selector("#compile-view details[open] table")
    assert "x is a float32 tensor of size [8, 64], stride [64, 1]" in view.page.inner_text("#compile-view")
    row = view.page.locator("#compile-view tr", has_text="cpp_fused_add_relu_0")
    assert "aten.add, aten.relu (from its name)" in row.inner_text()
    row.locator("button").click()
    assert 'extern "C"' in view.page.inner_text("#compile-view .kernel-code")
    view.page.click("a[href='#time']")
    view.page.locator("#time svg rect").nth(1).wait_for()  # the chart is drawn (after the hash changed)
    view.screenshot("recompile-first-version.png")
    view.assert_clean()


def test_graph_break_report(browser, tmp_path: Path) -> None:
    run, session = run_lesson("graph_break.py", tmp_path)
    view = Opened(browser, tmp_path / "compilescope-graph_break.html")
    brk = session.frames[0].compiles[0].graph_breaks[0]
    entry = next(i for i, c in enumerate(session.compiles) if c.graph_breaks)
    view.page.click(f"#nav-compile-{entry}")
    compile_view = view.page.inner_text("#compile-view")
    assert f"Graph break: {brk.reason}" in compile_view
    # the user's source around the break, the break's own line marked
    assert view.page.inner_text("#compile-view .source .hit").endswith("if x.sum().item() > 0:")
    assert "x = x + 1.0" in view.page.inner_text("#compile-view .source")
    view.screenshot("graph-break.png")
    # Dynamo's code for this version, decompiled, highlighted, its resume function linked
    compile_ = session.compiles[entry]
    (called,) = compile_.resume_functions  # the one resume function after the .item() break
    assert f"After the graph break it calls {called} ({brk.resume_function}" in view.page.inner_text("#compile-view .dynamo-code")

    def opened(summary: str):  # a lazy section, opened; its content is built on the toggle event
        details = view.page.locator("#compile-view .dynamo-code details", has=view.page.locator(f"summary:has-text('{summary}')"))
        details.locator("summary").click()
        return details.locator("pre")  # waits until it is there

    runs = opened("What Dynamo runs when the guard holds")
    assert "graph_out_0 = __compiled_fn_" in runs.inner_text() and f"return {called}(" in runs.inner_text()
    # Dynamo's code is said to be Dynamo's, checked or not, never "not the function"; forward is checked
    transformed, original = compile_.transformed_code, compile_.original_code
    assert transformed is not None and transformed.made_by_dynamo and original is not None and not original.made_by_dynamo
    assert original.verified is True
    dynamo_code = view.page.inner_text("#compile-view .dynamo-code")
    assert "Not the function" not in dynamo_code and "not verified: differs" not in dynamo_code
    assert (transformed.verified is False) == ("Dynamo's code, not verified against its bytecode" in dynamo_code)
    assert runs.locator(".hljs-keyword").count() > 0  # highlighted
    guard = "__guard_" + compile_.compile_id.replace("/", "_") + "_for_forward"  # 0/0_1: torch restarted the compile once
    assert opened("The guard as a Python function").inner_text().startswith(f"def {guard}(L, G, **___kwargs_ignored):")
    whole = opened("The whole file 01_forward.py").inner_text()
    assert "def forward(self, x):\n    x = x + 1.0\n    if x.sum().item() > 0:" in whole
    assert f"def {called}(" in whole  # the resume function, under the name the code calls it by
    view.screenshot("graph-break-dynamo-code.png")
    view.page.click(f"#compile-view .dynamo-code a:has-text('{brk.resume_function}')")
    assert f"calls this resume function as {called}" in view.page.inner_text("#compile-view .dynamo-code")
    view.page.click(f"#nav-compile-{entry}")
    view.page.click(f"#compile-view a:has-text('{brk.resume_function}')")
    resumed = session.frame(brk.resume_function)
    assert resumed.label == "forward (after line 9)"  # the code after the break, as its reader knows it
    heading = view.page.inner_text("#compile-view h2")
    assert heading.startswith(resumed.label) and brk.resume_function in heading  # and Dynamo's name beside it
    assert "continues forward line 9" in view.page.inner_text("#compile-view")
    # the tree mirrors the code: the resume function sits under forward
    assert view.page.locator("nav li li .frame", has_text=resumed.label).count() == 1
    view.assert_clean()


@pytest.mark.slow
def test_bert_report(browser, tmp_path: Path) -> None:
    transformers = pytest.importorskip("transformers")
    import torch

    config = transformers.BertConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=2, intermediate_size=128, vocab_size=1000)
    model = transformers.BertModel(config).eval()
    torch._dynamo.reset()  # another test may have compiled BertModel in this process already
    with torch.no_grad():
        session = compilescope.explain(model, torch.randint(0, 1000, (2, 16)))
    view = Opened(browser, write_html(session, tmp_path / "bert.html"))
    rows = view.page.locator("#compile-view tr", has_text="library call")
    assert rows.count() == sum(1 for k in session.kernels if k.kind == "library call")
    fused = next(k for k in session.kernels if k.kind == "cpp")
    view.page.locator("#compile-view tr:not(.kernel-code)", has_text=fused.name).locator("button").click()
    assert "#include" in view.page.inner_text("#compile-view .kernel-code")
    view.screenshot("bert.png")
    view.assert_clean()


EVIL = {
    "script": "<script>window.__pwned=1</script>",
    "img": '"><img src=x onerror="window.__pwned=2">',
    "textarea": "</textarea><img src=x onerror=window.__pwned=3>",
}


def test_escaping_nothing_executes(browser, tmp_path: Path) -> None:
    # GIVEN a program whose folder, function name, graph-break message, input names and error
    # message carry markup
    folder = tmp_path / EVIL["img"]
    folder.mkdir()
    (folder / "evil.py").write_text(
        textwrap.dedent(
            f"""
        import torch

        def step(**inputs):
            x = inputs[{EVIL["textarea"]!r}] + 1
            torch._dynamo.graph_break(msg={EVIL["script"]!r})
            return x * 2

        step.__code__ = step.__code__.replace(co_name={EVIL["script"]!r})
        print({EVIL["textarea"]!r})
        torch.compile(step, backend="eager")(**{{{EVIL["textarea"]!r}: torch.ones(2)}})
        raise ValueError({EVIL["img"]!r})
        """
        )
    )
    result = run_cli("run", "evil.py", cwd=folder)
    assert result.returncode == 1
    html = folder / "compilescope-evil.html"
    source = html.read_text()
    for payload in EVIL.values():
        assert payload not in source  # only ever inside the JSON, escaped

    view = Opened(browser, html)
    text = view.text()
    for index in range(len(compilescope.load(folder / "compilescope-evil.json").compiles)):
        view.page.click(f"#nav-compile-{index}")
        # open every section, and the sections built inside them when they open (lazily, on
        # the toggle event), until nothing new appears
        for _ in range(6):
            closed = view.page.evaluate("""() => {
                const shut = [...document.querySelectorAll('#compile-view details:not([open])')];
                shut.forEach(d => { d.open = true; });
                return shut.length; }""")
            view.page.wait_for_timeout(100)  # toggle events run after the change
            if not closed:
                break
        text += view.page.inner_text("#compile-view")
    assert view.page.evaluate("window.__pwned") is None
    assert EVIL["script"] in text  # the function's name and the break's message, literally
    assert EVIL["img"] in text  # the folder and the program's error
    assert EVIL["textarea"] in text  # the input's name in the guards
    assert view.page.locator("img").count() == 0
    view.screenshot("escaping.png")
    view.assert_clean()


def test_child_processes_in_the_report(browser, tmp_path: Path) -> None:
    # GIVEN a session whose program compiled nothing itself, one child that compiled, one that
    # compiled nothing and one that could not be followed (commands carry markup)
    from compilescope.session.model import ChildProcess

    children = [
        ChildProcess(
            pid=4242,
            parent_pid=1,
            command="multiprocessing worker (spawn)",
            how="started",
            followed=True,
            trace=str(tmp_path / "compilescope-x.pid4242.log"),
            rank=1,
            functions=2,
            compiles=3,
            recompiles=1,
            graph_breaks=1,
            kernels=4,
            compile_time_s=2.5,
        ),
        ChildProcess(pid=4243, parent_pid=1, command="python3 -B -c resource tracker", how="started", followed=True),
        ChildProcess(
            pid=None,
            parent_pid=1,
            command=f"python3 -I {EVIL['script']}",
            how="started",
            followed=False,
            why_not="python -I ignores PYTHONPATH",
        ),
    ]
    html = write_html(Session(children=children), tmp_path / "children.html")
    view = Opened(browser, html)
    text = view.page.inner_text("#overview")
    # THEN the overview says where the compiling happened, each child with its figures and the
    # command that explains it, and the one not followed, with why, its command literal
    assert "The program's own process compiled nothing; its child processes did (below)." in text
    assert (
        "4242\t1\tmultiprocessing worker (spawn)\t2\t3\t1\t1\t4\t2.50 s\tcompilescope report "
        + str(tmp_path / "compilescope-x.pid4242.log")
        in text
    )
    assert "1 more child process was followed and compiled nothing." in text
    assert f"python3 -I {EVIL['script']}: python -I ignores PYTHONPATH" in text
    assert view.page.evaluate("window.__pwned") is None
    view.screenshot("children.png")
    view.assert_clean()


def synthetic_session(compiles: int = 300, kernels: int = 2000, nodes: int = 20000) -> Session:
    kernel_code = "cpp_fused_add_0 = async_compile.cpp_pybinding(['float*'], r'''\n" + "    out[i] = in[i] + 1.0f;\n" * 60 + "''')"
    frames = []
    made = 0
    for f in range(compiles // 10):
        frame = Frame(name=f"layer_{f}", filename=f"/models/net_{f}.py", lineno=10 + f)
        for i in range(10):
            count = kernels // compiles + (1 if made < kernels % compiles else 0)
            made += 1
            frame.compiles.append(
                Compile(
                    compile_id=f"{f}/{i}",
                    status="ok",
                    compile_time_s=0.5 + i / 10,
                    recompile_reason=[f"{f}/{i - 1}: tensor 'x' size mismatch at index 0. expected {i}, actual {i + 1}"] if i else None,
                    kernels=[
                        Kernel(name=f"cpp_fused_add_{k}", kind="cpp", aten_ops=["aten.add"], aten_ops_from="comment", code=kernel_code)
                        for k in range(count)
                    ],
                    graphs=[Graph(ops=["add"], nodes=[GraphNode("call_function", "add", "+", "f32[8]")])],
                )
            )
        frames.append(frame)
    big = frames[0].compiles[0]
    big.graphs = [Graph(ops=["add"] * nodes, nodes=[GraphNode("call_function", f"add_{n}", "+", "f32[8, 64]") for n in range(nodes)])]
    return Session(frames=frames)


def test_scale(browser, tmp_path: Path) -> None:
    session = synthetic_session()
    assert len(session.compiles) == 300 and len(session.kernels) == 2000
    started = time.perf_counter()
    path = write_html(session, tmp_path / "big.html")
    build_s = time.perf_counter() - started
    size_mb = path.stat().st_size / 1e6
    assert size_mb < 25

    view = Opened(browser, path)
    # interactive: the 20,000-node graph opens and the first rows are there
    started = time.perf_counter()
    view.page.click("#nav-compile-0")
    view.page.click("#compile-view summary:has-text('Graph: 20000 ops')")
    view.page.wait_for_selector("#compile-view td:has-text('add_1999')")
    open_graph_s = time.perf_counter() - started
    print(f"300 compiles, 2,000 kernels: page ready in {view.ready_s:.2f} s, the 20,000-op graph opened in {open_graph_s:.2f} s")
    # 1.13-1.24 s here on 2026-12-02; on 2026-12-03, alone, 2.0-2.2 s (and 2.5-2.8 s for 79fb722's
    # page, the 12-02 one: the machine, not the page, was slower), and 3.36 s in CI beside the
    # other worker's compiles
    assert view.ready_s + open_graph_s < 5.0, (view.ready_s, open_graph_s)
    assert view.page.locator("#compile-view button:has-text('show 2000 more of 20000')").count() == 1
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "scale.json").write_text(
        json.dumps(
            {
                "size_mb": round(size_mb, 2),
                "build_s": round(build_s, 3),
                "ready_s": round(view.ready_s, 3),
                "open_20k_graph_s": round(open_graph_s, 3),
            }
        )
    )
    view.assert_clean()


def test_report_without_torch_writes_html(tmp_path: Path) -> None:
    # the same page from a saved trace, by `compilescope report --html` (no torch imported)
    session = synthetic_session(compiles=20, kernels=20, nodes=10)
    session.save(str(tmp_path / "s.json"))
    result = run_cli("report", "s.json", "--html", "r.html", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "The report: r.html" in result.stderr
    page = (tmp_path / "r.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "Content-Security-Policy" in page
    assert "default-src 'none'" in page and "http://" not in page.split("<script")[0]
    assert render_html(compilescope.load(tmp_path / "s.json")) == page


def test_report_prints_without_navigation(browser, tmp_path: Path) -> None:
    session = synthetic_session(compiles=20, kernels=20, nodes=10)
    view = Opened(browser, write_html(session, tmp_path / "print.html"))
    view.page.emulate_media(media="print")
    assert view.page.evaluate("getComputedStyle(document.getElementById('nav')).display") == "none"
    pdf = view.page.pdf()  # what "print to PDF" gives
    assert pdf.startswith(b"%PDF") and len(pdf) > 10000
    view.assert_clean()


def test_one_compile_time_in_the_terminal_the_findings_and_the_page(browser, tmp_path: Path) -> None:
    # GIVEN a training step compiled by Inductor: its backward graph is compiled later, at the
    # first backward call (torch reports it in a record of its own)
    (tmp_path / "train.py").write_text(
        "import torch\nmodel = torch.nn.Linear(8, 8)\nstep = torch.compile(model)\nstep(torch.ones(4, 8)).sum().backward()\n"
    )
    run = run_cli("run", "train.py", cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    session = compilescope.load(tmp_path / "compilescope-train.json")
    (c,) = session.compiles
    assert c.time.total_s is not None and c.time.backward_s
    total = c.time.total_s + c.time.backward_s
    # THEN the terminal, the findings and the page give one total, and say what it includes
    shown = " ".join(run.stderr.split())
    assert f"compile time {total:.2f} s (with {c.time.backward_s:.2f} s compiling backward graphs at the first backward)" in shown
    assert f"Compiling took {total:.2f} s in all" in shown
    view = Opened(browser, tmp_path / "compilescope-train.html")
    view.page.click("a.section-link[href='#time']") if view.page.locator("a.section-link[href='#time']").count() else None
    text = " ".join(view.text().split())
    assert f"{total:.2f} s in all (the compile time the terminal gives)" in text
    assert f"and {c.time.backward_s:.2f} s compiling backward graphs at the first backward call" in text
    # and the timeline's whole-compile spans, the backward's included, add up to the same total
    assert session.timeline is not None and session.timeline.whole_compiles_s == pytest.approx(total, rel=0.05)
    assert f"add up to {session.timeline.whole_compiles_s:.2f} s, the compile time stated above is {total:.2f} s" in text
    view.assert_clean()


def test_a_jobs_ranks_in_one_page(browser, tmp_path: Path) -> None:
    # GIVEN the logs of a real two-rank DDP job where rank 1 alone recompiled (committed: tests/traces/ranks/ddp)
    ddp = Path(__file__).parent / "traces" / "ranks" / "ddp"
    run = run_cli("report", str(ddp), "--html", "job.html", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    view = Opened(browser, tmp_path / "job.html")
    # THEN what diverged comes first: the recompile on rank 1, with its guard and what it means
    first = view.page.locator("#divergences .divergence").first
    assert first.get_attribute("data-aspect") == "recompiles"
    row = " ".join(first.locator("tr", has_text="rank 1").inner_text().split())
    assert row == "rank 1 1 recompile inner 0/1: tensor 'args[0]' size mismatch at index 0. expected 8, actual 12"
    assert "the other ranks wait at the next collective" in first.inner_text()
    assert view.page.locator("#rank-table tr").count() == 3  # a header and a row per rank
    # the rank that diverged is open below; a tab opens the other, with its own compiles
    assert "rank 1" in view.page.inner_text("#rank-view header")
    view.page.click("#rank-tabs button[data-rank-index='0']")
    assert "rank 0" in view.page.inner_text("#rank-view header")
    assert view.page.locator("#rank-view nav a[data-compile]").count() == 1
    view.page.click("#divergences a[data-rank-link='1']")  # a rank named in a divergence opens it
    assert view.page.locator("#rank-view nav a[data-compile]").count() == 2
    view.page.click("#rank-view nav a[data-compile='1']")
    assert "version 0/0 failed its guard" in view.page.inner_text("#compile-view")
    view.screenshot("ranks.png")
    view.assert_clean()


def test_the_zoo_page_sorts_a_real_sweep_by_any_column(browser, tmp_path: Path) -> None:
    # GIVEN the zoo's results of a real sweep: 27 Hugging Face models in bf16 on an H200, merged
    # from its parts (committed: benchmarks/results/2026-12-03-h200-zoo/)
    from compilescope.render.zoo import zoo_html
    from compilescope.session.zoo import load_zoo

    results = Path(__file__).parent.parent / "benchmarks" / "results" / "2026-12-03-h200-zoo" / "hf-base-bf16.json"
    run = load_zoo(results.read_text())
    (tmp_path / "zoo.html").write_text(zoo_html(run), encoding="utf-8")
    view = Opened(browser, tmp_path / "zoo.html")
    table = view.page.locator("table.zoo")
    first = lambda: table.locator("tbody tr").first.locator("td").first.inner_text()  # noqa: E731
    header = lambda name: table.locator(f'th:text-is("{name}")')  # noqa: E731
    assert table.locator("tbody tr").count() == 27 and view.page.locator("svg circle").count() == 27
    # WHEN a column's header is clicked: its values ascending; clicked again, descending
    slowest = min(run.models, key=lambda m: m.speedup or 0)
    fastest = max(run.models, key=lambda m: m.speedup or 0)
    speedup = header("speedup")
    speedup.click()
    assert first() == slowest.name and speedup.get_attribute("aria-sort") == "ascending"
    speedup.click()
    assert first() == fastest.name and speedup.get_attribute("aria-sort") == "descending"
    # numbers sort as numbers (a 9.4 s cold compile before a 13.5 s one), names as words
    header("cold compile s").click()
    cold = [float(t) for t in table.locator("tbody tr td:nth-child(6)").all_inner_texts()]
    assert cold == sorted(cold) and cold[0] < 10 < cold[-1]
    header("graph break occurrences").click()
    header("graph break occurrences").click()
    assert first() == "hf:longformer"  # the one model whose graph broke, with its costliest break
    assert "costliest graph break: Graph break in forward" in table.locator("tbody tr").first.inner_text()
    view.screenshot("zoo.png")
    view.assert_clean()


@pytest.mark.parametrize("lang", ["en", "zh", "th"])
def test_the_tour_page_in_each_language(browser, tmp_path: Path, lang: str) -> None:
    # GIVEN lesson 4 of the tour (Dynamo's graph and guards) in each language
    from compilescope.tour.messages import MESSAGES, say
    from compilescope.tour.views import tensor_guard

    run = run_cli("tour", "--lesson", "4", "--lang", lang, "--html", "tour.html", cwd=tmp_path, env={"XDG_CACHE_HOME": str(tmp_path)})
    assert run.returncode == 0, run.stderr[-3000:]
    view = Opened(browser, tmp_path / "tour.html")
    text = view.text()
    # THEN its title and text are in that language, the figures and the view as the run gave them
    assert MESSAGES["tour.title"][lang] in text and MESSAGES["lesson.4.title"][lang] in text
    x = {"dtype": "float32", "size": [8, 64], "stride": [64, 1], "requires_grad": False}
    assert tensor_guard(x, "x", lang) in text and say("view.guard_on", lang) in text
    assert "placeholder    l_x_  f32[8, 64]" in text
    # and the page's letters are drawn from a font that has them, not as boxes: the title's
    # letters of its language are not as wide as as many characters no font has (U+E000,
    # private use: always a box)
    drawn = view.page.evaluate(
        """() => {
            const title = document.querySelector("h2");
            const context = document.createElement("canvas").getContext("2d");
            context.font = getComputedStyle(title).font;
            const own = [...title.textContent].filter((c) => c.charCodeAt(0) > 127).join("");
            const text = own || title.textContent;  // (the language's own letters, where it has any)
            return [context.measureText(text).width, context.measureText("\\uE000".repeat(text.length)).width];
        }"""
    )
    assert drawn[0] != pytest.approx(drawn[1], rel=0.02), drawn
    view.screenshot(f"tour-{lang}.png")
    view.assert_clean()


def test_a_bench_page_leads_with_its_verdict_and_the_machines_state(browser, tmp_path: Path) -> None:
    # GIVEN bench's saved results (tests/traces/bench_mlp.json: compiled slower, a quiet machine)
    session = compilescope.load(Path(__file__).parent / "traces" / "bench_mlp.json")
    (bench,) = session.benchmarks
    view = Opened(browser, write_html(session, tmp_path / "bench.html"))
    # THEN the page opens on the verdict in words and the machine's state, as the terminal says
    # them, not on the counts of a run that compiled nothing in this process
    main = view.page.inner_text("#main")
    assert main.startswith("Verdict")
    verdict = view.page.inner_text("#verdict")
    assert f"eager/default/inference: slower {bench.speedup:.2f}x" in verdict
    assert bench.verdict_why in verdict and "measured on a quiet machine" in verdict
    assert view.page.locator("#overview").count() == 0 and "Nothing stands out" not in main
    assert f"slower {bench.speedup:.2f}x" in view.page.inner_text("#benchmarks")
    view.assert_clean()


def test_control_characters_of_a_message_are_shown_visibly(browser, tmp_path: Path) -> None:
    # GIVEN the committed trace of a graph break whose message holds "\r" and NUL, and two bytes
    # that are not UTF-8 (tests/traces/odd_bytes.log.gz)
    trace = Path(__file__).parent / "traces" / "odd_bytes.log.gz"
    run = run_cli("report", str(trace), "--html", "odd.html", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    view = Opened(browser, tmp_path / "odd.html")
    # WHEN the compile that broke is opened
    view.page.click("#nav-compile-0")
    # THEN its message is shown whole, each control character as its picture (as the terminal shows it)
    text = view.page.inner_text("#compile-view")
    assert "Explanation: User-inserted graph break. Message: kept\ufffd\ufffd\u240d whole\u2400here" in text
    assert "\r" not in text and "\x00" not in text
    view.assert_clean()


def test_an_unverified_decompilation_is_marked_and_dynamos_own_code_is_named(browser, tmp_path: Path) -> None:
    # GIVEN a session whose function came out of the decompiler unverified (its check found it
    # stores a global as a local), and whose Dynamo code is unverified as Dynamo's code often is
    wrong = DecompiledCode(
        "# compilescope: this decompilation differs from the bytecode in: stores `counter` as a local where the original stores a global.\n"
        "def bump(x):\n    counter += x\n    return counter\n",
        complete=True,
        verified=False,
        difference="stores `counter` as a local where the original stores a global",
    )
    dynamo = DecompiledCode(
        "def bump(x):\n    graph_out_0 = __compiled_fn_1(x)\n    return graph_out_0[0]\n",
        complete=True,
        verified=False,
        difference="its instructions (LOAD_FAST x where the original has LOAD_GLOBAL __compiled_fn_1)",
        made_by_dynamo=True,
    )
    compile_ = Compile(compile_id="0/0", status="ok", original_code=wrong, transformed_code=dynamo)
    view = Opened(
        browser, write_html(Session(frames=[Frame(name="bump", filename="/p/prog.py", lineno=3, compiles=[compile_])]), tmp_path / "v.html")
    )
    view.page.click("#nav-compile-0")
    # THEN the user's function says it is not verified, in its summary and as an alert inside
    box = view.page.locator("#compile-view .dynamo-code")
    box.locator("summary", has_text="bump as Dynamo got it, decompiled (not verified: differs from the bytecode)").click()
    alert = box.locator(".finding.problem.unverified[role=alert]")
    assert alert.inner_text() == (
        "Not the function: compiled again, this decompilation differs from the bytecode in: stores `counter` as a local where the "
        "original stores a global. Read it as a sketch; the bytecode is what runs."
    )
    # AND Dynamo's code is named as Dynamo's, a warning, not an alert that it is wrong
    box.locator("summary", has_text="What Dynamo runs when the guard holds: its bytecode, decompiled (Dynamo's code: not verified").click()
    note = box.locator(".finding.warning.unverified")
    assert note.inner_text().startswith(
        "Dynamo's code, not verified against its bytecode: compiled again, it differs in its instructions (LOAD_FAST x where"
    )
    assert box.locator(".finding.problem.unverified").count() == 1  # (the function's, only)
    view.assert_clean()


def _first_compile_of(browser, tmp_path: Path, trace: str) -> Opened:
    """The page `report` writes of a committed trace, opened on its first compile."""
    html = tmp_path / f"{trace}.html"
    run = run_cli("report", str(Path(__file__).parent / "traces" / f"{trace}.log.gz"), "--html", str(html), cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    view = Opened(browser, html)
    view.page.click("#nav-compile-0")
    return view


def test_a_compiles_cache_lookups_and_a_misses_key_parts(browser, tmp_path: Path) -> None:
    # GIVEN a trace of a run whose FX graph cache missed (one Inductor config value changed
    # since the run before), explained by `report` into a page
    view = _first_compile_of(browser, tmp_path, "cache_keys-config")
    box = view.page.locator("#compile-view div:has(> h3:text-is('Caches'))")
    # THEN the compile's section lists each cache's lookup, its outcome in words and its key
    row = box.locator("tr", has_text="FX graph cache")
    assert "miss" in row.inner_text() and "no entry for this key" in row.inner_text()
    assert "AOT Autograd cache" in box.inner_text()
    # and the miss's own key parts show on a press, and hide on the next
    parts = row.locator("pre.key-parts")
    assert not parts.is_visible()
    row.locator("button", has_text="its own parts").click()
    assert parts.is_visible() and "example_inputs[0]: TensorMetadata(dtype=torch.float32" in parts.inner_text()
    view.screenshot("caches.png")
    row.locator("button", has_text="its own parts").click()
    assert not parts.is_visible() and row.locator("pre.key-parts").count() == 1
    # AND the section gives the command that writes the graph's runnable repro, which works as given
    command = view.page.inner_text("#compile-view div.repro pre")
    assert command == f"compilescope repro {Path(__file__).parent / 'traces' / 'cache_keys-config.log.gz'} 0/0 -o repro_0_0.py"
    written = run_cli(*command.split()[1:], cwd=tmp_path)
    assert written.returncode == 0 and "compile 0/0 (scaled_sum)" in written.stdout + written.stderr
    assert (tmp_path / "repro_0_0.py").read_text().startswith("# A runnable repro of compile 0/0 (scaled_sum)")
    view.assert_clean()


def test_the_compile_timeline_is_drawn_and_zooms(browser, tmp_path: Path) -> None:
    # GIVEN the report of a committed trace (five compiles, Inductor, torch 2.13)
    session = compilescope.load(Path(__file__).parent / "traces" / "quickstart.log.gz")
    view = Opened(browser, write_html(session, tmp_path / "timeline.html"))
    view.page.click("a.section-link[href='#timeline']")
    # THEN every stage the session kept is a bar, named, with its compile and function on hover
    bars = view.page.locator("#timeline .gantt-bar")
    assert session.timeline is not None and len(session.timeline.spans) == 249
    expect(bars).to_have_count(249)  # drawn once the hash change is handled
    assert bars.first.get_attribute("title").startswith("entire_frame_compile · 0/0 · forward (quickstart.py:15) · 6.0317 s")
    text = " ".join(view.page.inner_text("#timeline").split())
    assert (
        "its whole-compile spans (entire_frame_compile, and entire_backward_compile for a backward compiled later) add up to 10.44 s, the compile time stated above is 10.44 s"
        in text
    )
    assert "Dynamo's time per inlined function not in this trace (torch 2.13.0+cu130)" in text
    # and the chart zooms, by its buttons and by the wheel
    chart = view.page.locator("#timeline .gantt")
    width = view.page.evaluate("document.querySelector('#timeline .gantt-inner').offsetWidth")
    view.page.click("#timeline button:has-text('zoom in')")
    assert chart.get_attribute("data-zoom") == "2"
    chart.hover()
    view.page.mouse.wheel(0, -100)
    assert chart.get_attribute("data-zoom") == "2.5"
    assert view.page.evaluate("document.querySelector('#timeline .gantt-inner').offsetWidth") == pytest.approx(2.5 * width, rel=0.01)
    view.screenshot("timeline.png")
    view.page.click("#timeline button:has-text('whole run')")
    assert chart.get_attribute("data-zoom") == "1"
    view.assert_clean()


def test_inductors_passes_side_by_side_with_the_changes_marked(browser, tmp_path: Path) -> None:
    # GIVEN a trace of a run whose graph Inductor's post-grad passes rewrote, explained into a page
    view = _first_compile_of(browser, tmp_path, "passes")
    box = view.page.locator("#compile-view div.passes")
    # WHEN the post-grad stage is opened
    box.locator("summary", has_text="post-grad: 3 ops → 2: aten.add.Tensor −1, aten.mm.default −1, aten.addmm.default +1").click()
    table = box.locator("table.side-by-side")
    # THEN the graphs before and after are side by side, the rewritten lines marked on each side
    changed = table.locator("tr.diff-changed", has_text="addmm_default")
    expect(changed).to_have_count(2)  # the table is built on <details>' toggle event, after the click
    before, after = changed.first.locator("td").all_inner_texts()
    assert "torch.ops.aten.mm.default(arg2_1, arg1_1)" in before and "torch.ops.aten.addmm.default(mm, arg2_1, arg1_1)" in after
    marked = changed.first.locator("td").last.evaluate("e => getComputedStyle(e).backgroundColor")
    assert marked == "rgb(220, 245, 220)"
    assert table.locator("tr.diff-removed").count() == 1
    # AND the lines the same on both sides hide on a press, the changed ones stay
    same = table.locator("tr.diff-same", has_text="# File:").first
    assert same.is_visible()
    box.locator("label", has_text="only the changed lines").locator("input").check()
    assert not same.is_visible() and changed.first.is_visible()
    view.screenshot("passes.png")
    view.assert_clean()


def test_a_compiled_graph_that_differs_from_eager_is_red_with_its_minifier_command(browser, tmp_path: Path) -> None:
    # GIVEN the trace of run --check-accuracy on a program whose Inductor relu is wrong on purpose
    view = _first_compile_of(browser, tmp_path, "accuracy")
    # THEN the compile's section says how its graph compared with eager, in red, and torch's minifier command
    said = view.page.locator("#compile-view p.accuracy.differs")
    expect(said).to_have_count(1)
    assert said.inner_text().startswith("Accuracy against eager: differs from eager in 3 of 3 calls checked: output 0 (float32 [8, 4])")
    assert "first stage that differs: inductor" in said.inner_text()
    assert view.page.locator("#compile-view code", has_text="minify_0_0.py minify").count() == 1
    assert said.evaluate("e => getComputedStyle(e).color") == "rgb(207, 34, 46)"
    # and the finding leads the page, with its next step
    finding = view.page.locator(".finding", has_text="Compiled Sequential.forward (0/0) differs from eager")
    expect(finding).to_have_count(1)
    assert "aot_eager matches, aot_eager_decomp_partition matches, inductor differs" in finding.inner_text()
    # and the run's line is in the runtime section
    assert "1 differs, 1 matches, 1 not compared" in view.page.locator("#runtime").inner_text()
    view.screenshot("accuracy.png")


def test_a_whole_call_wrong_in_dynamos_capture_leads_the_page(browser, tmp_path: Path) -> None:
    # GIVEN the trace of run --check-accuracy on a program that changed a global while compiled
    # code ran without its guards checked
    session = compilescope.load(ROOT / "tests" / "traces" / "accuracy_guards.log.gz")
    view = Opened(browser, write_html(session, tmp_path / "guards.html"))
    # THEN its finding leads the page, with the fix to paste
    finding = view.page.locator(".finding", has_text="Compiled scaled differs from its own Python run eagerly: Dynamo's capture")
    expect(finding).to_have_count(1)
    assert "Take skip_guard_eval_unsafe=True out of torch.compiler.set_stance" in finding.inner_text()
    # and the run's line counts the whole calls checked
    assert "4 functions checked: 1 differs (1 in Dynamo's capture), 1 matches, 2 not checked" in " ".join(
        view.page.locator("#runtime").inner_text().split()
    )
    view.assert_clean()


def test_the_programs_memory_is_in_the_pages_header(browser, tmp_path: Path) -> None:
    from compilescope.session.memory import DeviceMemory, ProgramMemory

    # GIVEN a run's session with the memory its program held, on a device whose name carries markup
    session = compilescope.load(ROOT / "tests" / "traces" / "tiny.log.gz")
    session.memory = ProgramMemory(
        cpu_peak_bytes=2 << 30,
        cuda=[
            DeviceMemory(
                "cuda:0<img src=x onerror=window.__pwned=4>",
                max_allocated_bytes=3 << 30,
                max_reserved_bytes=4 << 30,
                graph_pools=1,
                graph_pool_bytes=1 << 30,
            )
        ],
    )
    html = write_html(session, tmp_path / "memory.html")
    view = Opened(browser, html)
    # THEN the header says the terminal's line, literally, with what its figures mean on hover
    line = view.page.locator("header .memory")
    assert line.inner_text() == (
        "Memory: CPU high-water 2.0 GiB; cuda:0<img src=x onerror=window.__pwned=4> max allocated 3.0 GiB, "
        "max reserved 4.0 GiB, CUDA graph pools 1.0 GiB (1 pool)"
    )
    assert "reset_peak_memory_stats" in (line.get_attribute("title") or "")
    assert view.page.evaluate("window.__pwned") is None and view.page.locator("img").count() == 0
    view.screenshot("memory.png")
    view.assert_clean()
