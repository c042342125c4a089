"""The Session: everything compilescope learned about one run, as plain data.

No torch here. A Session is built from trace records (session.build), saved and loaded as
versioned JSON (session.jsonio), explained and rendered; bench's and run --profile's figures are in
session/benchmarks.py. Where torch did not say, the field is None, shown "unknown": never guessed.
The JSON field names are documented in docs/schema.md; change them only with the schema version.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from compilescope.session import SCHEMA, error_summary  # noqa: F401  (error_summary: its callers import it from here)
from compilescope.session.accuracy import AccuracyChecks, GraphAccuracy
from compilescope.session.benchmarks import Benchmark, Profile
from compilescope.session.caches import CacheLookup, EarlierRun, KeyPart
from compilescope.session.memory import ProgramMemory
from compilescope.session.passes import PassStage
from compilescope.session.run_facts import ChildProcess, CompiledModule, Incomplete, MethodCall, incomplete_reason  # noqa: F401  (their home before)
from compilescope.session.timeline import Timeline
from compilescope.views import view

# What ran: a script or module (compilescope run), a function (explain), a `with capture()`
# block, a trace from elsewhere, bench's workers.
ProgramKind = Literal["script", "module", "function", "capture", "trace", "bench"]
# A compile's outcome: "skipped" when torch kept no code (has_guarded_code false), "unknown" when
# the trace ended before torch reported on it.
CompileStatus = Literal["ok", "graph break", "failed", "empty graph", "skipped", "unknown"]


@dataclass
class Environment:
    python: str | None = None
    torch: str | None = None
    device: str | None = None  # "cpu (…)" or the CUDA device's name
    compiler: str | None = None  # the C++ compiler Inductor uses
    platform: str | None = None
    threads: int | None = None
    cuda: str | None = None
    triton: str | None = None
    # Dynamo's settings findings advise on, as the program ended (name -> repr of the value);
    # a setting this torch lacks is absent. None: not recorded (Dynamo never loaded, a trace
    # from elsewhere).
    dynamo_config: dict[str, str] | None = None
    # The versions of the top-level packages the program loaded ({"transformers": "5.24.0"}),
    # as the program ended; None: not recorded
    libraries: dict[str, str] | None = None


@dataclass
class Program:
    """What ran: a script, a module, a function; how it ended."""

    kind: ProgramKind
    target: str  # the script's path, module name, function name or trace path
    argv: list[str] = field(default_factory=list)
    exit_status: int | None = None  # None while running, or when not known
    exception: str | None = None  # "ValueError: ..." when the program raised
    wall_time_s: float | None = None


@dataclass
class GraphNode:
    op: str  # placeholder, call_function, call_method, call_module, get_attr, output
    name: str
    target: str | None = None  # as written in the graph code: "torch.relu", "+", "sum"
    shape: str | None = None  # "f32[8, 64]"
    source: str | None = None  # the user's line it came from: "/path/m.py:13  return torch.relu(...)"


@dataclass
class Graph:
    """A graph Dynamo captured (FX), from the `dynamo_output_graph` record."""

    ops: list[str]  # call targets as torch names them: "linear", "add", "relu"
    nodes: list[GraphNode]
    code: str = ""


@dataclass
class Guard:
    """One check that must pass before a compiled version is reused."""

    source: str | None  # what is checked: "L['x']", "G['torch']", or None for global state
    kind: str  # torch's name: TENSOR_MATCH, ID_MATCH, GLOBAL_STATE, ...
    text: str  # torch's own text of the check
    plain: str  # the same in plain words
    user_code: str | None = None  # the line of user code that made torch add it
    dtype: str | None = None
    device: str | None = None
    size: list[int | None] | None = None  # None in a dimension means dynamic
    stride: list[int | None] | None = None
    requires_grad: bool | None = None


@dataclass
class FailedGuard:
    """Why a compiled version was not reused: the guard that failed, from the recompile reason."""

    text: str  # verbatim: "tensor 'x' size mismatch at index 0. expected 8, actual 16"
    previous_compile: str | None = None  # the compile id whose guard failed ("0/0")
    subject: str | None = None  # "x"
    what: str | None = None  # "size mismatch at index 0"
    expected: str | None = None
    actual: str | None = None  # None where torch does not say (value guards)
    user_code: str | None = None  # the user's line that made torch add the guard
    filename: str | None = None
    lineno: int | None = None


@dataclass
class GraphBreak:
    reason: str  # one line, torch's own words
    explanation: str | None = None
    hint: str | None = None
    filename: str | None = None
    lineno: int | None = None
    function: str | None = None
    code: str | None = None  # the user's source line
    resume_function: str | None = None  # the function Dynamo made to continue after the break
    url: str | None = None
    text: str = ""  # torch's full message
    context: list[str] = field(default_factory=list)  # source lines around the break, if verified
    context_start: int | None = None  # line number of context[0]
    # The user's own line that led into the break, where the break itself is in a library's
    # code (torch, transformers, Python's): the last frame of the user's code in torch's traceback
    user_filename: str | None = None
    user_lineno: int | None = None
    user_function: str | None = None
    user_code: str | None = None


@dataclass
class DynamicShape:
    """A dynamic-shape decision: a symbol made, a dimension made dynamic, a specialization."""

    kind: str  # "symbol", "unbacked symbol", "automatic dynamic", "specialization", "guard"
    symbol: str | None = None  # "s77"
    source: str | None = None  # "L['x'].size()[0]"
    value: str | None = None  # the example value it was made from, or the value it was fixed to
    range: str | None = None  # "[2, int_oo]"
    reason: str | None = None
    filename: str | None = None
    lineno: int | None = None
    code: str | None = None


@dataclass
class AotGraph:
    ops: list[str]  # ATen overloads in order: "aten.addmm.default"
    code: str = ""


@dataclass
class Aot:
    forward: AotGraph | None = None
    backward: AotGraph | None = None
    inference: AotGraph | None = None


@dataclass
class DdpPiece:
    """One piece of a graph that DDPOptimizer split at DDP's gradient-bucket boundaries (its
    `optimize_ddp_split_child` record). Each piece is compiled on its own, so that the bucket
    of its parameters' gradients can be all-reduced while the backward of the pieces before it
    still runs."""

    name: str  # "submod_0"
    ops: list[str]  # call targets as torch names them, as in Graph.ops
    parameters: int | None = None  # the parameter tensors it takes (gradients in its bucket)
    parameter_bytes: int | None = None  # their size, from their shapes and dtypes


@dataclass
class Kernel:
    name: str  # "cpp_fused_add_relu_0", "triton_poi_fused_add_0", or a library call "mm"
    kind: str  # "cpp", "triton", "library call", "aten fallback", "template"
    aten_ops: list[str] | None  # the ATen ops it was made from; None if torch did not say
    aten_ops_from: str | None = None  # "comment" (Inductor's own) or "kernel name"
    source_nodes: list[str] | None = None
    code: str = ""  # the kernel's generated source; empty for library calls
    call: str | None = None  # the line in the wrapper that runs it
    source_lines: list[str] = field(default_factory=list)  # the user's lines it came from: "file.py:12  code"
    num_gb: float | None = None  # Inductor's estimate of the bytes it moves (benchmark_kernel only)
    flop: float | None = None  # Inductor's estimate of its floating-point operations


@dataclass
class Autotuning:
    """What max-autotune chose for one operation of a graph, as torch's autotuning reported it
    (its `autotune_choices_stats`, in the `<op>_template_autotuning` timing event)."""

    op: str  # "mm", "addmm", "convolution"
    choices: int | None = None  # how many were benchmarked
    triton_choices: int | None = None
    best: str | None = None  # the kernel chosen: "extern_mm", "triton_mm_5"
    best_ms: float | None = None  # its benchmarked time
    best_triton: str | None = None  # the fastest Triton template, where a library kernel won
    best_triton_ms: float | None = None


@dataclass
class CompileTime:
    """Seconds by stage, from torch's compilation_metrics; None where torch did not say."""

    total_s: float | None = None
    dynamo_s: float | None = None  # tracing Python bytecode into a graph
    aot_autograd_s: float | None = None
    inductor_s: float | None = None  # lowering and scheduling
    codegen_s: float | None = None  # generating C++/Triton (compiling it, when measured, is below)
    kernel_compile_s: float | None = None  # the C++/Triton compiler, from torch's compile_file events
    backward_s: float | None = None  # compiling the backward graph, when it was done lazily
    from_cache_s: float | None = None  # AOT Autograd + Inductor, when the graph came from the cache
    cache_saved_s: float | None = None  # torch's estimate of the compile time the cache saved


