"""The compile caches, when they cost: a warm start that compiled a graph from scratch (the
earlier run of the program had compiled it, and its key changed since: session/cache_keys.py
says which part), and a graph the caches bypass (every run compiles it again).

Each finding costs what compiling the graph again took this run, and says how to keep the key
stable; where torch's trace does not list the key's parts, it says so and guesses nothing.
"""

from __future__ import annotations

from compilescope.findings import WARNING
from compilescope.findings.finding import Finding, seconds
from compilescope.findings.kinds import FindingKind
from compilescope.session.cache_keys import CONFIG_PART
from compilescope.session.caches import CACHE_NAMES, CacheMissCause, KeyChange
from compilescope.session.model import Frame, Session


def cache_findings(session: Session) -> list[Finding]:
    """Warm starts that compiled from scratch, then graphs the caches bypass."""
    frames = {c.compile_id: f for f in session.frames for c in f.compiles}
    return [*_warm_start_misses(session, frames), *_bypasses(session, frames)]


def _warm_start_misses(session: Session, frames: dict[str, Frame]) -> list[Finding]:
    earlier = session.earlier_run
    if earlier is None:
        return []
    by_compile: dict[str, list[CacheMissCause]] = {}
    for cause in earlier.misses:
        by_compile.setdefault(cause.compile_id, []).append(cause)
    found = []
    for compile_id, causes in by_compile.items():
        first = causes[0]
        frame = frames.get(compile_id)
        changes = [change for cause in causes for change in cause.changes]
        because = _because(changes[0]) if changes else "its cache key did not change" if first.same_key else "why is not in the traces"
        lines = [line for cause in causes for line in cause_lines(cause, named=False)]
        found.append(
            Finding(
                WARNING,
                f"The cache missed {first.function} ({compile_id}), which the earlier run had compiled: {because}",
                detail="\n".join([*lines, f"Compared with the earlier run's session at {earlier.path} (this run's own has replaced it)"]),
                fix=_fix(changes, first),
                kind=FindingKind.CACHE_MISS,
                compile_ids=(compile_id,),
                where=frame.place if frame else None,
                frames=(first.function,),
                cost_s=first.compile_s,
                cost=f"{seconds(first.compile_s)} compiling it again"
                if first.compile_s is not None
                else "not measured: torch reported no compile time",
            )
        )
    return found


def cause_lines(cause: CacheMissCause, named: bool = True) -> list[str]:
    """What changed in one graph's key, a line per changed part ("f (0/0), inference graph, FX
    graph cache: Inductor config epilogue_fusion changed (True → False)"), or why it cannot be
    said; `named`: each line starts with the function and compile id."""
    heading = f"{cause.graph} graph, " if cause.graph else ""
    heading += CACHE_NAMES.get(cause.cache, cause.cache)
    if named:
        heading = f"{cause.function} ({cause.compile_id}), {heading}"
    if cause.changes:
        return [f"{heading}: {_because(change)}" for change in cause.changes]
    return [f"{heading}: {cause.unknown_why}"] if cause.unknown_why else []


def _because(change: KeyChange) -> str:
    return f"{change.what} changed ({_value(change.before)} → {_value(change.after)})"


def _value(value: str | None) -> str:
    if value is None:
        return "absent"
    value = value.replace("\n", " ")
    return value if len(value) <= 60 else value[:59] + "…"


