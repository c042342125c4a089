"""`compilescope report` on a job's ranks (a TORCH_TRACE folder, several sessions): the
cluster view, read one rank at a time.

Each rank's session is built, explained, summarized (findings/cluster.py), written as its part
of the JSON and the page (render/cluster.py, render/cluster_html.py), and let go: a folder of
rank logs is read by worker processes, one rank each at a time, as many as there are cores; the
parts are joined in rank order. The terminal view is printed once every rank has been compared.
"""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing
import os
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from compilescope.app.errors import CommandError, reading
from compilescope.findings.cluster import RankSummary
from compilescope.session.model import Session

MAX_WORKERS = 8  # processes reading ranks at once (each holds one rank's session)


@dataclass
class RankRead:
    """One rank read: what is kept of it, and its parts of the JSON and the page, in files."""

    index: int  # its place among the logs given
    name: str
    summary: RankSummary | None  # None: its log held no records
    json_part: str | None = None  # a file holding its session's JSON
    html_part: str | None = None  # a file holding its part of the page


def read_rank(task: tuple[int, str, str, bool, bool, int]) -> RankRead:
    """Read one rank's trace (in a worker process): build, explain and summarize its session,
    write its parts, and keep only the summary."""
    from compilescope.session.loading import read_all

    index, path, folder, want_json, want_html, budget = task
    ((session, records),) = read_all(path)
    return _parts(index, path, session, records, folder, want_json, want_html, budget)


def _parts(
    index: int, name: str, session: Session, records: int | None, folder: str, want_json: bool, want_html: bool, budget: int
) -> RankRead:
    from compilescope.findings.cluster import summarize
    from compilescope.findings.rules import findings
    from compilescope.render.cluster_html import rank_scripts
    from compilescope.session.jsonio import dumps

    if records == 0:
        return RankRead(index, name, None)
    found = findings(session)
    read = RankRead(index, name, summarize(session, found, index=index))
    if want_json:
        read.json_part = os.path.join(folder, f"{index}.json")
        with open(read.json_part, "w", encoding="utf-8") as out:
            out.write(dumps(session, found))
    if want_html:
        read.html_part = os.path.join(folder, f"{index}.html")
        with open(read.html_part, "w", encoding="utf-8") as out:
            out.writelines(rank_scripts(session, found, index, budget))
    return read


def _read_each(reads: Iterable[RankRead], traces: list[Path] | None, source: str) -> Iterator[RankRead]:
    """The ranks as read, a worker's failure to read one said as the CommandError the user sees
    (the pool gives a worker's exception back at its place in the order)."""
    it = iter(reads)
    for index in itertools.count():
        with reading(str(traces[index]) if traces is not None and index < len(traces) else source):
            read = next(it, None)
        if read is None:
            return
        yield read


def _workers(count: int) -> int:
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, count, MAX_WORKERS))


def report_cluster(
    sessions: Iterable[tuple[Session, int | None]],
    count: int,
    source: str,
    json_path: Path | None,
    html_path: Path | None,
    traces: list[Path] | None = None,
) -> int:
    """The job's view. `traces`: where every rank is a trace file of its own, they are read in
    worker processes, a rank each at a time (`sessions` is then not used); else `sessions` are
    read here, one at a time."""
    from compilescope.app.view import open_command
    from compilescope.findings.cluster import compare
    from compilescope.outputs import writing
    from compilescope.render.cluster import ClusterJson, renderables
    from compilescope.render.cluster_html import ClusterPage, rank_budget
    from compilescope.render.terminal import console_for, printable
    from compilescope.render.text import escape_control, one_line

    summaries: list[RankSummary] = []
    empty: list[str] = []
    started = time.monotonic()
    budget = rank_budget(count)
    with contextlib.ExitStack() as outputs:
        data = ClusterJson(outputs.enter_context(writing(json_path, "the JSON"))) if json_path else None
        page = ClusterPage(outputs.enter_context(writing(html_path, "the report")), count, source) if html_path else None
        folder = outputs.enter_context(tempfile.TemporaryDirectory(prefix="compilescope-ranks-"))
        reads: Iterable[RankRead]
        if traces is not None:
            workers = _workers(len(traces))
            tasks = [(i, str(p), folder, data is not None, page is not None, budget) for i, p in enumerate(traces)]
            if workers > 1:
                pool = outputs.enter_context(ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")))
                reads = pool.map(read_rank, tasks)
            else:
                reads = map(read_rank, tasks)
        else:
            reads = (
                _parts(
                    i,
                    s.trace_files[0] if s.trace_files else f"session {i + 1}",
                    s,
                    records,
                    folder,
                    data is not None,
                    page is not None,
                    budget,
                )
                for i, (s, records) in enumerate(sessions)
            )
        for done, read in enumerate(_read_each(reads, traces, source)):
            _progress(f"read {one_line(Path(read.name).name)}", done, count, started)
            if read.summary is None:
                empty.append(read.name)
                continue
            summaries.append(read.summary)
            for part, output in ((read.json_part, data), (read.html_part, page)):
                if part is not None and output is not None:
                    with open(part, encoding="utf-8") as handle:
                        output.add_text(handle)
                    os.unlink(part)
        if not summaries:
            raise CommandError(
                f"{source}: no log holds a torch structured-trace record "
                "(a trace written with TORCH_TRACE=dir or by compilescope run holds at least one)"
            )
        cluster = compare(summaries)
        cluster.problems.extend(f"{one_line(Path(name).name)} holds no records: left out" for name in empty)
        if data is not None:
            data.finish(cluster)
        if page is not None:
            page.finish(cluster, source)
    _progress("", 0, 0, started)
    console_for(sys.stdout).print(printable(renderables(cluster, source)))
    if json_path is not None:
        print(f"Saved the job's ranks and their comparison to {one_line(str(json_path))}", file=sys.stderr)
    if html_path is not None:
        print(escape_control(f"The report: {one_line(str(html_path))}   open it with: {open_command(str(html_path))}"), file=sys.stderr)
    return 0


def _progress(what: str, done: int, count: int, started: float) -> None:
    """A line on a terminal's stderr while many logs are read (nothing when it is not one)."""
    if not sys.stderr.isatty() or count < 2:
        return
    if not what:
        print("\r\033[K", end="", file=sys.stderr, flush=True)
        return
    print(f"\r\033[Kcompilescope: {what} ({done + 1} of {count}, {time.monotonic() - started:.0f} s)", end="", file=sys.stderr, flush=True)
