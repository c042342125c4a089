"""The check that makes a decompilation trustworthy: compile the output and compare its code with
the original's on what the code does.

Compared, for the code object and (recursively) every code object inside it: the signature
(argument counts and names, *args/**kwargs, generator/coroutine flags), which names it loads,
stores and deletes and in which scope (fast local, cell/free, global, module/class name), the
constants, and the instruction stream after removing what the compiler is free to vary without
changing what the code does:

- line numbers and positions, NOP, EXTENDED_ARG, CACHE entries, RESUME (3.11+), COPY_FREE_VARS
  and MAKE_CELL (the cells are compared as sets instead);
- jump offsets, directions and the order of blocks: the instructions are compared as two graphs
  walked side by side from their first instruction (each pair reached together must do the same
  and go on to pairs that do), following unconditional jumps, so a forward and a backward jump to
  the same instruction are alike, and so is a test with its two ways swapped (`if a: X else: Y`
  and `if not a: Y else: X`; `is not` / `not in` likewise), but a jump elsewhere is not;
- the exception table (3.11+): each instruction's handler, depth and lasti, walked the same way;
- the decompiler's own temporaries (`__temp3`, `__stack0`): their names are made alike;
- code no way reaches (it never runs);
- a return of one local or constant after moves of the stack (`break` then `return x`,
  RETURN_CONST), with or without a handler around it;
- 3.13's paired instructions (LOAD_FAST_LOAD_FAST as two LOAD_FAST), its `__firstlineno__`, and
  qualified names (`Outer.f.<locals>.g`: the enclosing class, which the output cannot give).

Everything else must be equal: a different opcode, operand, name, scope, constant, call arity or
jump target shows as a difference.
"""

from __future__ import annotations

import dis
import re
from collections.abc import Iterator
from types import CodeType
from typing import Any

from compilescope.decompiler.versions import EXCEPTION_TABLE

# The decompiler's own names for values the source held on the stack (tidy.py)
_TEMPORARY = re.compile(r"^_{2,}(temp|stack|const)\d+$")
_DROPPED = {"NOP", "EXTENDED_ARG", "CACHE", "RESUME", "COPY_FREE_VARS", "MAKE_CELL"}
# co_flags bits that are part of what the function is
_FLAGS = {
    0x04: "takes *args",
    0x08: "takes **kwargs",
    0x20: "is a generator",
    0x80: "is a coroutine (async def)",
    0x100: "is an iterable coroutine",
    0x200: "is an async generator",
}
_SCOPES = {
    "FAST": "a local",
    "DEREF": "a closure variable",
    "CLOSURE": "a closure variable",
    "CLASSDEREF": "a closure variable",
    "GLOBAL": "a global",
    "NAME": "a module or class name",
}
_OUTER = "__compilescope_outer__"
_CLASS = "__compilescope_class__"


def difference(original: CodeType, source: str) -> str | None:
    """None where `source` (a decompilation of `original`) compiles to the same code as far as
    what it does goes; else what differs, in a phrase ("stores `counter` as a local where the
    original stores a global")."""
    # Python calls a function of an imported module as an attribute (LOAD_ATTR), not as a method
    # (LOAD_METHOD, 3.11+): the globals the original calls so are imported where it is compiled again.
    try:
        again = recompiled(original, source, _modules(original))
    except SyntaxError as error:
        return f"it does not compile ({error.msg}, line {error.lineno})"
    if again is None:
        return f"the output holds no function {original.co_name}"
    return compare(original, again, "")


_LOADS = ("LOAD_GLOBAL", "LOAD_FAST", "LOAD_DEREF", "LOAD_NAME")


