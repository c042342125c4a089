"""What the calls of a function's versions show, as run recorded them: the recompile limit
reached (torch runs the function uncompiled from then on), calls that flip-flop between versions,
and the calls each version served.

Each is an effect of recompiles: where the recompiles have a cause with a finding of its own
(findings/recompiles.py), that finding says it, with its cost; else it is a finding of its own.
"""

from __future__ import annotations

import re

from compilescope.findings import PROBLEM, WARNING
from compilescope.findings.finding import NOT_MEASURED, Finding, plural, seconds
from compilescope.findings.kinds import FindingKind
from compilescope.findings.recompile_causes import RecompileCause, compile_cost, is_limit_refusal
from compilescope.session.model import Frame, Session


def limit_findings(session: Session, causes: dict[tuple, RecompileCause], found: dict[tuple, Finding]) -> list[Finding]:
    """The recompile limit reached: torch refused to compile the function again and runs its
    original Python for any input its versions do not fit, from then on. It is an effect: where
    the recompiles that led there have a cause (found), that cause's finding says it, with its
    cost; else it is a finding of its own."""
    out = []
    settings = session.environment.dynamo_config or {}
    for frame in session.frames:
        refused = [c for c in frame.compiles if is_limit_refusal(c)]
        if not refused:
            continue
        versions = [c for c in frame.compiles if not is_limit_refusal(c)]
        setting = next(
            (m.group(0) for c in refused for hint in c.failure_hints if (m := re.search(r"torch\._dynamo\.config\.\w+", hint))),
            None,
        )
        name = setting.rsplit(".", 1)[-1] if setting else None
        current = settings.get(name) if name else None
        detail = (
            f"torch compiled {plural(len(versions), 'version')} of {frame.label}"
            + (
                f", the limit ({setting} = {current})"
                if setting and current
                else (f", the limit ({setting})" if setting else ", the limit")
            )
            + f", then refused to compile it again ({', '.join(c.compile_id for c in refused)}): from then on, a call that none of its "
            "versions fits runs the function's original Python, uncompiled."
        )
        eager = frame.calls_without_compiled_code
        run_s = None
        if eager is not None:
            detail += f"\n{plural(eager.calls, 'call')} ran without compiled code ({seconds(eager.total_ms / 1000)})."
            run_s = eager.total_ms / 1000
        else:
            detail += "\nHow many calls then ran uncompiled was not recorded (compilescope run records calls on Python 3.12 and later)."
        fix = f"Raise {setting}" + (f" (now {current})" if current else "") + " only if many versions are truly needed." if setting else ""
        compile_s, _ = compile_cost(refused)
        costs = []
        if compile_s is not None:
            costs.append(f"{seconds(compile_s)} on the refused compile")
        if eager is not None and run_s is not None:
            costs.append(f"{seconds(run_s)} in {plural(eager.calls, 'uncompiled call')}")
        known = [value for value in (compile_s, run_s) if value is not None]
        own = [key for key, cause in causes.items() if key in found and any(f is frame for f, _, _ in cause.met)]
        if own:  # the cause's finding says the limit, and carries its cost
            led = found[own[0]]
            led.level = PROBLEM
            led.title += f"; the recompile limit stopped compiling {frame.label}"
            led.detail += "\nThen the recompile limit: " + detail[0].lower() + detail[1:]
            led.fix += "\n" + fix if fix else ""
            led.compile_ids += tuple(c.compile_id for c in refused)
            if known:
                led.cost_s = (led.cost_s or 0.0) + sum(known)
                led.cost = "; ".join([led.cost, *costs]) if led.cost and not led.cost.startswith(NOT_MEASURED) else "; ".join(costs)
            continue
        cost_s = sum(known) if known else None
        cost = "; ".join(costs) or f"{NOT_MEASURED}: no compile time, calls not recorded"
        fix = "Find what changes between calls (TORCH_LOGS=recompiles shows each recompile's reason) and keep it fixed or dynamic." + (
            " " + fix if fix else ""
        )
        out.append(
            Finding(
                PROBLEM,
                f"Recompile limit reached: {frame.label} runs uncompiled for new inputs",
                detail=detail,
                fix=fix,
                kind=FindingKind.RECOMPILE_LIMIT,
                compile_ids=tuple(c.compile_id for c in refused),
                where=frame.place,
                frames=(frame.name,),
                cost_s=cost_s,
                cost=cost,
                try_fixes=(f"recompile_limit={max(2 * len(versions), 16)}",),
            )
        )
    return out


