"""On a CUDA device: what `run --profile` and `bench --profile` say about a real GPU run.

Never runs in CI (no GPU there): run it through the device tool,
    PYTHONPATH=$PWD/src python3 -m pytest -q -s -m gpu tests/test_gpu.py
(PYTHONPATH absolute: the tests run the CLI in subprocesses in other folders.)
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import compilescope
from conftest import run_cli

torch = pytest.importorskip("torch")
pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device (run through the device tool)"),
]

PROGRAM = """
import torch

model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024)).cuda()
x = torch.randn(256, 1024, device="cuda")
compiled = torch.compile(model)
with torch.no_grad():
    for _ in range(5):
        compiled(x)
    a = torch.randn(512, 512, device="cuda")
    for _ in range(3):
        a @ a  # eager matrix products: not the compiled code's
torch.cuda.synchronize()
print("ok")
"""


def test_run_profile_maps_library_kernels_on_the_gpu(tmp_path: Path) -> None:
    (tmp_path / "mlp.py").write_text(PROGRAM)
    result = run_cli("run", "--profile", "mlp.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    session = compilescope.load(tmp_path / "compilescope-mlp.json")
    profile = session.profile
    assert profile is not None and profile.profile_error is None, profile
    assert profile.profiled_calls == 5
    library = [k for k in profile.kernels if k.kind == "library call"]
    triton = [k for k in profile.kernels if k.kind == "triton"]
    print(
        json.dumps(
            [
                {
                    "name": k.name,
                    "kind": k.kind,
                    "calls": k.calls,
                    "us": round(k.total_us / k.calls, 1),
                    "device_kernels": k.device_kernels,
                    "aten": k.aten_ops,
                    "gbps": k.achieved_gbps,
                }
                for k in profile.kernels
            ],
            indent=1,
        )
    )
    # the two Linear layers' matrix products, with the cuBLAS kernels they ran, counted only in
    # the compiled calls (not the three eager a @ a)
    # the compiled calls only, less the first (it autotunes the Triton kernels lazily): 4 steady
    # calls of two Linear layers
    assert library and all(k.device_kernels and k.where == "device" for k in library)
    assert sum(k.calls for k in library) == 8
    assert triton and all(k.aten_ops and k.calls == 4 for k in triton)
    if sys.version_info >= (3, 12):
        assert (session.calls_recorded or "").startswith("sys.monitoring")
        assert [c.calls.calls for c in session.compiles if c.calls] == [5]


def test_bench_profile_roofline_on_a_pointwise_chain(tmp_path: Path) -> None:
    models = tmp_path / "models.py"
    models.write_text(
        "import torch\n\n"
        "class ManySmallSteps(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        for _ in range(20):\n"
        "            x = torch.relu(x + 0.1) * 0.99\n"
        "        return x\n\n"
        "def make():\n"
        "    return ManySmallSteps(), (torch.randn(4096, 4096, device='cuda'),)\n"
    )
    result = run_cli("bench", f"{models}:make", "--device", "cuda", "--profile", "--runs", "20", "--json", "bench.json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    bench = json.loads((tmp_path / "bench.json").read_text())["benchmarks"][0]
    assert bench["speedup"] > 2  # twenty memory passes become one
    # Warmed up for at least 2 s while the GPU's clocks rose; the figures settle it.
    assert bench["conditions"]["warmup_s"] >= 2.0 and bench["conditions"]["warmup_steady"] is not False, bench["conditions"]
    assert bench["verdict"] == "faster" and bench["verdict_why"].startswith("compiled is"), bench["verdict_why"]
    fused = [k for k in bench["profile"]["kernels"] if k["kind"] == "triton"]
    assert len(fused) == 1 and fused[0]["aten_ops"]
    assert 0.2 < fused[0]["bandwidth_of_peak"] < 1.2
    print(result.stderr[-2500:])


WORKERS = """
import multiprocessing as mp
import torch

def work(n):
    step = torch.compile(lambda x: torch.relu(x + n) * 2)  # Inductor: a Triton kernel
    out = step(torch.ones(1 << 20, device="cuda"))
    torch.cuda.synchronize()
    return float(out[0])

if __name__ == "__main__":
    main = torch.compile(lambda x: torch.sin(x) * 2)
    main(torch.ones(8, device="cuda"))
    with mp.get_context("spawn").Pool(2) as pool:
        print(pool.map(work, [1, 2]))