def _fix(changes: list[KeyChange], first: CacheMissCause) -> str:
    """How to keep the key stable, for the first changed part (the others, the same way)."""
    if not changes:
        if first.same_key and first.unknown_why and "guards" in first.unknown_why:
            return "The cached graph was compiled for other input sizes: keep the sizes of the earlier run, or mark the dimension dynamic (torch._dynamo.mark_dynamic) in both runs."
        if first.same_key:
            return (
                "Keep the cache where both runs find it: the same TORCHINDUCTOR_CACHE_DIR, on a disk that persists between runs "
                "(the default folder under the temp dir may be cleared, or be another one per container or user)."
            )
        return ""
    change = changes[0]
    name = change.name
    if (config := CONFIG_PART.match(name)) and config[1] == "inductor_config":
        return (
            f"Set torch._inductor.config.{config[2]} the same in every run ({_value(change.before)} in the earlier one), "
            "or keep the new value: the next run with it finds this graph in the cache."
        )
    if name == "torch_version" or name.startswith("system_info"):
        return "Expected once after changing torch, the device, its driver or Triton: the cache keeps entries per version; the next run with this one hits."
    if name == "gm":
        return (
            "The graph itself changed: expected after editing the code or the model. If nothing was edited, a value Dynamo "
            "bakes into the graph changes from run to run (a Python number such as a time, a random seed or a counter): "
            "pass it as a tensor, or keep it out of the compiled function."
        )
    if name.startswith("example_inputs["):
        return (
            "An input's size, layout, dtype or device differs from the earlier run: keep it the same, or mark the changing "
            "dimension dynamic (torch._dynamo.mark_dynamic(tensor, dim)) in both runs, so that one graph serves both."
        )
    if name == "cpp_runtime_thread_count":
        return "Use the same number of CPU threads in every run (torch.set_num_threads, or OMP_NUM_THREADS)."
    return f"Keep {change.what} the same in every run."


def _bypasses(session: Session, frames: dict[str, Frame]) -> list[Finding]:
    found = []
    for c in session.compiles:
        bypassed = [lookup for lookup in c.cache.lookups if lookup.outcome == "bypass"]
        if not bypassed:
            continue
        frame = frames.get(c.compile_id)
        name = frame.label_of(c) if frame else "?"
        cost = c.compile_time_s
        caches = " and ".join(dict.fromkeys(CACHE_NAMES.get(lookup.cache, lookup.cache) for lookup in bypassed))
        reasons = list(dict.fromkeys(lookup.bypass_reason or "torch gave no reason" for lookup in bypassed))
        found.append(
            Finding(
                WARNING,
                f"The {caches} bypassed {name} ({c.compile_id}): every run compiles it again",
                detail="\n".join(f"torch's reason: {reason}" for reason in reasons),
                fix=_bypass_fix(reasons[0]),
                kind=FindingKind.CACHE_BYPASS,
                compile_ids=(c.compile_id,),
                where=frame.place if frame else None,
                frames=(name,),
                cost_s=cost,
                cost=f"{seconds(cost)} compiling it, in every run" if cost is not None else "not measured: torch reported no compile time",
            )
        )
    return found


# torch's bypass reasons (torch/_inductor/codecache.py, torch/_functorch/_aot_autograd/
# autograd_cache.py), in plain words with what to do
BYPASS_WORDS = [
    (
        "freezing",
        "torch does not cache graphs compiled with freezing (torch._inductor.config.freezing = True); turn freezing off where compile time matters more than the frozen weights' speed.",
    ),
    (
        "not enabled",
        "The cache is off: torch._inductor.config.fx_graph_cache (TORCHINDUCTOR_FX_GRAPH_CACHE=1) and autograd_cache turn it on.",
    ),
    (
        "Unsupported call_function",
        "The graph calls a function the cache cannot make a stable key for (one it cannot pickle by name): move that call out of the compiled function, or register it as a custom op (torch.library.custom_op).",
    ),
    (
        "Unsupported call_method",
        "The graph calls a method the cache cannot make a stable key for: move that call out of the compiled function.",
    ),
    (
        "unpicklable",
        "A value in the graph or its inputs cannot be pickled, so torch can make no key for it: find it in torch's reason, and keep it out of the compiled function.",
    ),
    (
        "pickle",
        "A value in the graph or its inputs cannot be pickled, so torch can make no key for it: find it in torch's reason, and keep it out of the compiled function.",
    ),
    ("custom", "A custom pass or solver without a uuid() makes the key unstable: give it one (a CustomGraphPass subclass with uuid())."),
    ("triton", "This cache needs a newer Triton (torch's reason names the version)."),
]


def _bypass_fix(reason: str) -> str:
    return next((words for key, words in BYPASS_WORDS if key.lower() in reason.lower()), "")
