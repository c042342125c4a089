"""A runnable repro of one compile, as the text of a standalone script (`compilescope repro`,
`run --decompile DIR`).

The script is built from what the trace recorded, never from the user's program or data: each
graph Inductor was given as torch's own script (`fx_graph_runnable`, whose `load_args` names
every input's size, stride, dtype and device, with symbolic sizes at their recorded hints), or,
where there is none (backends other than Inductor, or a torch that does not write it), Dynamo's
graph with the inputs its signature annotates ("f32[8, 32][32, 1]cpu", "Sym(s77)") and the
values torch recorded for its symbols. The script makes seeded random inputs of those shapes,
runs each graph eagerly and through torch.compile with the backend and mode the trace shows,
and prints both times and whether the results match. This module imports no torch: the script
does, when it is run.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from compilescope.session.model import Compile, Session

_TENSOR = re.compile(r"^(?P<dtype>[a-z]+\d*(?:e\d+m\d+\w*)?)\[(?P<shape>[^\]]*)\]\[(?P<stride>[^\]]*)\](?P<device>[a-z]+(?::\d+)?)$")
_SYM = re.compile(r"^Sym\((?P<expr>[^)]*)\)$")
_SIGNATURE = re.compile(r"def forward\((?P<args>.*?)\)\s*(?:->[^:]*)?:\s*$", re.S | re.M)
_PARAMETER = re.compile(r"(?P<name>\w+)\s*(?::\s*\"(?P<type>[^\"]*)\")?")
_SYMINT = re.compile(r"reader\.symint\((?P<value>-?\d+), expr='(?P<name>[A-Za-z_]\w*)'\)")
_UNSUPPORTED = re.compile(r"reader\.unsupported\((?P<name>[^)]*)\)")
# torch's script points Inductor's cache at the recording machine's folder: the repro keeps its own
_CACHE_DIR = re.compile(r"^os\.environ\['TORCHINDUCTOR_CACHE_DIR'\] = .*$", re.M)
DTYPES = {
    "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
    "c32": "complex32", "c64": "complex64", "c128": "complex128",
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64", "b8": "bool",
    "f8e4m3fn": "float8_e4m3fn", "f8e5m2": "float8_e5m2", "f8e4m3fnuz": "float8_e4m3fnuz", "f8e5m2fnuz": "float8_e5m2fnuz",
}  # fmt: skip


class CannotRepro(ValueError):
    """Why no script can be written for this compile: the sentence the user is told."""


@dataclass
class Backend:
    name: str  # as torch.compile takes it: "inductor", "aot_eager", "eager"
    mode: str | None  # torch.compile's mode; None: the default
    why: str  # which records say so


@dataclass
class GraphToRun:
    kind: str  # "runnable" (torch's fx_graph_runnable) or "dynamo" (Dynamo's graph)
    code: str
    symbols: dict[str, int] = field(default_factory=dict)  # the recorded hint of each symbolic size
    inputs: list[tuple[object, ...]] = field(
        default_factory=list
    )  # for "dynamo": ("tensor", name, dtype, shape, stride, device) or ("int", name, value)
    # the inputs (by position) that are an attention backward's dropout seed and offset, by the
    # attention's kind ("efficient", "flash"): see _attention_seeds
    seeds: dict[str, list[int]] = field(default_factory=dict)


def compiled_with(c: Compile) -> Backend:
    """The backend and mode a compile ran through, from which records the trace holds (torch
    records no backend name)."""
    if c.runnable or c.inductor_code or c.kernels:
        mode, why = None, "no CUDA graphs or autotuning recorded"
        if c.cudagraphs:
            mode, why = "reduce-overhead", "CUDA graphs recorded"
        elif c.autotuning:
            mode, why = "max-autotune", "autotuning recorded"
        return Backend("inductor", mode, f"the trace holds Inductor's code for this compile; {why}")
    if c.aot.forward or c.aot.backward or c.aot.inference:
        return Backend(
            "aot_eager",
            None,
            "the trace holds AOT Autograd's graphs and no Inductor code (aot_eager, or a backend of its own after AOT Autograd)",
        )
    return Backend("eager", None, "the trace holds Dynamo's graph alone (backend eager, or a backend of its own)")


def graphs_to_run(session: Session, c: Compile) -> list[GraphToRun]:
    """The graphs the script runs, or CannotRepro saying why there are none."""
    if c.runnable:
        return [_from_runnable(code) for code in c.runnable]
    if not c.graphs or not any(g.code for g in c.graphs):
        if c.status != "compiled" and not c.graphs:
            raise CannotRepro(f"compile {c.compile_id} made no graph ({c.status})")
        raise CannotRepro(
            f"not in this trace (torch {session.environment.torch or 'unknown'}): compile {c.compile_id}'s graph was not recorded"
        )
    hints = {d.symbol: d.value for d in c.dynamic if d.kind == "symbol" and d.symbol and d.value}
    return [_from_dynamo_graph(g.code, hints, c.compile_id) for g in c.graphs if g.code]


def _from_runnable(code: str) -> GraphToRun:
    unsupported = _UNSUPPORTED.search(code)
    if unsupported:
        raise CannotRepro(
            f"input {unsupported.group('name')} of Inductor's graph is an object torch could not save (reader.unsupported): it cannot be rebuilt"
        )
    symbols = {m.group("name"): int(m.group("value")) for m in _SYMINT.finditer(code)}
    return GraphToRun("runnable", _CACHE_DIR.sub("", code), symbols, seeds=_attention_seeds(code))


# an attention backward op: the kind of attention, and where its dropout seed and offset are
_SEED_ARGUMENTS = {
    "_scaled_dot_product_efficient_attention_backward": ("efficient", (7, 8)),
    "_efficient_attention_backward": ("efficient", (12, 13)),
    "_scaled_dot_product_flash_attention_backward": ("flash", (12, 13)),
    "_flash_attention_backward": ("flash", (12, 13)),
}


def _attention_seeds(code: str) -> dict[str, list[int]]:
    """The graph's inputs (by position) that an attention backward takes as its dropout seed and
    offset. torch's fake tensors, which describe the inputs in fx_graph_runnable, put them on the
    GPU where eager attention puts them on the CPU (torch 2.11, H200): handed GPU ones, the
    backward reads them as CPU memory and the process dies. The script puts them where this
    torch's eager attention does."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return {}
    forward = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "forward"), None)
    if forward is None:
        return {}
    parameters = [a.arg for a in forward.args.args if a.arg != "self"]
    found: dict[str, set[int]] = {}
    for node in ast.walk(forward):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Attribute)):
            continue
        kind, positions = _SEED_ARGUMENTS.get(node.func.value.attr, ("", ()))
        for position in positions:
            argument = node.args[position] if position < len(node.args) else None
            if isinstance(argument, ast.Name) and argument.id in parameters:
                found.setdefault(kind, set()).add(parameters.index(argument.id))
    return {kind: sorted(found[kind]) for kind in sorted(found)}


