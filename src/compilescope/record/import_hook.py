"""Run a callback right after the program itself imports a module (torch, or torch._dynamo).

`compilescope run` must not import torch before the user's program does: a program may set
environment variables (TORCHINDUCTOR_CACHE_DIR, TORCH_LOGS, CUDA_VISIBLE_DEVICES, ...) that torch
reads once, at import. So capture waits for the program's own `import torch`, then attaches.
Nothing compiles while torch itself is being imported, so no record is missed.

The same holds one level down: Dynamo (torch._dynamo, about a second to import on a CPU, and it
brings Inductor with it) is imported by torch.compile on its first use, not by `import torch`.
compilescope's bytecode hooks wait for that import too, so that a program which never compiles
never loads Dynamo through us; Dynamo generates no code before its own import has finished, so
no code object is missed either.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # (typing and importlib.util come in when they are used, not before the program)
if TYPE_CHECKING:
    import importlib.machinery
    from collections.abc import Callable
    from typing import Any


class _AfterImport:  # a meta path finder (importlib.abc is not imported: it is slow to)
    def __init__(self, name: str, callback: Callable[[], None]) -> None:
        self.name = name
        self.callback = callback
        self.done = False

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name or self.done:
            return None
        # Find the module the ordinary way (without us), then wrap its loader.
        self.done = True
        remove(self)
        import importlib.util

        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader = spec.loader
        original = loader.exec_module
        callback = self.callback

        def exec_module(module: Any) -> None:
            original(module)
            callback()

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def remove(finder: Any) -> None:
    try:
        sys.meta_path.remove(finder)
    except ValueError:
        pass


def when_imported(name: str, callback: Callable[[], None]) -> _AfterImport | None:
    """Call `callback` now if the module `name` is imported already, else right after its
    import (once its code has run). Returns the finder to `remove()` if the program ends without
    importing it."""
    if name in sys.modules:
        callback()
        return None
    finder = _AfterImport(name, callback)
    sys.meta_path.insert(0, finder)
    return finder


def when_torch_imported(callback: Callable[[], None]) -> _AfterImport | None:
    """Call `callback` now if torch is imported already, else right after its import."""
    return when_imported("torch", callback)
