"""Graphs as torch prints them: Dynamo's FX graph and AOT Autograd's ATen graphs.

Dynamo's graph (`dynamo_output_graph`) is printed code:

    def forward(self, L_x_: "f32[8, 64][64, 1]cpu"):
        l_x_ = L_x_
        linear: "f32[8, 64][64, 1]cpu" = torch._C._nn.linear(l_x_, ...);  l_x_ = None
        add: "f32[8, 64][64, 1]cpu" = linear + 1.0;  linear = None
        return (relu,)

Each assignment with a call is one node; `l_x_ = L_x_` names a placeholder. AOT graphs call
`torch.ops.aten.<op>.<overload>(...)`, one per line.
"""

from __future__ import annotations

import re

from compilescope.session.model import AotGraph, DdpPiece, Graph, GraphNode

# FX prints Python operators for operator.* targets; torch names those nodes like this.
_OPERATORS = {
    "+": "add",
    "-": "sub",
    "*": "mul",
    "/": "truediv",
    "//": "floordiv",
    "%": "mod",
    "**": "pow",
    "@": "matmul",
    "&": "and_",
    "|": "or_",
    "^": "xor",
    "<<": "lshift",
    ">>": "rshift",
    "<": "lt",
    "<=": "le",
    ">": "gt",
    ">=": "ge",
    "==": "eq",
    "!=": "ne",
}
_SIGNATURE = re.compile(r"def forward\((?P<args>.*?)\)\s*(?:->[^:]*)?:\s*$", re.S | re.M)
_ARG = re.compile(r"(?P<name>\w+)\s*:\s*\"(?P<type>[^\"]*)\"")
_ASSIGN = re.compile(r"^\s+(?P<name>\w+)(?:\s*:\s*\"(?P<type>[^\"]*)\")?\s*=\s*(?P<expr>.+)$")
_CALL = re.compile(r"^(?P<target>[\w.]+)\(")
_BINARY = re.compile(r"^[\w.]+ (?P<op>\*\*|//|<<|>>|<=|>=|==|!=|[-+*/%@&|^<>]) \S+$")
_UNARY = re.compile(r"^(?P<op>[-~])[\w.]+$")
_METHOD = re.compile(r"^\w+\.(?P<method>\w+)\(")
_GETITEM = re.compile(r"^\w+\[.*\]$")
_ATEN = re.compile(r"= torch\.ops\.(?P<op>\w+\.\w+\.\w+)\(")


def _shape(type_text: str | None) -> str | None:
    if not type_text:
        return None
    # "f32[8, 64][64, 1]cpu" -> "f32[8, 64]": size first, stride and device after.
    match = re.match(r"^(\w+\[[^\]]*\])", type_text)
    return match.group(1) if match else type_text


def parse_dynamo_graph(code: str) -> Graph:
    nodes: list[GraphNode] = []
    signature = _SIGNATURE.search(code)
    arguments: list[tuple[str, str | None]] = []
    if signature:
        arguments = [(m.group("name"), m.group("type")) for m in _ARG.finditer(signature.group("args"))]
    aliases: dict[str, str] = {}
    for line in code.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or stripped.startswith("def ") or stripped.startswith("class "):
            continue
        match = _ASSIGN.match(line)
        if match and match.group("type") is None and re.fullmatch(r"[A-Z]\w*", match.group("expr").split(";")[0].strip()):
            aliases[match.group("expr").split(";")[0].strip()] = match.group("name")
    for name, type_text in arguments:
        nodes.append(GraphNode(op="placeholder", name=aliases.get(name, name), shape=_shape(type_text)))

    ops: list[str] = []
    output_seen = False
    source: str | None = None
    for line in code.splitlines():
        stripped = line.strip()
        if stripped.startswith("# File:"):
            # "# File: /path/m.py:13 in forward, code: return torch.relu(...)" precedes its nodes
            m = re.match(r"# File: (?P<where>.+?:\d+) in [^,]+, code: (?P<code>.*)$", stripped)
            source = f"{m.group('where')}  {m.group('code')}" if m else None
            continue
        if not stripped or stripped.startswith(("#", "def ", "class ")):
            continue
        if stripped.startswith("return"):
            nodes.append(GraphNode(op="output", name="output", target="output"))
            output_seen = True
            continue
        match = _ASSIGN.match(line)
        if not match:
            continue
        expr = match.group("expr").split(";  ")[0].strip()
        if match.group("type") is None and re.fullmatch(r"[A-Z]\w*", expr):
            continue  # placeholder alias
        node = _classify(match.group("name"), expr, _shape(match.group("type")))
        node.source = source
        nodes.append(node)
        if node.op in ("call_function", "call_method", "call_module"):
            ops.append(_op_name(node))
    if not output_seen and nodes:
        nodes.append(GraphNode(op="output", name="output", target="output"))
    return Graph(ops=ops, nodes=nodes, code=code)