def _from_dynamo_graph(code: str, hints: dict[str, str], compile_id: str) -> GraphToRun:
    signature = _SIGNATURE.search(code)
    if signature is None:
        raise CannotRepro(f"compile {compile_id}'s graph has no forward(...) to read its inputs from")
    inputs: list[tuple[object, ...]] = []
    symbols: dict[str, int] = {}
    for m in _PARAMETER.finditer(signature.group("args")):
        name, annotation = m.group("name"), m.group("type")
        if name == "self":
            continue
        inputs.append(_input(name, annotation, hints, symbols, compile_id))
    return GraphToRun("dynamo", code, symbols, inputs)


def _input(name: str, annotation: str | None, hints: dict[str, str], symbols: dict[str, int], compile_id: str) -> tuple[object, ...]:
    where = f"input {name} of compile {compile_id}"
    if annotation is None:
        raise CannotRepro(f"{where} has no recorded type: an object that is not a tensor or a number cannot be rebuilt")
    sym = _SYM.match(annotation)
    if sym:
        return ("int", name, _value(sym.group("expr"), hints, symbols, where))
    tensor = _TENSOR.match(annotation)
    if tensor is None:
        raise CannotRepro(f"{where} is {annotation!r}: not a tensor or a size, so it cannot be rebuilt")
    dtype = DTYPES.get(tensor.group("dtype"))
    if dtype is None:
        raise CannotRepro(f"{where} has dtype {tensor.group('dtype')!r}, which compilescope does not know")
    sizes = [_value(d, hints, symbols, where) for d in _dims(tensor.group("shape"))]
    strides = [_value(d, hints, symbols, where) for d in _dims(tensor.group("stride"))]
    return ("tensor", name, dtype, tuple(sizes), tuple(strides), tensor.group("device"))


