"""What changed between two runs (before and after a fix, two torch versions, two ranks): for
each aspect, what was added and what was removed; for each figure, before and after.

Items are compared by their keys (findings/aspects.py), as multisets: a graph break met in two
compiles before and one after is one removed. Keys leave out compile ids, folders and the line
numbers of the user's code, so an edit that moves the code does not read as a change.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from compilescope.findings.aspects import (
    Item,
    cache,
    collectives,
    compiles,
    ddp_split,
    dynamic_shapes,
    functions,
    graph_break_places,
    graph_breaks,
    guards,
    kernels,
    recompiles,
    tensor_metadata,
)
from compilescope.findings.cache_misses import cause_lines
from compilescope.session.cache_keys import compared
from compilescope.session.counts import break_place
from compilescope.session.counts import label as count_label
from compilescope.session.model import CallTimes, Session

# Compared by their items: (JSON key, what a person calls it, the items, counted); the counts'
# words are session/counts.py's. Graph breaks are matched by their place, never by torch's
# wording of the reason (session/counts.py: break_place). Counted
# aspects compare how many times each item occurs (a break met in one more compile is one more);
# the others compare which items occur at all (a recompile repeats its function's guards and
# kernels, which are not new checks or new kernels).
ITEM_ASPECTS: list[tuple[str, str, Callable[..., Iterable[Item]], bool]] = [
    ("compiled_functions", count_label("functions"), functions, True),
    ("compiles", count_label("compiles"), compiles, True),
    ("graph_break_places", count_label("graph_break_places"), graph_break_places, False),
    ("graph_breaks", count_label("graph_break_occurrences"), graph_breaks, True),
    ("recompiles", count_label("recompiles"), recompiles, True),
    ("guards", "guards", guards, False),
    ("dynamic_shapes", "dynamic-shape decisions", dynamic_shapes, False),
    ("kernels", "kernels", kernels, False),
    ("collectives", "collective schedules", collectives, True),
    ("ddp_split", "DDP graph splits", ddp_split, False),
    ("tensor_metadata", "tensor metadata", tensor_metadata, False),
    ("cache", "cache hits and misses", cache, True),
]
STAGES = [
    ("total_s", "compile time, in all"),
    ("dynamo_s", "Dynamo (tracing Python)"),
    ("aot_autograd_s", "AOT Autograd"),
    ("inductor_s", "Inductor (lowering)"),
    ("codegen_s", "Inductor code generation"),
    ("kernel_compile_s", "C++/Triton compiler"),
    ("backward_s", "backward (compiled later)"),
    ("from_cache_s", "loaded from cache"),
]
# A change in a figure is worth saying where it is at least this share (and, for a compile
# time, this many seconds)
NOTABLE_SHARE = 0.2
NOTABLE_S = 0.05


@dataclass
class Changed:
    """Items of one aspect added and removed between the runs."""

    name: str
    title: str
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    before: int = 0  # how many there were
    after: int = 0


@dataclass
class Figure:
    """A figure before and after ("inner: median per call", "Dynamo (tracing Python)")."""

    what: str
    before: float | None
    after: float | None
    unit: str  # "s", "µs", "ms", "×"

    @property
    def change(self) -> float | None:
        if self.before is None or self.after is None:
            return None
        return self.after - self.before

    @property
    def notable(self) -> bool:
        change = self.change
        if change is None or not self.before:
            return self.before is None and self.after is not None or self.after is None and self.before is not None
        # a compile time must also move by NOTABLE_S (a stage of milliseconds moves by half for
        # nothing); a time per call or a speedup counts by its share alone (it is paid per call)
        big_enough = self.unit != "s" or abs(change) >= NOTABLE_S
        return abs(change) / abs(self.before) >= NOTABLE_SHARE and big_enough


@dataclass
class Diff:
    before: str  # what each side is ("run.json", "rank 0 of traces/")
    after: str
    aspects: list[Changed]
    compile_time: list[Figure]
    call_times: list[Figure]
    bench: list[Figure]
    versions: list[str]  # "torch 2.13.0 → 2.14.1"
    # graph breaks at the same place in both runs whose reason torch gave differently: not a new
    # break (it is matched by its place), but said ("… at quickstart.py:18 in forward: A → B")
    reworded_breaks: list[str] = field(default_factory=list)
    # Where a side is partial (session.model.Incomplete's reason): a difference may be only what
    # that side is missing
    before_incomplete: str | None = None
    after_incomplete: str | None = None
    # each graph of the second run that missed the cache where the first had compiled it, and
    # which part of its key changed (session/cache_keys.py), a line each
    cache_misses: list[str] = field(default_factory=list)

    @property
    def partial(self) -> list[str]:
        """Each side that is partial, said: "the first run (run.json): the run stopped during
        compile 0/0; what follows is partial"."""
        return [
            f"the {which} run ({name}): {reason}"
            for which, name, reason in (("first", self.before, self.before_incomplete), ("second", self.after, self.after_incomplete))
            if reason is not None
        ]

    @property
    def nothing_changed(self) -> bool:
        return (
            not any(a.added or a.removed for a in self.aspects)
            and not self.reworded_breaks
            and not any(f.notable for f in self.compile_time + self.call_times + self.bench)
            and not self.cache_misses
        )

    def aspect(self, name: str) -> Changed:
        return next(a for a in self.aspects if a.name == name)


