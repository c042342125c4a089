"""How a Session is explained and shown, given from above.

The model (session/model.py) has the methods users call (`session.show()`, `str(session)`,
`session.to_html()`, `session.save()`, Jupyter's display), but the findings and the renderers
sit above the session layer: they import it, never the other way. The JSON writer
(session/jsonio.py) imports the model to read sessions back, so the model does not import it
either. The package root registers them here when compilescope is imported
(compilescope/_views.py), so session/model.py imports none of them. This registry is at the
bottom, beside the package root, not in session/: importing compilescope (which every command
does, `compilescope --version` included) then loads no module of the session layer.
"""

from __future__ import annotations

# (typing is not imported at run time: `import compilescope` stays light, docs/cli.md "What run costs")
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_VIEWS: dict[str, Callable[..., Any]] = {}

NAMES = ("json", "save_json", "findings", "show", "text", "html", "write_html", "notebook")


def register(**views: Callable[..., Any]) -> None:
    unknown = set(views) - set(NAMES)
    if unknown:
        raise ValueError(f"no such session view: {', '.join(sorted(unknown))}")
    _VIEWS.update(views)


def view(name: str) -> Callable[..., Any]:
    try:
        return _VIEWS[name]
    except KeyError:
        raise RuntimeError(f"no '{name}' view for a Session: it is registered when the compilescope package is imported") from None
