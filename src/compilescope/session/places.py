"""Whose code a file named in a trace is: the user's, a library's (and which), Python's own, or
compilescope's. Plain string tests on the path as the trace gives it (no file is opened), so a
trace from another machine is judged the same way.
"""

from __future__ import annotations

import re

# An installed package's folder, then its top-level name: ".../site-packages/transformers/..."
_INSTALLED = re.compile(r"[/\\](?:site|dist)-packages[/\\](?P<package>[^/\\]+)")
# Python's own library: ".../lib/python3.11/contextlib.py" (not its site-packages, above)
_STDLIB = re.compile(r"[/\\]lib[/\\]python3\.\d+[/\\](?!site-packages|dist-packages)")
# compilescope's own frames (its run command executes the user's script)
_OURS = re.compile(r"[/\\]compilescope[/\\](?:(?:cli|record|benchmark)[/\\]|__main__\.py$|__init__\.py$)|[/\\]bin[/\\]compilescope$")
# torch from a source checkout (not installed): ".../torch/_dynamo/...", ".../torch/nn/..."
_TORCH_TREE = re.compile(r"[/\\]torch[/\\](?:_\w+|nn|optim|utils|distributed|autograd|fx|cuda|amp)[/\\]")


def library(filename: str | None) -> str | None:
    """The library a file belongs to ("torch", "transformers", "python" for the standard
    library, "compilescope"), or None where it is the user's own code (or not known)."""
    if not filename:
        return None
    if found := _INSTALLED.search(filename):
        package = found.group("package")  # "transformers", "six.py", "foo-1.0.egg"
        return re.split(r"[-.]", package, maxsplit=1)[0]
    if _OURS.search(filename):
        return "compilescope"
    if _STDLIB.search(filename) or filename.startswith("<frozen"):
        return "python"
    if _TORCH_TREE.search(filename):
        return "torch"
    return None


def is_user_code(filename: str | None) -> bool:
    """Whether the file is the user's own (not a library's, Python's or compilescope's). A
    generated "<string>" (a dataclass's __init__, an exec) counts as not the user's."""
    return filename is not None and filename != "" and not filename.startswith("<") and library(filename) is None
