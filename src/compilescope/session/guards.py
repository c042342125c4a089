"""Guards: torch's guard tree (`dynamo_cpp_guards_str`) as a list of checks in plain words.

torch 2.13 writes the tree like this (torch/_dynamo/guards.py, GuardManagerWrapper.__str__):

    TREE_GUARD_MANAGER:
    +- RootGuardManager
    | +- GLOBAL_STATE: ___check_global_state() against {...}
    | +- GuardManager: source=L['x'], accessed_by=FrameLocalsGuardAccessor(...), type=<class 'torch.Tensor'>, ...
    | | +- TENSOR_MATCH: check_tensor(L['x'], Tensor, ..., size=[8, 64], stride=[64, 1])  # user code  # file:12 in f
    | +- DictGuardManager: source=L['fn']._modules, accessed_by=..., type=<class 'dict'>, ...
    | | +- KeyValueManager pair at index=0
    | | | +- KeyManager: GuardManager: source=list(dict.keys(L['fn']._modules))[0], type=<class 'str'>, ...
    | | | | +- EQUALS_MATCH: list(dict.keys(L['fn']._modules))[0] == '0'
    | | | +- ValueManager: GuardManager: source=L['fn']._modules['0'], type=<class '...Linear'>, ...
    +- LAMBDA_GUARD: L['a'] is L['b']      (the root's epilogue, written after its tree)

A line that names a manager (`GuardManager`, `DictGuardManager`, `KeyManager: ...`, `ValueManager:
...`, `KeyValueManager pair ...`, `RootGuardManager`) says *what* is reached; it checks nothing of
its own, so it is no guard: it is folded into the guards beneath it as their subject. Every other
`KIND: check` line is one guard (torch's leaf guard; a relational guard such as
NO_TENSOR_ALIASING is written in full once and then by its bare name under each other manager it
belongs to: those repeats are the same guard). A guard's subject is the one its own text names
(`list(dict.keys(L['fn']._modules))[0] == '0'`: the first key of fn's submodules), else its
manager's source. Kinds or texts not understood keep torch's text as their plain words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from compilescope.session.model import Guard

_LINE = re.compile(r"^(?P<indent>(?:\| )*)\+- (?P<body>.*)$")
_LEAF = re.compile(r"^(?P<kind>[A-Z][A-Z0-9_]*)(?:: (?P<rest>.*))?$")
_MANAGER = re.compile(
    r"^(?:(?P<role>KeyManager|ValueManager): )?(?P<kind>\w*GuardManager)"
    r"(?:: source=(?P<source>.*?)(?:, accessed_by=.*?)?, type=(?P<type><.*?>)(?:, tag_safe=.*)?)?$"
)
_PAIR = re.compile(r"^KeyValueManager pair at index=\d+$")
_ANY_MANAGER = re.compile(r"^(?:(?:Key|Value)Manager: )?\w*Manager\b")  # one written otherwise
_HINT = re.compile(r"\s*\(HINT: (?P<hint>.*)\)\s*$")
_CLASS = re.compile(r"<class '(?:[\w.<>]+\.)?(?P<name>[\w<>]+)'>")

_TENSOR = re.compile(
    r"check_tensor\((?P<source>.+?), \w+, DispatchKeySet\([^)]*\), (?P<dtype>torch\.\w+), "
    r"device=(?P<device>[^,]+), requires_grad=(?P<grad>True|False), "
    r"size=\[(?P<size>[^\]]*)\], stride=\[(?P<stride>[^\]]*)\]\)"
)
_OBJ_ID = re.compile(r"^_?__check_obj_id\((?P<source>.+), \d+\)(?:, type=(?P<type><.*>))?$")
_TYPE_ID = re.compile(r"^___check_type_id\((?P<source>.+), \d+\)(?:, type=(?P<type><.*>))?$")
_EQUALS = re.compile(r"^(?P<source>.+?) == (?P<value>.+)$")
_NAN = re.compile(r"^\(type\((?P<source>.+)\) is (?:float|complex) and __\w+_isnan\((?P=source)\)\)$")
_IS_NONE = re.compile(r"^(?P<source>.+) is (?P<negated>not )?None$")
_LENGTH = re.compile(r"^len\((?P<source>.+)\) == (?P<length>\d+)$")
_EMPTY = re.compile(r"^not (?P<source>[LG]\[.+)$")
_DICT_CONTAINS = re.compile(r"^(?P<negated>not )?___dict_contains\((?P<key>'(?:[^'\\]|\\.)*'|[^,]+), (?P<source>.+)\)$")
_SET_CONTAINS = re.compile(r"^(?P<negated>not )?set\.__contains__\((?P<source>[^,]+), (?P<item>.+)\)$")
_HASATTR = re.compile(r"^(?:(?P<not>not )?hasattr\((?P<source>.+), '(?P<attr>\w+)'\))(?P<false> == False)?$")
_ALIASING = re.compile(r"^check_no_aliasing\((?P<sources>.+)\)$")
_SAME_OBJECT = re.compile(r"^(?P<a>[LG]\[.+?) is (?P<b>[LG]\[.+)$")
_NOT_NAN = re.compile(r"^not math\.isnan\((?P<source>.+)\)$")
_DICT_VERSION = re.compile(r"^___dict_version\((?P<source>.+)\) == \d+$")
_TUPLE_ITERATOR = re.compile(r"^___tuple_iterator_len\((?P<source>.+)\) == (?P<length>\d+)$")
_KEYS = re.compile(r"^list\(dict\.keys\((?P<source>.+)\)\) == (?P<keys>\[.*\])$")
_SIZES = re.compile(r"\.(?:size|stride)\(\)\[\d+\]|\.storage_offset\(\)")

# torch._dynamo's marks a tensor can carry, by the attribute that holds them
_MARKS = {
    "_dynamo_dynamic_indices": "torch._dynamo.mark_dynamic",
    "_dynamo_weak_dynamic_indices": "torch._dynamo.maybe_mark_dynamic",
    "_dynamo_unbacked_indices": "torch._dynamo.mark_unbacked",
    "_dynamo_strict_unbacked_indices": "torch._dynamo.mark_unbacked(strict=True)",
    "_dynamo_static_indices": "torch._dynamo.mark_static",
}
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
# containers whose children are reached by index or key rather than by attribute name
_BY_INDEX = ("Sequential", "ModuleList", "ParameterList")
_BY_KEY = ("ModuleDict", "ParameterDict")


@dataclass
class _Manager:
    source: str | None
    type: str | None  # torch's `<class '...'>` of what it reaches


def parse_guard_tree(text: str) -> list[Guard]:
    """Each guard of torch's tree, in torch's order, managers folded into their guards' subjects."""
    guards: list[Guard] = []
    managers: dict[int, _Manager] = {}  # depth of a manager's line -> that manager
    types: dict[str, str] = {}  # a manager's source -> the type it reaches
    for raw in text.splitlines():
        line = _LINE.match(raw.rstrip())
        if line is None:
            continue
        depth = len(line.group("indent")) // 2
        body = line.group("body")
        for deeper in [d for d in managers if d >= depth]:
            del managers[deeper]  # a line at this depth closes every manager at it or under it
        if _PAIR.match(body):
            managers[depth] = _Manager(_nearest(managers, depth).source, None)
            continue
        manager = _MANAGER.match(body)
        if manager is not None:
            source = manager.group("source")
            if manager.group("kind") == "RootGuardManager":
                source = None
            managers[depth] = _Manager(source, manager.group("type"))
            if source and manager.group("type"):
                types[source] = manager.group("type")
            continue
        if _ANY_MANAGER.match(body):
            managers[depth] = _Manager(None, None)  # what it reaches is not understood: not guessed
            continue
        leaf = _LEAF.match(body)
        if leaf is None or leaf.group("rest") is None:
            continue  # a relational guard's repeat under another manager: the same guard again
        rest = leaf.group("rest")
        hint = None
        if found := _HINT.search(rest):
            hint, rest = found.group("hint"), rest[: found.start()]
        check, user_code = _split_comment(rest)
        guards.append(_guard(leaf.group("kind"), check, _nearest(managers, depth).source, user_code, hint, types))
    return guards


