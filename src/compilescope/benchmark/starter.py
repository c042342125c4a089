"""A process that imports torch and the model library once, then forks each measuring worker from
itself: `python -m compilescope.benchmark.starter MODULE...` (benchmark/spawn.py's Starter runs it).

A worker started fresh spends seconds importing torch and transformers before it measures
anything; the zoo starts two per model, and on this project's two cores those imports were a
fifth of a sweep. A forked worker starts where a fresh one stands after those imports and no
further: nothing is compiled, built or run here, CUDA is never initialised here (a forked child
could not use it), Inductor is not imported here (its import is part of a fresh process's first
compile, and stays in the worker's; Dynamo is, where transformers imports it, as it does in a
fresh worker before that worker compiles), and the worker gets the parent's
environment, its own process group, and the exit a fresh process has (atexit handlers run).

The protocol, one JSON object per line:
  parent -> starter  {"spec": SPEC_JSON, "env": {...}, "log": PATH}   (the worker's stdout and
                                                                       stderr go to PATH)
  starter -> parent  {"ready": true} once, after the imports, or {"ready": false, "why": ...}
                     {"pid": PID} as each worker starts, {"exit": STATUS} as it ends
The starter ends when its stdin closes.
"""

from __future__ import annotations

import atexit
import importlib
import json
import os
import sys
import traceback
import warnings
from typing import Any


def _send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _worker(request: dict[str, Any]) -> int:
    """In the forked child: become the worker `python -m compilescope.benchmark.worker SPEC`
    would be, run it, and end as a process ends."""
    import compilescope.benchmark.worker as worker

    os.setpgid(0, 0)  # (a group of its own, as the parent's killpg expects; the starter sets it too)
    os.environ.clear()
    os.environ.update(request["env"])
    log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)  # (the requests are the starter's to read, not the worker's)
    os.close(null)
    sys.argv = [worker.__file__, request["spec"]]
    try:
        code = worker.main()
    except SystemExit as ended:
        code = ended.code if isinstance(ended.code, int) else (0 if ended.code is None else 1)
    except BaseException:
        traceback.print_exc()
        code = 1
    return code


def main() -> int:
    for module in sys.argv[1:]:
        try:
            importlib.import_module(module)
        except Exception as error:  # (timm without a torchvision that imports: the worker will say so)
            _send({"ready": False, "why": f"import {module}: {type(error).__name__}: {error}"})
            return 0
    import compilescope.benchmark.worker  # noqa: F401  (its imports: compilescope's, no torch beyond the above)

    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_initialized():
        _send({"ready": False, "why": "CUDA was initialised while importing; a forked worker could not use it"})
        return 0
    _send({"ready": True})
    for line in sys.stdin:
        request = json.loads(line)
        with warnings.catch_warnings():
            # (Python 3.12 warns on forking a process with threads: torch's import leaves one, idle,
            # as it does for DataLoader's forked workers)
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:
            code = 1
            try:
                code = _worker(request)
            finally:
                try:
                    atexit._run_exitfuncs()
                    sys.stdout.flush()
                    sys.stderr.flush()
                finally:
                    os._exit(code)
        try:
            os.setpgid(pid, pid)
        except OSError:  # (it already has: the child set it first)
            pass
        _send({"pid": pid})
        _, status = os.waitpid(pid, 0)
        _send({"exit": os.waitstatus_to_exitcode(status)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
