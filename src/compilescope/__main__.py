"""python -m compilescope: the same as the `compilescope` command."""

import os
import sys

# python -m put the current folder first on sys.path, as for any module it runs: there our own
# imports would find the user's files (a json.py or a rich.py beside their script) before the
# real ones. In its place, the folder compilescope was found in (searched first for it already);
# `run` gives the program the sys.path[0] python gives it (app/launch.py).
if not getattr(sys.flags, "safe_path", False) and sys.path:
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

from compilescope.cli import main  # noqa: E402

sys.exit(main())
