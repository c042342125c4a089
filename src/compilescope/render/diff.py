"""What changed between two runs (findings/diff.py): in the terminal, as JSON, and as one
self-contained HTML page (no scripts: every string is escaped as it is written).

JSON, documented in docs/schema.md: {"schema": "compilescope/diff/1", "before", "after",
"versions", "graph_breaks": {"added": [...], "removed": [...], "before": N, "after": N}, ... one
such object per aspect ..., "cache_misses": ["f (0/0), inference graph, FX graph cache: ...", ...], "compile_time": [{"what", "before", "after", "change", "unit",
"notable"}], "call_times": [...], "bench": [...], "nothing_changed": bool}
"""

from __future__ import annotations

import html
from typing import Any

from rich.text import Text

from compilescope._version import __version__
from compilescope.findings.diff import Diff, Figure
from compilescope.render.compare import figure
from compilescope.render.terminal import hanging
from compilescope.render.text import one_line
from compilescope.session.counts import compile_id_note, compile_ids_in

DIFF_SCHEMA = "compilescope/diff/1"
SHOWN = 8  # items per aspect in the terminal


_number = figure


def figure_line(f: Figure) -> str:
    text = f"{f.what}: {_number(f.before, f.unit)} → {_number(f.after, f.unit)}"
    if f.change is not None and f.before:
        text += f" ({f.change / abs(f.before):+.0%})"
    return text


def renderables(d: Diff, summary: Any = None) -> list:
    """The terminal's view; `summary`: the runs' counts side by side (render/compare.py), first."""
    out: list = [Text(f"⚠ {one_line(partial)}", style="bold yellow") for partial in d.partial]
    out.append(Text(f"compilescope diff · {one_line(d.before)} → {one_line(d.after)}", style="bold"))
    for version in d.versions:
        out.append(Text(f"  {one_line(version)}", style="dim"))
    if summary is not None:
        out.append(summary)
    out.append(Text(""))
    if d.nothing_changed:
        out.append(Text("Nothing changed in what torch.compile did, and no time moved by more than 20%.", style="green"))
    for aspect in d.aspects:
        if not aspect.added and not aspect.removed:
            continue
        out.append(Text(f"{aspect.title}: {aspect.before} → {aspect.after}", style="bold underline"))
        grid = hanging(4)
        for sign, style, items in (("+", "yellow", aspect.added), ("−", "green", aspect.removed)):
            for item in items[:SHOWN]:
                grid.add_row(Text(f"  {sign} ", style=style), Text(one_line(item), style=style))
            if len(items) > SHOWN:
                grid.add_row("", Text(f"… {len(items) - SHOWN} more {'added' if sign == '+' else 'removed'}", style="dim"))
        out.extend([grid, Text("")])
    out.extend(_marked("graph breaks at the same place, for another reason (torch's words)", "~", d.reworded_breaks))
    out.extend(_marked("Cache misses: what changed in the key of each graph the first run had compiled", "!", d.cache_misses))
    for title, figures in (("Compile time by stage", d.compile_time), ("Per-call times", d.call_times), ("Benchmarks", d.bench)):
        shown = [f for f in figures if f.before is not None or f.after is not None]
        if not shown:
            continue
        out.append(Text(title, style="bold underline"))
        for f in shown:
            out.append(Text(f"  {'▲ ' if f.notable else '  '}{one_line(figure_line(f))}", style="yellow" if f.notable else ""))
        out.append(Text(""))
    out.append(
        Text(
            "+ added in the second run, − gone from it; ~ a graph break at the same place, worded anew; "
            "! a graph the first run had compiled that missed the cache; ▲ a time that moved by 20% or more (compile times vary run to run).",
            style="dim",
        )
    )
    ids = _compile_ids(d)
    if ids:
        out.append(Text(compile_id_note(ids), style="dim"))
    return out


def _marked(title: str, mark: str, items: list[str]) -> list:
    """A titled list of lines, each after `mark`, the first SHOWN of them; nothing where none."""
    if not items:
        return []
    grid = hanging(4)
    for item in items[:SHOWN]:
        grid.add_row(Text(f"  {mark} ", style="yellow"), Text(one_line(item)))
    if len(items) > SHOWN:
        grid.add_row("", Text(f"… {len(items) - SHOWN} more", style="dim"))
    return [Text(title, style="bold underline"), grid, Text("")]


def _compile_ids(d: Diff) -> list[str]:
    """The compile ids in the items shown ("inner 0/1: ..."), to say what they mean."""
    return compile_ids_in([item for a in d.aspects for item in (a.added[:SHOWN] + a.removed[:SHOWN])])


