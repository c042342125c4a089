"""Logs far bigger than they should be stay bounded in time and memory, and what is shown of
them stays small: a log with one string of 50 MB, and a log of 100,000 records (the real trace's
compiles copied under new frame ids: 6,500 compiles), made by tests/programs/large_logs.py from
the real trace in tests/data.

`compilescope report LOG --json --html` runs as a subprocess that reports its own peak memory;
the HTML report is opened in headless Chromium. Figures at full size (a 100 MB string, a million
records), against tlparse 0.4.3, are in docs/report.md.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import compilescope

sys.path.insert(0, str(Path(__file__).parent / "programs"))
import large_logs  # noqa: E402

pytestmark = pytest.mark.slow

# The report's own peak: /proc's VmHWM (the high-water mark of this process's memory since its
# exec). Not getrusage's ru_maxrss: Linux carries that over exec from the process that started
# it, so it gave pytest's own size once the suite had grown past the limit (912 MB here).
MEASURED = (
    "import resource, sys\n"
    "from compilescope.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "try:\n"
    "    peak = next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:'))\n"
    "except (OSError, StopIteration):\n"
    "    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
    "print(f'peak_rss_kb={peak}', file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def report(log: Path, cwd: Path) -> tuple[subprocess.CompletedProcess, float, float]:
    """`compilescope report LOG --json out.json --html out.html`: the run, its seconds, its peak MB."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", MEASURED, "report", str(log), "--json", "out.json", "--html", "out.html"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "120"},
    )
    seconds = time.perf_counter() - started
    peak = next(int(line.split("=")[1]) for line in done.stderr.splitlines() if line.startswith("peak_rss_kb=")) / 1024
    return done, seconds, peak


def test_one_huge_string(tmp_path: Path) -> None:
    # GIVEN the real trace with a 50 MB graph-break message, and with a 50 MB function name
    for where in ("reason", "name"):
        folder = tmp_path / where
        folder.mkdir()
        log = large_logs.huge_string_log(folder / "huge.log", 50_000_000, where)
        done, seconds, peak_mb = report(log, folder)
        assert done.returncode == 0, done.stderr[-2000:]
        print(f"a 50 MB {where}: report took {seconds:.1f} s, peak {peak_mb:.0f} MB")
        # THEN it is read and explained in seconds, in memory of a few times the string
        assert seconds < 30, seconds  # 1.4-1.6 s (reason), 6.1-8.9 s (name) here on 2026-12-02, a busy machine
        assert peak_mb < 1200, peak_mb
        # what the terminal and the report show of it is small, and says there is more
        assert len(done.stdout) < 100_000
        assert "50.0 MB more" in " ".join(done.stdout.split())
        assert (folder / "out.html").stat().st_size < 5_000_000
        # the JSON keeps it whole
        session = compilescope.load(folder / "out.json")
        if where == "name":
            assert len(session.frames[0].name) == 50_000_005
        else:
            assert any(len(b.text) > 50_000_000 for b in session.graph_breaks)
        (tmp_path / f"{where}.json").write_text(json.dumps({"seconds": round(seconds, 1), "peak_mb": round(peak_mb)}))


def test_many_records(tmp_path: Path) -> None:
    # GIVEN a log of 100,000 records: 1,300 copies of the real trace's compiles
    log, records, copies = large_logs.many_records_log(tmp_path / "many.log", 100_000)
    done, seconds, peak_mb = report(log, tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    print(f"100,000 records: report took {seconds:.1f} s, peak {peak_mb:.0f} MB")
    # THEN it takes seconds and memory in proportion to what it explains, not to the file
    assert seconds < 40, seconds  # 12.2-15.5 s here on 2026-12-02, with other work running
    assert peak_mb < 800, peak_mb
    session = compilescope.load(tmp_path / "out.json")
    assert len(session.compiles) == 5 * copies
    # the terminal shows the first of each (50 versions of a function) and says where the rest
    # are; its findings are one per cause (one break, one size change), however many compiles
    assert len(done.stdout) < 100_000
    assert "more versions of this function (the HTML report and the session's JSON list them all)" in done.stdout
    shown = done.stdout.split("What to look at")[1].split("Compiled functions")[0]
    assert sum(shown.count(mark) for mark in (" ✖ ", " ▲ ", " ● ")) <= 4, shown
    assert f"{2 * copies} recompiles of step" in " ".join(shown.split())
    assert "flip-flops" not in shown  # copies under new frame ids (as after torch._dynamo.reset()) are not a value coming back
    # the HTML report holds its details up to its budget, and says how many it left out
    page = (tmp_path / "out.html").read_text()
    assert len(page) < 60_000_000
    left_out = json.loads(page.split('id="compilescope-data">', 1)[1].split("</script>", 1)[0])["left_out"]
    assert 0 < left_out < len(session.compiles)

    # and it opens in a browser, and a compile past the budget says where its details are
    playwright = pytest.importorskip("playwright.sync_api")
    from test_report_browser import CHROMIUM, FLAGS

    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        view = browser.new_page(viewport={"width": 1400, "height": 1000})
        errors: list[str] = []
        view.on("pageerror", lambda e: errors.append(str(e)))
        started = time.perf_counter()
        view.goto((tmp_path / "out.html").resolve().as_uri())
        view.wait_for_selector("body[data-ready=true]", timeout=60_000)
        ready_s = time.perf_counter() - started
        print(f"the report of 100,000 records was ready in the browser in {ready_s:.1f} s")
        assert ready_s < 15, ready_s  # 0.8-1.2 s here on 2026-12-02
        text = view.inner_text("#overview")
        assert f"the other {left_out} are listed, without their details" in text
        view.locator("button:has-text('more versions')").last.click()
        last = len(session.compiles) - 1
        view.click(f"#nav-compile-{last}")
        assert "are past this report's size limit: the session's JSON holds them" in view.inner_text("#compile-view")
        view.click("#nav-compile-0")
        assert "Graph breaks" in view.inner_text("#compile-view")
        assert errors == []
        browser.close()
