"""The findings of a Session: what matters, most important first, each with what to change.

Plain Python over the Session (no torch). A finding names the compile it came from, so every
statement can be traced back to the trace records behind it; advice is only given where the
facts support it.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from compilescope.findings import INFO, PROBLEM, WARNING
from compilescope.findings.before_compile import (
    ended_before_compiling,
    nothing_compiled,
)
from compilescope.session.model import Compile, Frame, GraphBreak, Session

_ORDER = {PROBLEM: 0, WARNING: 1, INFO: 2}


@dataclass
class Finding:
    level: str  # problem, warning, info
    title: str
    detail: str = ""
    advice: str = ""
    compile_ids: tuple[str, ...] = ()
    where: str | None = None  # "file:line" in the user's code
    frame: str | None = None  # the compiled function's name (compile ids can repeat across functions)


def findings(session: Session) -> list[Finding]:
    found: list[Finding] = []
    compiled_in_children = any(c.compiles for c in session.children or [])
    if not session.compiles and not session.benchmarks and not compiled_in_children:  # bench compiles in its own workers
        found.append(_nothing_compiled(session))
    found.extend(_children(session))
    found.extend(_graph_breaks(session.frames))
    for frame in session.frames:
        found.extend(_failures(frame))
        found.extend(_recompiles(frame))
        found.extend(_calls_without_compiled_code(frame))
    found.extend(_compile_time(session))
    if session.skipped:
        found.append(
            Finding(
                WARNING,
                f"{len(session.skipped)} part(s) of the trace could not be read",
                detail="; ".join(session.skipped[:3]) + (" …" if len(session.skipped) > 3 else ""),
                advice="What could be read is explained; the rest is listed under 'skipped'.",
            )
        )
    found.sort(key=lambda f: _ORDER[f.level])
    return found


def _nothing_compiled(session: Session) -> Finding:
    program = session.program
    if program is not None and program.kind == "trace":
        # A trace from elsewhere shows what it holds, not what ran: a trace begun after the
        # compiles, cut short, or filtered holds none of them either.
        return Finding(
            INFO,
            "No compile in this trace",
            detail=(
                "The trace holds no compile records (torch writes dynamo_start, dynamo_output_graph and "
                "compilation_metrics for each compile), so it shows nothing of what torch.compile did. "
                "That is not evidence that nothing was compiled: the trace may have been started after "
                "the compiles, cut short, or written by a process that did not compile."
            ),
            advice=(
                "Set TORCH_TRACE=dir before the program starts (or run it with compilescope run), so "
                "the trace holds every compile."
            ),
        )
    if program is not None:
        said = ended_before_compiling(program.kind, program.exit_status, program.exception, imported_torch=not never_imported_torch(session))
        if said is not None:
            return Finding(*said)
    return Finding(*nothing_compiled(program.kind if program is not None else "script"))


def never_imported_torch(session: Session) -> bool:
    """Whether the program `compilescope run` ran never imported torch. The run records torch's
    version when the program imports it, and again as the program ends (record/recorder.py), so
    for a script or module it ran, no version means no torch; elsewhere (a trace, a capture())
    it means only that torch did not say."""
    program = session.program
    return (
        program is not None
        and program.kind in ("script", "module")
        and session.environment.torch is None
        and not session.compiles
    )


def _children(session: Session) -> list[Finding]:
    """The program's child processes: where they compiled (each has its own trace), and those
    that could not be followed (what they compiled is not in this session)."""
    children = session.children or []
    out = []
    compiled = [c for c in children if c.compiles]
    if compiled:
        compiles = sum(c.compiles for c in compiled)
        where = "" if session.compiles else " (the program's own process compiled nothing)"
        out.append(
            Finding(
                INFO,
                f"{plural(len(compiled), 'child process', 'child processes')} compiled too: {plural(compiles, 'compile')}{where}",
                detail=_first_lines([f"pid {c.pid}: {c.command}" for c in compiled]),
                advice="Each child's compiles are in its own trace, listed under 'Child processes': compilescope report TRACE explains one.",
            )
        )
    missed = [c for c in children if not c.followed]
    if missed:
        out.append(
            Finding(
                WARNING,
                f"{plural(len(missed), 'Python child process', 'Python child processes')} not followed: what they compiled is not in this session",
                detail=_first_lines([f"{c.command}: {c.why_not or 'unknown why'}" for c in missed]),
                advice="Start them with the environment they inherit (keep PYTHONPATH and COMPILESCOPE_CHILDREN, no python -I/-E/-S), or run each with compilescope run.",
            )
        )
    return out


def _first_lines(lines: list[str], limit: int = 5) -> str:
    """The first `limit` lines, and "…" where there are more."""
    return "\n".join(lines[:limit]) + ("\n…" if len(lines) > limit else "")


def plural(count: int, word: str, words: str | None = None) -> str:
    return f"{count} {word if count == 1 else (words or word + 's')}"


def _where(filename: str | None, lineno: int | None) -> str | None:
    if filename is None:
        return None
    return f"{filename}:{lineno}" if lineno is not None else filename


def _failures(frame: Frame) -> list[Finding]:
    out = []
    for c in frame.compiles:
        if c.status != "failed":
            continue
        failure = c.failure or ""
        advice = ""
        if "data-dependent" in failure:
            advice = (
                "Python had to decide on a value inside a tensor (an `if` on .item(), say). "
                "With fullgraph=True that stops the compile; without it Dynamo breaks the graph "
                "there instead. Keep the decision in the graph: torch.where(cond, a, b), or torch.cond."
            )
        elif "recompile_limit" in failure or "cache_size_limit" in failure:
            advice = (
                "Dynamo gave up recompiling this function and runs it without compiling. "
                "See the recompile reasons above: usually a changing shape or Python value."
            )
        where = _where(c.failure_filename, c.failure_lineno)
        out.append(
            Finding(
                PROBLEM,
                f"Compiling {frame.name} failed ({c.compile_id})" + (f" at {_short(where)}" if where else ""),
                detail=(c.failure or "") + (f"\n    {c.failure_code}" if c.failure_code else ""),
                advice=advice,
                compile_ids=(c.compile_id,),
                where=where,
                frame=frame.name,
            )
        )
    return out


# Advice for common break reasons, beyond torch's own hint.
_BREAK_ADVICE = [
    (re.compile(r"Tensor\.item\(\)|item\(\)", re.I),
     "Python needs a real value here, so the graph is cut. Keep the decision in the graph "
     "(torch.where(cond, a, b) instead of `if`), or set "
     "torch._dynamo.config.capture_scalar_outputs = True."),
    (re.compile(r"print|builtin", re.I), "Move printing and logging out of the compiled function."),
    (re.compile(r"data-dependent|Data-dependent", re.I),
     "Control flow that depends on a tensor's values cannot be traced; torch.where or torch.cond keep it in the graph."),
    (re.compile(r"numpy|tolist", re.I), "Converting to Python or NumPy values leaves the graph; stay in torch ops."),
]


def _graph_breaks(frames: list[Frame]) -> list[Finding]:
    """One finding per break (its reason and its line), however many compiled functions met it:
    Dynamo meets a break in a function once for each compiled function whose code leads there
    (f calls user calls helper, which prints: three times), and again in each recompile."""
    seen: dict[tuple, list[tuple[Frame, Compile, GraphBreak]]] = {}
    for frame in frames:
        for c in frame.compiles:
            for brk in c.graph_breaks:
                seen.setdefault((brk.reason, brk.filename, brk.lineno), []).append((frame, c, brk))
    out = []
    for met in seen.values():
        frame, c, brk = met[0]
        advice = next((text for pattern, text in _BREAK_ADVICE if pattern.search(brk.reason)), "")
        if brk.hint:
            advice = (advice + "\n" if advice else "") + f"torch's hint: {brk.hint}"
        where = _where(brk.filename, brk.lineno)
        title = f"Graph break in {brk.function or frame.name}"
        if where:
            title += f" at {_short(where)}"
        detail = brk.reason
        if brk.code:
            detail += f"\n    {brk.code}"
        functions = list(dict.fromkeys(f.name for f, _, _ in met))
        compile_ids = tuple(dict.fromkeys(c.compile_id for _, c, _ in met))
        resumes = list(dict.fromkeys(b.resume_function for _, _, b in met if b.resume_function))
        if resumes:
            detail += f"\nThe code after it runs as {', '.join(resumes)}, compiled separately."
        if len(functions) > 1:
            detail += (
                f"\nMet while compiling {len(functions)} functions ({', '.join(functions)}): Dynamo stops at "
                "it in each compiled function whose code leads there; one change here removes them all."
            )
        if len(compile_ids) > len(functions):
            detail += f"\nSeen in {len(compile_ids)} compiles."
        out.append(Finding(WARNING, title, detail=detail, advice=advice, compile_ids=compile_ids, where=where, frame=functions[0] if len(functions) == 1 else None))
    return out


def _recompiles(frame: Frame) -> list[Finding]:
    versions = [c for c in frame.compiles if c.recompile_reason]
    if not versions:
        return []
    out = []
    served = calls_served(frame)  # the function's, said with each version (once: it reads them all)
    for c in versions:
        guard = c.failed_guards[0] if c.failed_guards else None
        text = (f"{guard.previous_compile}: {guard.text}" if guard.previous_compile else guard.text) if guard else "; ".join(c.recompile_reason or [])
        advice = ""
        if guard and guard.what and "size mismatch" in guard.what:
            dim = re.search(r"index (\d+)", guard.what)
            became_dynamic = any(d.kind in ("automatic dynamic", "symbol") for d in c.dynamic)
            advice = (
                f"The size of {guard.subject or 'an input'} changed"
                + (f" in dimension {dim.group(1)}" if dim else "")
                + f" ({guard.expected} → {guard.actual})."
            )
            if became_dynamic:
                advice += (
                    " torch made that dimension dynamic in this version, so further sizes reuse "
                    "it; to skip the first recompile, mark it up front: "
                    f"torch._dynamo.mark_dynamic({guard.subject or 'x'}, {dim.group(1) if dim else 0})."
                )
            else:
                advice += " If it keeps changing, compile with dynamic=True or use torch._dynamo.mark_dynamic."
        elif guard and guard.what == "value changed":
            origin = f" (from `{guard.user_code}`" + (f" at {_short(_where(guard.filename, guard.lineno) or '')})" if guard.filename else ")") if guard.user_code else ""
            advice = (
                f"A Python value{origin} was compiled in as the constant {guard.expected}, so a new "
                "value compiles again. Keep it a tensor (e.g. torch.where instead of an `if` on "
                ".item()), or pass numbers that change as tensors; dynamic=True makes Python "
                "ints symbolic."
            )
        elif "grad_mode" in text:
            advice = "Gradient mode changed (torch.no_grad vs training): each mode gets its own compiled version. This is expected when a model is used for both."
        out.append(
            Finding(
                WARNING if len(versions) < 4 else PROBLEM,
                f"{frame.name} compiled again ({c.compile_id})",
                detail=f"Guard failed: {text}" + (f"\nCalls served: {served}" if served else ""),
                advice=advice,
                compile_ids=(c.compile_id,),
                where=_where(frame.filename, frame.lineno),
                frame=frame.name,
            )
        )
    return out


def calls_served(frame: Frame) -> str:
    """"0/0 2, 0/1 40, no compiled code 1 (of 43 calls)", or "" when calls were not recorded."""
    parts = [f"{c.compile_id} {c.calls.calls}" for c in frame.compiles if c.calls is not None]
    eager = frame.calls_without_compiled_code
    if eager is not None and eager.calls:
        parts.append(f"no compiled code {eager.calls}")
    if not parts:
        return ""
    total = _compiled_calls(frame) + (eager.calls if eager else 0)
    return ", ".join(parts) + f" (of {total} calls)"


def _compiled_calls(frame: Frame) -> int:
    """The calls the frame's compiled versions served, as recorded."""
    return sum(c.calls.calls for c in frame.compiles if c.calls is not None)


