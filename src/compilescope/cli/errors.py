"""Errors the CLI reports in one line, without a traceback, with the exit status to use."""

from __future__ import annotations


class CommandError(Exception):
    """A problem with what the user asked for (a missing file, a bad option): exit status 2."""

    def __init__(self, message: str, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code
