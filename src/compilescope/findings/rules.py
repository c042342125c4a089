"""The findings of a Session: what matters, most important first, each with what to change.

Plain Python over the Session (no torch). A finding names the compile it came from, so every
statement can be traced back to the trace records behind it; advice is only given where the
facts support it.
"""

from __future__ import annotations

from compilescope.findings import INFO, PROBLEM, WARNING
from compilescope.findings.accuracy import accuracy_findings
from compilescope.findings.before_compile import (
    ended_before_compiling,
    nothing_compiled,
)
from compilescope.findings.breaks import break_findings, captured_nothing
from compilescope.findings.cache_misses import cache_findings
from compilescope.findings.compiled_modules import compiled_module_findings, torch_modules_compiled_in_place
from compilescope.findings.distributed import ddp_split_findings
from compilescope.findings.finding import (
    NOT_MEASURED,
    Finding,
    first_lines,
    plural,
    ranked,
    seconds,
    short,
    where,
)
from compilescope.findings.kinds import FindingKind
from compilescope.findings.modes import autotuning_findings, cuda_graph_findings
from compilescope.findings.payoff import payoff_findings
from compilescope.findings.recompile_causes import is_limit_refusal
from compilescope.findings.recompiles import recompile_findings
from compilescope.findings.skipped import skips_function
from compilescope.findings.version_calls import compiled_calls
from compilescope.session.model import Frame, Session

__all__ = ["INFO", "PROBLEM", "WARNING", "Finding", "findings", "never_imported_torch", "plural"]


def findings(session: Session) -> list[Finding]:
    """The session's findings, one per cause, ranked by what they cost (finding.ranked)."""
    found: list[Finding] = []
    compiled_in_children = any(c.compiles for c in session.children or [])
    modules = compiled_module_findings(session)
    found.extend(modules)
    if not session.compiles and not session.benchmarks and not compiled_in_children and not modules:  # bench compiles in its own workers
        found.append(_nothing_compiled(session))
    found.extend(_children(session))
    breaks = break_findings(session)
    found.extend(captured_nothing(session, breaks))
    found.extend(breaks)
    found.extend(recompile_findings(session))
    found.extend(cuda_graph_findings(session))
    found.extend(autotuning_findings(session))
    found.extend(ddp_split_findings(session))
    found.extend(payoff_findings(session))
    found.extend(cache_findings(session))
    for frame in session.frames:
        found.extend(_failures(frame))
        found.extend(_calls_without_compiled_code(frame))
    found.extend(_compile_time(session))
    found.extend(accuracy_findings(session))
    if session.skipped:
        found.append(
            Finding(
                WARNING,
                f"{len(session.skipped)} part(s) of the trace could not be read",
                detail="; ".join(session.skipped[:3]) + (" …" if len(session.skipped) > 3 else ""),
                fix="What could be read is explained; the rest is listed under 'skipped'.",
                kind=FindingKind.UNREADABLE_TRACE,
            )
        )
    if session.capture_problems:
        found.append(
            Finding(
                WARNING,
                "compilescope could not record everything for this run",
                detail="\n".join(session.capture_problems),
                fix=(
                    "Your program ran and compiled as usual: these hooks of compilescope's failed inside torch's compile "
                    "and recorded nothing for the versions named, so their calls or code are missing here. Please report "
                    "it with these lines and your torch version."
                ),
                kind=FindingKind.RECORDING_FAILED,
            )
        )
    if session.rank is not None:
        for finding in found:
            finding.ranks = (session.rank,)
    program = session.program
    if program is not None and program.kind in ("script", "module"):
        import shlex

        for finding in found:
            if finding.try_fixes:
                tries = [part for fix in finding.try_fixes for part in ("--try", fix)]
                finding.try_command = shlex.join(
                    ["compilescope", "run", *tries, *(["-m"] if program.kind == "module" else []), program.target, *program.argv]
                )
    return ranked(found)


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
            fix=("Set TORCH_TRACE=dir before the program starts (or run it with compilescope run), so the trace holds every compile."),
            kind=FindingKind.NOTHING_COMPILED,
        )
    if program is not None:
        said = ended_before_compiling(
            program.kind, program.exit_status, program.exception, imported_torch=not never_imported_torch(session)
        )
        if said is not None:
            return Finding(*said, kind=FindingKind.NOTHING_COMPILED)
    said = nothing_compiled(program.kind if program is not None else "script", torch_modules_compiled_in_place(session))
    return Finding(*said, kind=FindingKind.NOTHING_COMPILED)


