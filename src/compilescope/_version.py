"""compilescope's version: one place, read by the package root, the trace recorder, the HTML
report, the CLI and pyproject.toml (setuptools' dynamic version)."""

__version__ = "0.1.0"
