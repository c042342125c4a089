"""mode="reduce-overhead" on a CUDA device: one function CUDA graphs run, one whose CPU tensor
makes torch give up CUDA graphs for its graph, and say why (findings: cuda graphs). Needs a GPU."""
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