def _modules(code: CodeType) -> list[str]:
    """The globals whose functions the code (or code inside it) calls as an imported module's:
    `os.fspath(p)` is LOAD_GLOBAL (NULL +) os, LOAD_ATTR fspath (3.11, 3.12: the NULL pushed
    with the module, or before it for a local `import os` where the module imports os too;
    3.13: PUSH_NULL after), where a method call is LOAD_METHOD or LOAD_ATTR (NULL|self + ...).
    (Python looks for the import in the module's own names only, whichever scope `os` is in.)"""
    names: set[str] = set()
    for inner in [code, *_nested_all(code)]:
        instructions = [i for i in dis.get_instructions(inner) if i.opname not in _DROPPED]
        imported = {b.argval for a, b in zip(instructions, instructions[1:]) if a.opname == "IMPORT_NAME" and b.opname.startswith("STORE_")}
        for before, first, second, third in zip([None, *instructions], instructions, instructions[1:], instructions[2:]):
            if first.opname not in _LOADS or second.opname != "LOAD_ATTR" or "NULL|self" in second.argrepr:
                continue
            pushed = (
                before is not None and before.opname == "PUSH_NULL" and first.argval in imported
            )  # (3.11, 3.12: `import os` in the function)
            module = first.opname == "LOAD_GLOBAL" or first.argval in imported  # (`self.f` never is)
            if module and (first.argrepr.startswith("NULL + ") or third.opname == "PUSH_NULL" or pushed):
                names.add(first.argval)
    return sorted(name for name in names if name.isidentifier())


def _nested_all(code: CodeType) -> Iterator[CodeType]:
    for inner in _nested(code):
        yield inner
        yield from _nested_all(inner)


def recompiled(original: CodeType, source: str, imported: list[str] | None = None) -> CodeType | None:
    """`source` compiled where its free variables are an enclosing function's, as the original's
    are (and inside a class where it uses `__class__`, as a method calling super() does)."""
    imports = "".join(f"import {name}\n" for name in imported or [])
    freevars = [name for name in original.co_freevars if name != "__class__"]
    body = source
    if "__class__" in original.co_freevars:
        body = f"class {_CLASS}:\n" + _indent(body)
    if original.co_freevars:
        cells = "".join(f"    {name} = None\n" for name in freevars)
        uses = f"    return ({', '.join(freevars)},)\n" if freevars else ""
        body = f"def {_OUTER}():\n{cells}{_indent(body)}{uses}"
    module = compile(imports + body, "<decompiled>", "exec", dont_inherit=True)  # not our own __future__ flags
    return _first_function(module)


def _indent(source: str) -> str:
    return "".join(f"    {line}\n" if line.strip() else "\n" for line in source.splitlines())


def _first_function(code: CodeType) -> CodeType | None:
    """The first function in the module, inside the harness's function and class if there."""
    inner = [c for c in code.co_consts if isinstance(c, CodeType)]
    if not inner:
        return None
    if inner[0].co_name in (_OUTER, _CLASS):
        return _first_function(inner[0])
    return inner[0]


def compare(original: CodeType, again: CodeType, where: str) -> str | None:
    """What differs between two code objects, the first difference found, or None."""
    place = f" (in {where})" if where else ""
    said = _signature(original, again)
    if said:
        return said + place
    # What runs decides (code no way reaches, as in Dynamo's resume functions, is left out); where
    # it differs, a difference of names or constants says it in the user's words.
    nested: dict[tuple[int, int], tuple[CodeType, CodeType]] = {}
    said = _walk(_Graph(original), _Graph(again), nested)
    if said:
        reached = _walk_all(_Graph(original)), _walk_all(_Graph(again))
        return (_names(*reached) or _constants(*reached) or said) + place
    # the code objects inside, paired where the walk loaded them together (their order in
    # co_consts follows the source's, which may put an else first)
    for inner, inner_again in nested.values():
        said = compare(inner, inner_again, f"{where} > {inner.co_name}" if where else inner.co_name)
        if said:
            return said
    return None


