"""The unit tier's inputs: sessions of committed traces (tests/traces/, recorded from real runs
by tests/traces/record), read without torch."""

from __future__ import annotations

import functools
from pathlib import Path

TRACES = Path(__file__).resolve().parents[1] / "traces"


@functools.cache
def _loaded(name: str):
    import compilescope

    return compilescope.load(TRACES / name)


def session(name: str):
    """The session of a committed trace (tests/traces/<name>.log.gz, or a .json file), read once
    per test run: tests must not change it (a test that does takes a copy with fresh())."""
    return _loaded(name if name.endswith(".json") else f"{name}.log.gz")


def fresh(name: str):
    """A session of its own, read again, that a test may change."""
    import compilescope

    return compilescope.load(TRACES / (name if name.endswith(".json") else f"{name}.log.gz"))


def found(name: str) -> list:
    return session(name).explain()


def one(items: list, **where: str):
    """The one finding whose attributes hold the given text (kind= equal, title_has= within)."""
    chosen = [
        f for f in items
        if all((text in f.title) if key == "title_has" else getattr(f, key) == text for key, text in where.items())
    ]  # fmt: skip
    assert len(chosen) == 1, f"{len(chosen)} findings with {where}: {[f.title for f in items]}"
    return chosen[0]


def flat(text: str) -> str:
    """Terminal text with its line wrapping undone."""
    return " ".join(text.split())


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    """`compilescope ARGV` in process (compilescope.cli.main): its status, stdout and stderr."""
    from compilescope.cli import main

    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err
