"""The .py files `compilescope decompile` and `run --decompile DIR` write: where they may go, and
what to tell the user once they are written. Used by run's pipeline (app/pipeline.py) and by
`compilescope decompile` on a saved session (cli/decompile.py)."""

from __future__ import annotations

import os
from pathlib import Path

from compilescope.app.errors import CommandError

TYPE_CHECKING = False  # (the model comes in with run(): the command's --help loads none of it)
if TYPE_CHECKING:
    from compilescope.session.model import Session


def check_output_folder(folder: Path) -> None:
    if folder.exists() and not folder.is_dir():
        raise CommandError(f"cannot write .py files into {folder}: it is a file")
    if not folder.exists() and not folder.parent.exists():
        raise CommandError(f"cannot write .py files into {folder}: folder {folder.parent} does not exist")
    where = folder if folder.exists() else folder.parent
    if not os.access(where, os.W_OK | os.X_OK):
        raise CommandError(f"cannot write .py files into {folder}: {where} cannot be written")


def write_decompiled(session: Session, folder: Path, shown: str | None = None) -> str:
    """Write the files; the message for the user (what was written, or why nothing was).
    `shown`: the folder as the user named it (`folder` may have been made absolute)."""
    from compilescope.render.pyfiles import write_python_files

    if not session.frames:
        return "torch.compile compiled nothing in this run: no .py files to write."
    written = write_python_files(session, folder)
    if not written:
        why = (
            session.decompiled
            or "this session holds no decompiled code (a trace torch wrote elsewhere has none: run the program with compilescope decompile)"
        )
        return f"No .py files written: {why}"
    incomplete = sum(
        1
        for f in session.frames
        for c in f.compiles
        for code in (c.transformed_code, c.original_code)
        if code is not None and not code.complete
    )
    lines = [f"Wrote {len(written)} .py file{'s' if len(written) != 1 else ''} to {shown or folder}/ ({session.decompiled}):"]
    lines += [f"  {path.name}" for path in written]
    if incomplete:
        lines.append(
            f"{incomplete} code object(s) use constructs the decompiler does not read yet: their bytecode is shown, marked, in the file."
        )
    from compilescope.app.repro import write_repros

    lines += write_repros(session, folder)  # a runnable repro_<id>.py per compile beside them
    return "\n".join(lines)
