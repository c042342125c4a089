"""A code object's control-flow graph: basic blocks, their edges, dominators and loops.

The first layer of the decompiler (issue 5): structure is recovered from this graph, never from
guesses about instruction patterns. Stdlib only (`dis`), no torch; one code path for Python 3.10
to 3.13, the version differences kept to the few tables below.

- A block starts at offset 0, at every jump target, after every jump or terminator, and at the
  edges of exception ranges (3.11+: the exception table; 3.10: SETUP_FINALLY/SETUP_WITH blocks).
- Edges are "fall" (falls through), "jump" (taken jump) or "exception" (to a handler).
- Dominators by the iterative algorithm of Cooper, Harvey and Kennedy; a back edge is an edge to
  a block that dominates its source, and each back edge's natural loop is the set of blocks that
  reach the source without passing the header.
"""

from __future__ import annotations

import dis
from dataclasses import dataclass, field
from types import CodeType
from typing import Any, cast

from compilescope.decompiler.versions import EXCEPTION_TABLE

# Jumps that always jump (no fall-through edge).
UNCONDITIONAL = frozenset({"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_ABSOLUTE", "JUMP", "JUMP_NO_INTERRUPT", "JUMP_BACKWARD_NO_INTERRUPT"})
# Instructions after which control never falls through.
TERMINATORS = frozenset({"RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE"})
# 3.10: these push an exception handler whose address is their argument.
SETUP_HANDLER = frozenset({"SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH"})
_JUMP_OPCODES = frozenset(getattr(dis, "hasjrel", [])) | frozenset(getattr(dis, "hasjabs", [])) | frozenset(getattr(dis, "hasjump", []))


def is_jump(instruction: dis.Instruction) -> bool:
    return instruction.opcode in _JUMP_OPCODES and instruction.opname not in SETUP_HANDLER


@dataclass
class Block:
    index: int
    start: int  # offset of the first instruction
    instructions: list[dis.Instruction]
    end: int = 0  # offset just past the block (the next block's start, or the code's end)
    successors: list[tuple[int, str]] = field(default_factory=list)  # (block index, "fall" | "jump" | "exception")
    predecessors: list[int] = field(default_factory=list)

    @property
    def last(self) -> dis.Instruction:
        return self.instructions[-1]


@dataclass
class Graph:
    code: CodeType
    blocks: list[Block]
    dominators: dict[int, int]  # block -> its immediate dominator (the entry maps to itself)
    loops: dict[int, set[int]]  # loop header -> the blocks of its natural loop (header included)

    def block_at(self, offset: int) -> Block:
        for block in self.blocks:
            if block.start <= offset < block.end:
                return block
        raise KeyError(f"no block holds offset {offset}")

    def dominates(self, a: int, b: int) -> bool:
        """Block a dominates block b: every path from the entry to b passes a."""
        while True:
            if a == b:
                return True
            parent = self.dominators.get(b)
            if parent is None or parent == b:
                return False
            b = parent

    @property
    def reachable(self) -> set[int]:
        return set(self.dominators)


def exception_ranges(code: CodeType) -> list[tuple[int, int, int]]:
    """(start, end, handler) offsets of the code's exception ranges."""
    if EXCEPTION_TABLE:
        # (typeshed has no `exception_entries`: it is there from 3.11, undocumented)
        return [(e.start, e.end, e.target) for e in cast(Any, dis.Bytecode(code)).exception_entries]
    # 3.10: a SETUP_* protects what follows it until its POP_BLOCK; for the leaders, the range
    # up to the handler (build() finds each block's handler from the block stack).
    ranges = []
    for instruction in dis.get_instructions(code):
        if instruction.opname in SETUP_HANDLER:
            ranges.append((instruction.offset + 2, instruction.argval, instruction.argval))
    return ranges


