"""A session's behaviour, aspect by aspect, as items that can be compared: between the ranks of
one job (findings/cluster.py) and between two runs (findings/diff.py).

An item has a key, which is equal for the same behaviour on another rank or in another run, and
the text a person reads. Keys leave out what changes for no reason between runs: folders (a
file is named by its last two parts) and, for places in the user's code, the line number (an
edit above a graph break moves it; its source line stays). Compile ids stay in the keys of the
per-compile aspects when `with_ids` (ranks of one job number their compiles alike); two runs are
compared by function instead.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from compilescope.findings.finding import plural, short
from compilescope.session.counts import break_place
from compilescope.session.model import Compile, Frame, GraphBreak, Session

# Items kept per aspect for display and for naming differences; equality uses a digest of all.
KEPT_ITEMS = 500


@dataclass(frozen=True)
class Item:
    key: str  # equal for the same behaviour elsewhere
    text: str  # what a person reads
    compile: str | None = None  # the compile it belongs to ("forward 0/1"), for per-compile aspects


@dataclass
class AspectFacts:
    """One aspect of one session: a digest of all its items, their count, the first few."""

    count: int
    digest: str
    items: list[Item] = field(default_factory=list)  # the first KEPT_ITEMS
    cut: bool = False  # more items than were kept
    by_compile: dict[str, str] = field(default_factory=dict)  # compile -> digest of its items
    counts: dict[str, int] = field(default_factory=dict)  # compile -> its items

    @classmethod
    def of(cls, items: Iterable[Item]) -> AspectFacts:
        digest = hashlib.sha256()
        per_compile: dict[str, Any] = {}
        counts: dict[str, int] = {}
        kept: list[Item] = []
        count = 0
        for item in items:
            count += 1
            key = item.key.encode("utf-8", "replace") + b"\0"
            digest.update(key)
            if item.compile is not None:
                per_compile.setdefault(item.compile, hashlib.sha256()).update(key)
                counts[item.compile] = counts.get(item.compile, 0) + 1
            if len(kept) < KEPT_ITEMS:
                kept.append(item)
        return cls(
            count=count,
            digest=digest.hexdigest(),
            items=kept,
            cut=count > len(kept),
            by_compile={c: d.hexdigest() for c, d in per_compile.items()},
            counts=counts,
        )

    def over(self, compiles: list[str]) -> tuple[str, int]:
        """The digest and count of this aspect over these compiles only."""
        digest = hashlib.sha256()
        for c in compiles:
            digest.update(f"{c}\0{self.by_compile.get(c, '')}\0".encode("utf-8", "replace"))
        return digest.hexdigest(), sum(self.counts.get(c, 0) for c in compiles)


def _place(filename: str | None, lineno: int | None) -> str:
    if filename is None:
        return "unknown place"
    return short(filename) + (f":{lineno}" if lineno is not None else "")


def _versions(session: Session) -> Iterable[tuple[Frame, Compile]]:
    for frame in session.frames:
        for compile_ in frame.compiles:
            yield frame, compile_


def compile_key(frame: Frame, compile_: Compile) -> str:
    """ "forward 0/1": the compile as ranks of one job number it (a restart's attempt left out:
    one rank may restart a compile another does not)."""
    return f"{frame.known_as} {compile_.compile_id.split('_')[0]}"


def _who(frame: Frame, compile_: Compile, with_ids: bool) -> str:
    return compile_key(frame, compile_) if with_ids else frame.known_as


def compiles(session: Session, with_ids: bool = True) -> Iterable[Item]:
    for frame, c in _versions(session):
        text = f"{c.compile_id} {frame.known_as} ({c.status})"
        yield Item(text if with_ids else f"{frame.known_as} ({c.status})", text)


def functions(session: Session, with_ids: bool = True) -> Iterable[Item]:
    for frame in session.frames:
        yield Item(f"{frame.label} {short(frame.filename or '?')}", f"{frame.label} ({_place(frame.filename, frame.lineno)})")


def _break_text(brk: GraphBreak, who: str) -> str:
    code = (brk.code or "").strip()
    mine = f" (from your {_place(brk.user_filename, brk.user_lineno)})" if brk.user_filename else ""
    return f"{brk.reason} at {_place(brk.filename, brk.lineno)}{mine} in {who}" + (f": {code}" if code else "")


def _break_key(frame: Frame, brk: GraphBreak, who: str) -> str:
    # By its place (session/counts.py: break_place), never by torch's wording of the reason
    return f"{who}: " + " · ".join(break_place(brk, frame))


def graph_breaks(session: Session, with_ids: bool = True) -> Iterable[Item]:
    """Graph break occurrences: one per compile that met a break."""
    for frame, c in _versions(session):
        for brk in c.graph_breaks:
            yield Item(_break_key(frame, brk, _who(frame, c, with_ids)), _break_text(brk, _who(frame, c, with_ids)))


def graph_break_places(session: Session, with_ids: bool = True) -> Iterable[Item]:
    """Graph breaks (places): each place once, however many compiles met it (its text: the
    first that did)."""
    seen: set[str] = set()
    for frame, c in _versions(session):
        for brk in c.graph_breaks:
            key = " · ".join(break_place(brk, frame))
            if key not in seen:
                seen.add(key)
                yield Item(key, _break_text(brk, frame.known_as))


def recompiles(session: Session, with_ids: bool = True) -> Iterable[Item]:
    for frame, c in _versions(session):
        if not c.recompile_reason:
            continue
        why = c.failed_guards[0].text if c.failed_guards else c.recompile_reason[0]
        yield Item(f"{_who(frame, c, with_ids)}: {why}", f"{frame.known_as} {c.compile_id}: {why}")


# An object's or a type's id in a guard (`___check_obj_id(L['self'], 140234...)`): an address,
# different in every process for the same check. And the number Dynamo gives its copy of the
# builtins (`__builtins_dict___1`): it counts the compile's attempts, not what is checked.
_ADDRESS = re.compile(r"\b\d{8,}\b")
_BUILTINS = re.compile(r"__builtins_dict___\d+")


def guards(session: Session, with_ids: bool = True) -> Iterable[Item]:
    for frame, c in _versions(session):
        for guard in c.guards:
            yield Item(
                f"{_who(frame, c, with_ids)}: {_BUILTINS.sub('__builtins_dict__', _ADDRESS.sub('<address>', guard.text))}",
                f"{frame.known_as} {c.compile_id}: {guard.plain or guard.text}",
                compile_key(frame, c),
            )


def dynamic_shapes(session: Session, with_ids: bool = True) -> Iterable[Item]:
    for frame, c in _versions(session):
        for d in c.dynamic:
            what = " ".join(
                part
                for part in (
                    d.kind,
                    d.symbol or "",
                    f"for {d.source}" if d.source else "",
                    f"= {d.value}" if d.value else "",
                    f"in {d.range}" if d.range else "",
                )
                if part
            )
            yield Item(f"{_who(frame, c, with_ids)}: {what}", f"{frame.known_as} {c.compile_id}: {what}", compile_key(frame, c))


def cache(session: Session, with_ids: bool = True) -> Iterable[Item]:
    for frame, c in _versions(session):
        parts = []
        for label, hits, misses in (
            ("FX graph cache", c.cache.fx_graph_hits, c.cache.fx_graph_misses),
            ("AOT Autograd cache", c.cache.aot_autograd_hits, c.cache.aot_autograd_misses),
        ):
            if hits or misses:
                parts.append(
                    f"{label} {'hit' if hits and not misses else 'miss' if misses and not hits else f'{hits} hits, {misses} misses'}"
                )
        if parts:
            what = ", ".join(parts)
            yield Item(f"{_who(frame, c, with_ids)}: {what}", f"{frame.known_as} {c.compile_id}: {what}", compile_key(frame, c))


def _op(name: str) -> str:
    # "torch.ops._c10d_functional.all_reduce_.default" -> "all_reduce_"
    parts = name.split(".")
    return parts[-2] if len(parts) >= 3 and parts[-1] == "default" else parts[-1]


def collectives(session: Session, with_ids: bool = True) -> Iterable[Item]:
    for frame, c in _versions(session):
        if c.collectives:
            order = " → ".join(_op(op) for op in c.collectives if _op(op) != "wait_tensor")
            yield Item(f"{_who(frame, c, with_ids)}: {order}", f"{frame.known_as} {c.compile_id}: {order}", compile_key(frame, c))


def ddp_split(session: Session, with_ids: bool = True) -> Iterable[Item]:
    for frame, c in _versions(session):
        if c.ddp_pieces:
            pieces = ", ".join(f"{p.name} ({plural(len(p.ops), 'op')}, {plural(p.parameters or 0, 'parameter')})" for p in c.ddp_pieces)
            what = f"{plural(len(c.ddp_pieces), 'piece')}: {pieces}"
            yield Item(f"{_who(frame, c, with_ids)}: {what}", f"{frame.known_as} {c.compile_id}: {what}", compile_key(frame, c))


def tensor_metadata(session: Session, with_ids: bool = True) -> Iterable[Item]:
    """The shapes and dtypes of the tensors each graph takes (its placeholders)."""
    for frame, c in _versions(session):
        for graph in c.graphs:
            for node in graph.nodes:
                if node.op == "placeholder" and node.shape:
                    yield Item(
                        f"{_who(frame, c, with_ids)}: {node.name} {node.shape}",
                        f"{frame.known_as} {c.compile_id}: {node.name} {node.shape}",
                        compile_key(frame, c),
                    )


def kernels(session: Session, with_ids: bool = True) -> Iterable[Item]:
    for frame, c in _versions(session):
        for kernel in c.kernels:
            yield Item(
                f"{_who(frame, c, with_ids)}: {kernel.kind} {kernel.name}",
                f"{kernel.name} ({kernel.kind}) in {frame.known_as} {c.compile_id}",
            )


@dataclass(frozen=True)
class Aspect:
    name: str  # the JSON key: "graph_breaks"
    title: str  # what a person calls it: "graph breaks"
    items: Callable[..., Iterable[Item]]
    # what it means for a distributed job when ranks differ in it
    meaning: str
    # compared between ranks over the compiles every rank made (a compile only some made is
    # the `compiles` aspect's divergence already; its guards would repeat it)
    shared_only: bool = False


# The aspects compared between ranks, in the order they are shown (the likeliest causes first)
RANK_ASPECTS = [
    Aspect(
        "recompiles",
        "recompiles",
        recompiles,
        "Each recompile stalls the whole job: the other ranks wait at the next collective "
        "(DDP's gradient all-reduce, FSDP's all-gather) until this rank has compiled. The failed "
        "guard says what differed on it: often an uneven last batch (pad it, drop_last=True) "
        "or a value only this rank sees.",
    ),
    Aspect(
        "compiles",
        "compiled functions and compile ids",
        compiles,
        "Ranks that compile more, or other functions, reach the next collective later: the "
        "others wait there for as long as the extra compiles take.",
    ),
    Aspect(
        "graph_breaks",
        "graph breaks",
        graph_breaks,
        "Ranks that break in different places run different graphs: the others wait while these "
        "compile, and where collectives run inside compiled code (FSDP, DTensor, functional "
        "collectives) they may be issued in a different order, which hangs the job.",
    ),
    Aspect(
        "collectives",
        "collective schedules",
        collectives,
        "The ranks' compiled graphs issue different collectives, or in another order: unless "
        "they still line up call by call at run time, the job hangs at the first that does not "
        "match (until the process group's timeout).",
    ),
    Aspect(
        "ddp_split",
        "DDP graph splits",
        ddp_split,
        "DDPOptimizer split the ranks' graphs into different pieces: they compile different "
        "graphs, and their buckets' all-reduces start at different points of the backward.",
        shared_only=True,
    ),
    Aspect(
        "dynamic_shapes",
        "dynamic-shape decisions",
        dynamic_shapes,
        "Ranks made different shape decisions (a dynamic dimension on one, static on another): "
        "different graphs, different compile times, recompiles on some ranks only.",
    ),
    Aspect(
        "tensor_metadata",
        "tensor metadata",
        tensor_metadata,
        "The ranks' graphs took tensors of different shapes or dtypes: their inputs differ "
        "(an uneven batch, a rank-dependent branch), the usual cause of the differences above.",
        shared_only=True,
    ),
    Aspect(
        "guards",
        "guards",
        guards,
        "The ranks' compiled code checks different things: their inputs or settings differed "
        "when they compiled, and a rank may recompile where another does not.",
        shared_only=True,
    ),
    Aspect(
        "cache",
        "cache hits and misses",
        cache,
        "Ranks that missed the compile cache compile from scratch while those that hit it wait "
        "for them at the first collective: put the cache where every rank finds it "
        "(TORCHINDUCTOR_CACHE_DIR on shared storage, or a remote cache).",
        shared_only=True,
    ),
]
