"""What `compilescope run --check-accuracy` found: each compiled graph's first calls compared with
the same graph run eagerly, its gradients in training, the stage that made a differing graph
differ, and torch's minifier script for it (record/accuracy.py checks; session/records/
accuracy.py reads its records). Part of the Session model; no torch here. None: not known."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ComparedValue:
    """One value compared: an output, an input the call changed in place, or a gradient."""

    what: str  # "output 0", "input L['x'] after the call (changed in place)", "gradient of L['self'].fc.weight"
    matches: bool
    shape: list[int] | None = None
    dtype: str | None = None  # "float32"
    max_abs: float | None = None  # the largest |compiled - eager|
    max_rel: float | None = None  # the largest |compiled - eager| / |eager| where eager is not 0
    judged: str = ""  # "within rtol 0.0001, atol 1e-05", or what differs and by how much


@dataclass
class CallMemory:
    """What a checked call of the graph added to the CUDA allocator's memory, compiled and
    eagerly (bytes; from its counters, around each call). None: not known."""

    device: str | None = None
    compiled_added: int | None = None  # allocated after the call less before: its outputs, saved tensors
    eager_added: int | None = None
    # the call's own high-water above what was allocated before it, where the device's peak rose
    # during the call (it is not reset: the program's peak stays the program's); None: it did not rise
    compiled_peak: int | None = None
    eager_peak: int | None = None
    why: str | None = None  # why not measured ("the graph's inputs are not on one CUDA device")


@dataclass
class CheckedCall:
    call: int  # 1 for the graph's first call
    outcome: str  # "matches", "differs", "not compared" (random numbers drawn), "not checked"
    why: str | None = None  # why not compared or not checked
    compared: list[ComparedValue] = field(default_factory=list)
    memory: CallMemory | None = None


@dataclass
class StageRun:
    """The graph compiled by one stage of torch.compile, run again on the inputs that differed."""

    stage: str  # "aot_eager", "aot_eager_decomp_partition", "inductor"
    meaning: str  # "AOT Autograd (tracing, functionalization)"
    matches: bool | None = None  # None: it failed to run (failed says why)
    failed: str | None = None
    compared: list[ComparedValue] = field(default_factory=list)  # the values that differ, the first few


@dataclass
class MinifierScript:
    """torch's own after-Dynamo repro of a differing graph, with its inputs' values saved."""

    folder: str | None = None
    script: str | None = None  # "minify_0_0.py"
    minify: str | None = None  # the command that runs torch's accuracy minifier on it
    check: str | None = None  # the command that checks the whole graph again
    output: str | None = None  # where the minifier writes
    note: str | None = None  # what the script leaves out (a mode's settings)
    why: str | None = None  # why none was written


@dataclass
class GraphAccuracy:
    """One compiled graph, checked (Compile.accuracy holds one per graph of the compile)."""

    graph: int = 0  # its index in the compile (most compiles make one)
    backend: str | None = None  # "inductor"; None: a function of the user's
    calls: list[CheckedCall] = field(default_factory=list)
    stopped: str | None = None  # why later calls were not checked (out of memory)
    gradients: list[ComparedValue] | None = None  # the first training step's; None: not compared
    gradients_why: str | None = None  # why not compared
    stages: list[StageRun] = field(default_factory=list)
    first_differs: str | None = None  # the first stage that differs: its backend's name
    stage_failed: str | None = None
    minifier: MinifierScript | None = None
    # its first call run again once the program was over, eager and compiled, on a GPU: each one's
    # peak and what it kept (its device's counters reset around each run); None: not on a GPU
    peaks: CallMemory | None = None

    @property
    def differs(self) -> bool:
        return any(c.outcome == "differs" for c in self.calls) or any(not g.matches for g in self.gradients or [])

    @property
    def matches(self) -> bool:
        """Compared at least once, and every comparison matched."""
        return not self.differs and any(c.outcome == "matches" for c in self.calls)

    def largest(self) -> ComparedValue | None:
        """The comparison with the largest difference (the first that differs, where any)."""
        values = [v for c in self.calls for v in c.compared] + list(self.gradients or [])
        wrong = [v for v in values if not v.matches]
        pool = wrong or values
        return max(pool, key=lambda v: v.max_abs or 0.0) if pool else None


@dataclass
class WholeCall:
    """One call of a function torch.compile made, against its Python code run eagerly (with
    torch.compile set aside) on copies of the same arguments: what the graph checks cannot see,
    Dynamo's own part (guards skipped, a Python value baked in, a side effect replayed wrong)."""

    call: int  # 1 for its first call
    outcome: str  # "matches", "differs", "not compared" (random numbers drawn), "not checked"
    why: str | None = None  # why not compared or not checked
    called_at: str | None = None  # the program's line that made the call (file:line)
    compared: list[ComparedValue] = field(default_factory=list)
    compiles: list[str] = field(default_factory=list)  # the compile ids of the graphs it ran ("0/0")
    # why it differs: "graph": a graph it ran differs from eager on its own (that graph's check
    # names the stage); "dynamo": every graph it ran matched eager, so Dynamo's capture; None: unknown
    cause: str | None = None
    guards_skipped: bool = False  # it ran under torch.compiler.set_stance(skip_guard_eval_unsafe=True)


@dataclass
class CompiledCallable:
    """A function (or a module's call) torch.compile made, checked as a whole on its first calls."""

    name: str  # "scaled", "Net"
    where: str | None = None  # its code: file:line
    compiled_at: str | None = None  # the program's line that called torch.compile
    calls: list[WholeCall] = field(default_factory=list)
    stopped: str | None = None  # why later calls were not checked (out of memory)

    @property
    def differs(self) -> bool:
        return any(c.outcome == "differs" for c in self.calls)

    @property
    def matches(self) -> bool:
        return not self.differs and any(c.outcome == "matches" for c in self.calls)


@dataclass
class AccuracyChecks:
    """The run's checks as a whole (Session.accuracy)."""

    calls_per_graph: int | None = None
    graphs_checked: int | None = None
    seconds: float | None = None  # spent checking while the program ran
    stages_seconds: float | None = None  # spent after it, finding stages and writing scripts
    unavailable: str | None = None  # why nothing could be checked
    callables: list[CompiledCallable] = field(default_factory=list)  # the whole calls checked
    callables_unavailable: str | None = None  # why whole calls could not be checked
