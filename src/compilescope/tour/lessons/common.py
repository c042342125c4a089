"""What the lesson programs share: the line that hands a fact to the tour, and the device. (No
torch here: lesson 2 runs without it.)"""

import json
import os
import time

MARK = "COMPILESCOPE_TOUR"


def say(**facts):
    """Hand facts to the tour (tour/run.py reads these lines from stdout)."""
    print(MARK, json.dumps(facts), flush=True)


def device():
    """The device the tour asked for (--device): "cpu" or "cuda"."""
    return os.environ.get("COMPILESCOPE_TOUR_DEVICE", "cpu")


def timed(call, *args):
    """Seconds one call takes, the GPU's queued work included."""
    import torch

    start = time.perf_counter()
    call(*args)
    if device() == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - start
