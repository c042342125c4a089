"""One measurement in a fresh process: `python -m compilescope.benchmark.worker SPEC_JSON`.

Fresh, so that "cold" really starts with nothing compiled in memory, and the compile cache
folder (TORCHINDUCTOR_CACHE_DIR, set by the parent) decides cold or warm.
"""

from __future__ import annotations

import json
import sys

from compilescope.benchmark.measure import Config, Make, measure
from compilescope.benchmark.target import load_by_name, load_make
from compilescope.session.model import error_summary


def main() -> int:
    spec = json.loads(sys.argv[1])
    config = Config(**spec["config"])
    built: dict[str, str] = {}  # a model by name: what was built
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
            )
    except Exception as error:  # the user's make() or model failed: report it, as the figures would be
        result = config.failed(error_summary(error))
    if "model" in built:
        result["model"] = built["model"]
    with open(spec["out"], "w", encoding="utf-8") as handle:
        json.dump(result, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main())