def _signature(original: CodeType, again: CodeType) -> str | None:
    for attribute, what in (
        ("co_argcount", "the number of positional parameters"),
        ("co_posonlyargcount", "the number of positional-only parameters"),
        ("co_kwonlyargcount", "the number of keyword-only parameters"),
    ):
        if getattr(original, attribute) != getattr(again, attribute):
            return f"{what} ({getattr(again, attribute)} where the original has {getattr(original, attribute)})"
    count = original.co_argcount + original.co_kwonlyargcount + bool(original.co_flags & 0x04) + bool(original.co_flags & 0x08)
    if original.co_varnames[:count] != again.co_varnames[:count]:
        return f"the parameters' names ({', '.join(again.co_varnames[:count])} where the original has {', '.join(original.co_varnames[:count])})"
    for bit, what in _FLAGS.items():
        if original.co_flags & bit != again.co_flags & bit:
            return f"whether it {what} (the original {'does' if original.co_flags & bit else 'does not'})"
    if set(original.co_freevars) != set(again.co_freevars):
        return f"its closure variables ({_listed(again.co_freevars)} where the original has {_listed(original.co_freevars)})"
    if set(original.co_cellvars) != {c for c in again.co_cellvars if not _TEMPORARY.match(c)}:
        return (
            f"the variables its inner functions share ({_listed(again.co_cellvars)} where the original has {_listed(original.co_cellvars)})"
        )
    return None


def _listed(names: tuple[str, ...]) -> str:
    return ", ".join(f"`{n}`" for n in sorted(names)) or "none"


def _instructions(code: CodeType) -> list[dis.Instruction]:
    """The instructions that do something: without those in _DROPPED, nor 3.13's
    `__firstlineno__ = <line>` at the top of a class body (a line number)."""
    found: list[dis.Instruction] = []
    for instruction in dis.get_instructions(code):
        if instruction.opname in _DROPPED:
            continue
        first, _, second = instruction.opname.partition("_FAST_")
        if second in ("LOAD_FAST", "STORE_FAST"):  # 3.13's two in one, as the compiler pairs them: as two
            names = instruction.argval
            found += [instruction._replace(opname=f"{first}_FAST", argval=names[0], argrepr=names[0])]
            found += [instruction._replace(opname=second, argval=names[1], argrepr=names[1])]
            continue
        found.append(instruction)
    for index in range(len(found) - 1):
        this, following = found[index], found[index + 1]
        if this.opname == "LOAD_CONST" and isinstance(this.argval, str):
            # a qualified name: the enclosing class or function, which the output cannot give
            if following.opname == "MAKE_FUNCTION" or following.opname == "STORE_NAME" and following.argval == "__qualname__":
                found[index] = this._replace(argval="<qualified name>", argrepr="<qualified name>")
    for index in range(len(found) - 1):
        if found[index].opname == "LOAD_CONST" and found[index + 1].opname == "STORE_NAME" and found[index + 1].argval == "__firstlineno__":
            return found[:index] + found[index + 2 :]
    return found


def _accesses(instructions: list[dis.Instruction]) -> dict[str, set[tuple[str, str]]]:
    """name -> {(loads|stores|deletes, scope)}: every variable access of the instructions."""
    found: dict[str, set[tuple[str, str]]] = {}
    for instruction in instructions:
        action, _, scope = instruction.opname.partition("_")
        scope = scope.removesuffix("_CHECK").removesuffix("_AND_CLEAR")
        if action not in ("LOAD", "STORE", "DELETE") or scope not in _SCOPES:
            continue
        verb = {"LOAD": "loads", "STORE": "stores", "DELETE": "deletes"}[action]
        if not isinstance(instruction.argval, str):
            continue
        found.setdefault(instruction.argval, set()).add((verb, _SCOPES[scope]))
    return found


def _stores_first(access: tuple[str, str]) -> tuple[int, str]:
    """A store or delete names the cause (a missing `global`) better than the loads it changes."""
    return (("stores", "deletes", "loads").index(access[0]), access[1])


def _names(original: list[dis.Instruction], again: list[dis.Instruction]) -> str | None:
    ours, theirs = _accesses(original), _accesses(again)
    for name in sorted(set(ours) | set(theirs)):
        if _TEMPORARY.match(name) and name not in ours:
            continue
        before, after = ours.get(name, set()), theirs.get(name, set())
        if before == after:
            continue
        for verb, scope in sorted(after - before, key=_stores_first):
            same_verb = sorted(s for v, s in before - after if v == verb)
            if same_verb:
                return f"{verb} `{name}` as {scope} where the original {verb} {' and '.join(same_verb)}"
            return f"{verb} `{name}` as {scope}, which the original does not"
        verb, scope = sorted(before - after, key=_stores_first)[0]
        return f"never {verb} `{name}` as {scope}, where the original does"
    return None


