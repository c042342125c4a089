"""Capture: the only part of compilescope that runs inside the user's process and uses torch.

    with compilescope.record() as session:
        model(x)
    session.show()

It attaches a handler to torch's structured-trace logger for the duration of the block,
writes what torch reports to a trace file, and at the end builds the Session from that file.
It changes no torch config and replaces no code: the program computes what it computes
without us.

This package's own import is light on purpose (the recorder is imported when first used): a
child process of a program under `compilescope run` imports it at start-up, before torch.
"""

from __future__ import annotations

TYPE_CHECKING = False  # (typing is not imported: a program's child processes load this package)
if TYPE_CHECKING:
    from typing import Any

    # (what __getattr__ gives, named for a type checker, which reads no __getattr__ reliably)
    from compilescope.record.recorder import Capture as Capture
    from compilescope.record.recorder import capture as capture
    from compilescope.record.recorder import environment as environment
    from compilescope.record.recorder import explain as explain

_RECORDER = frozenset({"Capture", "capture", "explain", "environment"})


def __getattr__(name: str) -> Any:
    if name in _RECORDER:
        from compilescope.record import recorder

        return getattr(recorder, name)
    raise AttributeError(f"module 'compilescope.record' has no attribute {name!r}")
