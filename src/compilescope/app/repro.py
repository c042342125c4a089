"""Runnable repros of compiles (`compilescope repro`, and `run --decompile DIR`'s repro_<id>.py
files): which compile, the command that writes its script, and writing it. The script's text
is built in render/repro.py."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from compilescope.app.errors import CommandError

TYPE_CHECKING = False  # (the model comes in with the command: its --help loads none of it)
if TYPE_CHECKING:
    from compilescope.session.model import Compile, Frame, Session


def file_name(compile_id: str) -> str:
    """repro_0_0.py for compile 0/0 (its id's other characters as _)."""
    return "repro_" + re.sub(r"\W", "_", compile_id) + ".py"


def session_name(session: Session) -> str:
    """How a command names this session: its trace, as the report says it was read."""
    return session.trace_files[0] if session.trace_files else "SESSION.json"


def repro_command(session_path: str, compile_id: str, output: str | None = None) -> str:
    return shlex.join(["compilescope", "repro", session_path, compile_id, "-o", output or file_name(compile_id)])


def find_compile(session: Session, compile_id: str) -> tuple[Frame, Compile]:
    for frame in session.frames:
        for c in frame.compiles:
            if c.compile_id == compile_id:
                return frame, c
    # "0/0" names the compile whose id torch wrote with a restart's suffix ("0/0_1") where that
    # is the only one: the terminal's lists name compiles without it
    restarted = [(f, c) for f in session.frames for c in f.compiles if c.compile_id.split("_")[0] == compile_id]
    if len(restarted) == 1:
        return restarted[0]
    ids = [c.compile_id for f in session.frames for c in f.compiles]
    listed = ", ".join(ids[:20]) + (f" and {len(ids) - 20} more" if len(ids) > 20 else "")
    raise CommandError(f"no compile {compile_id} in this session: " + (f"its compiles are {listed}" if ids else "it has none"))


def script_for(session: Session, frame: Frame, c: Compile, command: str) -> str:
    """The script's text; CannotRepro (render/repro.py) says why there is none."""
    from compilescope.render.repro import repro_script

    return repro_script(session, c, frame.qualname or frame.name, command)


def write_repro(session: Session, compile_id: str, output: str, session_path: str) -> str:
    """Write one compile's script; what to tell the user. CommandError where none can be written."""
    from compilescope.outputs import write_text
    from compilescope.render.repro import CannotRepro

    frame, c = find_compile(session, compile_id)
    compile_id = c.compile_id  # as torch wrote it ("0/0_1" where "0/0" was asked for)
    try:
        text = script_for(session, frame, c, repro_command(session_path, compile_id, output))
    except CannotRepro as why:
        raise CommandError(f"no repro for compile {compile_id}: {why}") from None
    write_text(output, text, "the repro script")
    return f"Wrote {output}: compile {compile_id} ({frame.qualname or frame.name}). Run it in any folder: python {shlex.quote(output)}"


def write_repros(session: Session, folder: Path) -> list[str]:
    """One repro_<id>.py per compile into `folder` (run --decompile DIR): the lines to print,
    one per compile without a script saying why."""
    from compilescope.outputs import check_writable, write_text
    from compilescope.render.repro import CannotRepro

    texts: dict[str, str] = {}
    lines: list[str] = []
    for frame in session.frames:
        for c in frame.compiles:
            name = file_name(c.compile_id)
            try:
                texts[name] = script_for(session, frame, c, repro_command(session_name(session), c.compile_id, name))
            except CannotRepro as why:
                lines.append(f"  no {name}: {why}")
    if folder.is_dir():  # (a folder not yet made holds nothing to write over)
        for name in texts:
            check_writable(folder / name, "a repro script")
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in texts.items():
        write_text(folder / name, text, "a repro script")
    if texts:
        lines.insert(0, f"Wrote {len(texts)} repro script{'s' if len(texts) != 1 else ''} (python FILE runs one): {', '.join(texts)}")
    return lines