def _classify(name: str, expr: str, shape: str | None) -> GraphNode:
    if m := _BINARY.match(expr):
        return GraphNode("call_function", name, m.group("op"), shape)
    if m := _UNARY.match(expr):
        return GraphNode("call_function", name, {"-": "neg", "~": "invert"}[m.group("op")], shape)
    if _GETITEM.match(expr):
        return GraphNode("call_function", name, "getitem", shape)
    if m := _CALL.match(expr):
        target = m.group("target")
        if target.startswith("self.") and target.count(".") == 1:
            return GraphNode("call_module", name, target.removeprefix("self."), shape)
        head = target.split(".")[0]
        if head in ("torch", "operator", "math", "builtins", "torch_", "_operator") or "." not in target:
            return GraphNode("call_function", name, target, shape)
        if _METHOD.match(expr):
            return GraphNode("call_method", name, target.rsplit(".", 1)[1], shape)
        return GraphNode("call_function", name, target, shape)
    if expr.startswith("self."):
        return GraphNode("get_attr", name, expr.removeprefix("self."), shape)
    return GraphNode("call_function", name, expr, shape)


def _op_name(node: GraphNode) -> str:
    target = node.target or node.name
    if target in _OPERATORS:
        return _OPERATORS[target]
    return target.rsplit(".", 1)[-1]


def parse_aot_graph(code: str) -> AotGraph:
    return AotGraph(ops=[m.group("op") for m in _ATEN.finditer(code)], code=code)


# Bytes per element of the dtypes torch abbreviates in a graph's type comments ("f32[8, 64]")
_DTYPE_BYTES = {"f64": 8, "f32": 4, "f16": 2, "bf16": 2, "i64": 8, "i32": 4, "i16": 2, "i8": 1, "u8": 1, "b8": 1, "c64": 8, "c128": 16}


def tensor_bytes(shape: str | None) -> int | None:
    """The bytes of a tensor of `shape` ("f32[512, 512]"), or None where the shape is symbolic
    ("f32[s0, 512]") or the dtype unknown."""
    match = re.fullmatch(r"(?P<dtype>\w+)\[(?P<dims>[^\]]*)\]", shape or "")
    if match is None or match.group("dtype") not in _DTYPE_BYTES:
        return None
    size = _DTYPE_BYTES[match.group("dtype")]
    for dim in filter(None, (d.strip() for d in match.group("dims").split(","))):
        if not dim.isdigit():
            return None
        size *= int(dim)
    return size


def parse_ddp_piece(name: str, code: str) -> DdpPiece:
    """A piece DDPOptimizer split off (its printed GraphModule): its operations, and the
    parameters it takes (Dynamo names a module's parameters "..._parameters_weight_")."""
    graph = parse_dynamo_graph(code)
    parameters = [n for n in graph.nodes if n.op == "placeholder" and "_parameters_" in n.name]
    sizes = [tensor_bytes(n.shape) for n in parameters]
    known = [s for s in sizes if s is not None]
    return DdpPiece(
        name=name,
        ops=graph.ops,
        parameters=len(parameters),
        parameter_bytes=sum(known) if parameters and len(known) == len(sizes) else None,
    )
