"""One measurement in a fresh process: `python -m compilescope.benchmark.worker SPEC_JSON`.

Fresh, so that "cold" really starts with nothing compiled in memory, and the compile cache
folder (TORCHINDUCTOR_CACHE_DIR, set by the parent) decides cold or warm. With "capture" in the
spec (the zoo's first worker of a model), compilescope records what torch.compile did in this
process to that trace file, as `compilescope run` would: the same compile, not another one.
"""

from __future__ import annotations

import json
import sys
import time
import traceback

from compilescope.benchmark.measure import Config, Make, calls_eager_first, measure
from compilescope.benchmark.target import load_by_name, load_make
from compilescope.session.model import error_summary

# Where a measurement failed, from the last stage it reached (measure's `reached`)
FAILED_AT = {"": "building", "built": "the eager call", "eager": "the compiled call", "compiled": "after the compiled call"}


class _Stages(list[str]):
    """measure's `reached`, also written to a file as each stage completes: a parent that stops
    this process at its time limit can still say where it was."""

    def __init__(self, path: str | None) -> None:
        super().__init__()
        self.path = path

    def append(self, stage: str) -> None:
        super().append(stage)
        if self.path:
            with open(self.path, "w", encoding="utf-8") as handle:
                handle.write(stage)


def main() -> int:
    spec = json.loads(sys.argv[1])
    config = Config(**spec["config"])
    built: dict[str, str] = {}  # a model by name: what was built
    reached = _Stages(spec.get("stage_file"))
    capture = None
    started = time.perf_counter()
    if spec.get("capture"):
        from compilescope.record.recorder import Capture

        capture = Capture(spec["capture"], record_calls=False)
    exception: str | None = None
    try:
        make: Make
        if spec.get("by_name"):
            make = load_by_name(spec["by_name"], config.training, config.device, built)
        else:
            make = load_make(spec["target"])
        if spec.get("profile"):
            from compilescope.benchmark.profile import profile_config

            result = profile_config(make, config, runs=spec.get("profile_runs", 10))
        else:
            result = measure(
                make,
                config,
                runs=spec["runs"],
                warmup=spec["warmup"],
                first_call_only=spec["first_call_only"],
                warmup_s=spec.get("warmup_s"),
                check_eager=bool(spec.get("check_eager")),
                reached=reached,
            )
    except Exception as error:  # the user's make() or model failed: report it, as the figures would be
        exception = error_summary(error)
        result = config.failed(exception)
        stage = reached[-1] if reached else ""
        eager_first = calls_eager_first(config, bool(spec.get("check_eager")))
        result["failed_at"] = FAILED_AT[stage] if eager_first or stage != "built" else "the compiled call"
        result["traceback"] = traceback.format_exc()[-20000:]
    if capture is not None:
        capture.record_program(
            {
                "kind": "function",
                "target": spec["target"],
                "exit_status": None,
                "exception": exception,
                "wall_time_s": time.perf_counter() - started,
            }
        )
        capture.finish_child()
    if "model" in built:
        result["model"] = built["model"]
    with open(spec["out"], "w", encoding="utf-8") as handle:
        json.dump(result, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main())
