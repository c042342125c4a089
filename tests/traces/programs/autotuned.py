"""mode="max-autotune-no-cudagraphs" on a CUDA device: each matrix product benchmarked among its
kernel choices (findings: autotuning). Needs a GPU."""
import torch

model = torch.nn.Sequential(torch.nn.Linear(512, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512)).cuda()
compiled = torch.compile(model, mode="max-autotune-no-cudagraphs")
x = torch.randn(64, 512, device="cuda")
with torch.no_grad():
    for _ in range(3):
        compiled(x)
torch.cuda.synchronize()
print("ok")
