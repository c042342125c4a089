"""torch.compile given a model sharded with FSDP2 (fully_shard) on two ranks (gloo, CPU): torch
keeps FSDP's hooks out of Dynamo, so the compile breaks at the first one and captures nothing
(findings: captured nothing on every rank; compile the blocks' forward after sharding instead)."""

import torch
import torch.distributed as dist
from torch.distributed.fsdp import fully_shard

dist.init_process_group("gloo")
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 64))
for layer in model:
    if isinstance(layer, torch.nn.Linear):
        fully_shard(layer)
fully_shard(model)
compiled = torch.compile(model, backend="aot_eager")
for _ in range(2):
    compiled(torch.randn(8, 64)).sum().backward()
dist.destroy_process_group()
