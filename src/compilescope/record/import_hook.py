"""Run a callback right after the program itself imports torch.

`compilescope run` must not import torch before the user's program does: a program may set
environment variables (TORCHINDUCTOR_CACHE_DIR, TORCH_LOGS, CUDA_VISIBLE_DEVICES, ...) that torch
reads once, at import. So capture waits for the program's own `import torch`, then attaches.
Nothing compiles while torch itself is being imported, so no record is missed.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import importlib.machinery


class _AfterTorchImport:  # a meta path finder (importlib.abc is not imported: it is slow to)
    def __init__(self, callback: Callable[[], None]) -> None:
        self.callback = callback
        self.done = False

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != "torch" or self.done:
            return None
        # Find torch the ordinary way (without us), then wrap its loader.
        self.done = True
        remove(self)
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


def when_torch_imported(callback: Callable[[], None]) -> _AfterTorchImport | None:
    """Call `callback` now if torch is imported already, else right after its import.
    Returns the finder to `remove()` if the program ends without importing torch."""
    if "torch" in sys.modules:
        callback()
        return None
    finder = _AfterTorchImport(callback)
    sys.meta_path.insert(0, finder)
    return finder
