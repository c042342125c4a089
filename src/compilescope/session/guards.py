"""Guards: torch's guard tree (`dynamo_cpp_guards_str`) as a list of checks in plain words.

The tree looks like:

    +- RootGuardManager
    | +- GLOBAL_STATE: ___check_global_state() against {...}
    | +- GuardManager: source=L['x'], accessed_by=..., type=<class 'torch.Tensor'>
    | | +- TENSOR_MATCH: check_tensor(L['x'], Tensor, DispatchKeySet(...), torch.float32,
    |        device=None, requires_grad=False, size=[8, 64], stride=[64, 1])  # user code  # file

A `GuardManager` line says *what* is reached (its source); the lines under it are the checks.
"""

from __future__ import annotations

import re

from compilescope.session.model import Guard

_LINE = re.compile(r"^(?P<indent>(?:\| )*)\+- (?P<kind>[A-Za-z_]+)(?:: (?P<rest>.*))?$")
_SOURCE = re.compile(r"source=(?P<source>.*?), accessed_by=")
_TENSOR = re.compile(
    r"check_tensor\((?P<source>.+?), \w+, DispatchKeySet\([^)]*\), (?P<dtype>torch\.\w+), "
    r"device=(?P<device>[^,]+), requires_grad=(?P<grad>True|False), "
    r"size=\[(?P<size>[^\]]*)\], stride=\[(?P<stride>[^\]]*)\]\)"
)
_OBJ_ID = re.compile(r"___check_obj_id\((?P<source>.+), \d+\)")
_TYPE_ID = re.compile(r"___check_type_id\((?P<source>.+), \d+\)")


def parse_guard_tree(text: str) -> list[Guard]:
    guards: list[Guard] = []
    sources: dict[int, str | None] = {}
    for raw in text.splitlines():
        match = _LINE.match(raw.rstrip())
        if match is None:
            continue
        depth = len(match.group("indent")) // 2
        kind = match.group("kind")
        rest = match.group("rest") or ""
        if kind == "RootGuardManager":
            sources = {0: None}
            continue
        if kind.endswith("GuardManager"):
            found = _SOURCE.search(rest)
            sources[depth + 1] = found.group("source") if found else None
            continue
        check, user_code = _split_comment(rest)
        source = sources.get(depth)
        guards.append(_guard(kind, check, source, user_code))
    return guards


def _split_comment(rest: str) -> tuple[str, str | None]:
    # "check  # user line  # torch/file.py:12 in fn": the first comment is the user's code.
    parts = re.split(r"\s+# ", rest, maxsplit=1)
    check = parts[0].strip()
    user = parts[1].strip() if len(parts) > 1 else None
    return check, user


def _dims(text: str) -> list[int | None]:
    values: list[int | None] = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        values.append(int(item) if item.lstrip("-").isdigit() else None)
    return values


def _name(source: str | None) -> str:
    """L['x'] -> x; G['torch'].relu -> torch.relu (the user's names, not Dynamo's)."""
    if not source:
        return "?"
    text = re.sub(r"^L\['([^']+)'\]", r"\1", source)
    text = re.sub(r"^G\['([^']+)'\]", r"\1", text)
    text = re.sub(r"\._(?:modules|parameters|buffers)\['([^']+)'\]", r".\1", text)
    # Dynamo's name for a module it imported: __import_torch_dot_nn_dot_modules_dot_linear
    text = re.sub(r"__import_(\w+)", lambda m: "module " + m.group(1).replace("_dot_", "."), text)
    return text


def _guard(kind: str, check: str, source: str | None, user_code: str | None) -> Guard:
    guard = Guard(source=source, kind=kind, text=check, plain=check, user_code=user_code)
    if kind == "TENSOR_MATCH" and (m := _TENSOR.search(check)):
        guard.source = m.group("source")
        guard.dtype = m.group("dtype").removeprefix("torch.")
        device = m.group("device")
        guard.device = None if device == "None" else device
        guard.requires_grad = m.group("grad") == "True"
        guard.size = _dims(m.group("size"))
        guard.stride = _dims(m.group("stride"))
        size = ", ".join("any" if d is None else str(d) for d in guard.size)
        stride = ", ".join("any" if d is None else str(d) for d in guard.stride)
        guard.plain = (
            f"{_name(guard.source)} is a {guard.dtype} tensor of size [{size}], stride [{stride}], requires_grad={guard.requires_grad}"
        )
    elif kind == "ID_MATCH" and (m := _OBJ_ID.search(check)):
        guard.plain = f"{_name(m.group('source'))} is the very same object as when compiled"
    elif kind == "TYPE_MATCH" and (m := _TYPE_ID.search(check)):
        guard.plain = f"{_name(m.group('source'))} has the same type as when compiled"
    elif kind == "GLOBAL_STATE":
        guard.plain = "global state is unchanged: grad mode, autocast, default dtype, deterministic algorithms, number of threads"
    elif kind == "DEFAULT_DEVICE":
        guard.plain = "the default device (torch.set_default_device) is unchanged"
    elif kind == "TORCH_FUNCTION_MODE_STACK":
        guard.plain = "the stack of active torch function modes is unchanged"
    elif kind == "DIMENSION_DYNAMIC_MARKING_GUARD":
        guard.plain = f"{_name(source)} has no new mark_dynamic / mark_static marks"
    elif kind in ("EQUALS_MATCH", "CONSTANT_MATCH") and source:
        value = check.split("==", 1)[1].strip() if "==" in check else check
        guard.plain = f"{_name(source)} == {value}"
    elif kind == "DICT_LENGTH" and source:
        guard.plain = f"{_name(source)} has the same number of entries ({check})"
    elif kind == "LENGTH_CHECK" and source:
        guard.plain = f"{_name(source)} has the same length ({check})"
    elif kind in ("NO_HASATTR", "HASATTR"):
        guard.plain = f"{check} (attribute presence unchanged)"
    elif kind == "NOT_NONE" and source:
        guard.plain = f"{_name(source)} is not None"
    elif kind == "TENSOR_ALIASING" or kind == "NO_TENSOR_ALIASING":
        guard.plain = f"tensors do not alias each other as when compiled ({check})"
    elif kind in ("SHAPE_ENV", "SYMBOLIC_SHAPE", "LAMBDA_GUARD") and "==" not in check and "<=" in check:
        guard.plain = f"dynamic sizes stay in range: {check}"
    return guard
