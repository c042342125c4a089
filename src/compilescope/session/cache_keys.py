"""Why a graph missed the cache where an earlier run of the same program had compiled it: its
key's parts (session/caches.py) compared with the earlier run's, each changed part said in the
user's words ("Inductor config max_autotune: False → True", "input 0's shape: [8, 16] → [8, 32]").

Graphs are matched between the runs by compile id, cache and graph (forward, backward,
inference): the same program compiles its functions in the same order.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator

from compilescope.session.caches import CacheLookup, CacheMissCause, EarlierRun, KeyChange, KeyPart
from compilescope.session.model import Compile, Session

NOT_LISTED = {
    "fx_graph": "torch did not list the FX graph cache key's parts in {run} trace",
    "aot_autograd": "torch lists the AOT Autograd cache key's parts only when that cache logs at DEBUG, so they are not in {run} trace",
}
SAME_KEY = {
    "guard_miss": "its key is the earlier run's, and an entry was found, but the entry's guards on input sizes failed for this run's inputs",
    None: (
        "its key is the earlier run's, so the earlier run's entry was not found: another cache folder "
        "(TORCHINDUCTOR_CACHE_DIR; by default a folder under the temp dir, /tmp/torchinductor_<user>), "
        "a cleared cache, or another machine"
    ),
}


def full_parts(session: Session, lookup: CacheLookup) -> list[KeyPart] | None:
    """A lookup's key parts whole: its own and those the session's keys share; None where
    torch listed none for it."""
    if lookup.parts is None:
        return None
    return [*session.cache_key_shared, *lookup.parts]


def changes(before: list[KeyPart], after: list[KeyPart]) -> list[KeyChange]:
    """The parts whose digests differ between two keys, in the order the later key lists them
    (a part present in one key only has None on the other side)."""
    old, new = _by_name(before), _by_name(after)
    found = []
    for name in [*new, *(name for name in old if name not in new)]:
        was, now = old.get(name, []), new.get(name, [])
        if sorted(p.digest for p in was) == sorted(p.digest for p in now):
            continue
        found.append(described(name, was[0].value if was else None, now[0].value if now else None))
    return found


def _by_name(parts: list[KeyPart]) -> dict[str, list[KeyPart]]:
    named: dict[str, list[KeyPart]] = defaultdict(list)
    for part in parts:
        named[part.name].append(part)
    return dict(named)


CONFIG_PART = re.compile(r"^(inductor_config|inductor_config_comms)\[(.+)\]$")  # a config value's part: which config, which value
_INPUT = re.compile(r"^example_inputs\[(\d+)\]$")
_OPTION = re.compile(r"^fx_kwargs\[(.+)\]$")
SETTINGS = {
    "gm": "the graph's code",
    "torch_version": "the torch version",
    "cpp_runtime_thread_count": "the number of CPU threads (torch.set_num_threads, OMP_NUM_THREADS)",
    "default_dtype": "the default dtype (torch.set_default_dtype)",
    "deterministic_algorithms_settings": "torch.use_deterministic_algorithms",
    "cuda_matmul_settings": "CUDA matmul settings (allow_tf32, reduced-precision reductions)",
    "provenance_tracking_level": "Inductor's provenance tracking level",
}


def described(name: str, before: str | None, after: str | None) -> KeyChange:
    """A changed part in the user's words; an input's change says which of its properties."""
    if config := CONFIG_PART.match(name):
        prefix = "Inductor config" if config[1] == "inductor_config" else "Inductor comms config"
        return KeyChange(name, f"{prefix} {config[2]}", before, after)
    if inputs := _INPUT.match(name):
        return _input_change(name, int(inputs[1]), before, after)
    if option := _OPTION.match(name):
        return KeyChange(name, f"compile option {option[1]}", before, after)
    if name.startswith("system_info"):
        return KeyChange(name, "the system (device, driver, Triton version)", before, after)
    if "custom" in name and "pass" in name:
        return KeyChange(name, f"a custom pass ({name})", before, after)
    return KeyChange(name, SETTINGS.get(name, name), before, after)


_META_FIELDS = ("dtype", "shape", "stride", "device", "requires_grad", "storage_offset", "memory_format")


def _input_change(name: str, index: int, before: str | None, after: str | None) -> KeyChange:
    """input i's metadata (torch's TensorMetadata(dtype=..., shape=torch.Size([..]), ...)): the
    properties that differ, each before and after."""
    old, new = _meta(before), _meta(after)
    differing = [f for f in _META_FIELDS if f in old and f in new and old[f] != new[f]]
    if not differing:
        return KeyChange(name, f"input {index}", before, after)
    what = f"input {index}'s " + " and ".join(differing)
    return KeyChange(name, what, ", ".join(old[f] for f in differing), ", ".join(new[f] for f in differing))


def _meta(text: str | None) -> dict[str, str]:
    if not text or not text.startswith("TensorMetadata("):
        return {}
    found = {}
    for field_name in _META_FIELDS:
        match = re.search(rf"\b{field_name}=((?:torch\.Size\()?\[[^\]]*\]\)?|\([^)]*\)|device\([^)]*\)|[^,)]+)", text)
        if match:
            found[field_name] = match[1].replace("torch.Size(", "").rstrip(")") if match[1].startswith("torch.Size(") else match[1]
    return found


# ---- a run against the earlier one ------------------------------------------------------------


def _keys_of(c: Compile) -> Iterator[tuple[tuple[str, str, str | None, int], CacheLookup]]:
    """A compile's lookups, each by (compile id, cache, graph, which of such lookups in it)."""
    seen: dict[tuple[str, str | None], int] = defaultdict(int)
    for lookup in c.cache.lookups:
        n = seen[(lookup.cache, lookup.graph)]
        seen[(lookup.cache, lookup.graph)] += 1
        yield (c.compile_id, lookup.cache, lookup.graph, n), lookup


