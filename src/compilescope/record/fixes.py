"""Fixes `compilescope run --try FIX` can apply from outside the program: Dynamo settings set as
the program imports Dynamo, before anything is compiled, so the program's own code is unchanged.

Parsing needs no torch (the command line is checked before the program runs); applying imports
only torch._dynamo.config, inside the program's own import of Dynamo (record/recorder.py).
A setting the running torch lacks is refused with its name, never silently ignored.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

# name -> what it does, in the words the comparison prints
FIXES = {
    "dynamic": "shapes dynamic from the first compile (torch._dynamo.config.assume_static_by_default = False)",
    "capture_scalar_outputs": "Tensor.item() kept in the graph (torch._dynamo.config.capture_scalar_outputs = True)",
    "capture_dynamic_output_shape_ops": "ops whose output shape depends on data (nonzero) kept in the graph (torch._dynamo.config.capture_dynamic_output_shape_ops = True)",
    "reorder-print": "print() moved after the graph instead of breaking it (print added to torch._dynamo.config.reorderable_logging_functions)",
    "ignore-logging": "logging calls ignored while tracing (logging.Logger's methods added to torch._dynamo.config.ignore_logging_functions)",
    "recompile_limit=N": "more compiled versions per function (torch._dynamo.config.recompile_limit = N)",
    "config.NAME=VALUE": "any torch._dynamo.config setting this torch has (a Python literal: config.cache_size_limit=64)",
}

# logging.Logger methods Dynamo can ignore (and transformers' own, where transformers added them)
_LOGGER_METHODS = (
    "debug",
    "info",
    "warning",
    "warn",
    "error",
    "critical",
    "exception",
    "log",
    "warning_once",
    "info_once",
    "warning_advice",
)


@dataclass(frozen=True)
class Fix:
    name: str  # as the user typed it: "dynamic", "recompile_limit=64"
    setting: str  # the torch._dynamo.config name it sets
    value: Any = None  # the value to set; for the logging fixes, unused


def parse(text: str) -> Fix:
    """The fix `text` names, or ValueError saying which exist."""
    name = text.strip()
    if name == "dynamic":
        return Fix(name, "assume_static_by_default", False)
    if name in ("capture_scalar_outputs", "capture_dynamic_output_shape_ops"):
        return Fix(name, name, True)
    if name == "reorder-print":
        return Fix(name, "reorderable_logging_functions")
    if name == "ignore-logging":
        return Fix(name, "ignore_logging_functions")
    key, equals, value = name.partition("=")
    if equals and key == "recompile_limit":
        if not value.isdigit() or int(value) < 1:
            raise ValueError(f"--try recompile_limit=N: N must be a whole number above 0, not {value!r}")
        return Fix(name, "recompile_limit", int(value))
    if equals and key.startswith("config.") and key[7:].isidentifier():
        try:
            literal = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            raise ValueError(f"--try {name}: {value!r} is not a Python literal (True, 64, 'name')") from None
        return Fix(name, key[7:], literal)
    raise ValueError(f"--try: no fix named {name!r}; the fixes: " + ", ".join(FIXES))


def describe(fix: Fix) -> str:
    template = FIXES.get(fix.name) or FIXES["recompile_limit=N" if fix.setting == "recompile_limit" else "config.NAME=VALUE"]
    if fix.setting == "recompile_limit":
        return template.replace("= N", f"= {fix.value}")
    if fix.name.startswith("config."):
        return f"torch._dynamo.config.{fix.setting} = {fix.value!r}"
    return template


def apply(fixes: list[Fix], config: Any) -> list[str]:
    """Set the fixes on torch._dynamo.config (`config`); what could not be set, and why. Run
    once as the program imports Dynamo and again as its first compile starts (a logging method
    defined by a library imported later, transformers' warning_once, is there by then)."""
    problems = []
    for fix in fixes:
        if not hasattr(config, fix.setting):
            problems.append(f"--try {fix.name}: torch._dynamo.config.{fix.setting} does not exist in this torch")
            continue
        try:
            if fix.name == "reorder-print":
                getattr(config, fix.setting).add(print)
            elif fix.name == "ignore-logging":
                import logging

                methods = getattr(config, fix.setting)
                for method in _LOGGER_METHODS:
                    found = getattr(logging.Logger, method, None)
                    if found is not None:
                        methods.add(found)
            else:
                setattr(config, fix.setting, fix.value)
        except Exception as error:  # a setting that refuses the value: said, the program goes on
            problems.append(f"--try {fix.name}: {type(error).__name__}: {error}")
    return problems


def apply_at_import(fixes: list[Fix], writer: Any) -> None:
    """As the program imports Dynamo: set `run --try`'s fixes on Dynamo's config now (before
    anything is compiled) and again as each compile starts; say what was set, and what could
    not be, in the trace."""
    import sys

    import compilescope.record.torch_adapter as torch_adapter
    from compilescope.trace.ours import FIXES_RECORD

    config = torch_adapter.dynamo_config()
    if config is None:
        return
    problems = apply(fixes, config)
    not_hooked = torch_adapter.on_compile_start(lambda: apply(fixes, config))
    if not_hooked and any(f.name == "ignore-logging" for f in fixes):
        problems.append(f"--try ignore-logging: logging methods defined after Dynamo's import are not added ({not_hooked})")
    for problem in problems:
        print(f"compilescope: {problem}", file=sys.__stderr__)
    writer.write_record(FIXES_RECORD, {"applied": [describe(f) for f in fixes], "problems": problems})