def build(code: CodeType) -> Graph:
    instructions = [i for i in dis.get_instructions(code) if i.opname != "CACHE"]
    handlers = exception_ranges(code)
    leaders = {instructions[0].offset} if instructions else set()
    for index, instruction in enumerate(instructions):
        following = instructions[index + 1].offset if index + 1 < len(instructions) else None
        if is_jump(instruction):
            leaders.add(instruction.argval)
            if following is not None:
                leaders.add(following)
        elif instruction.opname in TERMINATORS or instruction.opname in SETUP_HANDLER:
            if following is not None:
                leaders.add(following)
            if instruction.opname in SETUP_HANDLER:
                leaders.add(instruction.argval)
    for start, end, target in handlers:
        leaders.update((start, end, target))
    if not EXCEPTION_TABLE:  # 3.10: the block stack changes at POP_BLOCK / POP_EXCEPT too
        for index, instruction in enumerate(instructions[:-1]):
            if instruction.opname in ("POP_BLOCK", "POP_EXCEPT"):
                leaders.add(instructions[index + 1].offset)

    blocks: list[Block] = []
    for instruction in instructions:
        if instruction.offset in leaders or not blocks:
            blocks.append(Block(index=len(blocks), start=instruction.offset, instructions=[]))
        blocks[-1].instructions.append(instruction)
    for block, following_block in zip(blocks, blocks[1:]):
        block.end = following_block.start
    if blocks:
        blocks[-1].end = len(code.co_code)
    by_start = {block.start: block.index for block in blocks}

    def add_edge(source: Block, target_offset: int, kind: str) -> None:
        target = by_start.get(target_offset)
        if target is not None and (target, kind) not in source.successors:
            source.successors.append((target, kind))
            blocks[target].predecessors.append(source.index)

    for block in blocks:
        last = block.last
        following = blocks[block.index + 1].start if block.index + 1 < len(blocks) else None
        if is_jump(last):
            if last.opname not in UNCONDITIONAL and following is not None:
                add_edge(block, following, "fall")
            add_edge(block, last.argval, "jump")
        elif last.opname not in TERMINATORS and following is not None:
            add_edge(block, following, "fall")
        if EXCEPTION_TABLE:
            for start, end, target in handlers:
                if start < block.end and block.start < end:
                    add_edge(block, target, "exception")
    if not EXCEPTION_TABLE:
        for index, handler in _block_stack_handlers(blocks, by_start).items():
            add_edge(blocks[index], blocks[handler].start, "exception")
    return _analysed(code, blocks)


_EXCEPT = -1  # 3.10: the block a handler's start pushes (POP_EXCEPT pops it); not a handler itself


def _block_stack_handlers(blocks: list[Block], by_start: dict[int, int]) -> dict[int, int]:
    """3.10: each block's innermost handler, from the block stack SETUP_* push and POP_BLOCK
    and POP_EXCEPT pop, followed along the normal edges (blocks are cut where it changes, so
    each block has one). A handler starts with the stack its SETUP_* found, plus the block
    entering a handler pushes."""
    at_start: dict[int, tuple[int, ...]] = {0: ()} if blocks else {}
    todo = [0] if blocks else []
    found: dict[int, int] = {}
    while todo:
        index = todo.pop()
        stack = list(at_start[index])
        handler = next((h for h in reversed(stack) if h != _EXCEPT), None)
        if handler is not None:
            found[index] = handler
        block = blocks[index]
        for instruction in block.instructions:
            if instruction.opname in SETUP_HANDLER:
                target = by_start.get(instruction.argval)
                if target is not None and target not in at_start:
                    at_start[target] = (*stack, _EXCEPT)
                    todo.append(target)
                stack.append(target if target is not None else _EXCEPT)
            elif instruction.opname in ("POP_BLOCK", "POP_EXCEPT", "END_ASYNC_FOR") and stack:
                stack.pop()  # (END_ASYNC_FOR ends its handler as POP_EXCEPT does: the async for is over)
        for successor, kind in block.successors:
            if kind != "exception" and successor not in at_start:
                at_start[successor] = tuple(stack)
                todo.append(successor)
    return found