def compared(earlier: Session, now: Session, path: str) -> EarlierRun:
    """What `now` missed that `earlier` (read from `path`) had compiled, and why, per graph."""
    before = {key: lookup for c in earlier.compiles for key, lookup in _keys_of(c)}
    result = EarlierRun(path=path, started=earlier.started)
    for frame in now.frames:
        for c in frame.compiles:
            matched = [(key, lookup) for key, lookup in _keys_of(c) if key in before]
            result.compared += len(matched)
            missed = [(key, lookup) for key, lookup in matched if lookup.outcome == "miss"]
            fx = [item for item in missed if item[1].cache == "fx_graph"]
            aot = [item for item in missed if item[1].cache == "aot_autograd"]
            for key, lookup in fx or aot[:1]:
                result.misses.append(_cause(earlier, now, c, frame.label_of(c), before[key], lookup))
    return result


def _cause(earlier: Session, now: Session, c: Compile, function: str, old: CacheLookup, new: CacheLookup) -> CacheMissCause:
    cause = CacheMissCause(compile_id=c.compile_id, function=function, cache=new.cache, graph=new.graph, compile_s=c.compile_time_s)
    if old.key is not None and old.key == new.key:
        cause.same_key = True
        cause.unknown_why = SAME_KEY["guard_miss"] if new.detail == "guard_miss" else SAME_KEY[None]
        return cause
    old_parts, new_parts = full_parts(earlier, old), full_parts(now, new)
    if old_parts is None or new_parts is None:
        run = "either run's" if old_parts is None and new_parts is None else "the earlier run's" if old_parts is None else "this run's"
        cause.unknown_why = NOT_LISTED[new.cache].format(run=run)
        return cause
    cause.changes = changes(old_parts, new_parts)
    if not cause.changes:
        cause.unknown_why = "its key differs from the earlier run's, but every part torch listed is the same"
    return cause
