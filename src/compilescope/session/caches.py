"""What torch's compile caches did with each graph, and why a warm start compiled again.

torch looks each graph up in two caches on disk (and, where configured, a remote one): AOT
Autograd's (the forward/backward split and Inductor's result together) and Inductor's FX graph
cache (one compiled graph). Each lookup is a hit, a miss or a bypass (the graph cannot be cached),
and torch writes it to the trace (`fx_graph_cache_hit`/`_miss`/`_bypass`, `aotautograd_cache_*`)
with the key and, for the FX graph cache, the parts the key was made of: the graph's code, each
input's metadata, every Inductor config value, the torch version, the system. Those parts are
what `KeyPart` keeps, so that two runs can be compared part by part (session/cache_keys.py).

The parts every lookup of a session shares (the configs, the versions) are kept once, in
`Session.cache_key_shared`; a lookup keeps only its own (`CacheLookup.parts`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

VALUE_KEPT = 300  # characters of a part's value kept (its digest is what is compared)
CACHE_NAMES = {"fx_graph": "FX graph cache", "aot_autograd": "AOT Autograd cache"}  # CacheLookup.cache, in words


@dataclass
class KeyPart:
    """One part of a cache key, as torch lists it: "[digest] name: value"."""

    name: str  # "inductor_config[max_autotune]", "gm", "example_inputs[0]", "torch_version"
    digest: str  # torch's hash of the value: two runs' parts differ where their digests do
    value: str  # as torch printed it, cut at VALUE_KEPT characters


@dataclass
class CacheLookup:
    """One look in one cache, for one graph of a compile."""

    cache: str  # "fx_graph" (Inductor's FX graph cache) or "aot_autograd"
    outcome: str  # "hit", "miss" or "bypass", as torch names them
    detail: str | None = None  # torch's cache_status_detailed: "full_miss", "guard_miss", "hit"
    graph: str | None = None  # "forward", "backward" or "inference"; None: torch did not say
    key: str | None = None
    bypass_reason: str | None = None  # torch's words, where it bypassed the cache
    time_saved_s: float | None = None  # torch's figure for a hit: the compile time it saved
    # The key's parts not in Session.cache_key_shared; None: torch listed none (the AOT Autograd
    # cache lists them only when its logger is at DEBUG; older torch lists none)
    parts: list[KeyPart] | None = None


@dataclass
class KeyChange:
    """One part of a graph's cache key that differs from the earlier run's."""

    name: str  # the part, as torch names it
    what: str  # in the user's words: "Inductor config max_autotune", "input 0's shape", ...
    before: str | None  # the value (None: the part was not in that key)
    after: str | None


@dataclass
class CacheMissCause:
    """A graph of this run that missed the cache where an earlier run of the program had compiled
    it: which of its key's parts changed since, or why the same key still missed."""

    compile_id: str
    function: str
    cache: str  # the cache whose key is compared ("fx_graph"; "aot_autograd" where torch lists no FX parts)
    graph: str | None  # "forward", "backward", "inference"
    changes: list[KeyChange] = field(default_factory=list)
    same_key: bool = False  # the key is the earlier run's: the entry was not in this run's cache
    unknown_why: str | None = None  # why the parts cannot be compared (not in a trace), in plain words
    compile_s: float | None = None  # what compiling again cost this run


@dataclass
class EarlierRun:
    """The earlier session of the same program that this run was compared with."""

    path: str
    started: str | None  # when it ran, as its trace says
    misses: list[CacheMissCause] = field(default_factory=list)
    compared: int = 0  # graphs found in both runs
