"""What each stage of the decompiler makes of one function, for reading and debugging:

    python -m compilescope.decompiler --stages cfg,passes,ast,source file.py:function
    python -m compilescope.decompiler file.py:Class.method        # every stage

The file is compiled, never run; the function is found among its code objects by its qualified
name (`Class.method`, `outer.<locals>.inner`, or just its name where that is unique). Stages:

- cfg: the control-flow graph as cfg.build made it from the bytecode;
- passes: the graph after each pass of normalize.PASSES that changed it (docs/decompiler.md);
- ast: the structured statements, before they are written out (ast.dump);
- source: the decompiled source, as compilescope decompile writes it.
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
from collections.abc import Iterator
from types import CodeType

import compilescope.decompiler.cfg as cfg
from compilescope.decompiler.api import decompile_code
from compilescope.decompiler.normalize import normalize

STAGES = ("cfg", "passes", "ast", "source")
CO_OPTIMIZED = 0x1  # set on a function's code, not on a class body's or a module's


def graph_text(graph: cfg.Graph) -> str:
    """The blocks, each with its instructions and where it goes; unreachable blocks marked."""
    reachable = graph.reachable
    lines = []
    for block in graph.blocks:
        ways = ", ".join(f"{kind} {index}" for index, kind in block.successors) or "none"
        loop = f"  (loop header: {sorted(graph.loops[block.index])})" if block.index in graph.loops else ""
        lines.append(f"block {block.index} @{block.start}{'' if block.index in reachable else '  (unreachable)'}{loop} -> {ways}")
        lines.extend(f"    {ins.offset:>4} {ins.opname} {ins.argrepr}".rstrip() for ins in block.instructions)
    return "\n".join(lines)


def _codes(code: CodeType, prefix: str = "") -> Iterator[tuple[str, CodeType]]:
    for const in code.co_consts:
        if isinstance(const, CodeType):
            name = getattr(const, "co_qualname", None) or (f"{prefix}{const.co_name}" if prefix else const.co_name)
            yield name, const
            # (3.10 has no co_qualname: a function's nested code is in its <locals>, a class's not)
            yield from _codes(const, f"{name}.<locals>." if const.co_flags & CO_OPTIMIZED else f"{name}.")


def find(path: str, name: str) -> CodeType:
    """The code object of `name` in the file at `path` (compiled, not run)."""
    with open(path, encoding="utf-8") as handle:
        top = compile(handle.read(), path, "exec")
    found = [code for qualname, code in _codes(top) if qualname == name]
    if not found:
        found = [code for qualname, code in _codes(top) if qualname.rsplit(".", 1)[-1] == name]
    if len(found) != 1:
        names = sorted({qualname for qualname, _ in _codes(top)})
        raise LookupError(f"{'no' if not found else 'more than one'} function {name!r} in {path}; its functions: {', '.join(names)}")
    return found[0]


def show(code: CodeType, stages: tuple[str, ...]) -> str:
    out: list[str] = []
    if "cfg" in stages or "passes" in stages:
        shown: list[tuple[str, str]] = []
        normalize(code, seen=lambda name, graph: shown.append((name, graph_text(graph))))
        if "cfg" in stages:
            out += ["== cfg", shown[0][1]]
        if "passes" in stages:
            for (_, before), (name, after) in zip(shown, shown[1:]):
                out += [f"== pass: {name}", after if after != before else "(unchanged)"]
    if "ast" in stages:
        from compilescope.decompiler.building import function_def
        from compilescope.decompiler.values import Unsupported

        try:
            out += ["== ast", ast.dump(function_def(code)[0], indent=1)]
        except Unsupported as error:
            out += ["== ast", f"(not structured: {error})"]
    if "source" in stages:
        out += ["== source", decompile_code(code).source]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m compilescope.decompiler", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--stages", default=",".join(STAGES), help=f"comma-separated, of {', '.join(STAGES)} (default: all)")
    parser.add_argument("target", metavar="file.py:function")
    args = parser.parse_args(argv)
    stages = tuple(s.strip() for s in args.stages.split(",") if s.strip())
    unknown = [s for s in stages if s not in STAGES]
    path, _, name = args.target.rpartition(":")
    if unknown or not path or not name:
        parser.error(f"unknown stage {', '.join(unknown)}" if unknown else "give file.py:function")
    try:
        code = find(path, name)
    except (OSError, SyntaxError, LookupError) as error:
        print(f"python -m compilescope.decompiler: {error}", file=sys.stderr)
        return 2
    try:
        print(show(code, stages))
        sys.stdout.flush()
    except BrokenPipeError:  # `| head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0
