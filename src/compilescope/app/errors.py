"""Errors a command reports in one line, without a traceback, with the exit status to use.

Raised by the application layer (app/) and the command line (cli/); cli.main prints them.
"""

from __future__ import annotations


class CommandError(Exception):
    """A problem with what the user asked for (a missing file, a bad option): exit status 2."""

    def __init__(self, message: str, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class reading:  # noqa: N801  (used as `with reading(name):`)
    """What went wrong reading `name` (a session, a trace, a folder), as the one-line
    CommandError the user sees. (A class, not contextlib: `compilescope run` imports this module
    at start-up, and pays for each import.)"""

    def __init__(self, name: str) -> None:
        self.name = name

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, error: BaseException | None, traceback: object) -> None:
        if error is None:
            return
        from compilescope.session.jsonio import SessionFormatError
        from compilescope.trace.reader import UnreadableInput

        if isinstance(error, UnreadableInput):
            raise CommandError(str(error)) from None
        if isinstance(error, SessionFormatError):
            raise CommandError(f"{self.name}: {error}") from None
        if isinstance(error, FileNotFoundError):
            raise CommandError(str(error)) from None
        if isinstance(error, UnicodeDecodeError):
            raise CommandError(f"{self.name}: not a text file; expected a session .json or a trace .log") from None
        if isinstance(error, OSError):  # unreadable: permissions, a broken link
            raise CommandError(f"{self.name}: cannot be read ({error.strerror or error})") from None