"""


def test_spawned_workers_compile_triton_kernels_in_their_own_traces(tmp_path: Path) -> None:
    # GIVEN a program that compiles on the GPU, and two spawned workers that compile too (Inductor
    # starts its own compile workers for Triton: those are torch's, not listed)
    (tmp_path / "workers.py").write_text(WORKERS)
    result = run_cli("run", "workers.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout == "[4.0, 6.0]\n"
    session = compilescope.load(tmp_path / "compilescope-workers.json")
    assert [k.kind for k in session.kernels] == ["triton"]
    children = session.children or []
    print("\n".join(f"{c.pid} {c.command} followed={c.followed} compiles={c.compiles} kernels={c.kernels} {c.why_not}" for c in children))
    workers = [c for c in children if c.command == "multiprocessing worker (spawn)"]
    assert len(workers) == 2 and all(c.compiles == 1 and c.kernels == 1 for c in workers)
    for worker in workers:
        assert worker.trace is not None and [k.kind for k in compilescope.load(worker.trace).kernels] == ["triton"]
    assert all(c.followed for c in children), [c.command for c in children if not c.followed]


CUDA_GRAPHS = """
import torch

# without graph partitions (torch 2.9+ makes them), a CPU tensor in a graph makes torch give up
# CUDA graphs for the whole graph, and say why
torch._inductor.config.graph_partition = False

@torch.compile(mode="reduce-overhead")
def fast(x):
    return (x * 2).relu()

@torch.compile(mode="reduce-overhead")
def mixed(x, on_cpu):
    return x * 2, on_cpu + 1

x = torch.randn(64, device="cuda")
on_cpu = torch.ones(3)
for _ in range(4):
    fast(x)
    mixed(x, on_cpu)
torch.cuda.synchronize()
print("ok")
"""


def test_reduce_overhead_says_per_graph_whether_cuda_graphs_ran_and_why_not(tmp_path: Path) -> None:
    # GIVEN two functions compiled with mode="reduce-overhead", one with a CPU tensor input
    (tmp_path / "graphs.py").write_text(CUDA_GRAPHS)
    result = run_cli("run", "graphs.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    session = compilescope.load(tmp_path / "compilescope-graphs.json")
    (fast,) = session.frame("fast").compiles
    (mixed,) = session.frame("mixed").compiles
    print(fast.cudagraphs, fast.cudagraph_skip_reason, mixed.cudagraphs, mixed.cudagraph_skip_reason)
    # THEN each graph says whether CUDA graphs were asked for, and which torch gave up, why
    assert fast.cudagraphs is True and fast.cudagraph_skip_reason is None and fast.cudagraph_recordings
    assert mixed.cudagraphs is True and "cpu" in (mixed.cudagraph_skip_reason or "").lower()
    found = [f for f in session.explain() if f.kind == "cuda graphs"]
    print([(f.title, f.fix) for f in found])
    skipped = next(f for f in found if f.title.startswith("CUDA graphs not used for 1 graph of mixed: cpu device (arg"))
    assert skipped.where and skipped.where.endswith("graphs.py:14")
    assert "CPU tensors" in skipped.fix
    assert any(f.title == 'CUDA graphs used for 1 graph of 2 (mode="reduce-overhead")' for f in found)
    shown = " ".join(result.stderr.split())
    assert "CUDA graphs: not used: " in shown and "CUDA graphs not used for 1 graph of mixed" in shown
    assert "CUDA graphs: recorded " in shown


AUTOTUNED = """
import torch

model = torch.nn.Sequential(torch.nn.Linear(512, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512)).cuda()
compiled = torch.compile(model, mode="max-autotune-no-cudagraphs")
x = torch.randn(64, 512, device="cuda")
with torch.no_grad():
    for _ in range(3):
        compiled(x)
