"""The tour as one self-contained HTML page: each lesson's title, its text with this run's
figures, and its view (blocks.to_html: tables as tables, code as code). No script; every string
is escaped as it is written, and the policy allows no request."""

from __future__ import annotations

import html

from compilescope._version import __version__
from compilescope.render.blocks import STYLE, to_html
from compilescope.tour.messages import done, say
from compilescope.tour.plan import LessonResult

_STYLE = (
    """
body { font: 15px/1.55 system-ui, "Noto Sans", "Noto Sans CJK SC", "Noto Sans Thai", sans-serif; margin: 24px auto;
       max-width: 1000px; color: #1f2328; padding: 0 16px; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 32px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
pre { background: #f6f8fa; padding: 10px; overflow-x: auto; font-size: 12.5px; line-height: 1.4; }
.lines { font-family: ui-monospace, monospace; font-size: 13px; } .muted { color: #666; }
"""
    + STYLE
)


def tour_page(lessons: list[LessonResult], lang: str, total_s: float) -> str:
    e = html.escape
    parts = [
        f'<!DOCTYPE html>\n<html lang="{e(lang)}">\n<head>\n<meta charset="utf-8">\n',
        f'<meta name="generator" content="compilescope {__version__}">\n',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'\">\n",
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
        f"<title>{e(say('tour.title', lang))}</title>\n<style>{_STYLE}</style>\n</head>\n",
        # (no script: the page is whole as written, ready for whoever waits on data-ready)
        '<body data-ready="true">\n',
        f"<h1>{e(say('tour.title', lang))}</h1>\n",
        f'<p class="muted">{e(done(lang, total_s, len(lessons)))}</p>\n',
    ]
    for lesson in lessons:
        parts.append(f'<section id="lesson-{lesson.number}">\n<h2>{lesson.number}. {e(lesson.title)}</h2>\n<p>{e(lesson.text)}</p>\n')
        if lesson.lines:
            parts.append('<div class="lines">' + "".join(f"<div>{e(line)}</div>" for line in lesson.lines) + "</div>\n")
        if lesson.view:
            parts.append(to_html(lesson.view))
        parts.append("</section>\n")
    parts.append("</body>\n</html>\n")
    return "".join(parts)
