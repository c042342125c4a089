"""python -m compilescope.decompiler: each stage of the decompiler on one function (stages.py)."""

import sys

from compilescope.decompiler.stages import main

sys.exit(main())
