"""Lesson 8: graph breaks. `.item()` deciding an `if` cuts the graph; `torch.where` keeps the
choice in it; fullgraph=True turns the break into an error."""

import torch
from common import say


class WithIf(torch.nn.Module):
    def forward(self, x):
        x = x + 1.0
        if x.sum().item() > 0:  # Python needs a real bool: a value from inside a tensor
            x = x * 2.0
        return torch.relu(x)


class WithWhere(torch.nn.Module):
    def forward(self, x):
        x = x + 1.0
        x = torch.where(x.sum() > 0, x * 2.0, x)  # the choice stays in the graph
        return torch.relu(x)


x = torch.ones(4, 4)
# fullgraph=True first: once a forward is compiled, torch reuses that version for the same code
# (its guards hold), and would not try again with fullgraph
for net in (WithWhere(), WithIf()):
    try:
        torch.compile(net, backend="eager", fullgraph=True)(x)
        say(fullgraph=type(net).__name__, error=None)
    except Exception as error:
        say(fullgraph=type(net).__name__, error=type(error).__name__, message=str(error).strip().splitlines()[0])
torch.compile(WithIf(), backend="eager")(x)
