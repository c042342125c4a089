"""The ranks of one distributed job side by side: what diverged between them, which ranks
behaved alike, and what the divergence means for the job.

Each rank's session is summarized (`summarize`) as soon as it is built, and only the summary is
kept: a digest and the first items of each aspect (findings/aspects.py), its counts, its
findings. So a folder of many large rank logs is compared in the memory of one rank's session.
`compare` then groups the ranks aspect by aspect ("ranks 0, 2, 3 | rank 1") and says what
diverged, and checks that the logs belong together (one job, each rank once, none cut off).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from compilescope.findings.aspects import RANK_ASPECTS, Aspect, AspectFacts, Item, compile_key
from compilescope.findings.finding import Finding, plural, ranked, seconds
from compilescope.findings.ranks import from_children, who
from compilescope.session.model import ChildProcess, Session

# Compile times this far apart are a divergence (both must hold): the slowest is at least
# SLOWER times the fastest, and at least SLOWER_BY_S longer. (Ranks that compiled the same graphs
# were seen 4% apart here; one recompile more, 18%.)
SLOWER = 1.1
SLOWER_BY_S = 0.1
ONLY_HERE = 5  # items named per group as what only it has
APART_S = 600  # logs whose first records are further apart than this may be different runs


@dataclass
class RankSummary:
    """What is kept of one rank's session once it has been read."""

    rank: int | None
    trace: str | None  # the file it was read from
    started: str | None
    torch: str | None
    program: str | None  # what ran, and its arguments
    functions: int
    compiles: int
    recompiles: int
    graph_breaks: int
    graphs: int
    kernels: int
    compile_time_s: float | None
    incomplete: list[str]  # what of its trace could not be read
    aspects: dict[str, AspectFacts]
    compile_keys: list[str]  # its compiles, as aspects.compile_key names them
    findings: list[Finding] = field(default_factory=list)
    index: int = 0  # its place among the logs given
    twin: bool = False  # another log names the same rank (two jobs' logs mixed)

    @property
    def label(self) -> str:
        where = os.path.basename(self.trace) if self.trace else f"log {self.index + 1}"
        if self.rank is not None:
            return f"rank {self.rank} ({where})" if self.twin else f"rank {self.rank}"
        return where


def summarize(session: Session, found: list[Finding], index: int = 0) -> RankSummary:
    program = None
    if session.program is not None and session.program.kind != "trace":
        program = " ".join([session.program.target, *session.program.argv[1:]])
    return RankSummary(
        rank=session.rank,
        trace=session.trace_files[0] if session.trace_files else None,
        started=session.started,
        torch=session.environment.torch,
        program=program,
        functions=len(session.frames),
        compiles=len(session.compiles),
        recompiles=len(session.recompiles),
        graph_breaks=len(session.graph_breaks),
        graphs=session.graph_count,
        kernels=len(session.kernels),
        compile_time_s=session.total_compile_time_s,
        incomplete=([session.incomplete.reason] if session.incomplete is not None else [])
        + [s for s in session.skipped if "incomplete" in s or "cut off" in s][:3],
        aspects={aspect.name: AspectFacts.of(aspect.items(session)) for aspect in RANK_ASPECTS},
        compile_keys=[compile_key(frame, c) for frame in session.frames for c in frame.compiles],
        findings=found,
        index=index,
    )


@dataclass
class Group:
    """Ranks that behaved alike in one aspect."""

    ranks: list[int | None]
    labels: list[str]
    summary: str  # "1 recompile"
    count: int
    items: list[str]  # the first of its items, as read
    only_here: list[str]  # its items that the largest group does not have (or, for that group, another lacks)


@dataclass
class Divergence:
    aspect: str  # "recompiles", "compile_time", ...
    title: str  # "recompiles"
    summary: str  # "rank 1: 1 recompile (forward 0/1: …) | rank 0: none"
    meaning: str  # what it means for the job
    groups: list[Group]


