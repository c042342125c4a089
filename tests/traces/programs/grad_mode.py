"""A model used for training and then under torch.no_grad() (evaluation): the grad mode is part
of the global state Dynamo guards, so evaluation compiles a version of its own (findings: an
expected recompile, said as information, not a problem). It also raises at the end, with a
message coloured as some libraries colour theirs (the header shows it on one line, its escapes
left out)."""

import torch

model = torch.nn.Linear(4, 4)


@torch.compile(backend="eager")
def forward(x):
    return torch.relu(model(x))


x = torch.randn(2, 4)
forward(x).sum().backward()
with torch.no_grad():
    forward(x)
raise RuntimeError("\x1b[1;31mevaluation failed\x1b[0m:\n  the loss was \x1b[33mnan\x1b[0m\n  after 1 step")