def _figures(figures: list[Figure]) -> list[dict[str, Any]]:
    return [
        {"what": f.what, "before": f.before, "after": f.after, "change": f.change, "unit": f.unit, "notable": f.notable} for f in figures
    ]


def diff_json(d: Diff) -> dict[str, Any]:
    data: dict[str, Any] = {"schema": DIFF_SCHEMA, "before": d.before, "after": d.after, "versions": d.versions}
    # each side's Incomplete reason, or null where nothing says it is partial
    data["incomplete"] = {"before": d.before_incomplete, "after": d.after_incomplete}
    for aspect in d.aspects:
        data[aspect.name] = {"added": aspect.added, "removed": aspect.removed, "before": aspect.before, "after": aspect.after}
    data["graph_breaks_reworded"] = d.reworded_breaks
    data["cache_misses"] = d.cache_misses
    data["compile_time"] = _figures(d.compile_time)
    data["call_times"] = _figures(d.call_times)
    data["bench"] = _figures(d.bench)
    data["nothing_changed"] = d.nothing_changed
    return data


_STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1100px; color: #1f2328; }
h1 { font-size: 20px; } h2 { font-size: 16px; border-bottom: 1px solid #ddd; padding-bottom: 4px; margin-top: 24px; }
.added { color: #9a6700; } .removed { color: #1a7f37; } .muted { color: #666; }
li { font-family: ui-monospace, monospace; font-size: 13px; white-space: pre-wrap; }
table { border-collapse: collapse; } td, th { border: 1px solid #ddd; padding: 3px 8px; text-align: left; }
tr.notable td { background: #fff8c5; }
.partial { color: #9a6700; font-weight: 600; border-bottom: 2px solid #9a6700; padding-bottom: 6px; }
"""


def diff_html(d: Diff) -> str:
    """The page: every string escaped; no script, no request (its policy allows none)."""
    e = html.escape
    parts = [
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
        f'<meta name="generator" content="compilescope {__version__}">\n',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'\">\n",
        f"<title>{e(f'compilescope diff · {d.before} → {d.after}')}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n",
        *(f'<p class="partial" role="alert">⚠ {e(partial)}</p>\n' for partial in d.partial),
        f"<h1>compilescope diff</h1>\n<p><b>{e(d.before)}</b> → <b>{e(d.after)}</b></p>\n",
    ]
    parts += [f'<p class="muted">{e(v)}</p>\n' for v in d.versions]
    if d.nothing_changed:
        parts.append("<p>Nothing changed in what torch.compile did, and no time moved by more than 20%.</p>\n")
    for aspect in d.aspects:
        if not aspect.added and not aspect.removed:
            continue
        parts.append(f'<section id="{e(aspect.name)}"><h2>{e(aspect.title)}: {aspect.before} → {aspect.after}</h2>\n<ul>\n')
        parts += [f'<li class="added">+ {e(item)}</li>\n' for item in aspect.added]
        parts += [f'<li class="removed">− {e(item)}</li>\n' for item in aspect.removed]
        parts.append("</ul></section>\n")
    if d.reworded_breaks:
        parts.append('<section id="graph_breaks_reworded"><h2>graph breaks at the same place, for another reason</h2>\n<ul>\n')
        parts += [f'<li class="added">~ {e(item)}</li>\n' for item in d.reworded_breaks]
        parts.append("</ul></section>\n")
    if d.cache_misses:
        parts.append(
            '<section id="cache_misses"><h2>Cache misses: what changed in the key of each graph the first run had compiled</h2>\n<ul>\n'
        )
        parts += [f'<li class="added">! {e(item)}</li>\n' for item in d.cache_misses]
        parts.append("</ul></section>\n")
    for key, title, figures in (
        ("compile_time", "Compile time by stage", d.compile_time),
        ("call_times", "Per-call times", d.call_times),
        ("bench", "Benchmarks", d.bench),
    ):
        if not figures:
            continue
        parts.append(
            f'<section id="{key}"><h2>{e(title)}</h2>\n<table><tr><th>what</th><th>before</th><th>after</th><th>change</th></tr>\n'
        )
        for f in figures:
            change = "" if f.change is None or not f.before else f"{f.change / abs(f.before):+.0%}"
            parts.append(
                f'<tr class="{"notable" if f.notable else ""}"><td>{e(f.what)}</td><td>{e(_number(f.before, f.unit))}</td>'
                f"<td>{e(_number(f.after, f.unit))}</td><td>{e(change)}</td></tr>\n"
            )
        parts.append("</table></section>\n")
    parts.append("</body>\n</html>\n")
    return "".join(parts)
