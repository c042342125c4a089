"""Bytecode -> Python source, stdlib only (issue 5, in progress).

Built in layers, each tested on Python 3.10 to 3.13:
- cfg: the control-flow graph of a code object (blocks, edges, dominators, natural loops).
- expressions: the instructions of a block -> Python statements, by a symbolic run of the value
  stack into `ast` (unparsed with `ast.unparse`); straight-line functions round-trip.
- structure: the graph -> structured statements: if/elif/else from post-dominators, conditions
  joined with and/or/not, guard clauses and shared tails written as a person writes them; for
  loops with continue, break and else.
While loops, try, with, comprehensions and values that flow across blocks (`x = a or b`) come next;
nothing is exposed as compilescope.decompile() until they round-trip a corpus. What is not understood raises expressions.Unsupported naming the instruction: never a
guess.
"""
