"""How one configuration is measured (runs inside a worker process, or in-process for the API).

Methodology, as the tutorial's benchmark lesson does it and then some:
- eager and compiled take turns call by call, so neither gets a quieter moment of the machine;
- warm-up calls first (compiling, autotuning, CUDA graph recording happen there), then timed
  calls; the median and the interquartile range of each; speedup = eager median / compiled median;
- on CUDA each call is timed with CUDA events and the device is synchronized, since kernels run
  in the background;
- first-call time is the wall time of the first compiled call, which includes compiling; with a
  fresh compile cache folder ("cold") and again in a new process with the filled folder ("warm");
- training = forward, a loss (the model's own where its output carries one, as a Hugging Face
  model given labels does; else the mean of the floating outputs), backward and an SGD step; eager
  and compiled train one model, so its weights are held once, as in the user's program;
- accuracy: compiled against eager on the same inputs and weights, with torch's own comparison
  (torch._dynamo.utils.same) at the tolerances PyTorch's benchmark harness uses.

How a call is timed, the warm-up and the rounds are timing.py's; this module builds the model and
its steps for a configuration, runs them there, and checks accuracy.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from compilescope.benchmark.conditions import cpus, load_average
from compilescope.benchmark.timing import CPU_WARMUP_SECONDS, GPU_WARMUP_SECONDS, Clock, timed_rounds, warm_up
from compilescope.stats import summary


@dataclass
class Config:
    backend: str = "inductor"
    mode: str = "default"  # torch.compile mode; "default" passes none
    training: bool = False
    # "cpu", "cuda", "cuda:1"; or "auto": where make() puts the model and its inputs, found once
    # they are built (`placed`)
    device: str = "cpu"
    # "fp32": as built; "bf16": the model and its floating inputs in bfloat16; "amp": float32
    # weights, the forward and the loss under torch.autocast(bfloat16) (PyTorch's dashboard
    # measures inference in bf16 and training with AMP)
    precision: str = "fp32"

    @property
    def label(self) -> str:
        label = f"{self.backend}/{self.mode}/{'training' if self.training else 'inference'}"
        return label if self.precision == "fp32" else f"{label}/{self.precision}"

    def describe(self) -> dict[str, Any]:
        """The keys every result of this configuration starts with."""
        return {"config": self.label, "backend": self.backend, "mode": self.mode, "training": self.training, "device": self.device}

    def failed(self, why: str) -> dict[str, Any]:
        return {**self.describe(), "error": why}


def _loss(output: Any):
    """What training calls backward on: the model's own loss where its output carries one (a
    Hugging Face model given labels), else the mean of its floating outputs (each output's mean,
    averaged over them), as PyTorch's benchmark harness reduces an output to a loss
    (torch._dynamo.testing.reduce_to_scalar_loss).

    Not a sum: the accuracy check compares this loss at an absolute tolerance too (1e-2 in
    bf16), and where logits cancel, their sum is mostly rounding. LeViT-128's head normalises over
    the batch (batch norm, in training), so its 8 x 1000 logits sum to 0 in exact arithmetic: on a
    CPU the fp32 sum was 0.0000, eager's in AMP -0.039 and compiled's 0.0015, though compiled's
    logits were as close to fp32's as eager's (RMS 0.0044 and 0.0047). On an H200 the two sums
    differed by 0.126, and the check read `fail`.
    Nor the outputs beside a loss that is there: the loss plus the sum of the logits (8 x 128
    tokens x a vocabulary of 32-256k) in bf16 and fp32 differed by 2.5% on a 2-layer Llama, the
    losses alone by 0.002% (most likely why Gemma's AMP training read `fail` on an H200)."""
    import torch

    loss = output.get("loss") if isinstance(output, dict) else getattr(output, "loss", None)
    if isinstance(loss, torch.Tensor) and loss.is_floating_point() and loss.numel() == 1:
        return loss
    return _floating_mean(output)


def _floating_tensors(output: Any) -> list[Any]:
    """The floating tensors of a model's output, in order: a tensor, or those inside its tuples,
    lists, dicts and transformers' ModelOutputs."""
    import torch

    if isinstance(output, torch.Tensor):
        return [output] if output.is_floating_point() else []
    if isinstance(output, dict):
        output = list(output.values())
    if hasattr(output, "to_tuple"):  # transformers' ModelOutput
        output = output.to_tuple()
    if isinstance(output, (list, tuple)):
        return [tensor for part in output for tensor in _floating_tensors(part)]
    return []


def _floating_mean(output: Any):
    tensors = [tensor for tensor in _floating_tensors(output) if tensor.numel()]
    return sum(tensor.float().mean() for tensor in tensors) / len(tensors) if tensors else None


def largest_difference(eager: Any, compiled: Any) -> str | None:
    """By how much a compiled result differs from eager's, in words: the largest difference of
    one value, against the largest value of eager's in that output (the tensor where that ratio
    is largest). None where the two do not pair up tensor for tensor."""
    import torch

    ours, theirs = _floating_tensors(eager), _floating_tensors(compiled)
    pairs = list(zip(ours, theirs))
    if not pairs or len(ours) != len(theirs) or any(a.shape != b.shape for a, b in pairs):
        return None
    worst: tuple[float, float, float] | None = None  # (ratio, difference, eager's largest)
    with torch.no_grad():
        for a, b in pairs:
            if a.numel() == 0:
                continue
            a, b = a.detach().double(), b.detach().double()
            difference = float((a - b).abs().nan_to_num(float("inf")).max())
            largest = float(a.abs().nan_to_num(float("inf")).max())
            ratio = difference / largest if largest > 0 else (0.0 if difference == 0 else float("inf"))
            if worst is None or ratio > worst[0]:
                worst = (ratio, difference, largest)
    if worst is None:
        return None
    ratio, difference, largest = worst
    share = f", {ratio:.2%} of it" if 0 < ratio < float("inf") else ""
    return f"largest difference {difference:.3g}, where eager's largest value is {largest:.3g}{share}"


Inputs = tuple | dict[str, Any]  # positional, or by name
Make = Callable[[], tuple[Any, Inputs]]  # a target's make(): (model or function, its inputs)


def call(model: Any, inputs: Inputs) -> Any:
    """The model on its inputs: positional (a tuple), or by name (a dict: a Hugging Face model's
    input_ids, attention_mask, labels)."""
    return model(**inputs) if isinstance(inputs, dict) else model(*inputs)


def _values(inputs: tuple | dict[str, Any]) -> list[Any]:
    return list(inputs.values()) if isinstance(inputs, dict) else list(inputs)


def _each_input(inputs: Inputs, change: Callable[[Any], Any]) -> Inputs:
    """The inputs with `change` applied to each, positional or by name as they were."""
    if isinstance(inputs, dict):
        return {name: change(value) for name, value in inputs.items()}
    return tuple(change(value) for value in inputs)


def built(make: Make, config: Config) -> tuple[Any, Inputs, Config]:
    """make()'s model and its inputs (one input alone made a tuple), and the configuration on
    the device make() put them on (`placed`)."""
    model, inputs = make()
    if not isinstance(inputs, (tuple, dict)):
        inputs = (inputs,)
    return model, inputs, placed(config, model, inputs)


def _tolerance(model: Any, inputs: tuple | dict[str, Any], training: bool, precision: str = "fp32") -> float:
    import torch

    low = (torch.float16, torch.bfloat16)
    parameters = list(model.parameters()) if isinstance(model, torch.nn.Module) else []
    low_precision = (
        precision != "fp32"
        or any(isinstance(a, torch.Tensor) and a.dtype in low for a in _values(inputs))
        or any(p.dtype in low for p in parameters)
    )
    if low_precision:
        return 1e-2
    return 1e-3 if training else 1e-4


def _fp64_reference(model: Any, inputs: tuple | dict[str, Any]) -> Any:
    """The same call in float64, as PyTorch's harness uses: the compiled result passes if it is
    no further from it than eager is (times a margin). None when a float64 copy cannot run."""
    import torch

    def to64(value: Any) -> Any:
        return value.double() if isinstance(value, torch.Tensor) and value.is_floating_point() else value

    try:
        copy64 = copy.deepcopy(model).double() if isinstance(model, torch.nn.Module) else model
        with torch.no_grad():
            return call(copy64, _each_input(inputs, to64))
    except Exception:
        return None


def _drawing_random_numbers(call: Callable[[], Any], cuda: bool) -> tuple[Any, bool]:
    """`call()`, and whether it drew random numbers: whether the CPU's random number generator,
    or the current GPU's, moved. Dropout does, and so does what no module list names: drop path
    (stochastic depth, a `torch.rand` in the model's own code), LayerDrop, noise."""
    import torch

    def states() -> list[Any]:
        found = [torch.random.get_rng_state()]
        if cuda:
            found.append(torch.cuda.get_rng_state())
        return found

    before = states()
    value = call()
    return value, any(not torch.equal(a, b) for a, b in zip(before, states()))


def _in_bf16(model: Any, inputs: Inputs) -> tuple[Any, Inputs]:
    """The model and its floating inputs in bfloat16 (token ids and labels stay as they are)."""
    import torch

    def cast(value: Any) -> Any:
        return value.to(torch.bfloat16) if isinstance(value, torch.Tensor) and value.is_floating_point() else value

    if isinstance(model, torch.nn.Module):
        model = model.to(torch.bfloat16)
    return model, _each_input(inputs, cast)


def model_step(model: Any, optimizer: Any, inputs: tuple | dict[str, Any], config: Config, update: bool = True) -> Callable[[], Any]:
    """One call of the model as measured: inference, or a training step. `update=False`: the
    step without the optimizer's (the weights stay as they were: the accuracy check's eager call)."""
    import contextlib

    import torch

    def autocast() -> Any:
        if config.precision != "amp":
            return contextlib.nullcontext()
        return torch.autocast(device_type=config.device.split(":")[0], dtype=torch.bfloat16)

    if not config.training:

        def infer() -> Any:
            with torch.no_grad(), autocast():
                return call(model, inputs)

        return infer

    def train() -> Any:
        with autocast():  # the forward and the loss; backward outside, as torch's AMP recipe does
            output = call(model, inputs)
            loss = _loss(output)
        loss.backward()
        if update:
            optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return loss

    return train


class WrongDevice(Exception):
    """make() put the model or its inputs on another device than the one asked for."""


def placed(config: Config, model: Any, inputs: Inputs) -> Config:
    """The configuration on the device make() put the model and its inputs on. With the device
    left as "auto", it is that one: a make() that returns CUDA tensors is measured as CUDA work
    (CUDA events and synchronizes around each call, CUDA memory, the GPU's random numbers), not
    with a CPU clock that sees only the kernels' launches. A device asked for that is not where
    they are is refused: bench does not move them (make() decides), and figures labelled with
    the wrong device would be wrong."""
    import dataclasses

    import torch

    tensors = _values(inputs)
    if isinstance(model, torch.nn.Module):
        tensors += [*model.parameters(), *model.buffers()]
    found = next((str(t.device) for t in tensors if isinstance(t, torch.Tensor) and t.device.type != "cpu"), "cpu")
    if config.device == "auto":
        return dataclasses.replace(config, device=found)
    if found.split(":")[0] != config.device.split(":")[0]:
        raise WrongDevice(
            f"asked to measure on {config.device}, but make() put the model or its inputs on {found}: "
            "leave the device out (bench measures where make() puts them), or move them in make()"
        )
    return config


def _fresh(inputs: Inputs) -> Inputs:
    """A copy of the inputs for each call the accuracy compares: a model that changes its inputs
    in place (`x += self.bias`) would hand the second call other values than the first had, and
    the two would differ for that alone. (PyTorch's harness clones them for each run too.) One
    tensor passed twice stays one tensor: Dynamo compiles for inputs that are the same tensor,
    and the calls timed after would not match that graph."""
    import torch

    copies: dict[int, Any] = {}

    def fresh(value: Any) -> Any:
        if not isinstance(value, torch.Tensor):
            return value
        if id(value) not in copies:
            copies[id(value)] = value.clone()
        return copies[id(value)]

    return _each_input(inputs, fresh)


def calls_eager_first(config: Config, check_eager: bool) -> bool:
    """Whether measure() calls the model eagerly before its first compiled call: where asked
    (check_eager), and in training, whose accuracy check needs that eager step first."""
    return check_eager or config.training


def measure(
    make: Make,
    config: Config,
    runs: int = 50,
    warmup: int = 3,
    first_call_only: bool = False,
    warmup_s: float | None = None,
    check_eager: bool = False,
    reached: list[str] | None = None,
) -> dict[str, Any]:
    """Measure one configuration. `make()` returns (model or function, example inputs).
    `check_eager`: call the model eagerly once before the compiled first call (the zoo: a model
    that fails in eager is not torch.compile's failure; and in both of its workers, so that the
    warm first call meets the model as the cold one did, a cache a model fills on its first call
    filled). Training always does (its accuracy check needs the eager call first). `reached` is
    told each stage as it completes ("built", "eager", "compiled"), so that a caller whose measure
    raised knows where."""
    import torch

    import compilescope.benchmark.torch_adapter as torch_adapter

    stages = reached if reached is not None else []
    model, inputs, config = built(make, config)
    if config.precision == "bf16":
        model, inputs = _in_bf16(model, inputs)
    stages.append("built")
    result: dict[str, Any] = config.describe()
    result["threads"] = torch.get_num_threads()
    if config.training and not (isinstance(model, torch.nn.Module) and any(p.requires_grad for p in model.parameters())):
        result["skipped"] = "training needs an nn.Module with parameters that require grad"
        return result

    if isinstance(model, torch.nn.Module):
        # Inference is measured in eval mode, as PyTorch's benchmark harness does (no dropout,
        # batch norm on its running statistics); training in train mode.
        model.train(config.training)
    # Eager and compiled train one model, its weights held once, as the user's program holds them.
    # (Two copies, one for each, ran the H200 out of memory on Qwen2's 12B parameters: 2 x 45 GiB
    # in float32 before any gradient; and they made the weights count twice in each step's peak
    # memory.) What each step changes, the other meets:
    # the time of a step does not depend on the values of the weights it updates.
    compiled_model = torch.compile(model, backend=config.backend, mode=None if config.mode == "default" else config.mode)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3) if config.training else None
    eager_step = model_step(model, optimizer, inputs, config)
    compiled_step = model_step(compiled_model, optimizer, inputs, config)
    clock = Clock(config.device)
    cuda = clock.cuda
    eager_first, draws = None, False
    if calls_eager_first(config, check_eager):
        # The eager call the accuracy is checked against. In training it must come first, and
        # leave the weights as they were (no optimizer step), so that the compiled first step
        # starts from the same weights; and it does in every training process, cold and warm, so
        # that the first compiled calls they time meet the model alike.
        first = model_step(model, optimizer, _fresh(inputs), config, update=False)
        eager_first, draws = _drawing_random_numbers(first, cuda)
        if cuda:
            torch.cuda.synchronize()
        stages.append("eager")

    # The first compiled call, compile included. (Wall clock: it is mostly host-side work.)
    compiled_first_step = model_step(compiled_model, optimizer, _fresh(inputs), config)
    if cuda:
        torch.cuda.synchronize()
    cache_before = torch_adapter.compiled_graph_cache_counts()
    started = time.perf_counter()
    compiled_first = compiled_first_step()
    if cuda:
        torch.cuda.synchronize()
    result["first_call_s"] = time.perf_counter() - started
    cache_after = torch_adapter.compiled_graph_cache_counts()
    if cache_before is not None and cache_after is not None:
        # (a warm first call that missed the filled cache compiled its graphs again: its time is no warm figure)
        result["first_call_cache"] = {key: cache_after[key] - cache_before[key] for key in cache_after}
    stages.append("compiled")
    if first_call_only:
        return result

    # Accuracy: the first eager call, on the same weights and inputs, against the first compiled one.
    if eager_first is None:  # (inference: the compiled call changed no weights)
        eager_first, draws = _drawing_random_numbers(model_step(model, optimizer, _fresh(inputs), config), cuda)
    tolerance = _tolerance(model, inputs, config.training, config.precision)
    if draws:
        # Compiled code draws its random numbers differently (Inductor generates its own): the
        # two results cannot be compared, so say so rather than report a false failure. (A list
        # of dropout modules missed Swin's drop path, and called its training a failure.)
        result["accuracy"] = "unknown (the model draws random numbers (dropout, drop path): eager and compiled code draw different ones)"
    else:
        reference = None if config.training else _fp64_reference(model, _fresh(inputs))
        result["accuracy"] = torch_adapter.same(eager_first, compiled_first, tolerance, reference)
        if result["accuracy"] == "fail":  # (by how much: rounding a looser check would pass, or a wrong result)
            by = largest_difference(eager_first, compiled_first)
            result["accuracy"] = f"fail ({by}; tolerance {tolerance:g})" if by else f"fail (tolerance {tolerance:g})"
        result["accuracy_reference"] = "fp64 copy of the model" if reference is not None else "eager"
    result["tolerance"] = tolerance

    # Warm up until the per-call times stop falling, for at least a floor in seconds: the
    # first calls after compiling are slow (allocator, caches, a CPU's clock, a GPU's clocks
    # rising under load), and three warm-up calls left an MLP's eager median 31% above a plain
    # loop timed after 3 s.
    warm = warm_up(
        (eager_step, compiled_step),
        clock,
        warmup,
        warmup_s if warmup_s is not None else (GPU_WARMUP_SECONDS if cuda else CPU_WARMUP_SECONDS),
    )
    if cuda:
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    threads_needed = 1 if cuda else int(result["threads"])
    available = cpus()
    load_before = load_average()
    chosen = timed_rounds(eager_step, compiled_step, clock, runs, threads_needed, available)
    eager_ms, compiled_ms = chosen.eager_ms, chosen.compiled_ms
    eager, compiled = summary(eager_ms), summary(compiled_ms)
    result.update(
        runs=runs,
        warmup=warm.calls,
        eager_ms=eager["median"],
        eager_iqr_ms=[eager["q1"], eager["q3"]],
        compiled_ms=compiled["median"],
        compiled_iqr_ms=[compiled["q1"], compiled["q3"]],
        speedup=eager["median"] / compiled["median"] if compiled["median"] > 0 else None,
        timer="CUDA events, synchronized" if cuda else "time.perf_counter",
        verdict=chosen.verdict.word,
        verdict_why=chosen.verdict.why,
        conditions={
            "cpus": available,
            "load_before": load_before,
            "load_after": load_average(),
            "others_cpu": chosen.others_cpu,
            "busy": chosen.busy,
            "warmup_s": round(warm.seconds, 2),
            "warmup_steady": warm.steady,
            "rounds": chosen.rounds,
        },
    )
    if cuda:
        result["peak_memory_mb"] = torch.cuda.max_memory_allocated() / 2**20
        result["memory_kind"] = "CUDA max allocated (eager and compiled together)"
        # Separately: one more call of each, with the peak reset in between.
        for name, step in (("eager_peak_memory_mb", eager_step), ("compiled_peak_memory_mb", compiled_step)):
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            step()
            torch.cuda.synchronize()
            result[name] = torch.cuda.max_memory_allocated() / 2**20
    else:
        from compilescope.record.memory import own_high_water  # (not ru_maxrss: it counts the launcher's)

        result["peak_memory_mb"] = own_high_water() / 2**20
        result["memory_kind"] = "peak RSS of the measuring process"
    return result


def device_name(device: str) -> str:
    import torch

    if device.startswith("cuda") and torch.cuda.is_available():
        return torch.cuda.get_device_name()
    from compilescope.record.recorder import cpu_name

    return f"cpu ({cpu_name()})"