def _analysed(code: CodeType, blocks: list[Block]) -> Graph:
    dominators = _immediate_dominators(blocks)
    for block in blocks:  # a block no path reaches is no block's way in
        block.predecessors = [p for p in block.predecessors if p in dominators]
    loops: dict[int, set[int]] = {}
    for block in blocks:
        for successor, kind in block.successors:
            if kind != "exception" and block.index in dominators and _dominates(dominators, successor, block.index):
                loops.setdefault(successor, {successor}).update(_natural_loop(blocks, successor, block.index))
    return Graph(code=code, blocks=blocks, dominators=dominators, loops=loops)


def reducible(graph: Graph) -> bool:
    """Whether every cycle of the graph is a loop entered only at its header: each edge that
    goes back to a block on the current depth-first path goes to a block that dominates its
    source. (The structurer reads loops only in this shape.)"""
    if not graph.blocks:
        return True
    ways = {b.index: [s for s, k in b.successors if k != "exception"] for b in graph.blocks}
    on_path: set[int] = set()
    done: set[int] = set()
    starts = [graph.blocks[0].index, *sorted(graph.reachable - {graph.blocks[0].index})]  # (handlers too)
    for start in starts:
        if start in done:
            continue
        stack: list[tuple[int, int]] = [(start, 0)]
        on_path.add(start)
        while stack:
            node, at = stack[-1]
            if at < len(ways[node]):
                stack[-1] = (node, at + 1)
                following = ways[node][at]
                if following in on_path:
                    if not graph.dominates(following, node):
                        return False
                elif following not in done:
                    on_path.add(following)
                    stack.append((following, 0))
            else:
                stack.pop()
                on_path.discard(node)
                done.add(node)
    return True


def redirected(graph: Graph, replace: dict[int, int]) -> Graph:
    """The same graph with every edge into a block of `replace` going to its replacement
    instead (blocks that do exactly the same thing), and dominators and loops found again."""
    for block in graph.blocks:
        block.successors = [(replace.get(s, s), kind) for s, kind in block.successors]
        block.predecessors = []
    for block in graph.blocks:
        for successor, _ in block.successors:
            if block.index not in graph.blocks[successor].predecessors:
                graph.blocks[successor].predecessors.append(block.index)
    return _analysed(graph.code, graph.blocks)


def stack_depths(code: CodeType) -> dict[int, int]:
    """How many values are on the stack before each instruction (by offset), as the
    interpreter runs it: from the entry, along falls and jumps with each instruction's own
    effect, and into handlers with the depth their range gives (3.11+: the exception table;
    3.10: the SETUP_* that pushes them). By offset, so it holds for any graph cut from `code`.
    An instruction no path reaches has none."""
    instructions = [i for i in dis.get_instructions(code) if i.opname != "CACHE"]
    following = {a.offset: b.offset for a, b in zip(instructions, instructions[1:])}
    by_offset = {i.offset: i for i in instructions}
    handlers: list[tuple[int, int, int, int]] = []  # (start, end, target, depth there)
    if EXCEPTION_TABLE:
        handlers = [
            (e.start, e.end, e.target, e.depth + int(e.lasti) + 1) for e in cast(Any, dis.Bytecode(code)).exception_entries
        ]  # (see exception_ranges)
    depths: dict[int, int] = {}
    # a generator starts with the value its first send() passes (3.10 GEN_START pops it; 3.11
    # and 3.12 count RETURN_GENERATOR as pushing nothing, and the POP_TOP after it pops it)
    start = 1 if instructions and instructions[0].opname == "GEN_START" else 0
    todo: list[tuple[int, int]] = [(instructions[0].offset, start)] if instructions else []
    while todo:
        offset, depth = todo.pop()
        if offset in depths or offset not in by_offset:
            continue
        depths[offset] = depth
        instruction = by_offset[offset]
        argument = instruction.arg if instruction.opcode >= dis.HAVE_ARGUMENT else None
        for start, end, target, there in handlers:
            if start <= offset < end:
                todo.append((target, there))
        if instruction.opname in SETUP_HANDLER:
            todo.append((instruction.argval, depth + dis.stack_effect(instruction.opcode, argument, jump=True)))
        if is_jump(instruction):
            todo.append((instruction.argval, depth + dis.stack_effect(instruction.opcode, argument, jump=True)))
            if instruction.opname in UNCONDITIONAL:
                continue
        elif instruction.opname in TERMINATORS:
            continue
        if offset in following:
            effect = 1 if instruction.opname == "RETURN_GENERATOR" else dis.stack_effect(instruction.opcode, argument, jump=False)
            todo.append((following[offset], depth + effect))
    return depths