torch.cuda.synchronize()
print("ok")
"""


def test_max_autotune_says_what_it_chose_for_each_operation(tmp_path: Path) -> None:
    (tmp_path / "tuned.py").write_text(AUTOTUNED)
    result = run_cli("run", "--no-html", "tuned.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    session = compilescope.load(tmp_path / "compilescope-tuned.json")
    tuned = [t for c in session.compiles for t in c.autotuning]
    print([(t.op, t.choices, t.best, t.best_ms, t.best_triton, t.best_triton_ms) for t in tuned])
    # THEN each matrix product autotuned says the kernel chosen among how many choices
    assert tuned and all(t.choices and t.best and t.best_ms is not None for t in tuned)
    (finding,) = [f for f in session.explain() if f.kind == "autotuning"]
    print(finding.title, finding.detail, finding.fix, sep="\n")
    assert finding.title.startswith(f"max-autotune benchmarked kernels for {len(tuned)} operation")
    assert "autotuned " in result.stderr and " of " in result.stderr


def test_the_tour_on_the_gpu(tmp_path: Path) -> None:
    # GIVEN the tour's kernel lesson and its benchmark lesson, run on the GPU
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg")}
    for lesson in ("7", "9"):
        run = run_cli("tour", "--lesson", lesson, "--device", "cuda", "--json", f"l{lesson}.json", "--no-html", cwd=tmp_path, env=env)
        assert run.returncode == 0, run.stderr[-3000:]
    (kernels,) = json.loads((tmp_path / "l7.json").read_text())["lessons"]
    (faster,) = json.loads((tmp_path / "l9.json").read_text())["lessons"]
    # THEN Inductor wrote Triton kernels: the bias and relu fused in one, the matmul a library call
    (fused,) = kernels["facts"]["models"]["BiasThenRelu"]
    assert fused["kind"] == "triton" and fused["aten_ops"] == ["aten.add", "aten.relu"]
    assert {k["kind"] for k in kernels["facts"]["models"]["MatmulThenRelu"]} == {"triton", "library call"}
    # AND the view shows the kernel's code from @triton.jit, without the launch metadata above it
    shown = run_cli("tour", "--lesson", "7", "--device", "cuda", "--no-html", cwd=tmp_path, env=env).stdout
    code = shown.split(f"The code of {fused['name']}, as Inductor wrote it:", 1)[1].lstrip()
    assert code.startswith("@triton.jit") and "triton_meta" not in code.split("\n\n")[0]
    # AND on the GPU's sizes the many small steps are clearly faster compiled; the matmul is not
    models = {m["model"]: m for m in faster["facts"]["models"]}
    assert models["ManySmallSteps"]["size"] == 4096 and models["ManySmallSteps"]["speedup"] > 2
    assert 0.8 < models["OneBigMatmul"]["speedup"] < 1.25
    print({name: (m["eager_ms"], m["compiled_ms"], m["speedup"]) for name, m in models.items()})


def test_the_zoo_on_the_gpu_forks_its_workers_and_measures_cuda_memory(tmp_path: Path) -> None:
    # GIVEN a Hugging Face model and a timm model, tiny, on the GPU: their workers are forked from
    # a starter that imported torch, transformers and timm without initialising CUDA
    pytest.importorskip("timm")
    pytest.importorskip("transformers")
    result = run_cli(
        "zoo", "--models", "hf:gpt2,timm:resnet18", "--size", "tiny", "--device", "cuda", "--amp", "--runs", "5",
        "--json", "zoo.json", cwd=tmp_path,
    )  # fmt: skip
    print(result.stdout, result.stderr[-2000:])
    assert result.returncode == 0, result.stderr[-3000:]
    # THEN no worker had to start afresh, both passed in bfloat16, and memory is CUDA's, per side
    assert "afresh" not in result.stderr + result.stdout
    report = json.loads((tmp_path / "zoo.json").read_text())
    assert [(m["name"], m["status"]) for m in report["models"]] == [("hf:gpt2", "pass"), ("timm:resnet18", "pass")]
    for model in report["models"]:
        assert model["compiles"] >= 1 and model["speedup"] > 0 and model["cold_compile_s"] > model["warm_compile_s"] > 0
        assert model["memory_kind"].startswith("CUDA") and model["eager_memory_mb"] > 0 and model["compiled_memory_mb"] > 0
        assert model["compilescope_problems"] == []
    assert report["summary"]["pass_rate"] == 1.0 and report["summary"]["memory_compression"] > 0


ONE_GIB = """
import torch


def make(dropout: float):
    torch.manual_seed(0)
    # 16384 x 16384 float32 weights: 1 GiB; no bias, nothing else with parameters
    layers = [torch.nn.Dropout(dropout)] if dropout else []
    model = torch.nn.Sequential(*layers, torch.nn.Linear(16384, 16384, bias=False)).cuda()
    return model, (torch.randn(64, 16384, device="cuda"),)


def plain():
    return make(0.0)


def with_dropout():
    return make(0.1)
