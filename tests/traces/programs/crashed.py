"""A program that fails before anything is compiled, with a message coloured as some libraries
colour theirs (terminal escapes, and a carriage return as a progress bar leaves): the finding says
the error in plain words, its escapes left out."""

import torch


@torch.compile(backend="eager")
def f(x):
    return x * 2


config = {"lr": "fast"}
if not isinstance(config["lr"], float):
    raise ValueError("\x1b[1;31mbad config\x1b[0m:\r\n  lr must be a number, not \x1b[33m'fast'\x1b[0m\x07")
f(torch.ones(2))
