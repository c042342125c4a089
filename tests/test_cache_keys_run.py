"""A warm start that missed the cache, as a user meets it: the same program run again with
`compilescope run` over its own Inductor cache folder. A warm rerun hits; with one Inductor
config value changed, the run names that value as why the cache missed; and the fix it gives,
pasted into the program, makes the next run hit again."""

from __future__ import annotations

from pathlib import Path

from conftest import ROOT, run_cli

PROGRAM = ROOT / "tests" / "traces" / "programs" / "cache_keys.py"
SESSION = "compilescope-cache_keys.json"
MISSED = "The cache missed scaled_sum (0/0), which the earlier run had compiled: Inductor config epilogue_fusion changed (True → False)"


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_a_changed_config_value_is_named_and_its_fix_makes_the_cache_hit(tmp_path: Path) -> None:
    program = tmp_path / "cache_keys.py"
    program.write_text(PROGRAM.read_text())
    env = {"TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "inductor-cache")}  # the cache is what is tested: its own

    def run(**more: str):
        result = run_cli("run", "--no-html", "cache_keys.py", cwd=tmp_path, env={**env, **more})
        assert result.returncode == 0, result.stderr
        return result

    # GIVEN a cold run, then the same again
    cold = run()
    assert "Compiling took" in cold.stderr and "The cache missed" not in cold.stderr  # nothing to compare with yet
    warm = run()
    # THEN the warm run hit both caches, and found nothing to say about them
    assert "The cache missed" not in warm.stderr
    shown = run_cli("report", SESSION, "--show", "cache", cwd=tmp_path, env=env)
    assert "FX graph cache, inference graph: hit" in _flat(shown.stdout) and "AOT Autograd cache: hit" in _flat(shown.stdout)

    # WHEN the program runs with epilogue_fusion turned off
    changed = run(EPILOGUE_FUSION="0")
    # THEN the run says the cache missed, names the value before and after, and what it cost
    text = _flat(changed.stderr)
    assert MISSED in text
    assert "Set torch._inductor.config.epilogue_fusion the same in every run (True in the earlier one)" in text
    session = changed.session_json(SESSION)
    (miss,) = session["earlier_run"]["misses"]
    assert miss["changes"] == [
        {"name": "inductor_config[epilogue_fusion]", "what": "Inductor config epilogue_fusion", "before": "True", "after": "False"}
    ]
    assert miss["compile_s"] == session["frames"][0]["compiles"][0]["compile_time_s"] > 0

    # WHEN the user pastes the fix (the same value in every run) and runs it so
    source = program.read_text()
    assert 'torch._inductor.config.epilogue_fusion = os.environ.get("EPILOGUE_FUSION", "1") == "1"' in source
    program.write_text(source.replace('os.environ.get("EPILOGUE_FUSION", "1") == "1"', "True"))
    fixed = run(EPILOGUE_FUSION="0")
    # THEN the graph comes from the cache again
    assert "The cache missed" not in fixed.stderr
    lookups = fixed.session_json(SESSION)["frames"][0]["compiles"][0]["cache"]["lookups"]
    assert {(lookup["cache"], lookup["outcome"]) for lookup in lookups} == {("fx_graph", "hit"), ("aot_autograd", "hit")}