def _calls_without_compiled_code(frame: Frame) -> list[Finding]:
    eager = frame.calls_without_compiled_code
    if eager is None or not eager.calls:
        return []
    compiled = _compiled_calls(frame)
    failed = [c for c in frame.compiles if c.status == "failed"]
    detail = (
        "These calls ran the function's original Python: it was called outside torch.compile, or "
        "Dynamo fell back to it (a compile that failed, a frame it skipped, the recompile limit)."
    )
    if eager.raised:
        detail += f" {eager.raised} of them raised."
    advice = ""
    if failed:
        advice = f"Compile {', '.join(c.compile_id for c in failed)} failed: once that is fixed, those calls can run compiled (the failure is listed above)."
    return [
        Finding(
            WARNING if failed else INFO,
            f"{frame.name}: {eager.calls} of {eager.calls + compiled} calls ran without compiled code",
            detail=detail,
            advice=advice,
            compile_ids=tuple(c.compile_id for c in failed),
            where=_where(frame.filename, frame.lineno),
            frame=frame.name,
        )
    ]


def _compile_time(session: Session) -> list[Finding]:
    total = session.total_compile_time_s
    if not total:
        return []
    stages: Counter[str] = Counter()
    for c in session.compiles:
        t = c.time
        for label, value in (
            ("Dynamo (tracing Python)", t.dynamo_s),
            ("AOT Autograd", t.aot_autograd_s),
            ("Inductor (lowering)", t.inductor_s),
            ("Inductor code generation", t.codegen_s),
            ("C++/Triton compiler", t.kernel_compile_s),
            ("loading compiled graphs from the cache", t.from_cache_s),
        ):
            if value:
                stages[label] += value
    detail = ", ".join(f"{label} {value:.2f} s" for label, value in stages.most_common() if value >= 0.005)
    hits = sum((c.cache.fx_graph_hits or 0) for c in session.compiles)
    misses = sum((c.cache.fx_graph_misses or 0) for c in session.compiles)
    advice = ""
    if misses and not hits:
        advice = "Every Inductor graph was compiled from scratch (FX graph cache misses); a second run of the same program reuses the on-disk cache and compiles much faster."
    elif hits:
        advice = f"The FX graph cache served {hits} of {hits + misses} Inductor graphs from disk"
        saved = sum(c.time.cache_saved_s or 0 for c in session.compiles)
        advice += f"; torch estimates that saved {saved:.1f} s of compiling." if saved else "."
    return [Finding(INFO, f"Compiling took {total:.2f} s in all", detail=detail, advice=advice)]


def _short(where: str) -> str:
    parts = where.split("/")
    return "/".join(parts[-2:]) if len(parts) > 2 else where