@dataclass
class CacheUse:
    fx_graph_hits: int | None = None
    fx_graph_misses: int | None = None
    aot_autograd_hits: int | None = None
    aot_autograd_misses: int | None = None
    remote_hits: int | None = None  # in the remote caches (FX graph and AOT Autograd together)
    remote_misses: int | None = None
    lookups: list[CacheLookup] = field(default_factory=list)  # each look in a cache (session/caches.py)


@dataclass
class CallTimes:
    """The calls one compiled version served (or that ran a function's original code), as
    `compilescope run` recorded them: host time per call, from its first to its last instruction,
    including what it calls."""

    calls: int
    total_ms: float
    median_us: float | None = None
    iqr_us: list[float] | None = None  # first and third quartile
    raised: int = 0  # calls that ended in an exception
    sampled: int | None = None  # how many calls the median and IQR come from (a uniform sample)


@dataclass
class DecompiledCode:
    """A code object read back as Python by compilescope's decompiler (issue: `run --decompile`)."""

    source: str  # valid Python in every case
    complete: bool  # False: what the decompiler did not understand is shown as annotated bytecode
    note: str | None = None  # what stopped it, where
    verified: bool | None = None  # compiled again, it does what the bytecode does (None: not checked, an older run)
    difference: str | None = None  # where not: in what it differs (decompiler/verify.py)
    made_by_dynamo: bool = False  # Dynamo's own code (transformed, resume): unverified, it is a reading aid, not wrong


