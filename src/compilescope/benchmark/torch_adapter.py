"""Private torch APIs the benchmark uses, each guarded (see record/torch_adapter.py for the rule)."""

from __future__ import annotations

from typing import Any


def same(reference: Any, result: Any, tolerance: float, fp64_reference: Any = None) -> str:
    """"pass", "fail", or "unknown (...)": torch's own comparison, as its benchmark harness uses it."""
    try:
        from torch._dynamo.utils import same as torch_same
    except Exception:
        import torch

        return f"unknown (torch._dynamo.utils.same is not available in torch {torch.__version__})"
    try:
        ok = torch_same(reference, result, fp64_reference, tol=tolerance, equal_nan=True, log_error=lambda *a, **k: None)
    except Exception as error:  # outputs of a shape torch's comparison does not know
        return f"unknown ({type(error).__name__}: {error})"
    return "pass" if ok else "fail"