"""


def test_training_holds_the_weights_once_and_sees_the_gpus_random_numbers(tmp_path: Path) -> None:
    # GIVEN a model of 1 GiB of weights, trained by bench on the GPU, without and with dropout
    (tmp_path / "one_gib.py").write_text(ONE_GIB)
    results = {}
    for name in ("plain", "with_dropout"):
        run = run_cli(
            "bench", f"one_gib.py:{name}", "--train-only", "--backends", "eager", "--runs", "5", "--json", f"{name}.json", cwd=tmp_path
        )
        assert run.returncode == 0, run.stderr[-3000:]
        (results[name],) = json.loads((tmp_path / f"{name}.json").read_text())["benchmarks"]
    print({name: (r["device"], r["eager_peak_memory_mb"], r["compiled_peak_memory_mb"], r["accuracy"]) for name, r in results.items()})
    # THEN with no --device, it is measured where make() put it: on the GPU, with CUDA's clock
    # (bench once took the CPU for the default: a clock that saw only the kernels' launches, the
    # process's RSS for memory, and the CPU's random numbers)
    for result in results.values():
        assert result["device"].startswith("cuda") and result["timer"] == "CUDA events, synchronized"
    # AND a step's peak holds the weights and their gradients once, 2 GiB (a copy of the model
    # for eager, as bench once made, was a third GiB in every step)
    for result in results.values():
        for side in ("eager_peak_memory_mb", "compiled_peak_memory_mb"):
            assert 2048 <= result[side] < 2048 + 512, (side, result[side])
    # AND the match is checked without dropout; with it, the GPU's generator moved (the CPU's
    # did not), and accuracy says it cannot be checked
    assert results["plain"]["accuracy"] == "pass"
    assert results["with_dropout"]["accuracy"].startswith("unknown (the model draws random numbers")


CACHED = """
import os
import torch

torch._inductor.config.epilogue_fusion = os.environ.get("EPILOGUE_FUSION", "1") == "1"

@torch.compile
def scaled_sum(x, y):
    return (x.sin() + y).relu().sum(dim=-1)

print(scaled_sum(torch.randn(64, 256, device="cuda"), torch.randn(64, 256, device="cuda")).shape)
"""


def test_a_warm_start_hits_the_caches_and_a_changed_config_is_named_on_the_gpu(tmp_path: Path) -> None:
    # GIVEN a Triton-compiled function run over its own cache folder: cold, warm, then with one
    # Inductor config value changed
    (tmp_path / "cached.py").write_text(CACHED)
    env = {"TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "inductor-cache")}

    def run(**more: str):
        result = run_cli("run", "--no-html", "cached.py", cwd=tmp_path, env={**env, **more})
        assert result.returncode == 0, result.stderr
        return result

    run()
    warm = run()
    print(warm.stderr)
    lookups = warm.session_json("compilescope-cached.json")["frames"][0]["compiles"][0]["cache"]["lookups"]
    # THEN the warm run hit both caches (Triton's kernels included), and the changed run names the value
    assert {(lookup["cache"], lookup["outcome"]) for lookup in lookups} == {("fx_graph", "hit"), ("aot_autograd", "hit")}
    assert "The cache missed" not in warm.stderr
    changed = run(EPILOGUE_FUSION="0")
    print(changed.stderr)
    text = " ".join(changed.stderr.split())
    assert (
        "The cache missed scaled_sum (0/0), which the earlier run had compiled: Inductor config epilogue_fusion changed (True → False)"
        in text
    )


REPRO_GPU = """
import torch
import transformers

torch.manual_seed(0)
config = transformers.GPT2Config(n_layer=1, n_embd=64, n_head=2, vocab_size=100, n_positions=64, activation_function="relu")
model = transformers.GPT2LMHeadModel(config).cuda()
compiled = torch.compile(model)
ids = torch.randint(0, 100, (2, 16), device="cuda")
compiled(input_ids=ids, labels=ids).loss.backward()
model.eval()
with torch.no_grad():
    print("logits", tuple(compiled(input_ids=ids).logits.shape))