@dataclass
class Cluster:
    ranks: list[RankSummary]
    divergences: list[Divergence]
    problems: list[str]  # why the logs may not be one job's, or not whole
    compile_time: str | None  # "rank 1 compiled longest: 0.48 s, 0.19 s (66%) more than rank 0"
    findings: list[Finding]  # every rank's findings, one per cause, with the ranks it was seen on

    @property
    def headline(self) -> str:
        if len(self.ranks) < 2:
            return "One rank: nothing to compare."
        if not self.divergences:
            return f"The {len(self.ranks)} ranks compiled the same way."
        first = self.divergences[0]
        return f"The ranks diverged in {', '.join(d.title for d in self.divergences)}. First: {first.summary}"


_NOUNS = {
    "recompiles": ("recompile", None),
    "compiles": ("compile", None),
    "graph_breaks": ("graph break occurrence", None),
    "collectives": ("graph with collectives", "graphs with collectives"),
    "ddp_split": ("split graph", None),
    "dynamic_shapes": ("shape decision", None),
    "tensor_metadata": ("graph input", None),
    "guards": ("guard", None),
    "cache": ("compile with cache use", "compiles with cache use"),
}


def compare(ranks: list[RankSummary]) -> Cluster:
    ranks = sorted(ranks, key=lambda r: (r.rank is None, r.rank if r.rank is not None else 0, r.index))
    named = [r.rank for r in ranks if r.rank is not None]
    for r in ranks:
        r.twin = r.rank is not None and named.count(r.rank) > 1
    divergences = []
    if len(ranks) > 1:
        for aspect in RANK_ASPECTS:
            groups = _groups(ranks, aspect)
            if len(groups) > 1:
                summary = " | ".join(
                    f"{who(g.labels)}: {g.summary}" + (f" ({_first(g.only_here)})" if g.only_here and n else "")
                    for n, g in enumerate(groups)
                )
                divergences.append(Divergence(aspect.name, aspect.title, summary, aspect.meaning, groups))
    timing, statement = _compile_time(ranks)
    if timing is not None:
        divergences.append(timing)
    children = [
        (ChildProcess(pid=None, parent_pid=None, command=r.label, how="started", followed=True, rank=r.rank), r.findings) for r in ranks
    ]
    return Cluster(
        ranks,
        divergences,
        _problems(ranks),
        statement,
        ranked(from_children(children)) if len(ranks) > 1 else list(ranks[0].findings if ranks else []),
    )


def _groups(ranks: list[RankSummary], aspect: Aspect) -> list[Group]:
    shared: list[str] | None = None
    if aspect.shared_only:
        everywhere = set.intersection(*(set(r.compile_keys) for r in ranks))
        shared = [k for k in ranks[0].compile_keys if k in everywhere]
    by_digest: dict[str, list[RankSummary]] = {}
    counts: dict[str, int] = {}
    for r in ranks:
        facts = r.aspects[aspect.name]
        digest, count = (facts.digest, facts.count) if shared is None else facts.over(shared)
        by_digest.setdefault(digest, []).append(r)
        counts[digest] = count
    if len(by_digest) < 2:
        return []

    everyone = set(shared or ())

    def items(r: RankSummary) -> list[Item]:
        kept = r.aspects[aspect.name].items
        return kept if shared is None else [i for i in kept if i.compile in everyone]

    members = sorted(by_digest.items(), key=lambda d: (-len(d[1]), d[1][0].rank or 0))
    largest_keys = {i.key for i in items(members[0][1][0])}
    noun, nouns = _NOUNS.get(aspect.name, ("item", None))
    groups = []
    for n, (digest, rs) in enumerate(members):
        mine = items(rs[0])
        if n == 0:
            others = [{i.key for i in items(m[0])} for _, m in members[1:]]
            only = [i for i in mine if any(i.key not in other for other in others)]
        else:
            only = [i for i in mine if i.key not in largest_keys]
        count = counts[digest]
        summary = plural(count, noun, nouns) if count else "none"
        if shared is not None and len(shared) < len(rs[0].compile_keys):
            summary += f" in the {plural(len(shared), 'compile')} every rank made"
        groups.append(
            Group(
                ranks=[r.rank for r in rs],
                labels=[r.label for r in rs],
                summary=summary,
                count=count,
                items=[i.text for i in mine[: ONLY_HERE * 4]],
                only_here=[i.text for i in only[:ONLY_HERE]],
            )
        )
    return groups


