"""Build the control-flow graph of many functions and check what must hold; print JSON.

Run by tests/test_decompile_cfg.py with each Python 3.10-3.13 it finds (stdlib only, with
PYTHONPATH=src). For the sample functions below it also checks that the natural loops found in
the bytecode (all nested code objects together) are exactly the loops written in the source:
for, while, and each `for` of a comprehension."""

import ast
import inspect
import json
import sys
import textwrap
import types

from compilescope.decompiler import cfg


def straight(a, b):
    c = a + b
    return c * 2


def branches(x):
    if x > 0:
        y = 1
    elif x < 0:
        y = -1
    else:
        y = 0
    return y if y else None


def loop_with_break(items):
    total = 0
    for item in items:
        if item is None:
            continue
        if item > 100:
            break
        total += item
    else:
        total = -total
    return total


def nested_loops(n):
    out = []
    for i in range(n):
        j = 0
        while j < i:
            out.append((i, j))
            j += 1
    return out


def forever(queue):
    while True:
        item = queue.pop()
        if item == "stop":
            break
    return queue


def guarded(path):
    try:
        handle = open(path)
    except FileNotFoundError:
        return None
    except (PermissionError, IsADirectoryError) as error:
        raise RuntimeError(path) from error
    else:
        return handle
    finally:
        print("tried", path)


def managed(lock, values):
    with lock:
        values.append(1)
    return values


def comprehensions(rows):
    squares = [i * i for i in range(10) if i % 2]
    pairs = {(a, b) for a in rows for b in a}
    lookup = {k: v for k, v in enumerate(rows)}
    return squares, pairs, lookup, sum(x for x in rows)


def short_circuit(a, b, c):
    if a and (b or not c):
        return a or b and c
    return not (a and b)


SAMPLES = [straight, branches, loop_with_break, nested_loops, forever, guarded, managed, comprehensions, short_circuit]


def code_objects(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from code_objects(const)


def written_loops(function) -> int:
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    return sum(isinstance(node, (ast.For, ast.While, ast.comprehension)) for node in ast.walk(tree))


def check(code) -> list[str]:
    """What does not hold for this code object's graph (empty: all holds)."""
    problems = []
    graph = cfg.build(code)
    import dis

    instructions = [i for i in dis.get_instructions(code) if i.opname != "CACHE"]
    placed = [i.offset for block in graph.blocks for i in block.instructions]
    if placed != [i.offset for i in instructions]:
        problems.append("instructions are not each in exactly one block, in order")
    starts = {block.start for block in graph.blocks}
    for instruction in instructions:
        if cfg.is_jump(instruction) and instruction.argval not in starts:
            problems.append(f"jump at {instruction.offset} to {instruction.argval}, not a block start")
    for block in graph.blocks:
        for successor, _ in block.successors:
            if block.index not in graph.blocks[successor].predecessors:
                problems.append(f"edge {block.index}->{successor} missing from predecessors")
    for node in graph.reachable:
        if not graph.dominates(0, node):
            problems.append(f"entry does not dominate block {node}")
    for header, body in graph.loops.items():
        for node in body:
            if node in graph.reachable and not graph.dominates(header, node):
                problems.append(f"loop header {header} does not dominate its block {node}")
    if not cfg.reducible(graph):  # Python's own graphs: every cycle is a loop entered at its header
        problems.append("a cycle that is no loop")
    problems += _depth_problems(code, graph, instructions)
    return problems


def _depth_problems(code, graph, instructions) -> list[str]:
    """The stack depths (cfg.stack_depths): one for each instruction a path reaches, never
    negative, and the same along every edge into a block (each way in finds the stack as deep)."""
    import dis

    depths = cfg.stack_depths(code)
    problems = []
    reached = {i.offset for index in graph.reachable for i in graph.blocks[index].instructions}
    missing = sorted(reached - set(depths))
    if missing:
        problems.append(f"no stack depth at offsets {missing[:5]}")
    if any(d < 0 for d in depths.values()):
        problems.append("a negative stack depth")
    for block in graph.blocks:
        last = block.last
        if block.index not in graph.reachable or last.offset not in depths:
            continue
        argument = last.arg if last.opcode >= dis.HAVE_ARGUMENT else None
        for successor, kind in block.successors:
            if kind == "exception":
                continue
            effect = dis.stack_effect(last.opcode, argument, jump=kind == "jump") if cfg.is_jump(last) or kind == "jump" else dis.stack_effect(last.opcode, argument, jump=False)
            found = depths.get(graph.blocks[successor].instructions[0].offset)
            if found is not None and found != depths[last.offset] + effect:
                problems.append(f"block {block.index} reaches block {successor} {depths[last.offset] + effect} deep, which is {found} deep")
    return problems


def main() -> None:
    results = {"python": f"{sys.version_info.major}.{sys.version_info.minor}", "samples": {}, "stdlib": {}}
    for function in SAMPLES:
        codes = list(code_objects(function.__code__))
        problems = [p for code in codes for p in check(code)]
        loops = sum(len(cfg.build(code).loops) for code in codes)
        results["samples"][function.__name__] = {"problems": problems, "loops": loops, "written": written_loops(function)}
    import argparse
    import json as json_module
    import textwrap as textwrap_module

    for module in (argparse, json_module.decoder, json_module.encoder, textwrap_module, ast):
        count, problems = 0, []
        for code in code_objects(compile(inspect.getsource(module), module.__file__, "exec")):
            count += 1
            problems += [f"{code.co_name}: {p}" for p in check(code)]
        results["stdlib"][module.__name__] = {"code_objects": count, "problems": problems[:20]}
    print(json.dumps(results))


if __name__ == "__main__":
    main()