def needs_entry_stack(block: Block) -> bool:
    """Whether the block takes values from the stack that it did not push itself."""
    return takes_from_stack(block.instructions)


def takes_from_stack(instructions: list[dis.Instruction]) -> bool:
    """Whether these instructions take values from the stack that they did not push."""
    depth = 0
    for instruction in instructions:
        try:
            effect = (
                dis.stack_effect(instruction.opcode, instruction.arg, jump=False)
                if instruction.opcode >= dis.HAVE_ARGUMENT
                else dis.stack_effect(instruction.opcode)
            )
        except ValueError:
            return True
        pops = _pops(instruction)
        if depth - pops < 0:
            return True
        depth += effect
    return False


def _pops(instruction: dis.Instruction) -> int:
    """A lower bound of what the instruction pops: enough to see a block reach below its start."""
    name = instruction.opname
    if name.startswith(
        (
            "LOAD_",
            "PUSH_NULL",
            "NOP",
            "RESUME",
            "KW_NAMES",
            "EXTENDED_ARG",
            "PRECALL",
            "CACHE",
            "JUMP_FORWARD",
            "JUMP_BACKWARD",
            "JUMP_ABSOLUTE",
            "COPY_FREE_VARS",
            "MAKE_CELL",
        )
    ):
        return 1 if name in ("LOAD_ATTR", "LOAD_METHOD", "LOAD_SUPER_ATTR") else 0
    if name in (
        "POP_JUMP_IF_TRUE",
        "POP_JUMP_IF_FALSE",
        "POP_JUMP_FORWARD_IF_TRUE",
        "POP_JUMP_FORWARD_IF_FALSE",
        "POP_JUMP_BACKWARD_IF_TRUE",
        "POP_JUMP_BACKWARD_IF_FALSE",
        "POP_JUMP_IF_NONE",
        "POP_JUMP_IF_NOT_NONE",
        "POP_JUMP_FORWARD_IF_NONE",
        "POP_JUMP_FORWARD_IF_NOT_NONE",
        "POP_JUMP_BACKWARD_IF_NONE",
        "POP_JUMP_BACKWARD_IF_NOT_NONE",
        "POP_TOP",
        "STORE_FAST",
        "STORE_NAME",
        "STORE_GLOBAL",
        "STORE_DEREF",
        "UNARY_NOT",
        "UNARY_NEGATIVE",
        "UNARY_INVERT",
        "TO_BOOL",
        "GET_ITER",
        "RETURN_VALUE",
    ):
        return 1
    if name in ("COMPARE_OP", "BINARY_OP", "BINARY_SUBSCR", "IS_OP", "CONTAINS_OP", "STORE_ATTR") or name.startswith(
        ("BINARY_", "INPLACE_")
    ):
        return 2
    if name in ("COPY", "SWAP"):
        return instruction.arg or 1
    return max(0, -dis.stack_effect(instruction.opcode, instruction.arg if instruction.opcode >= dis.HAVE_ARGUMENT else None))


def _immediate_dominators(blocks: list[Block]) -> dict[int, int]:
    if not blocks:
        return {}
    return immediate_dominators(0, {block.index: [s for s, _ in block.successors] for block in blocks})


