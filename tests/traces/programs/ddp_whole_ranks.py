"""torch.compile given the DDP wrapper itself, on two ranks (gloo, CPU): DDP's forward breaks the
graph before the model runs, so no rank captures anything (findings: captured nothing, on every
rank; the fix is DDP(torch.compile(model)))."""

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
compiled = torch.compile(DDP(model), backend="eager")
for _ in range(2):
    compiled(torch.ones(4, 8)).sum().backward()
dist.destroy_process_group()