@dataclass
class Compile:
    compile_id: str
    status: CompileStatus
    recompile_reason: list[str] | None = None  # None for a first compile
    failed_guards: list[FailedGuard] = field(default_factory=list)
    failure: str | None = None  # "UserError: ..." when the compile failed
    failure_filename: str | None = None
    failure_lineno: int | None = None
    failure_code: str | None = None  # the user's source line torch blamed
    failure_hints: list[str] = field(default_factory=list)  # torch's own "Hint:" lines, verbatim
    restarts: list[str] = field(default_factory=list)
    graph_breaks: list[GraphBreak] = field(default_factory=list)
    graphs: list[Graph] = field(default_factory=list)
    op_count: int | None = None
    guards: list[Guard] = field(default_factory=list)
    guard_count: int | None = None  # torch's own count
    guard_latency_us: float | None = None
    guards_text: str = ""
    dynamic: list[DynamicShape] = field(default_factory=list)
    aot: Aot = field(default_factory=Aot)
    kernels: list[Kernel] = field(default_factory=list)
    inductor_code: str = ""
    compile_time_s: float | None = None  # the whole compile: time.total_s + time.backward_s
    # Why CUDA graphs were not used for this graph under mode="reduce-overhead" (torch's words,
    # from its compilation metrics); None: used, not asked for, or torch did not say
    cudagraph_skip_reason: str | None = None
    # Whether this graph ran under CUDA graphs (mode="reduce-overhead"): True where torch
    # recorded one for it or gave them up for it (a skip reason), or its Inductor settings ask
    # for them; None: torch did not say (not asked, no Inductor, or an older torch)
    cudagraphs: bool | None = None
    # How many times torch recorded a CUDA graph for it (its compilation_metrics_runtime
    # records): more than one means re-recordings (new shapes, a new path in the tree)
    cudagraph_recordings: int | None = None
    autotuning: list[Autotuning] = field(default_factory=list)  # max-autotune's choices, per operation
    # The pieces DDPOptimizer split the graph into at DDP's bucket boundaries; empty: not split
    ddp_pieces: list[DdpPiece] = field(default_factory=list)
    # The collectives Inductor scheduled in the graph, in order ("torch.ops._c10d_functional
    # .all_reduce_.default"), from its inductor_collective_schedule record; None: none recorded
    collectives: list[str] | None = None
    time: CompileTime = field(default_factory=CompileTime)
    cache: CacheUse = field(default_factory=CacheUse)
    passes: list[PassStage] = field(default_factory=list)  # Inductor's graphs around its passes (session/passes.py)
    called_from: list[str] = field(default_factory=list)  # user frames: "file:line in fn"
    call_code: str | None = None  # the source of the last of them, as torch quoted it: "step(ids)"
    records: list[int] = field(default_factory=list)  # trace lines this compile came from
    calls: CallTimes | None = None  # the calls this version served; None: not recorded
    # Dynamo's code for this version (it checks nothing: the guard ran before it), as Python;
    # None: not recorded (a trace from elsewhere, or torch without bytecode hooks)
    transformed_code: DecompiledCode | None = None
    original_code: DecompiledCode | None = None  # the code Dynamo compiled this version from
    # the names that code calls: resume functions (global name -> function name) and graphs
    resume_functions: dict[str, str] = field(default_factory=dict)
    compiled_graphs: list[str] = field(default_factory=list)
    # a resume function's global names, as transformed code calls it: ["__resume_at_102_2"]
    called_as: list[str] = field(default_factory=list)
    # The function, as users know it, this version was compiled for ("WhisperModel.forward"). It
    # can differ between versions of one frame: a decorator's inner function is one code object
    # for every function it wraps, a method one for every class that inherits it (named by the
    # object's class), and Dynamo keeps versions per code object. None: not recorded (as
    # transformed_code).
    for_function: str | None = None
    runnable: list[str] = field(default_factory=list)  # Inductor's input graphs as torch's scripts (fx_graph_runnable)
    accuracy: list[GraphAccuracy] = field(default_factory=list)  # run --check-accuracy's, per graph; empty: not checked


