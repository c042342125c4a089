"""What python had loaded before compilescope's first line ran: its own start-up's modules.

Imported first by the package, so the set is taken before anything of ours imports more. `run`
lets the program's folder shadow every other module, as python would (app/launch.py,
_Ours.give_way): a json.py beside the script is what the script's `import json` finds.
"""

import sys

MODULES_BEFORE_US = frozenset(sys.modules)
