"""The Session's views (compilescope/views.py), registered from above when compilescope is
imported: each imports its module (the JSON writer, findings, render) only when first used, so
`import compilescope` stays light (it loads no module of session, findings or render) and
session/model.py imports none of them."""

from __future__ import annotations

from compilescope import views

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _json(session: Any, found: list[Any] | None) -> str:
    from compilescope.session.jsonio import dumps

    return dumps(session, found)


def _save_json(session: Any, path: str, found: list[Any] | None) -> None:
    from compilescope.session.jsonio import save

    save(session, path, found)


def _findings(session: Any) -> list[Any]:
    from compilescope.findings.rules import findings

    return findings(session)


def _show(session: Any, **options: Any) -> None:
    from compilescope.render.console import show

    show(session, **options)


def _text(session: Any) -> str:
    from compilescope.render.console import render_text

    return render_text(session)


def _html(session: Any) -> str:
    from compilescope.render.html import render_html

    return render_html(session)


def _write_html(session: Any, path: str) -> None:
    from compilescope.render.html import write_html

    write_html(session, path)


def _notebook(session: Any) -> dict[str, str]:
    from compilescope.render.html import notebook_bundle

    return notebook_bundle(session)


views.register(
    json=_json, save_json=_save_json, findings=_findings, show=_show, text=_text, html=_html, write_html=_write_html, notebook=_notebook
)