def never_imported_torch(session: Session) -> bool:
    """Whether the program `compilescope run` ran never imported torch. The run records torch's
    version when the program imports it, and again as the program ends (record/recorder.py), so
    for a script or module it ran, no version means no torch; elsewhere (a trace, a capture())
    it means only that torch did not say."""
    program = session.program
    return program is not None and program.kind in ("script", "module") and session.environment.torch is None and not session.compiles


def _children(session: Session) -> list[Finding]:
    """The program's child processes: where they compiled (each has its own trace), and those
    that could not be followed (what they compiled is not in this session)."""
    children = session.children or []
    out = []
    compiled = [c for c in children if c.compiles]
    if compiled:
        compiles = sum(c.compiles for c in compiled)
        also = "" if session.compiles else " (the program's own process compiled nothing)"
        out.append(
            Finding(
                INFO,
                f"{plural(len(compiled), 'child process', 'child processes')} compiled too: {plural(compiles, 'compile')}{also}",
                detail=first_lines([f"pid {c.pid}: {c.command}" for c in compiled]),
                fix="Each child's compiles are in its own trace, listed under 'Child processes': compilescope report TRACE explains one.",
                kind=FindingKind.CHILD_PROCESSES,
            )
        )
    missed = [c for c in children if not c.followed]
    if missed:
        out.append(
            Finding(
                WARNING,
                f"{plural(len(missed), 'Python child process', 'Python child processes')} not followed: what they compiled is not in this session",
                detail=first_lines([f"{c.command}: {c.why_not or 'unknown why'}" for c in missed]),
                fix="Start them with the environment they inherit (keep PYTHONPATH and COMPILESCOPE_CHILDREN, no python -I/-E/-S), or run each with compilescope run.",
                kind=FindingKind.CHILD_PROCESSES,
            )
        )
    return out


def _failures(frame: Frame) -> list[Finding]:
    """Compiles that failed, each a finding; not a compile torch gave up at a graph break it could
    not handle ("Skipping the function and falling back to eager", a break in a loop): that is the
    break's finding (breaks.py), which says the function runs eagerly and costs it."""
    out = []
    for c in frame.compiles:
        if c.status != "failed" or is_limit_refusal(c):  # the limit: version_calls.py says it, with its cause
            continue
        if any(skips_function(b) for b in c.graph_breaks):
            continue
        failure = c.failure or ""
        fix = ""
        if "data-dependent" in failure:
            fix = (
                "Python had to decide on a value inside a tensor (an `if` on .item(), say). "
                "With fullgraph=True that stops the compile; without it Dynamo breaks the graph "
                "there instead. Keep the decision in the graph: torch.where(cond, a, b), or torch.cond."
            )
        elif "fake tensor" in failure:
            fix = "The operation fails on these inputs' shapes or dtypes: run it without torch.compile to see the same error, and fix the call."
        hints = [h for h in c.failure_hints if not h.startswith(("Please report", "Please file"))]
        if hints:
            fix = (fix + "\n" if fix else "") + "torch's hint: " + "\n".join(hints[:3])
        place = where(c.failure_filename, c.failure_lineno)
        eager = frame.calls_without_compiled_code
        costs, cost_s = [], 0.0
        if c.compile_time_s is not None:
            costs.append(f"{seconds(c.compile_time_s)} on the failed compile")
            cost_s += c.compile_time_s
        if eager is not None and eager.calls:
            costs.append(f"{seconds(eager.total_ms / 1000)} in {plural(eager.calls, 'uncompiled call')}")
            cost_s += eager.total_ms / 1000
        detail = failure + (f"\n    {c.failure_code}" if c.failure_code else "")
        if eager is not None and eager.calls:
            detail += (
                f"\n{eager.calls} of {eager.calls + compiled_calls(frame)} calls of {frame.label} ran without compiled code "
                "(the function's original Python)" + (f"; {eager.raised} of them raised" if eager.raised else "") + "."
            )
        out.append(
            Finding(
                PROBLEM,
                f"Compiling {frame.label} failed ({c.compile_id})" + (f" at {short(place)}" if place else ""),
                detail=detail,
                fix=fix,
                kind=FindingKind.COMPILE_FAILED,
                compile_ids=(c.compile_id,),
                where=place,
                frames=(frame.name,),
                cost_s=cost_s if costs else None,
                cost="; ".join(costs) if costs else f"{NOT_MEASURED}: no compile time, calls not recorded",
            )
        )
    return out


