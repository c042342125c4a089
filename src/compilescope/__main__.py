"""python -m compilescope: the same as the `compilescope` command."""

import sys

from compilescope.cli import main

sys.exit(main())
