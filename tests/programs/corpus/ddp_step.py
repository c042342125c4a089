"""Data-parallel training under torchrun (gloo on the CPU), the way the DDP tutorials and
nanoGPT's train.py do it: torch.compile(model) first, then DistributedDataParallel around it,
each rank training on its own shard of random data; a DistributedSampler without drop_last, so
the last batch of each rank is shorter.

    python -m torch.distributed.run --standalone --nproc_per_node=2 ddp_step.py
"""

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)

model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 4))
model = torch.compile(model, backend="eager")
model = DDP(model)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

dataset = TensorDataset(torch.randn(84, 20), torch.randint(0, 4, (84,)))
sampler = DistributedSampler(dataset, shuffle=True)
loader = DataLoader(dataset, batch_size=16, sampler=sampler)  # 42 per rank: 16, 16, 10
for epoch in range(2):
    sampler.set_epoch(epoch)
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    if rank == 0:
        print(f"epoch {epoch}: loss {loss.item():.4f}")
dist.destroy_process_group()
