"""What a run's capture learned about the program around its compiles: its child processes, the
modules it gave to torch.compile, and whether the session holds the whole run. Part of the
Session model (session/model.py imports them: import them from there)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ChildProcess:
    """A Python process the program started, and what torch.compile did in it (compilescope run
    follows the program's children; record/child.py says how)."""

    pid: int | None  # None: it never said (it was not followed)
    parent_pid: int | None
    command: str  # its command line, shortened, or what it is: "multiprocessing worker (spawn)"
    how: str  # "started" (a new Python: spawn, forkserver, subprocess, exec) or "forked"
    followed: bool
    why_not: str | None = None  # why it was not followed, or what is missing of it
    trace: str | None = None  # its own trace, where it compiled anything
    rank: int | None = None  # the rank a launcher gave it (RANK)
    functions: int = 0
    compiles: int = 0
    recompiles: int = 0
    graph_breaks: int = 0
    kernels: int = 0
    compile_time_s: float | None = None


@dataclass
class MethodCall:
    """A line of the program that calls a method of a compiled module's class other than forward
    on the compiled module (`model.generate(x)`), as its source reads."""

    method: str  # "generate"
    filename: str | None = None
    lineno: int | None = None
    code: str | None = None  # the line: "tokens = model.generate(idx, max_new_tokens=5)"
    name: str | None = None  # the name the compiled module is called by there: "model"


@dataclass
class CompiledModule:
    """A module the program gave to torch.compile (torch.compile(module) wraps it in an
    OptimizedModule), as compilescope run saw it made (record/modules.py)."""

    module: str  # its class: "TinyLM", "Sequential"
    forward_filename: str | None = None  # where its forward is defined
    forward_lineno: int | None = None
    compiled_from: list[str] = field(default_factory=list)  # the user's frames of the torch.compile call: "file:line in fn"
    compile_code: str | None = None  # the last of them: "model = torch.compile(model)"
    methods: list[str] = field(default_factory=list)  # the class's own public methods besides forward
    method_calls: list[MethodCall] = field(default_factory=list)  # the program's calls of them on the compiled module
    # compiled in place by `module.compile()` (no OptimizedModule; where it was called is not
    # known): recorded only where Dynamo compiled no frame at all (record/modules.py)
    in_place: bool = False


@dataclass
class Incomplete:
    """What says a session holds only part of its run: its trace ends inside a compile (the
    process was killed, or died, while torch compiled), or `compilescope run`'s trace of its
    program has no record of the program's end (killed before it ended). Every view leads with
    `reason`; `compilescope check` fails on it unless --allow-incomplete."""

    reason: str  # the sentence each view leads with: "the run stopped during compile 0/0; what follows is partial"
    compile_id: str | None = None  # the compile the trace ends inside ("0/0"); None: it ends outside one
    # False: `compilescope run` wrote this trace for its program, and no end of the program was
    # recorded; None: not such a trace (a TORCH_TRACE from elsewhere, a capture() block, a child
    # process), where no end is recorded by design
    program_finished: bool | None = None


def incomplete_reason(compile_id: str | None, program_finished: bool | None) -> str:
    """The sentence for Incomplete.reason."""
    parts = []
    if compile_id is not None and program_finished is True:  # its end was recorded: a thread was still compiling
        parts.append(f"the program ended during compile {compile_id} (in a thread still compiling?)")
    elif compile_id is not None:
        parts.append(f"the run stopped during compile {compile_id}")
    if program_finished is False:
        parts.append("the program did not finish (no end was recorded: killed?)")
    return " and ".join(parts) + "; what follows is partial"
