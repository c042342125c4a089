"""The zoo's results drawn: a table for the terminal, and a self-contained HTML page (a table
sorted by any column with a click, and a chart of speedup against cold compile time). Every
string is escaped where it is written: a model's name and torch's messages come from outside."""

from __future__ import annotations

import html
import math

from rich import box
from rich.console import Group
from rich.text import Text

from compilescope._version import __version__
from compilescope.findings.finding import plural
from compilescope.render.sections.runtime import verdict_text, verdict_words
from compilescope.render.terminal import Column, Escaped, FitTable, bounded_text, together
from compilescope.session.counts import said
from compilescope.session.zoo import ZooModel, ZooRun, ZooSummary

_STATUS_STYLE = {"pass": "green", "fail": "red", "error": "magenta", "timeout": "yellow"}


def _x(value: float | None, digits: int = 2, suffix: str = "") -> str:
    return "unknown" if value is None else f"{value:.{digits}f}{suffix}"


def _count(value: int | None) -> str:
    return "unknown" if value is None else str(value)


def _memory(row: ZooModel) -> str:
    if row.eager_memory_mb is not None and row.compiled_memory_mb is not None:
        return f"{row.eager_memory_mb:.0f} / {row.compiled_memory_mb:.0f} MB"
    if row.compiled_memory_mb is not None:
        return f"{row.compiled_memory_mb:.0f} MB (both)"
    return "unknown"


def what_ran(run: ZooRun) -> str:
    """ "hf suite, tiny, cpu, inference (fp32), inductor/default, 900 s per model" """
    step = "training" if run.training else "inference"
    return (
        f"{run.suite}, {run.size}, {run.device}, {step} ({run.precision}), {run.backend}/{run.mode}, "
        f"time limit {run.time_limit_s} s per model"
    )


def summary_line(summary: ZooSummary | None) -> str:
    if summary is None or not summary.models:
        return "no models"
    counts = ", ".join(f"{n} {status}" for status, n in summary.counts.items() if n)
    parts = [
        f"pass rate {_x(None if summary.pass_rate is None else 100 * summary.pass_rate, 0, '%')} ({counts})",
        f"geomean speedup {_x(summary.geomean_speedup, 2, 'x')}",
        f"median cold compile {_x(summary.median_compile_s, 1, ' s')}",
        f"memory compression {_x(summary.memory_compression, 2, 'x')}",
    ]
    return " · ".join(parts)


def zoo_table(run: ZooRun) -> Escaped:
    """The models as a table (rows as lines where the terminal is narrow), the reasons where
    they did not pass, and the summary."""
    columns = [
        Column("model"),
        Column("status"),
        Column("speedup", "right"),
        Column("eager / compiled ms", "right", label="eager / compiled (ms)"),
        Column("compile cold / warm", "right", label="compile (cold / warm)"),
        Column("compiles", "right"),
        Column("breaks", "right", label="graph break occurrences"),
        Column("recompiles", "right"),
        Column("memory eager / compiled", "right", label="memory (eager / compiled)"),
        Column("accuracy"),
    ]
    table = FitTable(columns, title=f"The zoo · {what_ran(run)}", box=box.SIMPLE_HEAD)
    for row in run.models:
        speed = verdict_text(row.verdict, row.speedup)
        table.add_row(
            Text(row.name),
            Text(row.status, style=_STATUS_STYLE[row.status]),
            speed,
            together(f"{_x(row.eager_ms, 3)} / {_x(row.compiled_ms, 3)}"),
            together(f"{_x(row.cold_compile_s, 1, ' s')} / {_x(row.warm_compile_s, 1, ' s')}"),
            _count(row.compiles),
            _count(row.graph_breaks),
            _count(row.recompiles),
            together(_memory(row)),
            Text(row.accuracy or "unknown", style="red" if (row.accuracy or "").startswith("fail") else ""),
        )
    notes = Text("")
    for row in run.models:
        if row.reason:
            notes.append(f"{row.name} {row.status}: ", style=_STATUS_STYLE[row.status])
            notes.append(row.reason + "\n")
    for row in run.models:
        if row.warm_cache_misses:
            notes.append(f"{row.name}: ", style="bold")
            notes.append(_missed(row) + "\n")
    for row in run.models:
        if row.top_break:
            notes.append(f"{row.name}: ", style="bold")
            notes.append(f"{said('graph_break_occurrences', row.graph_breaks or 0)}; the costliest: {row.top_break}\n")
    for row in run.models:
        for problem in row.compilescope_problems:
            notes.append(f"{row.name}: compilescope failed: ", style="bold red")
            notes.append(problem + "\n")
    notes.append(summary_line(run.summary), style="bold")
    notes.append(
        "\nspeedup: eager median / compiled median per call, with its verdict (faster, slower, about even, too noisy to say);"
        " compile: the first compiled call with a cold compile cache (cold) and with the filled one, in a new process (warm);"
        f" the cold cache held {run.cold_cache or 'unknown'};"
        f" memory: {next((r.memory_kind for r in run.models if r.memory_kind), 'not measured')}."
        " The geomean speedup and the median compile time are over the models that passed.",
        style="dim",
    )
    return Escaped(Group(table, bounded_text(notes)))


