"""Models by name (bench hf:MODEL_TYPE, timm:NAME): what --config reads, without torch."""

from __future__ import annotations

import pytest

from compilescope.benchmark.by_name import is_by_name, parse_overrides


def test_config_values_read_as_python_literals_where_they_are_one() -> None:
    assert parse_overrides("n_layer=4, resid_pdrop=0.0,activation_function=gelu_new,tie_word_embeddings=False") == {
        "n_layer": 4,
        "resid_pdrop": 0.0,
        "activation_function": "gelu_new",
        "tie_word_embeddings": False,
    }
    assert parse_overrides(None) == {} and parse_overrides("") == {}
    with pytest.raises(ValueError, match="'n_layer' is not key=value"):
        parse_overrides("n_layer")
    with pytest.raises(ValueError, match="'2x=1' is not key=value"):
        parse_overrides("2x=1")


def test_which_targets_are_models_by_name() -> None:
    assert is_by_name("hf:gpt2") and is_by_name("timm:resnet50")
    assert not is_by_name("models.py:make") and not is_by_name("hf.py:make")


def _without(library: str, tmp_path, *argv: str):
    """`python -m compilescope ARGV` in a subprocess where `import LIBRARY` fails as it does where
    it is not installed (a package of that name first on the path that raises Python's own
    ModuleNotFoundError)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    fake = tmp_path / "hidden" / library
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(f"raise ModuleNotFoundError(\"No module named '{library}'\", name={library!r})\n")
    src = Path(__file__).resolve().parents[2] / "src"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "hidden"), str(src)])}
    return subprocess.run([sys.executable, "-m", "compilescope", *argv], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)


def test_bench_without_transformers_names_the_extra_in_one_line_and_exits_2(tmp_path) -> None:
    # GIVEN a Python where transformers is not installed
    # WHEN a Hugging Face model is benched by name
    done = _without("transformers", tmp_path, "bench", "hf:gpt2")
    # THEN one line says what is missing and the extra that installs it, with exit status 2
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        "compilescope bench: hf:gpt2 needs transformers, not installed here (No module named 'transformers'); "
        "install it with: pip install 'compilescope[models]'"
    ]
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_zoo_without_the_library_every_model_needs_stops_before_running_anything(tmp_path) -> None:
    done = _without("transformers", tmp_path, "zoo", "--models", "gpt2,bert")
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        "compilescope zoo: 2 of the 2 models need transformers, not installed here (No module named 'transformers'); "
        "install it with: pip install 'compilescope[models]'"
    ]
