"""Two logging.Logger calls inside compiled functions, each a graph break: `--try ignore-logging`
(Logger's logging methods added to config.ignore_logging_functions) removes the logger.info
break, but not the logger.isEnabledFor one: that is a question, not a message to drop."""

import logging

import torch

logger = logging.getLogger("prog")


@torch.compile(backend="eager")
def told(x):
    y = x * 2
    logger.info("scaled")
    return y + 1


@torch.compile(backend="eager")
def asked(x):
    y = x * 2
    if logger.isEnabledFor(logging.DEBUG):
        y = y + 0
    return y + 1


for _ in range(2):
    told(torch.ones(3))
    asked(torch.ones(3))
print("done")