def _first(items: list[str]) -> str:
    text = items[0]
    text = text if len(text) <= 120 else text[:119] + "…"
    return text + (f"; {len(items) - 1} more" if len(items) > 1 else "")


def _compile_time(ranks: list[RankSummary]) -> tuple[Divergence | None, str | None]:
    timed = sorted((r for r in ranks if r.compile_time_s is not None), key=lambda r: r.compile_time_s or 0.0)
    if len(timed) < 2:
        return None, None
    fastest, slowest = timed[0], timed[-1]
    low, high = fastest.compile_time_s or 0.0, slowest.compile_time_s or 0.0
    more = high - low
    share = f" ({more / low:.0%})" if low > 0 else ""
    statement = f"{slowest.label} compiled longest: {seconds(high)}, {seconds(more)}{share} more than {fastest.label} ({seconds(low)})"
    if not (more >= SLOWER_BY_S and high >= SLOWER * low):
        return None, f"Compile time: {seconds(low)} to {seconds(high)} per rank, about even."
    # Ranks within SLOWER of the first of their group form one group, slowest first.
    bands: list[list[RankSummary]] = []
    for r in timed:
        if bands and (r.compile_time_s or 0.0) <= SLOWER * (bands[-1][0].compile_time_s or 0.0):
            bands[-1].append(r)
        else:
            bands.append([r])
    groups = []
    for band in reversed(bands):
        lo, hi = band[0].compile_time_s or 0.0, band[-1].compile_time_s or 0.0
        span = seconds(lo) if len(band) == 1 or seconds(lo) == seconds(hi) else f"{seconds(lo)}–{seconds(hi)}"
        groups.append(Group([r.rank for r in band], [r.label for r in band], span, len(band), [], []))
    meaning = (
        f"The job runs at its slowest rank's pace while it compiles: every collective after a compile "
        f"waits for {slowest.label}, about {seconds(more)} longer than {fastest.label}."
    )
    return Divergence("compile_time", "compile time", statement, meaning, groups), statement


def _problems(ranks: list[RankSummary]) -> list[str]:
    problems = []
    seen: dict[int, list[RankSummary]] = {}
    for r in ranks:
        if r.rank is not None:
            seen.setdefault(r.rank, []).append(r)
    for rank, logs in seen.items():
        if len(logs) > 1:
            names = ", ".join(os.path.basename(r.trace or "?") for r in logs)
            problems.append(
                f"rank {rank} appears in {len(logs)} logs ({names}): these are the logs of more than one job or run; "
                "compare one job's ranks at a time (one folder per job)"
            )
    if seen and not any(len(v) > 1 for v in seen.values()):
        missing = sorted(set(range(max(seen) + 1)) - set(seen))
        if missing:
            problems.append(f"no log of {who([f'rank {m}' for m in missing])}: what they did is unknown")
    versions = {r.torch for r in ranks if r.torch}
    if len(versions) > 1:
        problems.append(f"the logs come from different torch versions ({', '.join(sorted(versions))}): not one job")
    programs = {r.program for r in ranks if r.program}
    if len(programs) > 1:
        problems.append(f"the logs come from different programs ({'; '.join(sorted(programs))}): not one job")
    starts = [(s, r) for r in ranks if (s := _seconds_of(r.started)) is not None]
    if len(starts) > 1:
        (first, a), (last, b) = min(starts, key=lambda t: t[0]), max(starts, key=lambda t: t[0])
        if last - first > APART_S:
            problems.append(
                f"the logs began {(last - first) / 60:.0f} minutes apart ({a.label} at {a.started}, {b.label} at {b.started}): "
                "they may come from different runs"
            )
    for r in ranks:
        if r.incomplete:
            problems.append(
                f"{r.label}'s log is incomplete ({r.incomplete[0]}): what it holds is shown, and a difference may be only what is missing"
            )
    return problems


def _seconds_of(started: str | None) -> float | None:
    """Seconds since the start of the year, roughly, of torch's "MMDD HH:MM:SS.ffffff"."""
    if not started:
        return None
    try:
        day, clock = started.split()
        hours, minutes, secs = clock.split(":")
        return ((int(day[:2]) * 31 + int(day[2:])) * 24 + int(hours)) * 3600 + int(minutes) * 60 + float(secs)
    except ValueError:
        return None