FLIP_FLOP_SWITCHES = 10  # calls that switch version this often: a finding


def flip_flop_findings(session: Session, causes: dict[tuple, RecompileCause], found: dict[tuple, Finding]) -> list[Finding]:
    """Calls that switch back and forth between a function's versions (A → B → A → B), as run
    recorded them in order (Python 3.12+): each switch is a call whose input fits the other
    version, so the version tried first (the last one used) fails its guards first. Said with
    the cause of those versions where there is one (found), else on its own."""
    out = []
    for frame in session.frames:
        order = [run for run in frame.call_order if len(run) == 2]  # (a session from elsewhere may hold any lists)
        runs = [str(run[0]) for run in order if run[0] != "no compiled code"]
        switches = sum(1 for a, b in zip(runs, runs[1:]) if a != b)
        if switches < FLIP_FLOP_SWITCHES:
            continue
        versions = list(dict.fromkeys(runs))
        returns = sum(1 for i in range(2, len(runs)) if runs[i] == runs[i - 2] and runs[i] != runs[i - 1])
        if returns < switches // 2:
            continue
        calls = sum(int(run[1]) for run in order if run[0] != "no compiled code" and isinstance(run[1], int))
        own = [key for key, cause in causes.items() if key in found and any(f is frame for f, _, _ in cause.met)]
        if own:
            led = found[own[0]]
            led.title += f"; calls flip-flop between its versions ({switches} switches in {calls} calls)"
            led.detail += (
                f"\nThe calls of {frame.label} flip-flop between its versions: "
                + " → ".join(f"{run[0]} ×{run[1]}" for run in order[:8])
                + (" → …" if len(frame.call_order) > 8 or frame.call_order_cut else "")
                + f" ({switches} switches): each switch fails the guards of the version tried first."
            )
            continue
        out.append(
            Finding(
                WARNING,
                f"Calls of {frame.label} flip-flop between its versions ({' ↔ '.join(versions[:4])}{' …' if len(versions) > 4 else ''}): {switches} switches in {calls} calls",
                detail=(
                    "The calls in order, as run recorded them: "
                    + " → ".join(f"{run[0]} ×{run[1]}" for run in order[:12])
                    + (" → …" if len(frame.call_order) > 12 or frame.call_order_cut else "")
                    + "\nEach switch is a call whose input fits another version than the call before: the version tried first "
                    "fails its guards, then the next is checked."
                ),
                fix=(
                    "Make the inputs that alternate the same between calls (the same dtype, or sizes padded to one), or let one "
                    "version serve both (dynamic shapes: the recompile findings above say which input changes)."
                ),
                kind=FindingKind.FLIP_FLOP,
                compile_ids=tuple(versions),
                where=frame.place,
                frames=(frame.name,),
                cost=f"{NOT_MEASURED}: the guard checks of each switch are not timed",
            )
        )
    return out


def calls_served(frame: Frame) -> str:
    """ "f: 0/0 2, 0/1 40, no compiled code 1 (of 43 calls)", or "" when calls were not recorded."""
    shared = bool(frame.shared_by)  # (each version named by its function: "1/0 (encode) 2")
    parts = [
        f"{c.compile_id}{f' ({c.for_function})' if shared and c.for_function else ''} {c.calls.calls}"
        for c in frame.compiles
        if c.calls is not None
    ]
    eager = frame.calls_without_compiled_code
    if eager is not None and eager.calls:
        parts.append(f"no compiled code {eager.calls}")
    if not parts:
        return ""
    total = compiled_calls(frame) + (eager.calls if eager else 0)
    name = f"`{frame.name}`" if shared else frame.label
    return f"{name}: " + ", ".join(parts) + f" (of {total} calls)"


def compiled_calls(frame: Frame) -> int:
    """The calls the frame's compiled versions served, as recorded."""
    return sum(c.calls.calls for c in frame.compiles if c.calls is not None)
