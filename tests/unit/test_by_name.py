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