@dataclass
class Frame:
    """One Python function Dynamo compiled, with each version it compiled of it."""

    name: str
    filename: str | None
    lineno: int | None
    compiles: list[Compile] = field(default_factory=list)
    resumes: str | None = None  # for a resume function: "forward" line 9, the break it continues
    # Calls that ran the function's original code: called outside torch.compile, or Dynamo fell
    # back to it. None: not recorded.
    calls_without_compiled_code: CallTimes | None = None
    # Which version served the calls, in order, as runs: [["0/0", 2], ["0/1", 40], ["no compiled
    # code", 1]]; cut off after 1000 runs (call_order_cut).
    call_order: list[list[str | int]] = field(default_factory=list)
    call_order_cut: bool = False
    # The name users know: "GPT2LMHeadModel.forward", "CausalLMOutput.__init__" (the code's
    # qualified name, or the class of the object it ran on); None: not recorded
    qualname: str | None = None
    # For a decorator's inner function Dynamo compiled (transformers' `wrapper`), or torch's own
    # wrapper of a compiled module: the function it wraps ("GPT2LMHeadModel.forward")
    wraps: str | None = None
    # Its parameters as its `def` writes them (["self", "x", "*args", "**kwargs"]), from the
    # code Dynamo compiled; None: not recorded
    parameters: list[str] | None = None
    # For a module compiled whole through torch's wrapper (`inner`, in torch's files): the user's
    # torch.compile call of it ("train.py:15"), the place to name instead of torch's file
    compiled_at: str | None = None

    @property
    def place(self) -> str | None:
        """Where the function is, for the user: its file and first line, or, for torch's wrapper
        of a module compiled whole, the user's torch.compile call of the module."""
        if self.compiled_at:
            return self.compiled_at
        if self.filename is None:
            return None
        return f"{self.filename}:{self.lineno}" if self.lineno is not None else self.filename

    @property
    def is_resume(self) -> bool:
        return self.name.startswith("torch_dynamo_resume_in_")

    @property
    def shared_by(self) -> list[str]:
        """The functions its versions were compiled for, each once, where there are several (its
        code is a decorator's wrapper, or a method classes inherit, shared by them); else []."""
        functions = list(dict.fromkeys(c.for_function for c in self.compiles if c.for_function))
        return functions if len(functions) > 1 else []

    @property
    def known_as(self) -> str:
        """The function as users know it: "GPT2LMHeadModel.forward" (also for a decorator's
        wrapper of it), "Twice.forward", "f (after line 6)" for the code after a graph break,
        or Dynamo's name where nothing better was recorded."""
        if self.is_resume and self.resumes:
            function, _, line = self.resumes.rpartition(" line ")
            return f"{function} (after line {line})"
        if self.wraps:
            return self.wraps
        if self.qualname and "<locals>" not in self.qualname and not self.is_resume:
            return self.qualname
        return self.name

    @property
    def label(self) -> str:
        """known_as, and the wrapper Dynamo compiled where it compiled one:
        "GPT2LMHeadModel.forward (through transformers' `wrapper`)"."""
        if self.wraps and self.compiled_at:  # torch's wrapper of a module compiled whole: the module is what the user knows
            return self.wraps
        if self.wraps:
            return self._through(self.wraps)
        return self.known_as

    def label_of(self, version: Compile) -> str:
        """label, for one version: where its code is shared, the function that version was
        compiled for ("WhisperDecoderLayer.forward (through transformers' `forward_with_checkpointing`)")."""
        if self.shared_by and version.for_function:
            return self._through(version.for_function) if self.wraps else version.for_function
        return self.label

    @property
    def code_name(self) -> str:
        """The code Dynamo compiled, and whose it is: "transformers' `wrapped_func`", or
        "`wrapper`" for the user's own."""
        from compilescope.session.places import library

        owner = library(self.filename)
        whose = f"{owner}' " if owner and owner.endswith("s") else f"{owner}'s " if owner else ""
        return f"{whose}`{self.name}`"

    def _through(self, function: str) -> str:
        return f"{function} (through {self.code_name})"