def copied(guards: list[Guard]) -> list[Guard]:
    """A copy of parsed guards that shares nothing mutable with them (parse_guard_tree's answer
    for a text already parsed, without parsing it again)."""
    out = []
    for guard in guards:
        copy = Guard.__new__(Guard)  # (dataclasses.replace would call __init__: a third of a build's time)
        copy.__dict__.update(guard.__dict__)
        if guard.size is not None:
            copy.size = list(guard.size)
        if guard.stride is not None:
            copy.stride = list(guard.stride)
        out.append(copy)
    return out


def _nearest(managers: dict[int, _Manager], depth: int) -> _Manager:
    above = [d for d in managers if d < depth]
    return managers[max(above)] if above else _Manager(None, None)


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


# ---- a source (Dynamo's way to reach an object) in the user's words ------------------------------

_BASE = re.compile(r"(?P<kind>[LG])\['(?P<name>[^']+)'\]|(?P<globals>G)\b")
_ATTR = re.compile(r"\.(?P<attr>\w+)")
_CALL = re.compile(r"\(\)")
_KEY_LIST = "list(dict.keys("


def _name(source: str | None, types: dict[str, str] | None = None) -> str:
    """A source as the user would write it: L['x'] -> x; G['SCALE'] -> SCALE;
    L['fn']._modules['0'] -> fn[0] (a Sequential); L['self']._modules['heads']._modules['up'] ->
    self.heads['up'] (a ModuleDict); list(dict.keys(L['d']))[0] -> list(d)[0]. A source not
    understood is torch's text as it is."""
    if not source:
        return "?"
    rendered = _render(source, types or {}, 0)
    return source if rendered is None else rendered


