"""What a finding is about (Finding.kind): one member per kind, each its words in the JSON.

A FindingKind is a str: it is written to the session JSON and the HTML report's data as the
plain string (docs/schema.md lists them), and it equals that string, so a reader that compares
with `"graph break"` keeps working. Findings are never read back from a file (a loaded session
computes its findings again from the facts), so a kind string from an older or newer
compilescope never has to become a member: the file loads, and its findings are this version's.

Only the standard library's enum, so that findings/before_compile.py stays light.
"""

from __future__ import annotations

from enum import Enum


class FindingKind(str, Enum):
    """The kinds of finding, as the JSON spells them."""

    GRAPH_BREAK = "graph break"
    CAPTURED_NOTHING = "captured nothing"  # compiled code that put no operation in any graph
    RECOMPILE = "recompile"
    RECOMPILE_LIMIT = "recompile limit"
    FLIP_FLOP = "flip-flop"  # calls switching back and forth between a function's versions
    COMPILE_FAILED = "compile failed"
    CALLS_WITHOUT_COMPILED_CODE = "calls without compiled code"
    COMPILE_TIME = "compile time"
    CACHE_MISS = "cache miss"  # a warm start that compiled a graph the earlier run had compiled
    CACHE_BYPASS = "cache bypass"  # a graph the compile caches cannot keep
    NOTHING_COMPILED = "nothing compiled"
    CHILD_PROCESSES = "child processes"
    UNREADABLE_TRACE = "unreadable trace"
    RECORDING_FAILED = "recording failed"  # compilescope's own hooks inside torch failed
    CUDA_GRAPHS = "cuda graphs"
    AUTOTUNING = "autotuning"
    DDP_SPLIT = "ddp split"
    PAID_OFF = "paid off"  # whether compiling paid off: compiled calls against uncompiled ones
    COMPILED_MODULE_NOT_CALLED = "compiled module not called"
    ACCURACY = "accuracy"  # run --check-accuracy: a compiled graph's result against eager's
    OTHER = "other"

    # its words wherever it is printed or formatted, as a plain str (Python 3.10 to 3.13 differ
    # on what str() and format() of a str-mixed Enum give)
    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)
