"""The report: one self-contained HTML file (no torch, no network).

The page is a small vanilla-JS app (static/report.js) over the session's JSON, both inlined,
with highlight.js (BSD-3, static/highlight.min.js) for the generated code. Rendering happens in
the browser and lazily (a compile's details when it is opened), so a session of hundreds of
compiles and thousands of kernels opens quickly.

Safety: user strings reach the page only as JSON inside <script type="application/json">, with
"<", ">" and "&" escaped as \\u003c etc. so they cannot end the script element; the JS puts them
in the DOM with textContent, never innerHTML. The Content-Security-Policy allows only the
page's own inline scripts (by hash) and styles, and no network at all.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import hashlib
import html
import json
from pathlib import Path
from typing import Any

from compilescope import __version__
from compilescope.findings import findings
from compilescope.outputs import write_text
from compilescope.render.pyfiles import guard_function, guard_name, python_files
from compilescope.session.model import Session

_STATIC = Path(__file__).with_name("static")


@functools.lru_cache(maxsize=None)
def _asset(name: str) -> str:
    return (_STATIC / name).read_text(encoding="utf-8")


def _script_json(data: Any) -> str:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return (
        text.replace("&", "\\u0026")
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def report_data(session: Session) -> dict[str, Any]:
    files = python_files(session)
    return {
        "session": dataclasses.asdict(session),
        "findings": [dataclasses.asdict(f) for f in findings(session)],
        "compilescope": __version__,
        # Dynamo's code as Python (compilescope decompile's files): per compile, its guard as a
        # function and the file that shows it
        # (only where the report shows Dynamo's code: a session with none pays nothing)
        "guard_functions": [[guard_function(guard_name(f, c), c.guards, c.compile_id) if c.guards and c.transformed_code is not None else None for c in f.compiles] for f in session.frames],
        "python_files": [dataclasses.asdict(item) for item in files],
    }


def render_html(session: Session) -> str:
    title = "compilescope"
    if session.program is not None:
        title = f"compilescope · {session.program.target}"
    scripts = [_asset("highlight.min.js"), _asset("report.js")]
    policy = "; ".join(
        [
            "default-src 'none'",
            "script-src " + " ".join(f"'{_sha256(s)}'" for s in scripts),
            "style-src 'unsafe-inline'",
            "img-src data:",
            "base-uri 'none'",
            "form-action 'none'",
        ]
    )
    parts = [
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
        # compilescope.outputs recognises a report of ours by this line (to write over it).
        f'<meta name="generator" content="compilescope {__version__}">\n',
        # The policy is ours (no double quotes in it), so only &, < and > need escaping.
        f'<meta http-equiv="Content-Security-Policy" content="{html.escape(policy, quote=False)}">\n',
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
        f"<title>{html.escape(title)}</title>\n",
        f"<style>{_asset('report.css')}</style>\n</head>\n<body>\n",
        '<noscript><p class="noscript">This report needs JavaScript to show the session. '
        "The same facts: <code>compilescope report</code> on the saved session.</p></noscript>\n",
        '<div id="app"></div>\n',
        f'<script type="application/json" id="compilescope-data">{_script_json(report_data(session))}</script>\n',
    ]
    parts += [f"<script>{s}</script>\n" for s in scripts]
    parts.append("</body>\n</html>\n")
    return "".join(parts)


def write_html(session: Session, path: str | Path) -> Path:
    """Write the report whole (compilescope.outputs: never over someone else's file)."""
    return write_text(path, render_html(session), "the report")


def notebook_bundle(session: Session) -> dict[str, str]:
    """Jupyter's rich display: the report in an iframe (its own document, so its CSP and
    scripts stay apart from the notebook), with the terminal text as the fallback."""
    page = render_html(session)
    frame = (
        f'<iframe srcdoc="{html.escape(page, quote=True)}" '
        'style="width: 100%; height: 640px; border: 1px solid #ddd;" '
        'sandbox="allow-scripts" title="compilescope report"></iframe>'
    )
    return {"text/html": frame, "text/plain": str(session)}
