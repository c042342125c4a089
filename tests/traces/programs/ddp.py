"""torch.compile(DDP(model)) in one gloo process: DDP's forward breaks the graph before the model
runs, so nothing is captured (findings: captured nothing, a break in torch's own code)."""

import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29541")
dist.init_process_group("gloo", rank=0, world_size=1)
model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
compiled = torch.compile(DDP(model), backend="eager")
for _ in range(2):
    compiled(torch.ones(4, 8)).sum().backward()
dist.destroy_process_group()
