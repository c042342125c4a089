"""What a worker measures: a `file.py:make` target (a file, and a function in it that returns
(model_or_fn, inputs)), or a model by name (`hf:gpt2`, `timm:resnet50`: by_name.py)."""

from __future__ import annotations

import runpy
from collections.abc import Callable
from pathlib import Path
from typing import Any


class BenchError(Exception):
    """The target cannot be benchmarked (bad target, make() failed); the message says why."""


def split_target(target: str) -> tuple[Path, str]:
    path, sep, name = target.rpartition(":")
    if not sep or not path or not name.isidentifier():
        raise BenchError(f"{target!r} is not file.py:function (for example models.py:make)")
    return Path(path), name


def check_target(target: str) -> None:
    path, _ = split_target(target)
    if not path.is_file():
        raise BenchError(f"no such file: {path}")


def load_make(target: str) -> Callable[[], tuple[Any, tuple]]:
    path, name = split_target(target)
    check_target(target)
    namespace = runpy.run_path(str(path), run_name="__compilescope_bench__")
    make = namespace.get(name)
    if not callable(make):
        raise BenchError(f"{path} has no function {name!r}")

    def checked() -> tuple[Any, tuple]:
        made = make()
        if not (isinstance(made, tuple) and len(made) == 2 and callable(made[0])):
            raise BenchError(f"{name}() must return (model_or_function, example_inputs); it returned {type(made).__name__}")
        model, inputs = made
        return model, inputs if isinstance(inputs, tuple) else (inputs,)

    return checked


def load_by_name(spec: dict[str, Any], training: bool, device: str, built: dict[str, str]) -> Callable[[], tuple[Any, dict[str, Any]]]:
    """make() for a model by name: built (random weights) and moved, with its inputs, to
    `device`; what it built is said in `built["model"]` ("GPT2LMHeadModel (tiny), 0.23M
    parameters"), for the results."""
    from compilescope.benchmark.by_name import ByName, make

    def made() -> tuple[Any, dict[str, Any]]:
        asked = ByName(**spec)
        model, inputs = make(asked, training, device)
        parameters = sum(p.numel() for p in model.parameters())
        built["model"] = f"{type(model).__name__} ({asked.size}), {parameters / 1e6:.2f}M parameters"
        moved = {name: value.to(device) if hasattr(value, "to") else value for name, value in inputs.items()}
        return model.to(device), moved

    return made
