"""Where Python's bytecode differs between the versions the decompiler reads (3.10 to 3.13).

Each difference is named here once, with what it changes; the layers test these names, never
`sys.version_info` themselves. To read a new Python, start here: a difference that is not on this
list is one the layers do not yet know about. (tests/unit/test_decompiler_opcodes.py lists, per
version, which opcodes the reader handles.)
"""

from __future__ import annotations

import sys

PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"  # as errors name it

# --- Which Pythons ------------------------------------------------------------------------------
# The versions whose bytecode the layers know: every difference below is named for them. A newer
# Python may keep an opcode's name and change what it does (3.14 reads subscripts with BINARY_OP,
# borrows with LOAD_FAST_BORROW, ...): read as 3.13's, its bytecode could be decompiled into
# something that looks right and is not. So a Python outside these gets its bytecode shown, as it
# is (api.decompile_code), until its differences are named here.
OLDEST, NEWEST = (3, 10), (3, 13)


def reads(version: tuple[int, int]) -> bool:
    """Whether the decompiler knows this Python's bytecode."""
    return OLDEST <= version <= NEWEST


READS_THIS_PYTHON = reads((sys.version_info.major, sys.version_info.minor))

# --- Exceptions ---------------------------------------------------------------------------------
# 3.11+: handlers are found in the code's exception table (co_exceptiontable), each range with its
# stack depth. 3.10: SETUP_FINALLY / SETUP_WITH push a block on a block stack that POP_BLOCK and
# POP_EXCEPT pop: the graph's exception edges are found by following that stack (cfg.py).
EXCEPTION_TABLE = sys.version_info >= (3, 11)
# What a handler's first instruction finds above its try's stack: 3.11+ the exception alone (then
# PUSH_EXC_INFO keeps the one handled before below it); 3.10 six values (the previous exception's
# traceback, value and type, then the new one's).
HANDLER_ENTRY_DEPTH = 1 if EXCEPTION_TABLE else 6
# POP_EXCEPT: 3.10 keeps the exception handled before as three entries, 3.11+ as one.
PREVIOUS_EXCEPTION_ENTRIES = 1 if EXCEPTION_TABLE else 3

# --- The value stack ------------------------------------------------------------------------------
# 3.11+ swaps and copies with SWAP n and COPY n; 3.10 with ROT_TWO / ROT_THREE / ROT_FOUR / DUP_TOP.
SWAP_AND_COPY = sys.version_info >= (3, 11)
# LOAD_GLOBAL's low bit (3.11+) also pushes the NULL of the call that follows.
GLOBAL_PUSHES_NULL = sys.version_info >= (3, 11)
# 3.13 has no LOAD_CLOSURE: LOAD_FAST of a cell's slot pushes the cell (values are LOAD_DEREF).
CELL_LOADED_BY_LOAD_FAST = sys.version_info >= (3, 13)
# LOAD_ATTR's low bit (3.12+) loads a method, with its NULL (3.10 and 3.11: LOAD_METHOD).
ATTR_LOADS_METHOD = sys.version_info >= (3, 12)
# Where a call's NULL sits (pushed by PUSH_NULL, or by LOAD_GLOBAL, LOAD_ATTR and LOAD_SUPER_ATTR
# with their low bit set): 3.11 and 3.12 put it below the callable ([NULL, callable, args...], or
# [callable, self, args...] for a method), 3.13 above it, in self's place ([callable, NULL, args...]).
NULL_ABOVE = sys.version_info >= (3, 13)

# --- Functions ------------------------------------------------------------------------------------
# MAKE_FUNCTION: 3.10 pushes the function's qualified name above its code; 3.11+ reads it from the code.
QUALNAME_PUSHED = sys.version_info < (3, 11)
# MAKE_FUNCTION's flags say which of closure, annotations, keyword defaults and defaults are on the
# stack below the code (up to 3.12); 3.13 adds each one after it with SET_FUNCTION_ATTRIBUTE.
MAKE_FUNCTION_FLAGS = sys.version_info < (3, 13)
# 3.12+: function and class definitions have type parameters (`def f[T]()`); the ast nodes need
# the field (an empty list) to be written.
TYPE_PARAMS = sys.version_info >= (3, 12)

# --- Loops, generators and conditions ---------------------------------------------------------------
# What FOR_ITER leaves for the code after the loop: 3.12+ keeps the iterator (and a value) for
# END_FOR to pop; 3.10 and 3.11 pop it themselves.
ITERATOR_KEPT_AFTER_LOOP = sys.version_info >= (3, 12)
# END_FOR: 3.12 pops the iterator and what FOR_ITER left; 3.13 only the latter.
END_FOR_POPS = 2 if sys.version_info < (3, 13) else 1
# YIELD_FROM: 3.12+ leaves the delegated iterator (the receiver) below the result, for END_SEND to drop.
RECEIVER_KEPT = sys.version_info >= (3, 12)
# 3.12+ conditional jumps test only exact bools (made by TO_BOOL or a comparison): a block that
# only jumps, conditionally or not, cannot raise.
JUMPS_TEST_ONLY_BOOLS = sys.version_info >= (3, 12)
# 3.10: MATCH_CLASS and MATCH_KEYS push whether they matched above what they found; 3.11+ test
# what they found (None where no match).
MATCH_PUSHES_TEST = sys.version_info < (3, 11)