def _calls_without_compiled_code(frame: Frame) -> list[Finding]:
    eager = frame.calls_without_compiled_code
    if eager is None or not eager.calls:
        return []
    if any(c.status == "failed" for c in frame.compiles):
        return []  # the failure (or the recompile limit) says these calls, with their time, as its cost
    compiled = compiled_calls(frame)
    detail = (
        "These calls ran the function's original Python: it was called outside torch.compile, or "
        "Dynamo fell back to it (a frame it skipped)."
    )
    if eager.raised:
        detail += f" {eager.raised} of them raised."
    return [
        Finding(
            INFO,
            f"{frame.label}: {eager.calls} of {eager.calls + compiled} calls ran without compiled code",
            detail=detail,
            kind=FindingKind.CALLS_WITHOUT_COMPILED_CODE,
            where=frame.place,
            frames=(frame.name,),
        )
    ]


def _compile_time(session: Session) -> list[Finding]:
    total = session.total_compile_time_s
    if not total:
        return []
    stages: dict[str, float] = {}
    for c in session.compiles:
        t = c.time
        for label, value in (
            ("Dynamo (tracing Python)", t.dynamo_s),
            ("AOT Autograd", t.aot_autograd_s),
            ("Inductor (lowering)", t.inductor_s),
            ("Inductor code generation", t.codegen_s),
            ("C++/Triton compiler", t.kernel_compile_s),
            ("backward graphs, compiled at the first backward", t.backward_s),
            ("loading compiled graphs from the cache", t.from_cache_s),
        ):
            if value:
                stages[label] = stages.get(label, 0.0) + value
    detail = ", ".join(f"{label} {value:.2f} s" for label, value in sorted(stages.items(), key=lambda item: -item[1]) if value >= 0.005)
    hits = sum((c.cache.fx_graph_hits or 0) for c in session.compiles)
    misses = sum((c.cache.fx_graph_misses or 0) for c in session.compiles)
    fix = ""
    missed_again = len({m.compile_id for m in session.earlier_run.misses}) if session.earlier_run else 0
    if misses and missed_again:
        fix = (
            f"The earlier run of this program had compiled {plural(missed_again, 'graph')} of these, but the cache missed "
            "them: what changed in their keys is above."
        )
    elif misses and not hits:
        fix = "Every Inductor graph was compiled from scratch (FX graph cache misses); a second run of the same program reuses the on-disk cache and compiles much faster."
    elif hits:
        fix = f"The FX graph cache served {hits} of {hits + misses} Inductor graphs from disk"
        saved = sum(c.time.cache_saved_s or 0 for c in session.compiles)
        fix += f"; torch estimates that saved {saved:.1f} s of compiling." if saved else "."
        loading = sum(c.time.from_cache_s or 0 for c in session.compiles if c.time.cache_saved_s)
        if saved and loading > saved:
            fix += (
                f" Loading those graphs took {loading:.2f} s, more than that estimate: torch's estimate is the time they took "
                "to compile when they were first compiled, so for graphs this small the cache costs more than it saves."
            )
    return [Finding(INFO, f"Compiling took {total:.2f} s in all", detail=detail, fix=fix, kind=FindingKind.COMPILE_TIME)]
