import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()


@torch.compile
def step(x):
    y = x * 2
    dist.all_reduce(y)
    if rank == 1:
        torch._dynamo.graph_break()  # rank 1 alone splits its graph here
    z = y + 1
    dist.all_reduce(z)
    return z.sum()


for _ in range(2):
    step(torch.ones(8))
dist.destroy_process_group()
