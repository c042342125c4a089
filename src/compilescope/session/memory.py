"""The program's memory as it ended, as `compilescope run` measured it (record/memory.py): part of
the Session model (Session.memory). No torch here.

What the figures are, and are not (docs/cli.md, "Memory"):
- `cpu_peak_bytes` is the process's high-water resident set (Linux's VmHWM, elsewhere
  getrusage's ru_maxrss; record/memory.py's own_high_water says why): the most
  physical memory the process held at once, since it started. It includes compilescope's own
  recording (the trace it writes, the calls it counts), which runs in the same process.
- `children_peak_bytes` is the largest high-water mark among the child processes that had ended,
  and been waited for, by the program's end (RUSAGE_CHILDREN): one child's, not their sum; 0
  where none had (a worker pool still running at the end is not in it). On Linux a child started
  by fork (or vfork, as subprocess does) counts this process's memory at that moment too, so a
  figure up to `cpu_peak_bytes` may be this process's own: the views say it only where it is
  larger.
- A CUDA device's peaks are the caching allocator's since the program started, or since it last
  called torch.cuda.reset_peak_memory_stats (which cannot be known from outside); the other CUDA
  figures are what was held as the program ended. Memory allocated outside torch's allocator (the
  CUDA context, cuBLAS's workspace, NCCL) is in none of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class DeviceMemory:
    """One CUDA device the program used: torch's caching allocator's figures, in bytes (None: not
    known, with the reason in `unknown`)."""

    device: str  # "cuda:0"
    max_allocated_bytes: int | None = None  # torch.cuda.max_memory_allocated: the most tensors held at once
    max_reserved_bytes: int | None = None  # torch.cuda.max_memory_reserved: the most the allocator held from CUDA
    allocated_bytes: int | None = None  # torch.cuda.memory_allocated, as the program ended
    reserved_bytes: int | None = None  # torch.cuda.memory_reserved, as the program ended
    # The private pools holding memory as the program ended (the allocator's segments whose pool
    # is not its own: CUDA graphs' under mode="reduce-overhead", and any torch.cuda.MemPool), and
    # the bytes they hold in all (part of reserved_bytes)
    graph_pools: int | None = None
    graph_pool_bytes: int | None = None
    unknown: list[str] = field(default_factory=list)  # why a figure is None: "torch.cuda.memory_snapshot: RuntimeError: …"


@dataclass
class ProgramMemory:
    """The program's memory as it ended (the module's docstring says what each figure means)."""

    cpu_peak_bytes: int | None = None  # the process's high-water resident set, with compilescope's recording
    children_peak_bytes: int | None = None  # the largest of its ended child processes' (see above); 0: none had ended
    cuda: list[DeviceMemory] = field(default_factory=list)  # each device the program used
    # why there are no CUDA figures ("the program did not start CUDA"); None where there are, or
    # where why is in `unknown`
    no_cuda: str | None = None
    unknown: list[str] = field(default_factory=list)  # figures that could not be measured, and why
