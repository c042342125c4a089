"""A graph break whose message holds a carriage return and a NUL: a user's string, which torch
writes as it is, inside one line of the break's payload. tests/traces/record then puts two bytes
that are not UTF-8 into that message, its checksum made over the bytes: a log written elsewhere."""

import torch


@torch.compile(backend="eager")
def step(x):
    x = x + 1
    torch._dynamo.graph_break(msg="kept\rwhole\x00here")
    return x * 2


print(step(torch.ones(3)))
