"""A function whose graph Inductor's passes rewrite (tests/traces/record passes): the joint
graph passes drop the alias `x[:, :]` makes, and a post-grad pattern turns `mm + mm` into one
`mm` and an `addmm`. The caches are off, so that the passes run on every run (a graph from the
caches skips them)."""

import torch

torch._inductor.config.fx_graph_cache = False
torch._functorch.config.enable_autograd_cache = False


@torch.compile
def project(x, y, w):
    return torch.mm(x[:, :], w) + torch.mm(y, w)


print(project(torch.randn(8, 16), torch.randn(8, 16), torch.randn(16, 16)).shape)
