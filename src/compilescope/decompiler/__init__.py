"""Bytecode -> Python source, stdlib only.

Built in layers, each tested on Python 3.10 to 3.13 (docs/decompiler.md, "The pipeline"):
- cfg: the control-flow graph of a code object (blocks, edges, dominators, natural loops).
- normalize: the graph made regular, one named pass at a time (PASSES): Python's copies and
  cuts undone (finally_copies takes out a finally's copies).
- expressions: the instructions of a block -> Python statements, by a symbolic run of the value
  stack into `ast`; values the stack keeps across a statement or a block go in temporaries.
  opcodes (and opcodes_calls): its table, what each instruction does to the stack.
- structure: the graph -> structured statements: if/elif/else from post-dominators, conditions
  joined with and/or/not, loops, try/with, match (patterns); comprehensions (comprehensions).
- building: whole definitions: functions, nested functions, class bodies, lambdas.
- tidy: temporaries put back where that is exact (`return a or b`).
- api: decompile() for any function or code object; what is not understood yet comes out as the
  annotated bytecode in a function that raises if run: never a guess.
- stages: `python -m compilescope.decompiler file.py:function` prints each stage for one function.
"""

# (fills expressions.HANDLERS, BlockReader's table of opcodes: before any block is read)
from compilescope.decompiler import opcodes  # noqa: F401
from compilescope.decompiler.api import Decompiled, code_of, decompile, decompile_code

__all__ = ["Decompiled", "code_of", "decompile", "decompile_code"]