"""


def test_each_repro_of_a_hugging_face_model_matches_alone_on_the_gpu(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    from test_repro_run import _repros, _run_alone

    # GIVEN GPT-2 from its config on CUDA, trained a step and then run in eval mode, through
    # Inductor (Triton)
    repros = _repros(REPRO_GPU, "gpt2.py", tmp_path)
    outcomes = {}
    for name, script in repros.items():
        ran = _run_alone(script)
        print(name, ran.stdout)
        assert ran.returncode == 0, (name, ran.stdout, ran.stderr[-2000:])
        assert "inputs on cuda" in ran.stdout, ran.stdout
        outcomes[name] = ran.stdout.rstrip().splitlines()[-1]
    # THEN each repro runs alone on the GPU and matches: the training forward (dropout, the GPU's
    # random numbers) is said to be not compared, never a false mismatch
    assert all(line.startswith("match") for line in outcomes.values()), outcomes
    assert "match (1 of 2 graphs compared; the others draw random numbers)" in outcomes.values(), outcomes
    # AND the eval graph compiled wrong on purpose (Triton's relu made to add 1) is a mismatch
    evaluated = [name for name, line in outcomes.items() if line == "match" and "aten.relu" in repros[name].read_text()]
    assert evaluated, outcomes
    wrong = _run_alone(
        repros[evaluated[0]], "import torch._inductor.config as config", "config.triton.inject_relu_bug_TESTING_ONLY = 'accuracy'"
    )
    print(wrong.stdout)
    assert wrong.returncode == 1 and "MISMATCH" in wrong.stdout, (wrong.stdout, wrong.stderr[-2000:])


REDUCE_OVERHEAD = """
import torch

model = torch.nn.Sequential(torch.nn.Linear(256, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 256)).cuda()
compiled = torch.compile(model, mode="reduce-overhead")
x = torch.randn(64, 256, device="cuda")
with torch.no_grad():
    for _ in range(4):  # CUDA graphs are recorded once the graph has warmed up
        out = compiled(x)
torch.cuda.synchronize()
print(tuple(out.shape))
"""


def test_run_says_the_programs_cuda_memory_and_its_cuda_graph_pool(tmp_path: Path) -> None:
    # GIVEN a model compiled with mode="reduce-overhead": its graph replays as a CUDA graph, whose
    # memory comes from a private pool of its own
    (tmp_path / "pools.py").write_text(REDUCE_OVERHEAD)
    result = run_cli("run", "--no-html", "pools.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout == "(64, 256)\n"
    memory = compilescope.load(tmp_path / "compilescope-pools.json").memory
    print(memory)
    # THEN the session holds the device's peaks and the pool CUDA graphs hold, each measured
    assert memory is not None and memory.no_cuda is None and memory.cpu_peak_bytes
    (device,) = memory.cuda
    assert device.device == "cuda:0" and device.unknown == []
    assert device.max_allocated_bytes and device.max_allocated_bytes > 1 << 20  # the weights alone are 2 MiB
    assert device.max_reserved_bytes and device.max_reserved_bytes >= device.max_allocated_bytes
    assert device.graph_pools and device.graph_pools >= 1 and device.graph_pool_bytes and device.graph_pool_bytes > 0
    # AND the terminal says them in its header
    shown = " ".join(result.stderr.split())
    assert "Memory: CPU high-water " in shown and "; cuda:0 max allocated " in shown and ", CUDA graph pools " in shown


ACCURACY_PROGRAM = """
import sys
import torch
import torch._inductor.config