_DEEPEST = 16  # sources nested deeper (a key inside a key inside ...) keep torch's text


def _render(source: str, types: dict[str, str], depth: int) -> str | None:
    position, out = 0, ""
    if depth > _DEEPEST:
        return None
    if source.startswith(_KEY_LIST):
        inner_end = _closing(source, len(_KEY_LIST) - 1)
        if inner_end is None or source[inner_end + 1 : inner_end + 2] != ")":
            return None
        inner = _render(source[len(_KEY_LIST) : inner_end], types, depth + 1)
        if inner is None:
            return None
        out, position = f"list({inner})", inner_end + 2
    else:
        base = _BASE.match(source)
        if base is None:
            return None
        position = base.end()
        if base.group("globals"):
            out = "globals()"
        else:
            out = base.group("name")
            if base.group("kind") == "G":
                builtins = re.match(r"__builtins_dict___\d+$", out)
                imported = re.match(r"__import_(\w+)$", out)
                if builtins and (key := re.match(r"\['([^']+)'\]", source[position:])):
                    out, position = key.group(1), position + key.end()  # a builtin: iter, len, ...
                elif imported:
                    out = imported.group(1).replace("_dot_", ".")  # a module Dynamo imported
    while position < len(source):
        rest = source[position:]
        holder = source[:position]
        if container := re.match(r"\._(?:modules|parameters|buffers)\['(?P<key>[^']+)'\]", rest):
            out += _child(container.group("key"), types.get(holder, ""))
            position += container.end()
        elif attr := _ATTR.match(rest):
            out += attr.group(0)
            position += attr.end()
        elif _CALL.match(rest):
            out += "()"
            position += 2
        elif rest.startswith("["):
            end = _closing(source, position)
            if end is None:
                return None
            inside = source[position + 1 : end]
            if re.fullmatch(r"-?\d+|'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", inside):
                out += f"[{inside}]"
            else:
                index = _render(inside, types, depth + 1)
                if index is None:
                    return None
                out += f"[{index}]"
            position = end + 1
        else:
            return None
    return out


def _closing(text: str, opening: int) -> int | None:
    """The index of the bracket that closes the one at `opening` (quotes skipped)."""
    pairs = {"(": ")", "[": "]"}
    stack: list[str] = []
    quote = None
    index = opening
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char in pairs:
            stack.append(pairs[char])
        elif char in ")]":
            if not stack or stack.pop() != char:
                return None
            if not stack:
                return index
        index += 1
    return None


def _child(key: str, holder_type: str) -> str:
    if holder_type.endswith(tuple(f".{name}'>" for name in _BY_INDEX)) and key.isdigit():
        return f"[{key}]"
    if holder_type.endswith(tuple(f".{name}'>" for name in _BY_KEY)):
        return f"[{key!r}]"
    if key.isidentifier():
        return f".{key}"
    return f"[{key}]" if key.isdigit() else f"[{key!r}]"


