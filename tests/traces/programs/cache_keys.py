"""One small function compiled with Inductor, run four times over one cache folder
(tests/traces/record cache_keys): cold (the cache empty), warm (the same again: hits), with an
Inductor config value changed (EPILOGUE_FUSION=0: a miss naming it), and with another input size
(SIZE=32: a miss naming the input's shape)."""

import os

import torch

torch._inductor.config.epilogue_fusion = os.environ.get("EPILOGUE_FUSION", "1") == "1"
size = int(os.environ.get("SIZE", "16"))


@torch.compile
def scaled_sum(x, y):
    return (x.sin() + y).relu().sum(dim=-1)


print(scaled_sum(torch.randn(8, size), torch.randn(8, size)).shape)