# --- HTML ----------------------------------------------------------------------------------

_STYLE = """
body { font: 14px/1.5 system-ui, sans-serif; margin: 24px auto; max-width: 1400px; padding: 0 16px; color: #1f2328; }
h1 { font-size: 20px; } .muted { color: #666; } .summary { font-size: 15px; margin: 8px 0 16px; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { border-bottom: 1px solid #ddd; padding: 4px 8px; text-align: left; vertical-align: top; }
th { cursor: pointer; background: #f6f8fa; position: sticky; top: 0; user-select: none; }
th[aria-sort="ascending"]::after { content: " \\25B2"; } th[aria-sort="descending"]::after { content: " \\25BC"; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.pass { color: #1a7f37; } .fail { color: #cf222e; } .error { color: #8250df; } .timeout { color: #9a6700; }
.faster { color: #1a7f37; } .slower { color: #cf222e; } .too-noisy-to-say { color: #9a6700; }
.reason { color: #57606a; font-size: 12px; max-width: 520px; overflow-wrap: anywhere; }
svg text { font: 11px system-ui, sans-serif; fill: #444; }
"""

# Sorting by a column: numbers by value (a cell's data-v), unknown last, text by its words.
_SCRIPT = """
document.querySelectorAll("table.zoo th").forEach((th, index) => {
  th.addEventListener("click", () => {
    const table = th.closest("table"), body = table.tBodies[0];
    const down = th.getAttribute("aria-sort") === "ascending";
    table.querySelectorAll("th").forEach((h) => h.removeAttribute("aria-sort"));
    th.setAttribute("aria-sort", down ? "descending" : "ascending");
    const key = (row) => { const c = row.cells[index]; return c.dataset.v !== undefined ? c.dataset.v : c.textContent; };
    const rows = Array.from(body.rows);
    rows.sort((a, b) => {
      const x = key(a), y = key(b);
      if (x === "" || y === "") return (x === "") - (y === "");
      const d = (th.dataset.type === "n") ? Number(x) - Number(y) : x.localeCompare(y);
      return down ? -d : d;
    });
    rows.forEach((row) => body.appendChild(row));
  });
});
document.body.dataset.ready = "true";
"""

_COLUMNS = (
    ("model", "t"),
    ("status", "t"),
    ("speedup", "n"),
    ("eager ms", "n"),
    ("compiled ms", "n"),
    ("cold compile s", "n"),
    ("warm compile s", "n"),
    ("compiles", "n"),
    ("graph break occurrences", "n"),
    ("recompiles", "n"),
    ("eager MB", "n"),
    ("compiled MB", "n"),
    ("memory compression", "n"),
    ("accuracy", "t"),
    ("what was built", "t"),
    ("why it did not pass · graph breaks · compilescope", "t"),
)


