"""A Python whose bytecode the decompiler does not know yet (3.14, where the lab ran): its code
comes out as annotated bytecode in valid Python that raises if run, never a guess and never a
crash. No 3.14 can be installed here, so the running Python is taken as one the decompiler
does not read (versions.READS_THIS_PYTHON, the one switch decompile_code looks at)."""

from __future__ import annotations

import dis

import pytest

from compilescope.decompiler import versions
from compilescope.decompiler.api import decompile_code


def scaled(x, factor=2.0):
    return [item * factor for item in x[1:]]


def test_which_pythons_are_read() -> None:
    assert versions.reads((3, 10)) and versions.reads((3, 13))
    assert not versions.reads((3, 14)) and not versions.reads((3, 9))


def test_a_python_it_does_not_read_gets_its_bytecode_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    assert decompile_code(scaled.__code__, scaled).complete  # this Python's: decompiled
    monkeypatch.setattr(versions, "READS_THIS_PYTHON", False)
    shown = decompile_code(scaled.__code__, scaled)
    assert not shown.complete and shown.note is not None
    assert f"reads the bytecode of Python 3.10 to 3.13, not yet {versions.PYTHON}'s" in shown.note
    # every instruction is there, by name, in a function that is valid Python and raises if run
    for instruction in dis.get_instructions(scaled.__code__):
        if instruction.opname != "CACHE":
            assert instruction.opname in shown.source
    namespace: dict = {}
    exec(compile(shown.source, "<shown>", "exec"), namespace)
    with pytest.raises(NotImplementedError, match="could not decompile scaled"):
        namespace["scaled"]([1.0, 2.0])
    assert "def scaled(x, factor=2.0):" in shown.source
