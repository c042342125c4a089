"""Why a warm start compiled again: each graph's lookups in torch's compile caches, the parts of
its key, and what changed in them since an earlier run of the program (session/caches.py,
session/cache_keys.py, findings/cache_misses.py), on traces of real runs.

tests/traces/cache_keys-*.log.gz are four runs of tests/traces/programs/cache_keys.py over one
new Inductor cache folder: cold, warm (the same again), with epilogue_fusion turned off, and with
16 columns of input made 32 (tests/traces/record cache_keys). cache_bypass.log.gz is a module
compiled with freezing on, which torch's caches bypass.
"""

from __future__ import annotations

import json
from pathlib import Path

from compilescope.app.earlier import compare_with_earlier
from compilescope.findings.kinds import FindingKind
from compilescope.session.cache_keys import compared
from recorded import cli, flat, fresh, portable, session


def _lookups(name: str) -> list[tuple[str, str, str | None, str | None]]:
    return [(lookup.cache, lookup.outcome, lookup.detail, lookup.graph) for c in session(name).compiles for lookup in c.cache.lookups]


def test_each_lookup_is_read_with_its_outcome_and_key_parts() -> None:
    # GIVEN a cold run and a warm one of the same program over one cache folder
    cold, warm = session("cache_keys-cold"), session("cache_keys-warm")
    # THEN the cold one missed both caches, the warm one hit both, what a hit saved is torch's figure
    assert _lookups("cache_keys-cold") == [("aot_autograd", "miss", "full_miss", None), ("fx_graph", "miss", "full_miss", "inference")]
    assert _lookups("cache_keys-warm") == [("fx_graph", "hit", "hit", "inference"), ("aot_autograd", "hit", "hit", None)]
    (fx_hit, aot_hit) = warm.compiles[0].cache.lookups
    assert fx_hit.time_saved_s is not None and fx_hit.time_saved_s > 0 and aot_hit.time_saved_s is not None
    # AND the FX graph key's parts: the configs and versions kept once for the session, the
    # graph's own (its code, its inputs, its compile options) on the lookup
    (aot, fx) = cold.compiles[0].cache.lookups
    assert aot.parts is None  # torch lists AOT Autograd's parts only at DEBUG
    own = {part.name for part in fx.parts or []}
    assert {"gm", "example_inputs[0]", "example_inputs[1]", "fx_kwargs[is_inference]"} <= own
    shared = {part.name: part.value for part in cold.cache_key_shared}
    assert shared["inductor_config[epilogue_fusion]"] == "True" and "torch_version" in shared
    # AND the remote cache, which torch counted, was not used
    assert (cold.compiles[0].cache.remote_hits, cold.compiles[0].cache.remote_misses) == (0, 0)


def test_a_changed_config_value_and_a_resized_input_are_named_with_before_and_after() -> None:
    # WHEN the runs after the cold one are compared with the one before each
    warm = compared(session("cache_keys-cold"), session("cache_keys-warm"), "cold.json")
    config = compared(session("cache_keys-warm"), session("cache_keys-config"), "warm.json")
    resized = compared(session("cache_keys-cold"), session("cache_keys-resized"), "cold.json")
    # THEN the warm run missed nothing; the others name what changed in the key, and the cost
    assert warm.misses == [] and warm.compared == 2
    (miss,) = config.misses
    assert (miss.compile_id, miss.function, miss.graph, miss.cache) == ("0/0", "scaled_sum", "inference", "fx_graph")
    assert [(c.what, c.before, c.after) for c in miss.changes] == [("Inductor config epilogue_fusion", "True", "False")]
    assert miss.compile_s == session("cache_keys-config").compiles[0].compile_time_s
    (miss,) = resized.misses
    assert [(c.what, c.before, c.after) for c in miss.changes] == [
        ("input 0's shape and stride", "[8, 16], (16, 1)", "[8, 32], (32, 1)"),
        ("input 1's shape and stride", "[8, 16], (16, 1)", "[8, 32], (32, 1)"),
    ]


def test_the_same_key_missing_again_says_the_cache_folder_was_not_found() -> None:
    # GIVEN a run compared with itself: a miss under the same key (as a new cache folder gives)
    (miss,) = compared(session("cache_keys-cold"), session("cache_keys-cold"), "cold.json").misses
    assert miss.same_key and miss.changes == []
    assert "TORCHINDUCTOR_CACHE_DIR" in (miss.unknown_why or "")


