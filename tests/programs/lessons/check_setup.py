# What torch.compile needs on this machine, looked up by hand.
import shutil
import sys
import sysconfig
from pathlib import Path

import torch


def row(label, value):
    print(f"{label:8}", value)


row("Python", sys.version.split()[0])
row("PyTorch", torch.__version__)
row("GPU", torch.cuda.is_available())

# On a CPU, Inductor's last step is C++ source handed to a compiler.
for name in ("g++", "clang++", "cl"):
    row(name, "found" if shutil.which(name) else "not found")

# That C++ includes Python's own header.
include = Path(sysconfig.get_paths()["include"])
row("Python.h", "found" if (include / "Python.h").is_file() else "not found")