def _subject(source: str | None, types: dict[str, str], hint: str | None = None) -> str:
    """A source as the subject of a sentence: a dict's key by its place, a closure variable by its
    name (torch's hint names it), a module's submodules, a function's code."""
    if not source:
        return "?"
    if key := re.fullmatch(r"list\(dict\.keys\((?P<holder>.+)\)\)\[(?P<index>\d+)\]", source):
        index = int(key.group("index"))
        place = _ORDINALS[index] if index < len(_ORDINALS) else f"key at position {index}"
        place = f"{place} key" if index < len(_ORDINALS) else place
        return f"the {place} of {_holder(key.group('holder'), types)}"
    if cell := re.fullmatch(r"(?P<function>.+)\.__closure__\[(?P<index>\d+)\]\.cell_contents(?P<rest>.*)", source):
        function = _name(cell.group("function"), types)
        named = re.fullmatch(r'guard on "(?P<name>\w+)"(?P<path>\S*)(?:, .*)?', hint or "")
        if named:
            return f"{named.group('name')}{named.group('path')} (a variable {function} closes over)"
        return f"{function}'s closure variable {cell.group('index')}{cell.group('rest')}"
    if code := re.fullmatch(r"(?P<function>.+)\.__code__", source):
        return f"the code of {_name(code.group('function'), types)}"
    if re.fullmatch(r"G\['__import_\w+'\]", source):
        return f"module {_name(source, types)}"
    if re.fullmatch(r"G\['__builtins_dict___\d+'\]\['[^']+'\]", source):
        return f"the builtin {_name(source, types)}"
    return _holder(source, types)


def _holder(source: str, types: dict[str, str]) -> str:
    """A dict in words: fn's submodules (L['fn']._modules), fn's attributes (L['fn'].__dict__)."""
    for suffix, words in (
        ("._modules", "submodules"),
        ("._parameters", "parameters"),
        ("._buffers", "buffers"),
        (".__dict__", "attributes"),
    ):
        if source.endswith(suffix) and source != suffix:
            return f"{_name(source[: -len(suffix)], types)}'s {words}"
    return _name(source, types)


def in_user_words(text: str) -> str:
    """Every source Dynamo names in `text` (L['fn']._modules['0']._parameters['weight']) as the
    user writes it (fn[0].weight)."""
    return _names_in(text, {})


def _names_in(expression: str, types: dict[str, str]) -> str:
    """Every source in an expression (a size relation, an identity) in the user's words."""

    def one(match: re.Match[str]) -> str:
        return _name(match.group(0), types)

    return re.sub(r"[LG]\['[^']+'\](?:\._(?:modules|parameters|buffers)\['[^']+'\]|\.\w+|\[\d+\])*", one, expression)


def _type_name(text: str | None) -> str | None:
    found = _CLASS.fullmatch(text or "")
    return found.group("name") if found else None


def _guard(kind: str, check: str, source: str | None, user_code: str | None, hint: str | None, types: dict[str, str]) -> Guard:
    """One guard: its subject from its own text where it names one, else its manager's source."""
    guard = Guard(source=source, kind=kind, text=check, plain=check, user_code=user_code)
    words = _plain(guard, check, types, hint)
    if words is not None:
        guard.plain = words
    return guard


