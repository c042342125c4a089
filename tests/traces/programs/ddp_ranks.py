"""A compiled DDP model on gloo (CPU): every rank trains on batches of 8, but one rank (1, or
$DIVERGENT_RANK) gets one longer batch (12) at step 2, so only it recompiles; the others wait for
it at DDP's all-reduce in backward. DDP's small buckets make DDPOptimizer split the graph."""

import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(512, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512)
)
# small buckets, so DDPOptimizer splits the graph at their boundaries
compiled = DDP(torch.compile(model, backend="aot_eager"), bucket_cap_mb=1)
opt = torch.optim.SGD(compiled.parameters(), lr=0.01)
for step in range(4):
    batch = 12 if (rank == int(os.environ.get("DIVERGENT_RANK", "1")) and step == 2) else 8
    loss = compiled(torch.randn(batch, 512)).sum()
    loss.backward()
    opt.step()
    opt.zero_grad()
dist.destroy_process_group()
