"""Kernels: what Inductor wrote, read from its output code (`inductor_output_code`).

Inductor's wrapper module defines each generated kernel at top level:

    cpp_fused_add_relu_0 = async_compile.cpp_pybinding(['float*'], r'''...C++...''')
    triton_poi_fused_add_0 = async_compile.triton('triton_poi_fused_add_0', '''...''', ...)

and its `call()` runs them, with library calls in between:

    # Topologically Sorted Source Nodes: [linear], Original ATen: [aten.t, aten.addmm]
    extern_kernels.addmm(arg1_1, arg2_1, ..., out=buf0)

"Original ATen" comments are Inductor's own record of which ATen ops a kernel came from. C++
kernels often have none; their names do carry it (`cpp_fused_<ops>_<n>`, with
`cpp.descriptive_names = "original_aten"`, the default), which we read back against the ATen ops
of the same compile's graph, and say so (`aten_ops_from = "kernel name"`).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from compilescope.session.model import Kernel

_DEFINE = re.compile(
    r"^(?P<name>\w+) = async_compile\.(?P<how>cpp_pybinding|cpp|triton|cuda|rocm|halide|mps|pallas)\(",
    re.M,
)
_ORIGIN = re.compile(r"#\s*(?:Topologically Sorted |Unsorted )?Source Nodes: \[(?P<nodes>[^\]]*)\], Original ATen: \[(?P<aten>[^\]]*)\]")
_EXTERN = re.compile(r"\bextern_kernels\.(?P<name>\w+)\(")
_FALLBACK = re.compile(r"\btorch\.ops\.(?P<op>aten\.\w+)\.\w+\(")
_KIND = {"cpp_pybinding": "cpp", "cpp": "cpp", "triton": "triton"}
_NAME_PREFIX = re.compile(r"^(?:cpp|triton_(?:poi|red|per|tem|for|spl|mix)|triton|halide|mps)_fused_(?P<ops>.*)_\d+$")


def _split_list(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def parse_kernels(code: str, aten_ops_in_graph: set[str] | None = None) -> list[Kernel]:
    lines = code.splitlines()
    kernels: list[Kernel] = []
    by_name: dict[str, Kernel] = {}

    for match in _DEFINE.finditer(code):
        name = match.group("name")
        start_line = code.count("\n", 0, match.start())
        kind = _KIND.get(match.group("how"), match.group("how"))
        if kind == "triton" and "_tem_" in name:
            kind = "triton template"
        kernel = Kernel(name=name, kind=kind, aten_ops=None, code=_kernel_source(lines, start_line))
        comment = _origin_above(lines, start_line) or _ORIGIN.search(kernel.code)
        if comment:
            kernel.aten_ops = _split_list(comment.group("aten"))
            kernel.source_nodes = _split_list(comment.group("nodes"))
            kernel.aten_ops_from = "comment"
        kernels.append(kernel)
        by_name[name] = kernel

    call_start = next((i for i, line in enumerate(lines) if re.match(r"\s+def call\(", line)), None)
    if call_start is not None:
        for index in range(call_start, len(lines)):
            line = lines[index]
            stripped = line.strip()
            if stripped.startswith("#"):
                continue
            comment = _origin_above(lines, index)
            if (m := _EXTERN.search(line)) is not None:
                kernels.append(
                    Kernel(
                        name=m.group("name"),
                        kind="library call",
                        aten_ops=_split_list(comment.group("aten")) if comment else None,
                        aten_ops_from="comment" if comment else None,
                        source_nodes=_split_list(comment.group("nodes")) if comment else None,
                        call=stripped,
                    )
                )
                continue
            if (m := _FALLBACK.search(line)) is not None and "=" in line:
                kernels.append(
                    Kernel(
                        name=m.group("op").removeprefix("aten."),
                        kind="aten fallback",
                        aten_ops=[m.group("op")],
                        aten_ops_from="comment" if comment else "call",
                        call=stripped,
                    )
                )
                continue
            called = re.match(r"(?P<name>\w+)(?:\.run)?\(", stripped)
            if called and called.group("name") in by_name:
                kernel = by_name[called.group("name")]
                kernel.call = kernel.call or stripped
                if kernel.aten_ops is None and comment:
                    kernel.aten_ops = _split_list(comment.group("aten"))
                    kernel.source_nodes = _split_list(comment.group("nodes"))
                    kernel.aten_ops_from = "comment"

    for kernel in kernels:
        if kernel.aten_ops is None and aten_ops_in_graph:
            from_name = aten_ops_from_name(kernel.name, aten_ops_in_graph)
            if from_name:
                kernel.aten_ops = from_name
                kernel.aten_ops_from = "kernel name"
    return kernels


def _origin_above(lines: list[str], index: int) -> re.Match[str] | None:
    """Inductor's "Original ATen" comment in the comment block right above line `index`."""
    cursor = index - 1
    while cursor >= 0 and lines[cursor].strip().startswith("#"):
        found = _ORIGIN.search(lines[cursor])
        if found:
            return found
        cursor -= 1
    return None


def _kernel_source(lines: list[str], start: int) -> str:
    """The kernel's definition, from its `= async_compile...` line to the closing `''')`."""
    collected = [lines[start]]
    for line in lines[start + 1 :]:
        collected.append(line)
        if line.startswith("''')") or line.startswith("''', "):
            break
    return "\n".join(collected)


@functools.lru_cache(maxsize=1)
def known_aten_ops() -> frozenset[str]:
    """ATen operator names (packaged from torch; see aten_ops.txt)."""
    text = (Path(__file__).with_name("aten_ops.txt")).read_text(encoding="utf-8")
    return frozenset(line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#"))


def aten_ops_from_name(name: str, graph_ops: set[str]) -> list[str] | None:
    """`cpp_fused_add_relu_0` -> [aten.add, aten.relu].

    Inductor joins the sorted names of the ATen ops a kernel came from with "_", and op names
    contain "_" themselves. The name is split only into real ATen op names (this compile's
    graph ops, and torch's list of ATen ops), and only when exactly one split exists; otherwise
    the answer is None (unknown), never a guess.
    """
    match = _NAME_PREFIX.match(name)
    if not match:
        return None
    vocabulary = set(known_aten_ops())
    vocabulary.update(op.split(".")[1] for op in graph_ops if op.count(".") >= 1)
    words = match.group("ops").split("_")
    # ways[i]: the splits of words[:i] into op names (at most two kept: two means ambiguous)
    ways: list[list[list[str]]] = [[] for _ in range(len(words) + 1)]
    ways[0] = [[]]
    for end in range(1, len(words) + 1):
        for begin in range(end):
            candidate = "_".join(words[begin:end])
            if candidate in vocabulary:
                for prefix in ways[begin]:
                    ways[end].append(prefix + [candidate])
            if len(ways[end]) > 2:
                ways[end] = ways[end][:2]
    found = ways[len(words)]
    if len(found) != 1:
        return None
    return [f"aten.{op}" for op in found[0]]