def immediate_dominators(entry: int, successors: dict[int, list[int]]) -> dict[int, int]:
    """Each node's immediate dominator (the entry maps to itself), over the nodes reachable from
    the entry: Cooper, Harvey and Kennedy, "A Simple, Fast Dominance Algorithm" (2001). On the
    reversed graph it gives post-dominators."""
    order: list[int] = []  # reverse postorder
    seen = {entry}
    stack: list[tuple[int, int]] = [(entry, 0)]
    while stack:  # iterative depth-first search, postorder
        node, child = stack.pop()
        children = successors.get(node, [])
        if child < len(children):
            stack.append((node, child + 1))
            following = children[child]
            if following not in seen:
                seen.add(following)
                stack.append((following, 0))
        else:
            order.append(node)
    order.reverse()
    position = {node: i for i, node in enumerate(order)}
    predecessors: dict[int, list[int]] = {node: [] for node in order}
    for node in order:
        for following in successors.get(node, []):
            predecessors[following].append(node)
    idom: dict[int, int] = {entry: entry}
    changed = True
    while changed:
        changed = False
        for node in order[1:]:
            preds = [p for p in predecessors[node] if p in idom]
            if not preds:
                continue
            new = preds[0]
            for pred in preds[1:]:
                new = _intersect(idom, position, pred, new)
            if idom.get(node) != new:
                idom[node] = new
                changed = True
    return idom


def _intersect(idom: dict[int, int], position: dict[int, int], a: int, b: int) -> int:
    while a != b:
        while position[a] > position[b]:
            a = idom[a]
        while position[b] > position[a]:
            b = idom[b]
    return a


def _dominates(idom: dict[int, int], a: int, b: int) -> bool:
    while True:
        if a == b:
            return True
        parent = idom.get(b)
        if parent is None or parent == b:
            return False
        b = parent


def _natural_loop(blocks: list[Block], header: int, tail: int) -> set[int]:
    body = {header, tail}
    stack = [tail] if tail != header else []  # a block that jumps back to itself is the whole loop
    while stack:
        node = stack.pop()
        for pred in blocks[node].predecessors:
            if pred not in body:
                body.add(pred)
                stack.append(pred)
    return body


NO_EFFECT = frozenset({"NOP", "RESUME", "EXTENDED_ARG", "CACHE"})


def handlers(block: Block) -> tuple[int, ...]:
    """The handlers whose ranges hold the block, in order."""
    return tuple(sorted(s for s, k in block.successors if k == "exception"))


def is_cleanup(block: Block) -> bool:
    """A handler Python puts around a handler's code: it restores the exception state (3.11+
    `COPY 3; POP_EXCEPT; RERAISE`) or unbinds `except E as e`'s name, then re-raises."""
    names = [i.opname for i in block.instructions if i.opname not in NO_EFFECT]
    if names == ["COPY", "POP_EXCEPT", "RERAISE"]:
        return True
    return (
        len(names) == 4
        and names[0] == "LOAD_CONST"
        and names[1].startswith("STORE_")
        and names[2].startswith("DELETE_")
        and names[3] == "RERAISE"
    )


def split(graph: Graph, block: Block, cut: int) -> int:
    """Cut `block` before its instruction `cut`: the rest becomes a new block it falls into.
    (The caller analyses the graph again: see redirected.)"""
    rest = Block(index=len(graph.blocks), start=block.instructions[cut].offset, instructions=block.instructions[cut:], end=block.end)
    rest.successors = list(block.successors)
    block.instructions = block.instructions[:cut]
    block.end = rest.start
    block.successors = [(rest.index, "fall"), *[(s, k) for s, k in rest.successors if k == "exception"]]
    graph.blocks.append(rest)
    if EXCEPTION_TABLE:  # each part keeps the block's handlers whose ranges hold it
        handlers = {s for s, k in rest.successors if k == "exception"}
        starts = {graph.blocks[h].start: h for h in handlers}
        for part in (block, rest):
            holding = [starts[t] for s, e, t in exception_ranges(graph.code) if s < part.end and part.start < e and t in starts]
            part.successors = [(s, k) for s, k in part.successors if k != "exception"] + [(h, "exception") for h in dict.fromkeys(holding)]
    return rest.index


def passes_through(block: Block) -> int | None:
    """The one block this block goes on to, where it does nothing itself (NOPs kept for a
    line); None for any other block."""
    ways = [s for s, k in block.successors if k != "exception"]
    return ways[0] if len(ways) == 1 and all(i.opname in NO_EFFECT for i in block.instructions) else None


