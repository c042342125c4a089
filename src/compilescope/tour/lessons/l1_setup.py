"""Lesson 1: what torch.compile needs. Python, torch, a GPU, a C++ compiler and Python.h (the
C++ Inductor writes includes it); then what a compile does when its C++ compiler is missing."""

import shutil
import sys
import sysconfig
from pathlib import Path

import torch
from common import say

say(
    python=sys.version.split()[0],
    torch=torch.__version__,
    gpu=torch.cuda.is_available(),
    compilers={name: shutil.which(name) is not None for name in ("g++", "clang++", "cl")},
    python_h=(Path(sysconfig.get_paths()["include"]) / "Python.h").exists(),
)

# A compiler that does not exist, for this one compile: Inductor writes C++, and has to stop.
torch._inductor.config.cpp.cxx = (None, "compilescope-tour-no-such-compiler")
try:
    torch.compile(lambda x: torch.relu(x) + 1.0)(torch.randn(8))
    say(missing_compiler=None)
except Exception as error:  # what the user would see
    say(missing_compiler=f"{type(error).__name__}: {str(error).strip().splitlines()[0]}")