def _dims(text: str) -> list[str]:
    """ "s77, 32*s77" -> ["s77", "32*s77"] (sizes are expressions; commas only inside calls)"""
    dims, depth, part = [], 0, ""
    for char in text:
        depth += (char == "(") - (char == ")")
        if char == "," and depth == 0:
            dims.append(part.strip())
            part = ""
        else:
            part += char
    return [*dims, part.strip()] if part.strip() else dims


def _value(expr: str, hints: dict[str, str], symbols: dict[str, int], where: str) -> int:
    """A size as a number: its symbols at the values torch recorded for them."""
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError:
        raise CannotRepro(f"{where}: its size {expr!r} could not be read") from None
    return _evaluate(tree.body, hints, symbols, where, expr)


def _evaluate(node: ast.expr, hints: dict[str, str], symbols: dict[str, int], where: str, expr: str) -> int:
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.Name):
        hint = hints.get(node.id)
        if hint is None or not hint.lstrip("-").isdigit():
            unbacked = node.id.startswith("u")
            why = "a data-dependent size (unbacked): torch records no value for it" if unbacked else "torch recorded no value for it"
            raise CannotRepro(f"{where}: its size {expr} uses {node.id}, {why}")
        symbols[node.id] = int(hint)
        return int(hint)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand, hints, symbols, where, expr)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)):
        left, right = (_evaluate(n, hints, symbols, where, expr) for n in (node.left, node.right))
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        return left // right if right else 0
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("Max", "Min") and node.args:
        values = [_evaluate(a, hints, symbols, where, expr) for a in node.args]
        return max(values) if node.func.id == "Max" else min(values)
    raise CannotRepro(f"{where}: its size {expr!r} could not be worked out from the recorded values")


def repro_script(session: Session, c: Compile, function: str, command: str) -> str:
    """The script's text; CannotRepro where none can be written (say why, name the input)."""
    graphs = graphs_to_run(session, c)
    backend = compiled_with(c)
    source = (
        "torch's fx_graph_runnable (the graph Inductor was given)"
        if graphs[0].kind == "runnable"
        else "Dynamo's graph and its annotated inputs"
    )
    env = session.environment
    lines = [
        f"A runnable repro of compile {c.compile_id} ({function}), written by compilescope:",
        f"    {command}",
        f"Recorded by torch {env.torch or 'unknown'} on {env.device or 'an unknown device'}. Built from {source}.",
        "It makes seeded random inputs of the recorded sizes, strides, dtypes and devices, runs each graph",
        f"eagerly and through torch.compile(backend={backend.name!r}, mode={backend.mode!r}) under torch.no_grad()",
        f"(why this backend: {backend.why}), and prints both times and whether the results match.",
        "Exit status: 0 they match, 1 they differ, 2 it could not run, 3 nothing could be compared (each",
        "graph draws random numbers). It runs the graph code the trace recorded: run it only on a trace you trust.",
    ]
    # (names and paths come from the trace and the command line: one line each, as comments)
    header = "".join("# " + "".join(ch if ch.isprintable() else "?" for ch in line) + "\n" for line in lines)
    entries = []
    for graph in graphs:
        entries.append(
            f'    {{"kind": {graph.kind!r}, "symbols": {graph.symbols!r}, "seeds": {graph.seeds!r},\n     "inputs": {graph.inputs!r},\n     "code": {graph.code!r}}},'
        )
    settings = f"BACKEND = {backend.name!r}\nMODE = {backend.mode!r}\nGRAPHS = [\n" + "\n".join(entries) + "\n]\n"
    return header + _SCRIPT.replace("# __SETTINGS__\n", settings)