def diff(before: Session, after: Session, before_name: str = "before", after_name: str = "after") -> Diff:
    aspects = [
        _changed(name, title, items(before, with_ids=False), items(after, with_ids=False), counted)
        for name, title, items, counted in ITEM_ASPECTS
    ]
    return Diff(
        before=before_name,
        after=after_name,
        aspects=aspects,
        compile_time=_stages(before, after),
        call_times=_call_times(before, after),
        bench=_bench(before, after),
        versions=_versions(before, after),
        reworded_breaks=_reworded(before, after),
        before_incomplete=before.incomplete.reason if before.incomplete is not None else None,
        after_incomplete=after.incomplete.reason if after.incomplete is not None else None,
        cache_misses=[line for cause in compared(before, after, before_name).misses for line in cause_lines(cause)],
    )


def _reasons(session: Session) -> dict[tuple[str, str, str], list[str]]:
    """Each graph break's place, and the reasons torch gave there, each once, in order."""
    out: dict[tuple[str, str, str], list[str]] = {}
    for frame in session.frames:
        for c in frame.compiles:
            for brk in c.graph_breaks:
                reasons = out.setdefault(break_place(brk, frame), [])
                if brk.reason not in reasons:
                    reasons.append(brk.reason)
    return out


def _reworded(before: Session, after: Session) -> list[str]:
    old, new = _reasons(before), _reasons(after)
    out = []
    for place, reasons in new.items():
        if place in old and set(old[place]) != set(reasons):
            file, line, function = place
            out.append(f"{function} at {file} (`{line}`): {'; '.join(old[place])} → {'; '.join(reasons)}")
    return out


def _changed(name: str, title: str, old: Iterable[Item], new: Iterable[Item], counted: bool) -> Changed:
    old_items, new_items = list(old), list(new)
    old_keys, new_keys = Counter(i.key for i in old_items), Counter(i.key for i in new_items)
    if not counted:
        old_keys, new_keys = Counter(set(old_keys)), Counter(set(new_keys))
    added, removed = new_keys - old_keys, old_keys - new_keys
    return Changed(
        name=name,
        title=title,
        added=_texts(new_items, added),
        removed=_texts(old_items, removed),
        before=len(old_items),
        after=len(new_items),
    )


def _texts(items: list[Item], wanted: Counter[str]) -> list[str]:
    """The texts of the items whose keys are wanted, as many times as wanted, in order: the
    last of their kind (what a run has more of than the other is what came later)."""
    left = Counter(wanted)
    out = []
    for item in reversed(items):
        if left[item.key] > 0:
            left[item.key] -= 1
            out.append(item.text)
    return out[::-1]


def _stage_sums(session: Session) -> dict[str, float]:
    sums: dict[str, float] = {}
    for c in session.compiles:
        for key, _ in STAGES:
            value = getattr(c.time, key) if key != "total_s" else c.compile_time_s
            if value is not None:
                sums[key] = sums.get(key, 0.0) + value
    return sums


def _stages(before: Session, after: Session) -> list[Figure]:
    old, new = _stage_sums(before), _stage_sums(after)
    return [Figure(title, old.get(key), new.get(key), "s") for key, title in STAGES if key in old or key in new]


def _per_call(session: Session) -> dict[str, CallTimes]:
    """Each function's busiest compiled version's calls (the one that served most)."""
    out: dict[str, CallTimes] = {}
    for frame in session.frames:
        served = [c.calls for c in frame.compiles if c.calls is not None and c.calls.calls]
        if served:
            out[frame.known_as] = max(served, key=lambda t: t.calls)
    return out


def _call_times(before: Session, after: Session) -> list[Figure]:
    old, new = _per_call(before), _per_call(after)
    return [
        Figure(
            f"{name}: median per call",
            old[name].median_us if name in old else None,
            new[name].median_us if name in new else None,
            "µs",
        )
        for name in sorted(set(old) | set(new))
    ]


def _bench(before: Session, after: Session) -> list[Figure]:
    old = {b.config: b for b in before.benchmarks}
    new = {b.config: b for b in after.benchmarks}
    out = []
    for config in [*old, *(c for c in new if c not in old)]:
        a, b = old.get(config), new.get(config)
        out.append(Figure(f"{config}: eager", a.eager_ms if a else None, b.eager_ms if b else None, "ms"))
        out.append(Figure(f"{config}: compiled", a.compiled_ms if a else None, b.compiled_ms if b else None, "ms"))
        out.append(Figure(f"{config}: speedup", a.speedup if a else None, b.speedup if b else None, "×"))
        out.append(Figure(f"{config}: first call, cold cache", a.first_call_cold_s if a else None, b.first_call_cold_s if b else None, "s"))
    return out


def _versions(before: Session, after: Session) -> list[str]:
    out = []
    for label, old, new in (
        ("Python", before.environment.python, after.environment.python),
        ("torch", before.environment.torch, after.environment.torch),
        ("device", before.environment.device, after.environment.device),
    ):
        if old != new and (old or new):
            out.append(f"{label} {old or 'unknown'} → {new or 'unknown'}")
    return out