def only_nops_into(graph: Graph, index: int, blocks: set[int]) -> bool:
    """Whether block `index` does nothing but go on into one of `blocks` (3.12+ leaves NOPs
    out of every exception range: `try: pass` inside a try's body is a block of them outside
    its range, which is no way out of it)."""
    return passes_through(graph.blocks[index]) in blocks


def through_jumps(graph: Graph, index: int, nops: bool = False) -> int:
    """Where control really goes from block `index`: past blocks that only jump (3.12+ puts a
    loop's back edge in a block of its own), and with `nops` past those that do nothing (NOPs
    kept for a line)."""
    for _ in range(len(graph.blocks)):
        block = graph.blocks[index]
        on = passes_through(block) if nops else None
        if on is not None:
            index = on
            continue
        real = [i for i in block.instructions if i.opname not in NO_EFFECT]
        if len(real) != 1 or real[0].opname not in UNCONDITIONAL:
            return index
        index = next(s for s, k in block.successors if k == "jump")
    return index


def join_blocks(graph: Graph, block: Block, following: Block) -> None:
    """Block `following` (reached only from `block`, which falls into it) becomes the end of
    `block`; what protects either protects the whole."""
    block.instructions = block.instructions + following.instructions
    block.end = following.end
    block.successors = [
        *following.successors,
        *[(s, k) for s, k in block.successors if k == "exception" and (s, k) not in following.successors],
    ]
    for successor, _ in block.successors:  # they are now reached from this block
        after = graph.blocks[successor].predecessors
        after[:] = list(dict.fromkeys(block.index if p == following.index else p for p in after))
    following.successors = []
    following.predecessors = []


# Conditional jumps: (the value that makes the jump, what it is tested as).
CONDITIONAL = {
    "POP_JUMP_IF_TRUE": (True, "truth"),
    "POP_JUMP_IF_FALSE": (False, "truth"),
    "POP_JUMP_FORWARD_IF_TRUE": (True, "truth"),
    "POP_JUMP_FORWARD_IF_FALSE": (False, "truth"),
    "POP_JUMP_BACKWARD_IF_TRUE": (True, "truth"),
    "POP_JUMP_BACKWARD_IF_FALSE": (False, "truth"),
    "POP_JUMP_IF_NONE": (True, "none"),
    "POP_JUMP_IF_NOT_NONE": (False, "none"),
    "POP_JUMP_FORWARD_IF_NONE": (True, "none"),
    "POP_JUMP_FORWARD_IF_NOT_NONE": (False, "none"),
    "POP_JUMP_BACKWARD_IF_NONE": (True, "none"),
    "POP_JUMP_BACKWARD_IF_NOT_NONE": (False, "none"),
    # 3.10, 3.11 `a or b` / `a and b` as values: the value stays on the stack when it jumps.
    "JUMP_IF_TRUE_OR_POP": (True, "kept"),
    "JUMP_IF_FALSE_OR_POP": (False, "kept"),
}


def code_shape(instructions: list[dis.Instruction], checked: bool = True) -> tuple[tuple[str, str], ...]:
    """What instructions do, wherever they are: names and arguments, without those that do
    nothing. Not `checked`: the same source compiled where a local may be unbound (3.12+:
    LOAD_FAST_CHECK, one by one) and where it is not (LOAD_FAST, 3.13: two joined in
    LOAD_FAST_LOAD_FAST) reads the same, as plain LOAD_FASTs."""
    shape: list[tuple[str, str]] = []
    for i in instructions:
        if i.opname in NO_EFFECT:
            continue
        if not checked and i.opname == "LOAD_FAST_LOAD_FAST" and isinstance(i.argval, tuple):
            shape += [("LOAD_FAST", repr(name)) for name in i.argval]
        else:
            shape.append(("LOAD_FAST" if not checked and i.opname == "LOAD_FAST_CHECK" else i.opname, repr(i.argval)))
    return tuple(shape)