def _cell(value: float | int | None, digits: int = 2, note: str = "") -> str:
    if value is None:
        return '<td class="n" data-v="">unknown</td>'
    shown = str(value) if isinstance(value, int) else f"{value:.{digits}f}"
    return f'<td class="n" data-v="{value!r}">{shown}{note}</td>'


def _speedup_cell(row: ZooModel) -> str:
    """The speedup with its verdict in words ("slower 0.76x"), sorted by the speedup."""
    value = "" if row.speedup is None else repr(row.speedup)
    verdict = (row.verdict or "").replace(" ", "-")  # "too-noisy-to-say", a class of the page's style
    return f'<td class="n {html.escape(verdict)}" data-v="{value}">{html.escape(verdict_words(row.verdict, row.speedup))}</td>'


def _missed(row: ZooModel) -> str:
    return (
        f"the warm first call compiled {plural(row.warm_cache_misses or 0, 'graph')} again (not found in the filled cache):"
        " its time is not a warm compile's (the cold run's graph differed from this run's)"
    )


def _row(row: ZooModel) -> str:
    e = html.escape
    notes = []
    if row.reason:
        notes.append(e(row.reason))
    if row.top_break:
        notes.append(e(f"costliest graph break: {row.top_break}"))
    if row.warm_cache_misses:
        notes.append(e(_missed(row)))
    notes += [e(f"compilescope failed: {p}") for p in row.compilescope_problems]
    return (
        "<tr>"
        f'<td>{e(row.name)}</td><td class="{row.status}">{row.status}</td>'
        + _speedup_cell(row)
        + _cell(row.eager_ms, 3)
        + _cell(row.compiled_ms, 3)
        + _cell(row.cold_compile_s, 1)
        + _cell(row.warm_compile_s, 1)
        + _cell(row.compiles)
        + _cell(row.graph_breaks)
        + _cell(row.recompiles)
        + _cell(row.eager_memory_mb, 0)
        # (a CPU's peak RSS is both eager's and compiled's)
        + _cell(row.compiled_memory_mb, 0, " (both)" if row.eager_memory_mb is None else "")
        + _cell(row.memory_compression)
        + f"<td>{e(row.accuracy or 'unknown')}</td><td>{e(row.model or 'unknown')}</td>"
        + f'<td class="reason">{"<br>".join(notes)}</td>'
        "</tr>\n"
    )


