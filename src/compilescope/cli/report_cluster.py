"""`compilescope report` on a job's ranks (a TORCH_TRACE folder, several sessions): the
cluster view, read one rank at a time.

Each rank's session is built, explained, summarized (findings/cluster.py), written into the JSON
and the page (render/cluster.py, render/cluster_html.py), and let go before the next is read;
the terminal view is printed once every rank has been compared.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterable
from pathlib import Path

from compilescope.cli.errors import CommandError
from compilescope.session.model import Session


def report_cluster(
    sessions: Iterable[tuple[Session, int | None]],
    count: int,
    source: str,
    json_path: Path | None,
    html_path: Path | None,
) -> int:
    from compilescope.cli.options import open_command
    from compilescope.findings.cluster import RankSummary, compare, summarize
    from compilescope.findings.rules import findings
    from compilescope.outputs import writing
    from compilescope.render.cluster import ClusterJson, renderables
    from compilescope.render.cluster_html import ClusterPage
    from compilescope.render.console import console_for, printable
    from compilescope.render.text import escape_control, one_line

    summaries: list[RankSummary] = []
    empty: list[str] = []
    started = time.monotonic()
    with contextlib.ExitStack() as outputs:
        data = ClusterJson(outputs.enter_context(writing(json_path, "the JSON"))) if json_path else None
        page = ClusterPage(outputs.enter_context(writing(html_path, "the report")), count, source) if html_path else None
        for session, records in sessions:
            name = session.trace_files[0] if session.trace_files else f"session {len(summaries) + len(empty) + 1}"
            if records == 0:
                empty.append(name)
                continue
            _progress(f"read {one_line(Path(name).name)}", len(summaries) + len(empty), count, started)
            found = findings(session)
            summaries.append(summarize(session, found, index=len(summaries)))
            if data is not None:
                data.add(session, found)
            if page is not None:
                page.add(session, found)
            del session, found  # one rank's session at a time
        if not summaries:
            raise CommandError(
                f"{source}: no log holds a torch structured-trace record "
                "(a trace written with TORCH_TRACE=dir or by compilescope run holds at least one)"
            )
        cluster = compare(summaries)
        cluster.problems.extend(f"{one_line(name)} holds no records: left out" for name in empty)
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
