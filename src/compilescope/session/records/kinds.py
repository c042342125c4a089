"""Which record kinds build a Session, and which family reads each: the one table, KINDS.

Each record family's module (dynamo.py, aot.py, inductor.py, distributed.py, times.py,
caches.py, calls.py, program.py, memory.py, passes.py, accuracy.py) names the kinds it reads in its
HANDLERS; KINDS is all of them, each kind claimed by one family (two that claim one kind fail
at import). A record of a kind that is not here (torch writes many more, and will write
others) is passed over: nothing is learned from it, and nothing is guessed.
"""

from __future__ import annotations

from compilescope.session.records.accuracy import HANDLERS as ACCURACY
from compilescope.session.records.aot import HANDLERS as AOT
from compilescope.session.records.caches import HANDLERS as CACHES
from compilescope.session.records.calls import HANDLERS as CALLS
from compilescope.session.records.distributed import HANDLERS as DISTRIBUTED
from compilescope.session.records.dynamo import HANDLERS as DYNAMO
from compilescope.session.records.inductor import HANDLERS as INDUCTOR
from compilescope.session.records.memory import HANDLERS as MEMORY
from compilescope.session.records.passes import HANDLERS as PASSES
from compilescope.session.records.program import HANDLERS as PROGRAM
from compilescope.session.records.state import BuildState, Handler
from compilescope.session.records.times import HANDLERS as TIMES
from compilescope.session.records.values import short
from compilescope.trace.reader import Record

FAMILIES: dict[str, dict[str, Handler]] = {
    "dynamo": DYNAMO,
    "aot": AOT,
    "inductor": INDUCTOR,
    "distributed": DISTRIBUTED,
    "times": TIMES,
    "caches": CACHES,
    "calls": CALLS,
    "program": PROGRAM,
    "memory": MEMORY,
    "passes": PASSES,
    "accuracy": ACCURACY,
}


def merged(families: dict[str, dict[str, Handler]]) -> dict[str, Handler]:
    """The families' handlers in one table, refusing a kind that two of them claim."""
    kinds: dict[str, Handler] = {}
    claimed: dict[str, str] = {}
    for family, handlers in families.items():
        for kind, handler in handlers.items():
            if kind in claimed:
                raise ValueError(f"record kind {kind!r} is read by two families: {claimed[kind]} and {family}")
            claimed[kind] = family
            kinds[kind] = handler
    return kinds


KINDS: dict[str, Handler] = merged(FAMILIES)

# Kinds torch 2.13 writes (trace_structured and dtrace_structured's names, and the few it names
# through a variable) that no family reads, and why: what compilescope shows comes from the kinds in KINDS instead.
PASSED_OVER = {
    "str": "a file name torch interns: the reader keeps it (trace/reader.py)",
    "artifact": "an artifact the reader could not name (its name is its kind)",
    "describe_tensor": "the fake tensors Dynamo made for the inputs: the guards and symbols say what matters of them",
    "describe_storage": "the storage of those fake tensors",
    "describe_source": "where those fake tensors came from",
    # (saved-tensor hooks: the graphs before the hooks were applied; named through a function)
    "aot_forward_graph_pre_saved_tensors_hooks": "the forward graph before saved-tensor hooks were applied",
    "aot_backward_graph_pre_saved_tensors_hooks": "the backward graph before saved-tensor hooks were applied",
    "aot_forward_graph_pre_assert_saved_tensors_hooks": "the forward graph before saved-tensor hooks were checked",
    "aot_backward_graph_pre_assert_saved_tensors_hooks": "the backward graph before saved-tensor hooks were checked",
    "bwd_compilation_metrics_runtime": "runtime metrics of a backward compile (compilation_metrics_runtime is read)",
    "optimize_ddp_split_graph": "DDPOptimizer's graph whole: each of its pieces is read (optimize_ddp_split_child)",
    "compiled_autograd_graph": "compiled autograd's graph",
    "dynamo_guards": "Dynamo's guards as a list: the guard tree (dynamo_cpp_guards_str) is read",
    "guard_added": "a guard as it was added: the guard tree is read",
    "expression_created": "a symbolic expression as it was made",
    "guard_on_data_dependent_error": "a guard on a data-dependent value that failed: the graph break says it",
    "propagate_real_tensors": "real tensors run to learn data-dependent sizes",
    "propagate_real_tensors_provenance": "where those sizes came from",
    "graph_dump": "a graph dumped on request",
    "dump_file": "a source file dumped on request",
    "link": "a link to a file written elsewhere",
    "export": "torch.export's records (not torch.compile)",
    "exported_program": "torch.export's program (not torch.compile)",
    "missing_fake_kernel": "a custom op without a fake kernel",
    "mismatched_fake_kernel": "a custom op whose fake kernel disagrees with its real one",
}


UNKNOWN_KINDS_NAMED = 100
OTHER_UNKNOWN_KINDS = "(other kinds)"


def add(state: BuildState, record: Record) -> None:
    """Read one record into the state, by its kind (one lookup in KINDS: this runs per record)."""
    if record.rank is not None and state.session.rank is None:
        state.session.rank = record.rank
    if state.session.started is None:
        state.session.started = record.written
    handler = KINDS.get(record.kind)
    if handler is None:
        if not record.is_artifact and record.kind not in PASSED_OVER:
            # (by name up to UNKNOWN_KINDS_NAMED: a damaged log may hold any number of names)
            named = record.kind in state.unknown_kinds or len(state.unknown_kinds) < UNKNOWN_KINDS_NAMED
            kind = record.kind if named else OTHER_UNKNOWN_KINDS
            state.unknown_kinds[kind] = state.unknown_kinds.get(kind, 0) + 1
    else:
        try:
            handler(state, record)
        except Exception as error:  # a record in a shape we do not know: say so, go on
            state.skip(f"line {record.line}: could not read {short(record.kind)!r} ({type(error).__name__}: {short(str(error))})")