def _constant_key(value: Any) -> Any:
    """A constant as the code sees it: 1, 1.0 and True told apart, -0.0 from 0.0, and a
    tuple's or frozenset's items likewise (code objects are compared on their own)."""
    if isinstance(value, CodeType):
        return ("code",)
    if isinstance(value, tuple):
        return ("tuple", tuple(_constant_key(v) for v in value))
    if isinstance(value, frozenset):
        return ("frozenset", tuple(sorted(repr(_constant_key(v)) for v in value)))
    return (type(value).__name__, repr(value))


def _constants(original: list[dis.Instruction], again: list[dis.Instruction]) -> str | None:
    ours = {_constant_key(c) for c in _loaded_constants(original)}
    theirs = {_constant_key(c) for c in _loaded_constants(again)}
    if ours == theirs:
        return None
    extra, missing = sorted(theirs - ours, key=repr), sorted(ours - theirs, key=repr)
    if missing:
        return f"its constants: the original has {_shown(missing[0])}, which this has not"
    return f"its constants: this has {_shown(extra[0])}, which the original has not"


def _loaded_constants(instructions: list[dis.Instruction]) -> Iterator[Any]:
    for instruction in instructions:
        if instruction.opname in ("LOAD_CONST", "RETURN_CONST"):
            yield instruction.argval


def _shown(key: Any) -> str:
    text = key[1] if len(key) == 2 and isinstance(key[1], str) else repr(key)
    return text if len(text) < 60 else text[:57] + "..."


def _nested(code: CodeType) -> list[CodeType]:
    return [c for c in code.co_consts if isinstance(c, CodeType)]