if "--bug" in sys.argv:
    torch._inductor.config.triton.inject_relu_bug_TESTING_ONLY = "accuracy"
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(256, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 256)).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
train = torch.compile(model)
x, y = torch.randn(64, 256, device="cuda"), torch.randn(64, 256, device="cuda")
for step in range(3):
    loss = torch.nn.functional.mse_loss(train(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.5f}")
serve = torch.compile(torch.nn.Sequential(torch.nn.Linear(256, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 256)).cuda(), mode="reduce-overhead")
with torch.no_grad():
    for _ in range(4):
        out = serve(torch.randn(512, 256, device="cuda"))
print("served", round(out.float().sum().item(), 2), "random after", torch.rand(2, device="cuda").tolist())
"""


def test_check_accuracy_on_the_gpu_names_inductor_for_tritons_relu_bug(tmp_path: Path) -> None:
    # GIVEN a training step and a model under reduce-overhead on the GPU, Triton's relu made wrong on purpose
    (tmp_path / "gpu_train.py").write_text(ACCURACY_PROGRAM)
    plain = run_cli("run", "--no-html", "--json", "plain.json", "gpu_train.py", "--bug", cwd=tmp_path)
    assert plain.returncode == 0, plain.stderr[-3000:]
    # WHEN run with --check-accuracy
    result = run_cli("run", "--check-accuracy", "--no-html", "gpu_train.py", "--bug", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    print(result.stderr[-6000:])
    # THEN the program's output is what it is without the flag (its losses, its GPU random numbers after)
    assert result.stdout == plain.stdout
    session = compilescope.load(tmp_path / "compilescope-gpu_train.json")
    [train] = session.find_compile("0/0").accuracy
    assert train.differs and train.first_differs == "inductor"
    assert [(s.stage, s.matches) for s in train.stages] == [("aot_eager", True), ("aot_eager_decomp_partition", True), ("inductor", False)]
    assert train.gradients is not None and any(not g.matches for g in train.gradients)
    # and the served model, under CUDA graphs, matches on each of its 3 checked calls (a replay among them)
    served = [g for c in session.compiles if c.cudagraphs for g in c.accuracy]
    assert served and all(g.matches for g in served), [(g.calls, g.peaks) for g in served]
    # and each graph's peaks eager and compiled were measured after the program, on the GPU
    for graph in [train, *served]:
        assert graph.peaks is not None and graph.peaks.device and graph.peaks.device.startswith("cuda"), graph.peaks
        assert (graph.peaks.eager_peak or 0) > 0 and (graph.peaks.compiled_peak or 0) > 0
    # and the program's own memory: the CUDA graph pool of the served model
    assert session.memory is not None and any(d.graph_pools for d in session.memory.cuda), session.memory
    # and each compiled model's whole call against its Python: the trained one differs by its
    # graph (not said twice), the served one under CUDA graphs matches
    assert session.accuracy is not None
    wholes = sorted((c for c in session.accuracy.callables), key=lambda c: c.differs, reverse=True)
    assert [(c.name, c.differs) for c in wholes] == [("Sequential", True), ("Sequential", False)], wholes
    assert {call.cause for call in wholes[0].calls if call.outcome == "differs"} == {"graph"} and wholes[1].matches
    assert not [f for f in session.explain() if "Dynamo's capture" in f.title]
    # WHEN the minifier command it printed is run
    assert train.minifier is not None and train.minifier.minify
    minify = subprocess.run(train.minifier.minify, shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=900)
    repro = Path(train.minifier.folder or "") / "repro.py"
    print("minifier's exit status", minify.returncode, sorted(p.name for p in repro.parent.rglob("*.py")))
    print(minify.stderr[-1500:])
    assert minify.returncode == 0 or repro.exists(), minify.stderr[-3000:]
    forward = repro.read_text().split("def forward", 1)[1].split("return", 1)[0]
    print(forward)
    assert "relu(" in forward and "linear" not in forward


OUT_OF_MEMORY = """
import torch

# the program fits its GPU with room to spare, but not for two copies of its input beside its
# call: 1 GiB, a 320 MiB input and a 320 MiB result
torch.cuda.set_per_process_memory_fraction((1 << 30) / torch.cuda.get_device_properties(0).total_memory)
torch.manual_seed(0)
x = torch.randn(80 * 2**20, device="cuda")


@torch.compile
def double(t):
    return t * 2 + 1


for _ in range(3):
    y = double(x)
    print(round(y[:4].sum().item(), 4))
    del y
"""


def test_check_accuracy_out_of_gpu_memory_stops_its_checks_and_the_program_goes_on(tmp_path: Path) -> None:
    # GIVEN a program whose call fits the GPU, with no room for the checks' copies of its input
    # (the graph's and the whole call's) beside it
    (tmp_path / "tight.py").write_text(OUT_OF_MEMORY)
    plain = subprocess.run([sys.executable, "tight.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert plain.returncode == 0, plain.stderr[-3000:]
    # WHEN it is run with --check-accuracy
    result = run_cli("run", "--check-accuracy", "--no-html", "tight.py", cwd=tmp_path)
    print(result.stderr[-4000:])
    # THEN the program ran as it does without us: the checks' copies waited in the CPU's memory
    # while its calls ran
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout == plain.stdout
    session = compilescope.load(tmp_path / "compilescope-tight.json")
    # and the graph's check ran out of memory once the call was over, said so and stopped
    [graph] = session.find_compile("0/0").accuracy
    assert [c.outcome for c in graph.calls] == ["not checked"], graph.calls
    assert "out of memory while checking" in (graph.calls[0].why or "") and graph.stopped
    # and so did the whole call's
    assert session.accuracy is not None
    [whole] = session.accuracy.callables
    assert [c.outcome for c in whole.calls] == ["not checked"] and "out of memory" in (whole.calls[0].why or "")
