"""What the compile mode did: under mode="reduce-overhead", whether each graph runs as a CUDA
graph, and, where not, torch's reason (one finding per reason, listing the graphs).

torch records, per compile, its Inductor settings (triton.cudagraphs: CUDA graphs asked for)
and, where it gave them up, `cudagraph_skip_reason`; both are in Compile.
"""

from __future__ import annotations

import re

from compilescope.findings import INFO, WARNING
from compilescope.findings.finding import NOT_MEASURED, Finding, listed, plural
from compilescope.findings.kinds import FindingKind
from compilescope.session.model import Compile, Frame, Session


def cuda_graph_findings(session: Session) -> list[Finding]:
    asked = [(f, c) for f in session.frames for c in f.compiles if c.cudagraphs]
    if not asked:
        return []
    by_reason: dict[str, list[tuple[Frame, Compile]]] = {}
    for frame, c in asked:
        if c.cudagraph_skip_reason:
            by_reason.setdefault(c.cudagraph_skip_reason, []).append((frame, c))
    used = len(asked) - sum(len(met) for met in by_reason.values())
    out = []
    for reason, met in by_reason.items():
        labels = list(dict.fromkeys(f.label for f, _ in met))
        out.append(
            Finding(
                WARNING,
                f"CUDA graphs not used for {plural(len(met), 'graph')} of {listed(labels, 4)}: {_short_reason(reason)}",
                detail=(
                    f'mode="reduce-overhead" asked for CUDA graphs; torch gave them up for {", ".join(c.compile_id for _, c in met)} '
                    f"and runs those graphs' kernels one launch at a time. torch's reason: {reason}"
                ),
                fix=_fix(reason),
                kind=FindingKind.CUDA_GRAPHS,
                where=_found_from(reason),
                compile_ids=tuple(c.compile_id for _, c in met),
                frames=tuple(dict.fromkeys(f.name for f, _ in met)),
                cost=f"{NOT_MEASURED}: the launches it costs show in compilescope run --profile",
            )
        )
    if used:
        recorded = [(f, c) for f, c in asked if not c.cudagraph_skip_reason and c.cudagraph_recordings]
        again = [(f, c) for f, c in recorded if (c.cudagraph_recordings or 0) > 1]
        detail = "torch records a CUDA graph at the first calls of each graph and replays it after."
        if again:
            detail += (
                " Recorded more than once (a new shape, or a new path through the graphs): "
                + ", ".join(f"{f.label} {c.compile_id} ×{c.cudagraph_recordings}" for f, c in again[:6])
                + "."
            )
        out.append(
            Finding(
                INFO,
                f'CUDA graphs used for {plural(used, "graph")} of {len(asked)} (mode="reduce-overhead")',
                detail=detail,
                kind=FindingKind.CUDA_GRAPHS,
                compile_ids=tuple(c.compile_id for _, c in asked if not c.cudagraph_skip_reason),
            )
        )
    return out


def autotuning_findings(session: Session) -> list[Finding]:
    """What max-autotune chose, where torch reported it: per operation, the kernel chosen among
    how many, and Triton's best where a library kernel won."""
    tuned = [(f, c, t) for f in session.frames for c in f.compiles for t in c.autotuning]
    if not tuned:
        return []
    library = [t for _, _, t in tuned if t.best and not t.best.startswith("triton")]
    lines = []
    for frame, c, t in tuned[:10]:
        line = f"{frame.label} {c.compile_id} {t.op}: chose {t.best or 'unknown'}"
        line += f" ({t.best_ms:.4f} ms)" if t.best_ms is not None else ""
        line += f" of {t.choices} choices" if t.choices is not None else ""
        if t.best_triton and t.best_triton_ms is not None:
            line += f"; Triton's best, {t.best_triton}, took {t.best_triton_ms:.4f} ms"
        lines.append(line)
    if len(tuned) > 10:
        lines.append(f"… and {len(tuned) - 10} more")
    compile_s = sum(c.compile_time_s or 0.0 for _, c in {id(c): (f, c) for f, c, _ in tuned}.values())
    return [
        Finding(
            INFO,
            f"max-autotune benchmarked kernels for {plural(len(tuned), 'operation')}: a library kernel won {len(library)}, a Triton template {len(tuned) - len(library)}",
            detail="\n".join(lines),
            fix=(
                'Where the library kernel won everywhere, mode="max-autotune" bought nothing for these shapes but its compile time '
                f"({compile_s:.1f} s for these compiles, with the benchmarking): the default mode picks the library kernel without benchmarking."
                if not len(tuned) - len(library)
                else ""
            ),
            kind=FindingKind.AUTOTUNING,
            compile_ids=tuple(dict.fromkeys(c.compile_id for _, c, _ in tuned)),
            frames=tuple(dict.fromkeys(f.name for f, _, _ in tuned)),
        )
    ]


def _short_reason(reason: str) -> str:
    """torch's reason, once: "skipping cudagraphs due to skipping cudagraphs due to cpu device
    (arg1_1). Found from : ..." -> "cpu device (arg1_1)"."""
    first = reason.strip().splitlines()[0] if reason.strip() else reason
    first = re.sub(r"(?:skipping cudagraphs due to\s*)+", "", first).strip()
    first = re.sub(r"\.?\s*Found from\s*:?\s*$", "", first).strip()
    return first[:200] or reason[:200]


def _found_from(reason: str) -> str | None:
    """The user's line torch names in the reason ("Found from: File "train.py", line 14")."""
    found = re.search(r'File "(?P<file>[^"]+)", line (?P<line>\d+)', reason)
    return f"{found.group('file')}:{found.group('line')}" if found else None


def _fix(reason: str) -> str:
    text = reason.lower()
    if "cpu device" in text or "non-cuda" in text or "cpu tensor" in text:
        return "Move the CPU tensors the graph uses (inputs, buffers, constants) to the GPU, or keep that step out of the compiled region."
    if "mutated inputs" in text or "mutation" in text:
        return "An input is changed in place in the graph: return the new value instead of mutating the input, or keep that step out of the compiled region."
    if "dynamic shape" in text or "symbolic" in text:
        return "CUDA graphs need fixed shapes: pad the inputs to a few sizes, or mark them static."
    if "incompatible op" in text or "cpu" in text:
        return "An operation the graph uses cannot be captured in a CUDA graph: move it out of the compiled region."
    return ""