_UNCONDITIONAL = {"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_ABSOLUTE", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP", "JUMP_NO_INTERRUPT"}
_ENDS = {"RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE"}
# Tests that cannot raise, whose exception handler therefore never runs: 3.13+'s conditional
# jumps test only exact bools (TO_BOOL or a comparison made them) or identity with None. The
# compiler leaves such a jump in or out of the range around it as the blocks fall: in a generator
# or coroutine (whose StopIteration guard covers the whole body) `if c: continue` keeps the jump
# inside the guard's range where `if not c: ...` leaves it out. (3.12 tests any value, calling
# its __bool__, which may raise: there the handler is compared.)
_CANNOT_RAISE = (
    frozenset({"POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE", "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE"})
    if "TO_BOOL" in dis.opmap
    else frozenset()
)

# A conditional jump and its opposite: `if a: X else: Y` may come out as `if not a: Y else: X`,
# the same test with its two ways swapped.
_OPPOSITE = {
    "POP_JUMP_IF_FALSE": ("POP_JUMP_IF_TRUE", False),
    "POP_JUMP_IF_TRUE": ("POP_JUMP_IF_TRUE", True),
    "POP_JUMP_IF_NOT_NONE": ("POP_JUMP_IF_NONE", False),
    "POP_JUMP_IF_NONE": ("POP_JUMP_IF_NONE", True),
}

# A jump that keeps its value where it jumps, and the tests at its target that send that value
# straight on (the one it failed is tested again, with the same outcome)
_THREADED = {
    "JUMP_IF_FALSE_OR_POP": ("POP_JUMP_IF_TRUE", "JUMP_IF_TRUE_OR_POP"),
    "JUMP_IF_TRUE_OR_POP": ("POP_JUMP_IF_FALSE", "JUMP_IF_FALSE_OR_POP"),
}


class _Graph:
    """A code object's kept instructions, each with its key (what it does), the instructions
    that may run next, and its exception handler (3.11+)."""

    def __init__(self, code: CodeType) -> None:
        self.kept = _instructions(code)
        self.code = code
        self.handlers: dict[int, tuple[int, int, bool]] = {}
        for entry in getattr(dis.Bytecode(code), "exception_entries", None) or []:  # 3.11+
            for index, instruction in enumerate(self.kept):
                if entry.start <= instruction.offset < entry.end:
                    self.handlers[index] = (self.position(entry.target), entry.depth, entry.lasti)

    def position(self, offset: int) -> int:
        """Where an offset falls: the first kept instruction at or after it."""
        for index, instruction in enumerate(self.kept):
            if instruction.offset >= offset:
                return index
        return len(self.kept)

    def follow(self, index: int) -> int:
        """Past unconditional jumps: where running from `index` goes first."""
        for _ in range(len(self.kept) + 1):
            if index >= len(self.kept) or _name(self.kept[index]) != "JUMP":
                return index
            index = self.position(self.kept[index].argval)
        return index  # (a loop of jumps: `while True: pass`)

    def returns(self, index: int) -> Any:
        """Where the instructions from `index` only move the stack and return one local or
        constant (`break` then `return x`, or `return x` from inside a loop, which pops the loop's
        iterator before or after loading x; RETURN_CONST and LOAD_CONST, RETURN_VALUE): what it
        returns. None where they do anything else."""
        stack: list[Any] = []
        for _ in range(12):
            if index >= len(self.kept):
                return None
            instruction = self.kept[index]
            name = _name(instruction)
            if name == "JUMP":
                index = self.position(instruction.argval)
                continue
            if name in ("LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_CONST", "LOAD_DEREF"):
                stack.append((name.replace("_CHECK", ""), _argument(self.code, instruction)))
            elif name == "RETURN_CONST":
                return ("LOAD_CONST", _argument(self.code, instruction))
            elif name == "POP_TOP":
                stack = stack[:-1]  # (a value from before: the stack's own, never read again)
            elif name == "POP_EXCEPT":  # (returning from inside an except clause: its exception dropped)
                stack = stack[: -1 if EXCEPTION_TABLE else -3]
            elif name in ("ROT_TWO", "SWAP") and (instruction.arg in (None, 2)):
                stack = [*stack[:-2], *stack[-2:][::-1]] if len(stack) >= 2 else [*stack, None] if stack else []
            elif name in ("ROT_THREE", "ROT_FOUR"):
                # (3.10: `return x` inside a finally's handler moves x under the exception it
                # drops, as `break` then the copied `return x` drops it first: the values below
                # what was loaded are unknown, None)
                depth = 3 if name == "ROT_THREE" else 4
                padded = [None] * (depth - len(stack)) + stack
                stack = [*padded[:-depth], padded[-1], *padded[-depth:-1]] if stack else []
            elif name == "RETURN_VALUE":
                return stack[-1] if stack and stack[-1] is not None else None
            else:
                return None
            index += 1
        return None

    def step(self, index: int) -> tuple[tuple[Any, ...], list[int]]:
        """(what the instruction does, where it goes next: for a test, if true then if false)."""
        returned = self.returns(index)
        if returned is not None:
            return ("return", returned), []
        instruction = self.kept[index]
        name = _name(instruction)
        if instruction.opcode in dis.hasjrel or instruction.opcode in dis.hasjabs:
            target = self.position(instruction.argval)
            if name in _THREADED and target < len(self.kept) and _name(self.kept[self.follow(target)]) in _THREADED[name]:
                # `a or b and c` (3.10, 3.11): a JUMP_IF_FALSE_OR_POP to a test that jumps if true
                # goes on past that test, as a POP_JUMP_IF_FALSE to after it would; the compiler
                # threads it so only where both are on one line (a decompilation is on one line)
                past = self.follow(target) + 1
                return ("POP_JUMP_IF_TRUE",), [index + 1, past] if name == "JUMP_IF_FALSE_OR_POP" else [past, index + 1]
            if name in _OPPOSITE:
                test, jumps_if_true = _OPPOSITE[name]
                return (test,), [target, index + 1] if jumps_if_true else [index + 1, target]
            return (name,), [index + 1, target]
        following = self.kept[index + 1] if index + 1 < len(self.kept) else None
        if (
            name in ("IS_OP", "CONTAINS_OP")
            and following is not None
            and _name(following) in ("POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE", *_THREADED)
        ):
            # `if a is not b: X else: Y` and `if a is b: Y else: X`: one test, its ways swapped
            jump, ways = self.step(index + 1)
            if jump == ("POP_JUMP_IF_TRUE",):  # (a jump that keeps its value is not one test)
                return (name, 0, *jump), ways[::-1] if instruction.arg else ways
        key = (name, _argument(self.code, instruction))
        return key, [] if name in _ENDS else [index + 1]


def _name(instruction: dis.Instruction) -> str:
    name = re.sub(r"_(FORWARD|BACKWARD)", "", instruction.opname)
    return "JUMP" if name in _UNCONDITIONAL or name in ("JUMP_NO_INTERRUPT",) else name


def _argument(code: CodeType, instruction: dis.Instruction) -> Any:
    name = instruction.opname
    if name in ("LOAD_CONST", "RETURN_CONST"):
        return _constant_key(instruction.argval)
    if name == "KW_NAMES":  # (its argument is an index into co_consts)
        return _constant_key(code.co_consts[instruction.arg or 0])
    if isinstance(instruction.argval, str) and _TEMPORARY.match(instruction.argval):
        return "temporary"
    if instruction.argrepr:
        return re.sub(r"<code object .*?>", "<code>", instruction.argrepr)
    return instruction.arg


def _walk_all(graph: _Graph) -> list[dis.Instruction]:
    """The instructions some way reaches from the first (and from the handlers of those)."""
    seen: set[int] = set()
    todo = [0]
    while todo:
        index = todo.pop()
        if index in seen or index >= len(graph.kept):
            continue
        seen.add(index)
        instruction = graph.kept[index]
        if instruction.opcode in dis.hasjrel or instruction.opcode in dis.hasjabs:
            todo.append(graph.position(instruction.argval))
        if _name(instruction) != "JUMP" and instruction.opname not in _ENDS:
            todo.append(index + 1)
        if index in graph.handlers:
            todo.append(graph.handlers[index][0])
    return [graph.kept[i] for i in sorted(seen)]


def _walk(ours: _Graph, theirs: _Graph, nested: dict[tuple[int, int], tuple[CodeType, CodeType]]) -> str | None:
    """Run both graphs side by side from their first instructions: each pair of instructions
    reached together must do the same and go on to pairs that do (a bisimulation: blocks in
    another order, or a test with its two ways swapped, are alike; anything that runs
    differently is not)."""
    seen: set[tuple[int, int]] = set()
    todo = [(0, 0)]
    while todo:
        a, b = todo.pop()
        a, b = ours.follow(a), theirs.follow(b)
        if (a, b) in seen:
            continue
        seen.add((a, b))
        end_a, end_b = a >= len(ours.kept), b >= len(theirs.kept)
        if end_a or end_b:
            if end_a and end_b:
                continue
            return "its instructions: " + ("it runs on where the original ends" if end_a else "it ends where the original runs on")
        (key_a, next_a), (key_b, next_b) = ours.step(a), theirs.step(b)
        if key_a != key_b or len(next_a) != len(next_b):
            return f"its instructions ({_shown_step(key_b)} where the original has {_shown_step(key_a)})"
        loaded_a, loaded_b = ours.kept[a].argval, theirs.kept[b].argval
        if isinstance(loaded_a, CodeType) and isinstance(loaded_b, CodeType):
            nested.setdefault((id(loaded_a), id(loaded_b)), (loaded_a, loaded_b))
        if key_a[0] == "return":
            # (a return from inside a try or outside it is the same return: its value is loaded
            # there, which raises only for a local not yet assigned)
            continue
        handler_a, handler_b = ours.handlers.get(a), theirs.handlers.get(b)
        if key_a[0] in _CANNOT_RAISE:
            pass  # (which handler covers it is the compiler's choice: it never reaches one)
        elif (handler_a is None) != (handler_b is None) or handler_a and handler_b and handler_a[1:] != handler_b[1:]:
            return f"where exceptions are caught (at {_shown_step(key_a)})"
        if handler_a and handler_b:
            todo.append((handler_a[0], handler_b[0]))
        todo.extend(zip(next_a, next_b))
    return None


def _shown_step(key: tuple[Any, ...]) -> str:
    if len(key) != 2:
        return " ".join(str(part) for part in key)
    name, argument = key
    text = argument[1] if isinstance(argument, tuple) and len(argument) == 2 and isinstance(argument[1], str) else argument
    return f"{name} {text}".rstrip() if text is not None and text != "" else name