@dataclass
class Session:
    schema: str = SCHEMA
    environment: Environment = field(default_factory=Environment)
    program: Program | None = None
    frames: list[Frame] = field(default_factory=list)
    trace_files: list[str] = field(default_factory=list)
    rank: int | None = None
    # When the trace's first record was written, as torch's log header says it ("1202
    # 11:20:09.416000": month, day, local time; no year); None: not a trace
    started: str | None = None
    skipped: list[str] = field(default_factory=list)  # what could not be read, and why
    compilescope_version: str | None = None
    benchmarks: list[Benchmark] = field(default_factory=list)  # from compilescope bench
    profile: Profile | None = None  # from compilescope run --profile
    calls_recorded: str | None = None  # how calls per compiled version were recorded, or why not
    decompiled: str | None = None  # how Dynamo's code was read back ("in N s"), or why not
    # The program's Python child processes (compilescope run); None: not followed (a capture()
    # block, a trace from elsewhere, run --no-children)
    children: list[ChildProcess] | None = None
    # What `compilescope run --try` set before the program compiled (record/fixes.py's words);
    # None: nothing was set
    fixes: list[str] | None = None
    # compilescope's own hooks inside torch's compile that failed (they never fail the compile):
    # "counting calls for 0/1 (forward) failed: KeyError: 'x' (calls.py:197 in _on_new_code)"
    capture_problems: list[str] = field(default_factory=list)
    # The modules the program gave to torch.compile; None: not recorded (a trace from elsewhere)
    compiled_modules: list[CompiledModule] | None = None
    # Where what the session holds is only part of its run (a trace that ends inside a compile, a
    # run's program that did not finish); None: nothing says so
    incomplete: Incomplete | None = None
    # The parts of the caches' keys every graph's key shares (configs, versions); each
    # CacheLookup keeps its own (session/caches.py)
    cache_key_shared: list[KeyPart] = field(default_factory=list)
    # The earlier run of the same program this one was compared with (`run` beside its saved
    # session); None: none was found
    earlier_run: EarlierRun | None = None
    timeline: Timeline | None = None  # torch's timing events as spans (session/timeline.py); None: none in the trace
    accuracy: AccuracyChecks | None = None  # run --check-accuracy's checks as a whole; None: not asked for
    # The program's memory as it ended (`compilescope run`: session/memory.py); None: not measured
    # (a trace from elsewhere, a capture() block, a session saved before it)
    memory: ProgramMemory | None = None

    # ---- derived views, not stored -------------------------------------------------------
    @property
    def compiles(self) -> list[Compile]:
        return [c for f in self.frames for c in f.compiles]

    @property
    def recompiles(self) -> list[Compile]:
        return [c for c in self.compiles if c.recompile_reason]

    @property
    def graph_breaks(self) -> list[GraphBreak]:
        return [b for c in self.compiles for b in c.graph_breaks]

    @property
    def kernels(self) -> list[Kernel]:
        return [k for c in self.compiles for k in c.kernels]

    @property
    def graph_count(self) -> int:
        return sum(len(c.graphs) for c in self.compiles)

    @property
    def total_compile_time_s(self) -> float | None:
        times = [c.compile_time_s for c in self.compiles if c.compile_time_s is not None]
        return sum(times) if times else None

    def frame(self, name: str) -> Frame:
        """The first frame of that function name (KeyError if none)."""
        for frame in self.frames:
            if frame.name == name:
                return frame
        raise KeyError(f"no compiled frame named {name!r}; frames: {[f.name for f in self.frames]}")

    def find_compile(self, compile_id: str) -> Compile:
        for compile_ in self.compiles:
            if compile_.compile_id == compile_id:
                return compile_
        raise KeyError(compile_id)

    # ---- saving, explaining and showing: the JSON writer (which imports this model), the
    # findings and the renderers are given to it (compilescope/views.py; registered
    # by compilescope/_views.py) ------------------------------------------------------------------
    def to_json(self, found: list | None = None) -> str:
        """The session as JSON, with its findings (`found`, where the caller has them)."""
        return view("json")(self, self.explain() if found is None else found)

    def save(self, path: str, found: list | None = None) -> None:
        """Save the session as JSON, with its findings (`found`, where the caller has them)."""
        view("save_json")(self, path, self.explain() if found is None else found)

    def explain(self) -> list:
        """The findings: one per cause, ranked by what they cost (findings/rules.py)."""
        return view("findings")(self)

    def show(self, **options) -> None:
        view("show")(self, **options)

    def to_html(self) -> str:
        """The self-contained HTML report."""
        return view("html")(self)

    def save_html(self, path: str) -> None:
        view("write_html")(self, path)

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, str]:
        # Jupyter shows the report (in an iframe) with the terminal text as the fallback.
        return view("notebook")(self)

    def __str__(self) -> str:
        return view("text")(self)

    def __repr__(self) -> str:
        return (
            f"<compilescope.Session {len(self.frames)} frames, {len(self.compiles)} compiles, "
            f"{len(self.graph_breaks)} graph breaks, {len(self.kernels)} kernels>"
        )
