"""Bytecode -> Python source, stdlib only (issue 5, in progress).

Built in layers, each tested on Python 3.10 to 3.13:
- cfg: the control-flow graph of a code object (blocks, edges, dominators, natural loops).
- expressions: the instructions of a block -> Python statements, by a symbolic run of the value
  stack into `ast` (unparsed with `ast.unparse`); straight-line functions round-trip.
Structured regions (if/else, loops, try, with, comprehensions, boolean operators) over the graph
are the next layer; nothing is exposed as compilescope.decompile() until they round-trip a
corpus. What is not understood raises expressions.Unsupported naming the instruction: never a
guess.
"""
