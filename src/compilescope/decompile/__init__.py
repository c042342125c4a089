"""Bytecode -> Python source, stdlib only (issue 5, in progress).

Built in layers, each tested on Python 3.10 to 3.13:
- cfg: the control-flow graph of a code object (blocks, edges, dominators, natural loops).
Structured regions (if/else, loops, try, with, comprehensions, boolean operators) and the
source they become are the next layers; nothing is exposed as compilescope.decompile() until
they round-trip a corpus.
"""
