"""Did compiling pay off, as far as `run` measured it: compiled calls slower than the function's
uncompiled ones, or spent mostly outside kernels (guards, the wrapper, Python around them).

The figures are `run`'s own: the host time of each call (sys.monitoring, Python 3.12+) and, with
--profile, the kernels' time. Where they cannot say (a small call, but no kernel time), the
finding says which measurement would: `run --profile`, or `bench` against eager.
"""

from __future__ import annotations

from compilescope.findings import INFO, WARNING
from compilescope.findings.finding import Finding, plural, seconds, where
from compilescope.findings.kinds import FindingKind
from compilescope.session.model import Frame, Session
from compilescope.session.places import is_user_code

MIN_CALLS = 5  # calls on each side before their medians are compared
SMALL_CALL_US = 100.0  # a compiled call this short is small enough for fixed costs to matter
OUTSIDE_SHARE = 0.8  # most of a call outside kernels: a finding


def payoff_findings(session: Session) -> list[Finding]:
    out = []
    for frame in session.frames:
        if frame.is_resume:
            continue
        served = [c for c in frame.compiles if c.calls is not None and c.calls.calls and c.calls.median_us is not None]
        if not served:
            continue
        main = max(served, key=lambda c: c.calls.calls if c.calls else 0)
        assert main.calls is not None and main.calls.median_us is not None
        median, calls = main.calls.median_us, sum(c.calls.calls for c in served if c.calls)
        eager = frame.calls_without_compiled_code
        kernel_us = _kernel_us_per_call(session, frame)
        place = where(frame.filename, frame.lineno)
        if (
            eager is not None
            and eager.calls >= MIN_CALLS
            and calls >= MIN_CALLS
            and eager.median_us is not None
            and eager.median_us < median
        ):
            extra = (median - eager.median_us) * calls / 1e6
            out.append(
                Finding(
                    WARNING,
                    f"{frame.label}: compiled calls are slower than its uncompiled ones ({median:.1f} µs against {eager.median_us:.1f} µs a call)",
                    detail=(
                        f"Medians of {plural(main.calls.sampled or main.calls.calls, 'compiled call')} ({main.compile_id}) and "
                        f"{plural(eager.sampled or eager.calls, 'uncompiled call')} of the same function in this run, host time from "
                        "its first to its last instruction."
                    ),
                    fix=_fix(frame),
                    kind=FindingKind.PAID_OFF,
                    compile_ids=(main.compile_id,),
                    where=place,
                    frames=(frame.name,),
                    cost_s=extra,
                    cost=f"{seconds(extra)}: {calls} compiled calls, each {median - eager.median_us:.1f} µs slower",
                )
            )
        elif kernel_us is not None and median > 0 and 1 - kernel_us / median >= OUTSIDE_SHARE:
            outside = max(median - kernel_us, 0.0)
            out.append(
                Finding(
                    WARNING,
                    f"{frame.label}: most of each compiled call is outside its kernels ({median:.1f} µs a call, {kernel_us:.1f} µs in kernels)",
                    detail=(
                        f"The median call of {main.compile_id} ({plural(main.calls.sampled or main.calls.calls, 'call')}) took {median:.1f} µs "
                        f"of host time; its kernels took {kernel_us:.1f} µs a call (run --profile). The rest, "
                        f"{1 - kernel_us / median:.0%}, is the compiled code's fixed cost: checking guards, the wrapper, "
                        "launching kernels, Python around them. (Both measured under --profile, which adds its own cost to "
                        "each call: without it the call is shorter, its kernels' share larger.)"
                    ),
                    fix=_fix(frame),
                    kind=FindingKind.PAID_OFF,
                    compile_ids=(main.compile_id,),
                    where=place,
                    frames=(frame.name,),
                    cost_s=outside * calls / 1e6,
                    cost=f"{seconds(outside * calls / 1e6)} outside kernels in {plural(calls, 'compiled call')}",
                )
            )
        elif kernel_us is None and median < SMALL_CALL_US and is_user_code(frame.filename):
            # (only for the user's own functions: one a library's model calls, its loss or its
            # output dataclass, is not the user's to leave uncompiled)
            out.append(
                Finding(
                    INFO,
                    f"{frame.label}: a compiled call takes {median:.1f} µs; whether compiling it pays off, run cannot tell",
                    detail=(
                        f"The median of {plural(main.calls.sampled or main.calls.calls, 'call')} of {main.compile_id}. Work this small "
                        "can cost more in the compiled code's fixed overhead (guards, the wrapper, kernel launches) than compiling saves."
                    ),
                    fix=(
                        "`compilescope run --profile` splits each call into kernel time and the rest; "
                        "`compilescope bench file.py:make` (make() returning the function and example inputs) times it against eager."
                    ),
                    kind=FindingKind.PAID_OFF,
                    compile_ids=(main.compile_id,),
                    where=place,
                    frames=(frame.name,),
                    cost="not measured: no kernel time (run --profile) and no eager calls to compare",
                )
            )
    return out


def _kernel_us_per_call(session: Session, frame: Frame) -> float | None:
    """Kernel time per compiled call of `frame`, from --profile, where every profiled compiled
    call was this function's (the profile's kernels are not kept per compiled region)."""
    profile = session.profile
    if profile is None or not profile.profiled_calls or not profile.compiled_regions:
        return None
    own = {c.compile_id for c in frame.compiles}
    others = {
        c.compile_id
        for f in session.frames
        if f is not frame and not (f.is_resume and f.resumes and f.resumes.startswith(frame.name + " "))
        for c in f.compiles
    }
    regions = set(profile.compiled_regions)
    if not regions & own or regions & others:
        return None
    return sum(k.total_us for k in profile.kernels) / profile.profiled_calls


def _fix(frame: Frame) -> str:
    return (
        f"Compile a larger region around {frame.known_as} (the whole step, so its fixed cost is paid once for more work), "
        'use mode="reduce-overhead" on a GPU (CUDA graphs cut the launch cost), or leave it uncompiled. '
        "`compilescope bench file.py:make` times it against eager."
    )