def test_a_warm_start_that_missed_is_a_finding_costed_and_with_the_fix() -> None:
    # GIVEN the run with the config changed, compared with the warm one before it
    now = fresh("cache_keys-config")
    now.earlier_run = compared(session("cache_keys-warm"), now, "warm.json")
    # WHEN its findings are made
    (found,) = [f for f in now.explain() if f.kind == FindingKind.CACHE_MISS]
    # THEN the finding names the function, the value, and costs the compile it made happen
    assert (
        found.title
        == "The cache missed scaled_sum (0/0), which the earlier run had compiled: Inductor config epilogue_fusion changed (True → False)"
    )
    assert found.cost_s == now.compiles[0].compile_time_s and found.where and found.where.endswith("cache_keys.py:14")
    assert "torch._inductor.config.epilogue_fusion the same in every run (True in the earlier one)" in found.fix
    # AND the compile time's finding no longer promises that a second run hits
    (time,) = [f for f in now.explain() if f.kind == FindingKind.COMPILE_TIME]
    assert "had compiled 1 graph of these, but the cache missed them" in time.fix
    # AND the facts are in the session's JSON, and come back with it
    data = json.loads(now.to_json())
    assert data["earlier_run"]["misses"][0]["changes"][0]["name"] == "inductor_config[epilogue_fusion]"


def test_run_compares_with_the_earlier_session_of_the_same_program_only(tmp_path: Path) -> None:
    earlier = tmp_path / "run.json"
    earlier.write_text(session("cache_keys-warm").to_json())
    # WHEN the session at the run's path is the same program's
    now = fresh("cache_keys-config")
    compare_with_earlier(now, str(earlier))
    # THEN the run is compared with it
    assert now.earlier_run is not None and now.earlier_run.path == str(earlier) and len(now.earlier_run.misses) == 1
    # AND another program's session, a file that is not a session, or none, leaves it alone
    other = fresh("cache_keys-warm")
    assert other.program is not None
    other.program.target = "train.py"
    earlier.write_text(other.to_json())
    for text in (None, "not a session", other.to_json()):
        now = fresh("cache_keys-config")
        if text is None:
            earlier.unlink(missing_ok=True)
        else:
            earlier.write_text(text)
        compare_with_earlier(now, str(earlier))
        assert now.earlier_run is None


def test_a_bypass_is_a_finding_with_torchs_reason_in_plain_words() -> None:
    found = [f for f in session("cache_bypass").explain() if f.kind == FindingKind.CACHE_BYPASS]
    assert [f.title for f in found] == [
        "The AOT Autograd cache and FX graph cache bypassed Linear.forward (0/0): every run compiles it again"
    ]
    assert "Cannot cache a graph with freezing enabled" in found[0].detail
    assert found[0].fix.startswith("torch does not cache graphs compiled with freezing (torch._inductor.config.freezing = True)")
    assert found[0].where and found[0].where.endswith("cache_bypass.py:7")


def test_diff_and_report_show_the_caches(capsys, tmp_path: Path) -> None:
    # WHEN two runs are diffed
    status, out, _ = cli(capsys, "diff", str(portable("cache_keys-warm.log.gz")), str(portable("cache_keys-config.log.gz")))
    assert status == 0
    assert "scaled_sum (0/0), inference graph, FX graph cache: Inductor config epilogue_fusion changed (True → False)" in flat(out)
    cli(
        capsys,
        "diff",
        str(portable("cache_keys-warm.log.gz")),
        str(portable("cache_keys-config.log.gz")),
        "--json",
        str(tmp_path / "d.json"),
    )
    assert json.loads((tmp_path / "d.json").read_text())["cache_misses"] == [
        "scaled_sum (0/0), inference graph, FX graph cache: Inductor config epilogue_fusion changed (True → False)"
    ]
    # AND `report --show cache` lists each lookup, and says where a trace has none
    status, out, _ = cli(capsys, "report", str(portable("cache_keys-warm.log.gz")), "--show", "cache")
    text = flat(out)
    assert "FX graph cache, inference graph: hit · saved" in text and "AOT Autograd cache: hit" in text and "remote cache: not used" in text
    # AND a miss lists its key's own parts, as torch listed them
    status, out, _ = cli(capsys, "report", str(portable("cache_keys-cold.log.gz")), "--show", "cache")
    text = flat(out)
    assert "FX graph cache, inference graph: miss (no entry for this key)" in text and "its key's own parts" in text
    assert "example_inputs[0]: TensorMetadata(dtype=torch.float32, shape=torch.Size([8, 16])" in text
    status, out, _ = cli(capsys, "report", str(portable("gpt2_loss_logging.log.gz")), "--show", "cache")
    assert "caches: no lookup in this trace" in flat(out)
