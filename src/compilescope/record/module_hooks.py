"""The module hooks a compiled call can reach, for `run --check-accuracy`'s whole-call check
(accuracy_calls.py): a hook registered after a function's first call is one its compiled code
may never call (torch does not guard on hooks: torch._dynamo.config.skip_nnmodule_hook_guards),
while the check's eager run of the same Python would call it, with whatever the hook does to the
program (a list it appends to, a counter). So such a call is not checked.

Reached: the module the call belongs to, modules among its arguments, and modules the function
names from its globals or closure (`model` in `def step(x): return model(x)`), each with its
submodules; and torch's global module hooks. Imports torch: capture.
"""

from __future__ import annotations

import inspect
from typing import Any

import torch

_KINDS = {  # a module's hook dicts, as torch.nn.Module keeps them, and what each is
    "_forward_pre_hooks": "forward pre-hook",
    "_forward_hooks": "forward hook",
    "_backward_pre_hooks": "backward pre-hook",
    "_backward_hooks": "backward hook",
}
_GLOBAL = {  # torch.nn.modules.module's global hook dicts
    "_global_forward_pre_hooks": "global forward pre-hook",
    "_global_forward_hooks": "global forward hook",
    "_global_backward_pre_hooks": "global backward pre-hook",
    "_global_backward_hooks": "global backward hook",
}


def modules_reached(original: Any, module: torch.nn.Module | None, leaves: list[Any]) -> list[torch.nn.Module]:
    """The modules a call of `original` reaches directly: its own (`module`), those among its
    arguments' `leaves`, and those its code names from its globals or closure."""
    found: dict[int, torch.nn.Module] = {}
    for candidate in (module, *leaves):
        if isinstance(candidate, torch.nn.Module):
            found.setdefault(id(candidate), candidate)
    function = inspect.unwrap(original) if module is None else None
    code = getattr(function, "__code__", None)
    if code is not None:
        scope = getattr(function, "__globals__", {})
        named = [scope.get(name) for name in code.co_names]
        cells = [_cell(c) for c in getattr(function, "__closure__", None) or ()]
        for candidate in (*named, *cells):
            if isinstance(candidate, torch.nn.Module):
                found.setdefault(id(candidate), candidate)
    return list(found.values())


def hooks_of(modules: list[torch.nn.Module]) -> dict[tuple[int, str, Any], str]:
    """Every hook on the modules and their submodules, and torch's global module hooks: a key
    per hook (the module, the kind, torch's handle id), and the hook in words ("a forward hook
    on Sequential.0 (Linear)")."""
    hooks: dict[tuple[int, str, Any], str] = {}
    for root in modules:
        try:
            named = list(root.named_modules())
        except Exception:  # (a module whose traversal fails: its own hooks only)
            named = [("", root)]
        for path, module in named:
            where = type(root).__name__ + (f".{path} ({type(module).__name__})" if path else "")
            for attribute, kind in _KINDS.items():
                for handle in getattr(module, attribute, None) or {}:
                    hooks[(id(module), attribute, handle)] = f"a {kind} on {where}"
    state = torch.nn.modules.module
    for attribute, kind in _GLOBAL.items():
        for handle in getattr(state, attribute, None) or {}:
            hooks[(0, attribute, handle)] = f"a {kind}"
    return hooks


def _cell(cell: Any) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # (an empty cell)
        return None