def _plain(guard: Guard, check: str, types: dict[str, str], hint: str | None) -> str | None:
    """The guard in plain words (setting its subject's source from the text), or None where the
    kind or the text is not understood: torch's text stays."""
    kind = guard.kind

    def about(source: str) -> str:
        guard.source = source
        return _subject(source, types, hint)

    if kind == "TENSOR_MATCH" and (m := _TENSOR.search(check)):
        guard.dtype = m.group("dtype").removeprefix("torch.")
        device = m.group("device")
        guard.device = None if device == "None" else device
        guard.requires_grad = m.group("grad") == "True"
        guard.size = _dims(m.group("size"))
        guard.stride = _dims(m.group("stride"))
        size = ", ".join("any" if d is None else str(d) for d in guard.size)
        stride = ", ".join("any" if d is None else str(d) for d in guard.stride)
        return (
            f"{about(m.group('source'))} is a {guard.dtype} tensor of size [{size}], stride [{stride}], requires_grad={guard.requires_grad}"
        )
    if kind == "GLOBAL_STATE":
        return "global state is unchanged: grad mode, autocast, default dtype, deterministic algorithms, number of threads"
    if kind == "DEFAULT_DEVICE":
        return "the default device (torch.set_default_device) is unchanged"
    if kind == "TORCH_FUNCTION_MODE_STACK":
        return "the stack of active torch function modes is unchanged"
    if kind == "ID_MATCH" and (m := _OBJ_ID.match(check)):
        what = _type_name(m.group("type"))
        shown = f" (a {what})" if what and what[:1].isupper() else ""  # a class of the user's or a library's
        return f"{about(m.group('source'))} is the very same object{shown} as when compiled"
    if kind == "TYPE_MATCH" and (m := _TYPE_ID.match(check)):
        what = _type_name(m.group("type"))
        subject = about(m.group("source"))
        return f"the type of {subject} is exactly {what}" if what else f"the type of {subject} is the same as when compiled"
    if kind in ("DIMENSION_DYNAMIC_MARKING_GUARD", "NO_HASATTR", "HASATTR") and (m := _HASATTR.match(check)):
        subject, attr = about(m.group("source")), m.group("attr")
        absent = bool(m.group("not")) or bool(m.group("false"))
        if attr in _MARKS and absent:
            return f"{subject} carries no {_MARKS[attr]} marks"
        return f"{subject} has {'no ' if absent else ''}attribute {attr!r}"
    if kind in ("EQUALS_MATCH", "CONSTANT_MATCH", "TRUE_MATCH", "FALSE_MATCH") and (m := _NAN.match(check)):
        return f"{about(m.group('source'))} is NaN"
    if kind in ("EQUALS_MATCH", "CONSTANT_MATCH", "TRUE_MATCH", "FALSE_MATCH") and (m := _EQUALS.match(check)):
        subject, value = about(m.group("source")), m.group("value")
        return f"{subject} is {value}" if subject.startswith("the ") else f"{subject} == {value}"
    if kind in ("NONE_MATCH", "NOT_NONE", "WEAKREF_ALIVE") and (m := _IS_NONE.match(check)):
        return f"{about(m.group('source'))} is {m.group('negated') or ''}None"
    if kind in ("LENGTH_CHECK", "DICT_LENGTH", "SEQUENCE_LENGTH"):
        if m := _LENGTH.match(check):
            count = int(m.group("length"))
            one, many = ("entry", "entries") if kind == "DICT_LENGTH" else ("item", "items")
            return f"{about(m.group('source'))} has {count} {one if count == 1 else many}"
        if m := _EMPTY.match(check):
            return f"{about(m.group('source'))} is empty"
        return None
    if kind in ("DICT_CONTAINS", "DICT_NOT_CONTAINS") and (m := _DICT_CONTAINS.match(check)):
        holder = about(m.group("source"))
        negated = bool(m.group("negated"))
        if m.group("source").endswith(".__dict__"):
            owner = _name(m.group("source")[: -len(".__dict__")], types)
            if negated:
                return f"{owner} has no attribute {m.group('key')} of its own (in its __dict__): its class's is used"
            return f"{owner} has an attribute {m.group('key')} of its own (in its __dict__)"
        return f"{holder} {'does not contain' if negated else 'contains'} the key {m.group('key')}"
    if kind in ("SET_CONTAINS", "SET_NOT_CONTAINS") and (m := _SET_CONTAINS.match(check)):
        return f"{about(m.group('source'))} {'does not contain' if m.group('negated') else 'contains'} {m.group('item')}"
    if kind in ("NO_TENSOR_ALIASING", "STORAGE_OVERLAPPING") and (m := _ALIASING.match(check)):
        names = [_name(s.strip(), types) for s in m.group("sources").split(", ")]
        guard.source = None  # about several tensors
        if kind == "NO_TENSOR_ALIASING":
            return f"the tensors {', '.join(names)} do not share memory with each other (as when compiled)"
        return None
    if kind == "DICT_VERSION" and (m := _DICT_VERSION.match(check)):
        return f"{about(m.group('source'))} has not been changed since it was compiled (its dict version is the same)"
    if kind == "TUPLE_ITERATOR_LEN" and (m := _TUPLE_ITERATOR.match(check)):
        return f"the iterator {about(m.group('source'))} has {m.group('length')} items left"
    if m := _KEYS.match(check):
        return f"{about(m.group('source'))} has the keys {m.group('keys')}, in this order"
    if kind == "LAMBDA_GUARD":
        return _lambda(guard, check, types)
    return None


def _lambda(guard: Guard, check: str, types: dict[str, str]) -> str | None:
    """A LAMBDA_GUARD: torch writes an expression of its own; the forms known here are put in
    words, any other keeps torch's text."""
    if check == "torch._functorch.aot_autograd.utils.top_saved_tensors_hooks ids == None":
        guard.source = None
        return "no saved-tensors hooks (torch.autograd.graph.saved_tensors_hooks) are active, as when compiled"
    if m := _SAME_OBJECT.fullmatch(check):
        guard.source = m.group("a")
        return f"{_name(m.group('a'), types)} is the very same object as {_name(m.group('b'), types)}"
    if m := _NOT_NAN.fullmatch(check):
        guard.source = m.group("source")
        return f"{_name(m.group('source'), types)} is not NaN"
    if _SIZES.search(check) and re.search(r"[<>=]=?", check):
        guard.source = None
        relation = _names_in(check, types)
        if "==" not in check and "<" in check:
            return f"dynamic sizes stay in range: {relation}"
        return f"sizes and strides keep this relation: {relation}"
    return None
