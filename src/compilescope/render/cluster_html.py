"""The job's report: one self-contained HTML file for all its ranks.

What diverged between the ranks comes first (static/cluster.js draws it), then tabs to move
between the ranks; each rank's detail is the single-session report (static/report.js), drawn
when its tab is opened from that rank's data in the page.

Written in parts as the ranks are read (`ClusterPage`), so only one rank's session is held at a
time; the ranks share the page's budget for details (html.DETAILS_BUDGET), so a job of many
ranks still gives a page a browser opens. Safety as in html.py: user strings reach the page only
as escaped JSON in <script type="application/json">, the scripts are allowed by their hashes.
"""

from __future__ import annotations

import html
import shutil
from collections.abc import Iterator
from typing import IO

from compilescope._version import __version__
from compilescope.findings.cluster import Cluster
from compilescope.findings.finding import Finding
from compilescope.render.cluster import cluster_facts
from compilescope.render.html import DETAILS_BUDGET, asset, csp_hash, finding_data, report_data, script_json
from compilescope.session.model import Session

MIN_RANK_BUDGET = 2_000_000  # characters of details per rank, however many ranks


def rank_budget(ranks: int) -> int:
    """Characters of details each rank's part of the page may hold."""
    return max(DETAILS_BUDGET // max(ranks, 1), MIN_RANK_BUDGET)


def rank_scripts(session: Session, found: list[Finding], index: int, budget: int) -> Iterator[str]:
    """A rank's part of the page: its data and blocks, under ids cluster.js reads by `index`."""
    data, blocks = report_data(session, found, budget)
    prefix = f"compilescope-r{index}"
    yield f'<script type="application/json" id="{prefix}-data">{script_json(data)}</script>\n'
    for n, text in enumerate(blocks):
        yield f'<script type="application/json" id="{prefix}-block-{n}">{text}</script>\n'


class ClusterPage:
    """`add_text(part)` for each rank's part (rank_scripts), then `finish(cluster)`."""

    def __init__(self, handle: IO[str], ranks: int, source: str) -> None:
        self.handle = handle
        self.count = 0
        self.scripts = [asset("highlight.min.js"), asset("report.js"), asset("cluster.js")]
        policy = "; ".join(
            [
                "default-src 'none'",
                "script-src " + " ".join(f"'{csp_hash(s)}'" for s in self.scripts),
                "style-src 'unsafe-inline'",
                "img-src data:",
                "base-uri 'none'",
                "form-action 'none'",
            ]
        )
        handle.write(
            '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="generator" content="compilescope {__version__}">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{html.escape(policy, quote=False)}">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{html.escape(f'compilescope · {ranks} ranks · {source[:200]}')}</title>\n"
            f"<style>{asset('report.css')}</style>\n</head>\n<body>\n"
            '<noscript><p class="noscript">This report needs JavaScript. The same facts: '
            "<code>compilescope report</code> on the same folder.</p></noscript>\n"
            '<div id="cluster"></div>\n'
        )

    def add_text(self, part: IO[str]) -> None:
        """A rank's part of the page (rank_scripts), from a file."""
        shutil.copyfileobj(part, self.handle)
        self.count += 1

    def finish(self, cluster: Cluster, source: str) -> None:
        facts = {**cluster_facts(cluster), "source": source, "compilescope": __version__}
        facts["findings"] = [finding_data(f) for f in cluster.findings]
        self.handle.write(f'<script type="application/json" id="compilescope-cluster">{script_json(facts)}</script>\n')
        for script in self.scripts:
            self.handle.write(f"<script>{script}</script>\n")
        self.handle.write("</body>\n</html>\n")