_SCRIPT = r'''
import math
import operator
import re
import statistics
import sys
import time

import torch

SEED = 0
WARMUP = 3
RUNS = 10
# (rtol, atol) per dtype: compiled code may sum in another order than eager
TOLERANCES = {
    torch.float16: (1e-2, 1e-2), torch.bfloat16: (1.6e-2, 1e-2), torch.float32: (1e-4, 1e-5),
    torch.float64: (1e-7, 1e-7), torch.complex64: (1e-4, 1e-5), torch.complex128: (1e-7, 1e-7),
}
# __SETTINGS__


def random_values(shape, stride, dtype, device, generator):
    """A tensor of `shape` and `stride` over its own storage, filled with seeded random values
    made on the CPU (the same numbers on any device): normal floats, ints 0 or 1 (an index
    stays in range, a mask is a mask), random bools."""
    shape, stride = tuple(int(s) for s in shape), tuple(int(s) for s in stride)
    needed = 1 + sum((size - 1) * step for size, step in zip(shape, stride)) if all(shape) else 0
    if dtype.is_floating_point or dtype.is_complex:
        flat = torch.randn(needed, generator=generator, dtype=torch.float64).to(dtype)
    elif dtype == torch.bool:
        flat = torch.randint(0, 2, (needed,), generator=generator).bool()
    else:
        flat = torch.randint(0, 2, (needed,), generator=generator).to(dtype)
    base = torch.empty_strided((needed,), (1,), dtype=dtype, device=device)
    base.copy_(flat)
    return base.as_strided(shape, stride)


class SeededReader:
    """Stands in for torch's InputReader (torch._dynamo.debug_utils) in fx_graph_runnable's
    load_args: seeded random storages instead of the saved ones, which the trace does not hold."""

    def __init__(self, generator):
        self.generator = generator
        self.args = []

    def storage(self, storage_hash, nbytes, *, device=None, dtype_hint=None):
        dtype = dtype_hint or torch.float32
        count = int(nbytes) // dtype.itemsize
        return random_values((count,), (1,), dtype, torch.device(device or "cpu"), self.generator).untyped_storage()

    def tensor(self, storage, shape, stride=None, *, storage_offset=None, dtype=None, requires_grad=None, is_leaf=None, **metadata):
        shape = tuple(int(s) for s in shape)
        if stride is None:
            stride, step = [], 1
            for size in reversed(shape):
                stride.insert(0, step)
                step *= max(size, 1)
        tensor = torch.tensor([], dtype=dtype or torch.float32, device=storage.device)
        tensor.set_(storage, int(storage_offset or 0), shape, tuple(int(s) for s in stride))
        self.args.append(tensor)
        return tensor

    def symint(self, val, *, expr=None):
        self.args.append(val)
        return val

    def const(self, name):
        self.args.append(None)

    def unsupported(self, name):
        self.args.append(None)


def with_submodules(cls):
    """An instance of a printed graph module, its nested graph classes (a higher-order op's
    body) made its submodules as FX printed them."""
    module = cls()
    for name, value in vars(cls).items():
        if isinstance(value, type) and issubclass(value, torch.nn.Module):
            setattr(module, name, with_submodules(value))
    return module


SEED_DEVICES = {}


def eager_seed_device(kind, device):
    """Where this torch's eager attention ("efficient" or "flash") puts its dropout seed and
    offset when run on `device` (the CPU, outside CUDA graph capture); None where it cannot tell.
    torch's fake tensors say the GPU, and a backward handed GPU ones reads them as CPU memory."""
    if (kind, device) not in SEED_DEVICES:
        state = torch.cuda.get_rng_state(device)
        try:
            if kind == "efficient":
                q = torch.zeros(1, 1, 8, 8, device=device)
                SEED_DEVICES[kind, device] = torch.ops.aten._scaled_dot_product_efficient_attention.default(q, q, q, None, False, 0.5)[2].device
            else:
                q = torch.zeros(1, 1, 8, 8, device=device, dtype=torch.float16)
                SEED_DEVICES[kind, device] = torch.ops.aten._scaled_dot_product_flash_attention.default(q, q, q, 0.5)[6].device
        except Exception:
            SEED_DEVICES[kind, device] = None
        torch.cuda.set_rng_state(state, device)  # (the probe's dropout drew numbers: as if it had not)
    return SEED_DEVICES[kind, device]


def build(graph):
    """The graph's module and a function making its inputs (the same values on each call)."""
    namespace = {"__name__": "compilescope_repro_graph", "torch": torch, "math": math, "operator": operator,
                 "device": torch.device, "inf": math.inf, "nan": math.nan, **graph["symbols"]}
    exec(compile(graph["code"], "<recorded graph>", "exec"), namespace)
    if graph["kind"] == "runnable":
        module = namespace["mod"]

        def inputs():
            reader = SeededReader(torch.Generator().manual_seed(SEED))
            namespace["load_args"](reader)
            for kind, positions in graph.get("seeds", {}).items():
                for position in positions:
                    value = reader.args[position]
                    where = eager_seed_device(kind, value.device) if isinstance(value, torch.Tensor) and value.is_cuda else None
                    if where is not None:
                        reader.args[position] = value.to(where)
            return reader.args
    else:
        module = with_submodules(namespace["GraphModule"])

        def inputs():
            generator = torch.Generator().manual_seed(SEED)
            made = []
            for item in graph["inputs"]:
                if item[0] == "int":
                    made.append(int(item[2]))
                else:
                    _, _, dtype, shape, stride, device = item
                    made.append(random_values(shape, stride, getattr(torch, dtype), torch.device(device), generator))
            return made
    return module, inputs


def synchronize(args):
    for value in args:
        if isinstance(value, torch.Tensor) and value.device.type == "cuda":
            torch.cuda.synchronize(value.device)
            return


def median_ms(function, args):
    for _ in range(WARMUP):
        function(*args)
    times = []
    for _ in range(RUNS):
        synchronize(args)
        start = time.perf_counter()
        function(*args)
        synchronize(args)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def flat(value):
    if isinstance(value, (list, tuple)):
        return [item for part in value for item in flat(part)]
    return [value]


def rng_states(args):
    states = [torch.random.get_rng_state()]
    if any(isinstance(a, torch.Tensor) and a.device.type == "cuda" for a in args):
        states.append(torch.cuda.get_rng_state())
    return states


def draws_random_numbers(call, args):
    """call(), and whether it drew random numbers: whether the CPU's (or the GPU's) random number
    generator moved. Dropout in training does; so does Inductor's graph of it (inductor_seeds)."""
    before = rng_states(args)
    value = call()
    return value, any(not torch.equal(a, b) for a, b in zip(before, rng_states(args)))


def in_float64(args):
    return [a.to(torch.float64) if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args]


def rmse(reference, value):
    return torch.sqrt(torch.mean(torch.square(reference.double() - value.double()))).item()


def difference(expected, actual, reference=None, judge=False):
    """None where the results match; else what differs. Compiled code may round and sum in
    another order than eager: with `judge`, an output that is not close still matches if it is no
    further from a float64 run of the graph (`reference`) than eager is, times a margin, as
    torch's own accuracy checks judge (torch._dynamo.utils.same); where no float64 run could be
    made (`reference` None: an op without float64, as GPU attention), if the root-mean-square of
    its difference from eager is within the dtype's rtol of eager's own (one element wrong by
    its size in a few thousand is not)."""
    expected, actual = flat(expected), flat(actual)
    references = flat(reference) if reference is not None else [None] * len(expected)
    if len(expected) != len(actual):
        return f"{len(expected)} outputs eagerly, {len(actual)} compiled"
    for index, (want, got, exact) in enumerate(zip(expected, actual, references)):
        if not isinstance(want, torch.Tensor):
            if want != got:
                return f"output {index}: {want!r} eagerly, {got!r} compiled"
            continue
        rtol, atol = TOLERANCES.get(want.dtype, (0, 0))
        try:
            torch.testing.assert_close(got, want, rtol=rtol, atol=atol, equal_nan=True, check_stride=False)
        except AssertionError as error:
            said = f"output {index} ({want.dtype}, rtol {rtol}, atol {atol}): " + " ".join(str(error).split())[:300]
            if not (judge and want.is_floating_point() and got.shape == want.shape):
                return said
            if not torch.equal(torch.isnan(got), torch.isnan(want)):
                return said + "; NaN where eager has none, or the other way"
            if isinstance(exact, torch.Tensor) and exact.shape == want.shape:
                eager_error, compiled_error = rmse(exact, want), rmse(exact, got)
                margin = 3.0 if want.dtype in (torch.float16, torch.bfloat16) else 2.0
                if not compiled_error <= margin * eager_error + rtol / 10:
                    return said + f"; root-mean-square distance from a float64 run: compiled {compiled_error:.3g}, eager {eager_error:.3g}"
            else:
                size, off = rmse(torch.zeros_like(want), want), rmse(want, got)
                if not off <= rtol * size:
                    return said + f"; root-mean-square difference {off:.3g}, eager's own {size:.3g} (no float64 run of this graph could be made)"
    return None


def float64_run(graph, inputs):
    """The graph's outputs run in float64 on the same inputs; None where it cannot run so. (Its
    float dtypes made float64, as torch's minifier casts a graph: cast_dtype_args_to_fp64.)"""
    try:
        module, _ = build({**graph, "code": re.sub(r"torch\.(?:float32|float16|bfloat16)\b", "torch.float64", graph["code"])})
        torch.manual_seed(SEED)
        return module.to(torch.float64)(*in_float64(inputs()))
    except Exception:
        return None


def main():
    sys.stdout.reconfigure(line_buffering=True)  # (what ran shows, even if a graph crashes the process)
    differ = unknown = 0
    for number, graph in enumerate(GRAPHS, 1):
        module, inputs = build(graph)
        args = inputs()
        devices = {a.device.type for a in args if isinstance(a, torch.Tensor)}
        if "cuda" in devices and not torch.cuda.is_available():
            print(f"graph {number}: its inputs were on a CUDA device, and this machine has none")
            return 2
        print(f"graph {number} of {len(GRAPHS)}: {len(args)} inputs on {', '.join(sorted(devices)) or 'no device'}, seed {SEED}")
        compiled = torch.compile(module, backend=BACKEND, mode=MODE)
        with torch.no_grad():
            torch.manual_seed(SEED)
            expected, draws = draws_random_numbers(lambda: module(*inputs()), args)
            torch.manual_seed(SEED)
            start = time.perf_counter()
            actual = compiled(*inputs())
            first = time.perf_counter() - start
            eager_ms, compiled_ms = median_ms(module, args), median_ms(compiled, args)
            problem = None if draws else difference(expected, actual)
            if problem is not None:  # (is it rounding? ask a float64 run, as torch does)
                problem = difference(expected, actual, float64_run(graph, inputs), judge=True)
        print(f"  eager     {eager_ms:.3f} ms  (median of {RUNS} runs after {WARMUP} warm-up)")
        print(f"  compiled  {compiled_ms:.3f} ms  (the same; its first call, compiling: {first:.2f} s)")
        if draws:
            unknown += 1
            print("  not compared: the graph draws random numbers (as dropout does in training), and compiled")
            print("  code draws other ones than eager; run the model in eval mode, or without dropout, to compare")
        elif problem is None:
            print("  match")
        else:
            differ += 1
            print(f"  MISMATCH: {problem}")
    compared = len(GRAPHS) - unknown
    if differ:
        print(f"MISMATCH in {differ} of {compared} graphs compared")
        return 1
    if not compared:
        print("not compared: every graph draws random numbers")
        return 3
    print("match" if not unknown else f"match ({compared} of {len(GRAPHS)} graphs compared; the others draw random numbers)")
    return 0


if __name__ == "__main__":
    try:
        status = main()
    except Exception as error:
        print(f"could not run: {type(error).__name__}: {error}", file=sys.stderr)
        status = 2
    sys.exit(status)
'''
