"""python -m compilescope.app PLAN.json: one run of a RunPlan saved as JSON (app/plan.py), in a
process of its own. run --try's two runs come here (app/try_fix.py), each exactly what
`compilescope run` does with that plan (app/pipeline.py)."""

import os
import sys

# As python -m compilescope does (__main__.py): the folder compilescope was found in first on
# sys.path, not the current folder, where our own imports would find the user's files.
if not getattr(sys.flags, "safe_path", False) and sys.path:
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from compilescope.app.errors import CommandError  # noqa: E402
from compilescope.app.pipeline import run_program  # noqa: E402
from compilescope.app.plan import RunPlan  # noqa: E402
from compilescope.outputs import OutputError  # noqa: E402


def main(argv: list[str]) -> int:
    with open(argv[0], encoding="utf-8") as given:
        plan = RunPlan.from_json(given.read())
    try:
        return run_program(plan)
    except (CommandError, OutputError) as error:  # as `compilescope run` says them (cli.main)
        from compilescope.render.text import one_line

        print(f"compilescope run: {one_line(str(error))}", file=sys.stderr)
        return error.exit_code if isinstance(error, CommandError) else 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
