"""Private torch APIs the benchmark uses, each guarded (see record/torch_adapter.py for the rule)."""

from __future__ import annotations

from typing import Any


def same(reference: Any, result: Any, tolerance: float, fp64_reference: Any = None) -> str:
    """ "pass", "fail", or "unknown (...)": torch's own comparison, as its benchmark harness uses it."""
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


def ask_inductor_for_profile_details() -> list[str]:
    """For --profile only: kernel events on the CPU, kernel-to-source provenance, and Triton
    kernels' byte and FLOP estimates. Returns what could not be turned on, and why."""
    notes = []
    try:
        from torch._inductor import config
    except Exception as error:
        return [f"Inductor's config is not available ({error})"]
    for path, value in (("cpp.enable_kernel_profile", True), ("trace.provenance_tracking_level", 1), ("benchmark_kernel", True)):
        owner = config
        *parents, leaf = path.split(".")
        try:
            for parent in parents:
                owner = getattr(owner, parent)
            if not hasattr(owner, leaf):
                raise AttributeError(leaf)
            setattr(owner, leaf, value)
        except Exception:
            import torch

            notes.append(f"torch._inductor.config.{path}: not available in torch {torch.__version__}")
    return notes


def probe_cpu_vector_isa() -> str | None:
    """Run Inductor's probes of the CPU's vector instruction sets (the test libraries it compiles
    into the compile cache before it first generates C++; benchmark/compile_cache.py). Returns
    None, or why they could not run."""
    try:
        from torch._inductor.cpu_vec_isa import valid_vec_isa_list
    except Exception:
        import torch

        return f"torch._inductor.cpu_vec_isa.valid_vec_isa_list is not available in torch {torch.__version__}"
    try:
        valid_vec_isa_list()
    except Exception as error:  # (no C++ compiler: Inductor's first CPU compile will say so itself)
        return f"{type(error).__name__}: {error}"
    return None


def compiled_graph_cache_counts() -> dict[str, int] | None:
    """Inductor's on-disk cache of compiled graphs so far in this process: {"hits", "misses"}
    (torch's own counters), or None where this torch does not keep them."""
    try:
        from torch._dynamo.utils import counters

        inductor = counters["inductor"]
        return {"hits": int(inductor["fxgraph_cache_hit"]), "misses": int(inductor["fxgraph_cache_miss"])}
    except Exception:
        return None
