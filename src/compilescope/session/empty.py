"""A session in which nothing was compiled, as the JSON jsonio.dumps writes, without the model.

`compilescope run` saves one for a program that never imported torch: loading the session model
(two dozen dataclasses, and the dataclasses module itself) would cost more than 5% of a short
program's run. The keys, their order and their defaults are the model's; a test
(tests/test_run_without_torch.py) checks that this JSON is exactly what jsonio.dumps writes for
the session built from the same run's trace, so the two cannot drift apart.
"""

from __future__ import annotations

import json

from compilescope.session import SCHEMA, surrogates_escaped

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_COUNTS = (
    "functions",
    "resume_functions",
    "compiles",
    "recompiles",
    "failed",
    "graphs",
    "graph_break_places",
    "graph_break_occurrences",
    "kernels",
)
_ENVIRONMENT = ("python", "torch", "device", "compiler", "platform", "threads", "cuda", "triton", "dynamo_config", "libraries")


def session_json(
    environment: dict[str, Any],
    program: dict[str, Any],
    trace_files: list[str],
    compilescope_version: str | None,
    children: list[Any] | None,
    findings: list[dict[str, Any]],
    started: str | None = None,
    memory: dict[str, Any] | None = None,
) -> str:
    """The session of a run that compiled nothing. `program`: session.model.Program's fields;
    `children`: None where children were not followed, else the (empty) list of them;
    `findings`: what findings.before_compile says of it, as JSON (its finding_json); `started`:
    when its trace's first record was written, as the header says it; `memory`: the program's
    memory as record/memory.py measured it (session/memory.py's ProgramMemory as JSON), or None."""
    session = {
        "schema": SCHEMA,
        "environment": {key: environment.get(key) for key in _ENVIRONMENT},
        "program": program,
        "frames": [],
        "trace_files": trace_files,
        "rank": None,  # (under a launcher, run builds the whole session: its rank is in it)
        "started": started,
        "skipped": [],
        "compilescope_version": compilescope_version,
        "benchmarks": [],
        "profile": None,
        "calls_recorded": None,
        "decompiled": None,
        "children": children,
        "fixes": None,
        "capture_problems": [],
        "compiled_modules": None,  # (recorded once torch is imported: never, here)
        "incomplete": None,  # (the program's end was recorded, and nothing compiled)
        "cache_key_shared": [],  # (no graph, so no cache key)
        "earlier_run": None,  # (not compared: nothing was compiled to compare)
        "timeline": None,  # (no timing events: nothing was compiled)
        "accuracy": None,  # (nothing compiled, so nothing checked)
        "memory": memory,
        # (session/counts.py's Counts, each none: nothing compiled)
        "counts": dict.fromkeys(_COUNTS, 0),
        "findings": findings,
    }
    return surrogates_escaped(json.dumps(session, ensure_ascii=False))