def _chart(models: list[ZooModel], width: int = 900, height: int = 380) -> str:
    """Speedup against cold compile time, both on log scales, one dot per model that has both."""
    e = html.escape
    points = [m for m in models if m.speedup and m.cold_compile_s and m.speedup > 0 and m.cold_compile_s > 0]
    if not points:
        return '<p class="muted">No model has both a speedup and a cold compile time to draw.</p>\n'
    left, right, top, bottom = 60, 20, 20, 44
    xs = [math.log10(m.cold_compile_s or 1) for m in points]
    ys = [math.log10(m.speedup or 1) for m in points]
    x0, x1 = math.floor(min(xs)), math.ceil(max(xs) + 1e-9)
    y0, y1 = min(min(ys), -0.1), max(max(ys), 0.1)
    x1 = x1 if x1 > x0 else x0 + 1

    def px(x: float) -> float:
        return left + (x - x0) / (x1 - x0) * (width - left - right)

    def py(y: float) -> float:
        return top + (y1 - y) / (y1 - y0) * (height - top - bottom)

    out = [
        f'<svg role="img" aria-label="speedup against cold compile time" width="{width}" height="{height}" viewBox="0 0 {width} {height}">',
        f'<line x1="{left}" y1="{py(0):.1f}" x2="{width - right}" y2="{py(0):.1f}" stroke="#999" stroke-dasharray="4 3"/>',
        f'<text x="{width - right}" y="{py(0) - 4:.1f}" text-anchor="end">1x: as fast as eager</text>',
        f'<line x1="{left}" y1="{height - bottom}" x2="{width - right}" y2="{height - bottom}" stroke="#444"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}" stroke="#444"/>',
    ]
    for power in range(x0, x1 + 1):
        out.append(f'<text x="{px(power):.1f}" y="{height - bottom + 16}" text-anchor="middle">{10.0**power:g} s</text>')
    for tick in (0.25, 0.5, 1, 2, 4, 8, 16):
        if y0 <= math.log10(tick) <= y1:
            out.append(f'<text x="{left - 6}" y="{py(math.log10(tick)) + 4:.1f}" text-anchor="end">{tick:g}x</text>')
    out.append(f'<text x="{(left + width - right) / 2}" y="{height - 6}" text-anchor="middle">cold compile (s, log scale)</text>')
    out.append(
        f'<text x="14" y="{(top + height - bottom) / 2}" transform="rotate(-90 14 {(top + height - bottom) / 2})" text-anchor="middle">speedup (log scale)</text>'
    )
    colour = {"pass": "#1a7f37", "fail": "#cf222e", "error": "#8250df", "timeout": "#9a6700"}
    for m, x, y in zip(points, xs, ys):
        label = f"{m.name}: {m.speedup:.2f}x, cold compile {m.cold_compile_s:.1f} s ({m.status})"
        out.append(
            f'<g><circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="5" fill="{colour[m.status]}" fill-opacity="0.8"><title>{e(label)}</title></circle>'
            f'<text x="{px(x) + 7:.1f}" y="{py(y) + 4:.1f}">{e(m.name.split(":", 1)[-1])}</text></g>'
        )
    out.append("</svg>\n")
    return "\n".join(out)


def zoo_html(run: ZooRun) -> str:
    """The whole page: what ran, the summary, the chart, the sortable table."""
    from compilescope.render.html import csp_hash

    e = html.escape
    environment = " · ".join(f"{k} {v}" for k, v in run.environment.items())
    csp = f"default-src 'none'; style-src 'unsafe-inline'; script-src '{csp_hash(_SCRIPT)}'; base-uri 'none'; form-action 'none'"
    head = "".join(f'<th data-type="{kind}" scope="col">{e(name)}</th>' for name, kind in _COLUMNS)
    parts = [
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
        f'<meta name="generator" content="compilescope {__version__}">\n',
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">\n',
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
        f"<title>compilescope zoo: {e(run.suite)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n",
        f"<h1>The zoo: {e(what_ran(run))}</h1>\n",
        f'<p class="muted">{e(environment)}{" · " if environment else ""}{len(run.models)} models in {_x(run.wall_s, 0, " s")}'
        + (f" · started {e(run.started)}" if run.started else "")
        + "</p>\n",
        f'<p class="summary"><b>{e(summary_line(run.summary))}</b></p>\n',
    ]
    if run.stopped:
        parts.append(f'<p class="fail">{e(run.stopped)}</p>\n')
    if run.command:
        parts.append(f'<p class="muted">command: <code>{e(" ".join(run.command))}</code></p>\n')
    parts.append(_chart(run.models))
    parts.append(
        '<p class="muted">Click a column to sort by it. Speedup: eager median / compiled median per call; compile: the first compiled call '
        f"with a cold compile cache (cold; it held {e(run.cold_cache or 'unknown')}) and with the filled one in a new process (warm); memory: "
        f"{e(next((r.memory_kind or '' for r in run.models if r.memory_kind), 'not measured'))}.</p>\n"
    )
    parts.append(f'<table class="zoo">\n<thead><tr>{head}</tr></thead>\n<tbody>\n')
    parts.extend(_row(row) for row in run.models)
    parts.append("</tbody>\n</table>\n")
    parts.append(f"<script>{_SCRIPT}</script>\n</body>\n</html>\n")
    return "".join(parts)
