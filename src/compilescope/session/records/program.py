"""compilescope's own records about the run (trace/ours.py names them): the capture itself, the
environment, the program and how it ended, what `run --try` set, the child processes, the
modules given to torch.compile, and Dynamo's code decompiled; and torch's own record of its
version.

After the last record, `apply_generated_code` puts the decompiled code on each Compile,
`place_compiled_modules` places a module compiled whole at the user's torch.compile call, and
`incomplete` says whether the trace holds only part of its run.
"""

from __future__ import annotations

import re
import typing
from typing import Any

from compilescope.session.model import (
    ChildProcess,
    Compile,
    CompiledModule,
    DecompiledCode,
    Environment,
    Incomplete,
    MethodCall,
    Program,
    ProgramKind,
    incomplete_reason,
)
from compilescope.session.places import library
from compilescope.session.records.state import BuildState, Handler
from compilescope.session.records.values import as_text, described, int_of, list_of, number_of, short, text_of
from compilescope.trace.ours import PROGRAM_END_KEY
from compilescope.trace.reader import Record, json_value

LIMIT_HOOK_FAILURES = 5  # as record/hook_failures.py keeps, and one line for how many in all

_ENVIRONMENT_FIELDS = tuple(Environment.__dataclass_fields__)
_PROGRAM_KINDS = typing.get_args(ProgramKind)  # what a session may hold as Program.kind


def on_torch_version(state: BuildState, record: Record) -> None:
    if record.payload:
        data = json_value(record.payload)
        version = data.get("pytorch_version") if isinstance(data, dict) else None
        if version is not None and not isinstance(version, str):
            state.wrong_type(record, "pytorch_version", version, "a string")
        elif version:
            state.session.environment.torch = state.session.environment.torch or version


def on_compilescope_capture(state: BuildState, record: Record) -> None:
    meta = record.metadata if isinstance(record.metadata, dict) else {}
    rank = meta.get("rank")
    if isinstance(rank, int) and not isinstance(rank, bool) and state.session.rank is None:
        state.session.rank = rank  # the rank a launcher gave the process (RANK)
    if meta.get(PROGRAM_END_KEY) is True:
        state.records_program_end = True
    version = meta.get("compilescope")
    if isinstance(version, str) and state.session.compilescope_version is None:
        state.session.compilescope_version = version  # the compilescope that wrote the trace


def on_compilescope_environment(state: BuildState, record: Record) -> None:
    if not isinstance(record.metadata, dict):
        state.wrong_type(record, "its metadata", record.metadata, "an object")
        return
    env = state.session.environment
    for key in _ENVIRONMENT_FIELDS:
        value = record.metadata.get(key)
        if value is None:
            continue
        if key in ("dynamo_config", "libraries"):
            if isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
                setattr(env, key, dict(value))
            else:
                state.wrong_type(record, key, value, "an object of strings")
        elif key == "threads" and int_of(value) is None:
            state.wrong_type(record, key, value, "a whole number")
        elif key != "threads" and not isinstance(value, str):
            state.wrong_type(record, key, value, "a string")
        else:
            setattr(env, key, value)


def on_compilescope_program(state: BuildState, record: Record) -> None:
    state.program_recorded = True
    meta = record.metadata
    if not isinstance(meta, dict):
        state.wrong_type(record, "its metadata", meta, "an object")
        return

    def typed(key: str, check: Any, expected: str) -> Any:
        value = meta.get(key)
        if value is None:
            return None
        if check(value):
            return value
        state.wrong_type(record, key, value, expected)
        return None

    argv = typed("argv", lambda v: isinstance(v, list) and all(isinstance(a, str) for a in v), "a list of strings")
    wall = typed("wall_time_s", lambda v: number_of(v) is not None, "a number")
    state.program = Program(
        kind=typed("kind", lambda v: v in _PROGRAM_KINDS, "one of " + ", ".join(_PROGRAM_KINDS)) or "script",
        target=typed("target", _is_str, "a string") or "unknown",
        argv=argv or [],
        exit_status=typed("exit_status", lambda v: int_of(v) is not None, "a whole number"),
        exception=typed("exception", _is_str, "a string"),
        wall_time_s=None if wall is None else float(wall),
    )


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def on_compilescope_fixes(state: BuildState, record: Record) -> None:
    applied = record.metadata.get("applied") if isinstance(record.metadata, dict) else None
    if not isinstance(applied, list):
        state.wrong_type(record, "applied", applied, "a list")
        return
    state.session.fixes = [str(item) for item in applied]


def on_compilescope_children(state: BuildState, record: Record) -> None:
    listed = record.metadata.get("children") if isinstance(record.metadata, dict) else None
    # (compilescope 0.1.0's first traces held the list as the record's payload)
    data = listed if listed is not None else (json_value(record.payload) if record.payload is not None else None)
    if isinstance(data, list):
        state.session.children = [child for item in data if (child := _child(item)) is not None]


def _child(data: Any) -> ChildProcess | None:
    """A child process as compilescope's own record says it, or None where it is not in the
    shape compilescope writes."""
    if not isinstance(data, dict) or not isinstance(data.get("command"), str):
        return None

    def number(key: str) -> int | None:
        return int_of(data.get(key))  # (at most 64 bits: what a session holds)

    seconds = data.get("compile_time_s")
    return ChildProcess(
        pid=number("pid"),
        parent_pid=number("parent_pid"),
        command=data["command"],
        how=str(data.get("how") or "started"),
        followed=data.get("followed") is True,
        why_not=as_text(data.get("why_not")),
        trace=as_text(data.get("trace")),
        rank=number("rank"),
        functions=number("functions") or 0,
        compiles=number("compiles") or 0,
        recompiles=number("recompiles") or 0,
        graph_breaks=number("graph_breaks") or 0,
        kernels=number("kernels") or 0,
        compile_time_s=float(seconds) if isinstance(seconds, (int, float)) and not isinstance(seconds, bool) else None,
    )


def on_compilescope_compiled_modules(state: BuildState, record: Record) -> None:
    data = record.metadata if isinstance(record.metadata, dict) else {}
    modules = data.get("modules")
    if not isinstance(modules, list):
        return
    found = []
    for item in modules:
        if not isinstance(item, dict) or not isinstance(item.get("module"), str):
            state.skip(f"line {record.line}: a compiled module: not in the shape compilescope writes ({described(item)})")
            continue
        calls = [
            MethodCall(
                method=call["method"],
                filename=text_of(call.get("filename")),
                lineno=int_of(call.get("lineno")),
                code=text_of(call.get("code")),
                name=text_of(call.get("name")),
            )
            for call in list_of(item.get("method_calls"))
            if isinstance(call, dict) and isinstance(call.get("method"), str)
        ]
        found.append(
            CompiledModule(
                module=item["module"],
                forward_filename=text_of(item.get("forward_filename")),
                forward_lineno=int_of(item.get("forward_lineno")),
                compiled_from=[n for n in list_of(item.get("compiled_from")) if isinstance(n, str)],
                compile_code=text_of(item.get("compile_code")),
                methods=[n for n in list_of(item.get("methods")) if isinstance(n, str)],
                method_calls=calls,
                in_place=item.get("in_place") is True,
            )
        )
    state.session.compiled_modules = found


def on_compilescope_generated_code(state: BuildState, record: Record) -> None:
    data = record.metadata
    if record.payload:
        try:
            data = json_value(record.payload)
        except (ValueError, RecursionError):
            state.skip(f"line {record.line}: 'compilescope_generated_code': its payload is not JSON: left unknown")
            return
    if isinstance(data, dict):
        state.generated = data
    else:
        state.wrong_type(record, "its code", data, "an object")


HANDLERS: dict[str, Handler] = {
    "torch_version": on_torch_version,
    "compilescope_capture": on_compilescope_capture,
    "compilescope_environment": on_compilescope_environment,
    "compilescope_program": on_compilescope_program,
    "compilescope_fixes": on_compilescope_fixes,
    "compilescope_children": on_compilescope_children,
    "compilescope_compiled_modules": on_compilescope_compiled_modules,
    "compilescope_generated_code": on_compilescope_generated_code,
}


# ---- when the trace has been read -----------------------------------------------------------


def apply_generated_code(state: BuildState) -> None:
    """Dynamo's code, decompiled (compilescope's own record): put on each Compile, with the
    code it compiled."""
    data = state.generated
    if data is None:
        return
    if data.get("unavailable"):
        state.session.decompiled = str(data["unavailable"])
        return
    hook_failures(state, data)
    seconds = number_of(data.get("decompile_s"))
    state.session.decompiled = f"decompiled when the run ended, in {seconds:.2f} s" if seconds is not None else "decompiled"
    # Keyed without the restart attempt ("3/0_1" -> "3/0"): inside the bytecode hook torch
    # still reports attempt 0, and the code comes from the last attempt, the one that held.
    # An id comes back after torch._dynamo.reset(): both lists are in the order the compiles
    # ran, so each version takes the first compile of its id not yet taken.
    frames_of = {id(c): frame for frame in state.session.frames for c in frame.compiles}
    by_id: dict[tuple[str, str], list[Compile]] = {}
    for item in state.order:
        by_id.setdefault((_without_attempt(item.compile.compile_id), item.frame_key[2]), []).append(item.compile)
    for version in list_of(data.get("versions")):
        if not isinstance(version, dict) or not isinstance(version.get("compile_id"), str) or not isinstance(version.get("function"), str):
            state.skip(f"the code of a compiled version: not in the shape compilescope writes ({described(version)})")
            continue
        waiting = by_id.get((_without_attempt(version["compile_id"]), version["function"])) or []
        if not waiting:
            state.skip(
                f"the code of compiled version {short(version['compile_id'])} of {short(version['function'])}: the trace has no compile with that id"
            )
            continue
        compile_ = waiting.pop(0)
        compile_.transformed_code = _decompiled(version.get("transformed"))
        compile_.original_code = _decompiled(version.get("original"))
        resumes = version.get("resume_functions")
        compile_.resume_functions = {str(k): v for k, v in resumes.items() if isinstance(v, str)} if isinstance(resumes, dict) else {}
        compile_.compiled_graphs = [n for n in list_of(version.get("compiled_graphs")) if isinstance(n, str)]
        compile_.called_as = [n for n in list_of(version.get("called_as")) if isinstance(n, str)]
        compile_.for_function = text_of(version.get("wraps")) or text_of(version.get("qualname"))
        # torch's stack (dynamo_start) leaves out the direct caller of a function given to
        # torch.compile (its wrapper's caller is where it stops): the stack compilescope read
        # as the compile ran has it. (Not for resume functions: their caller is Dynamo's code.)
        ours = [n for n in list_of(version.get("called_from")) if isinstance(n, str)]
        if ours and not version["function"].startswith("torch_dynamo_resume_in_"):
            compile_.called_from = ours
            compile_.call_code = text_of(version.get("call_code"))
        frame = frames_of.get(id(compile_))
        if frame is not None and frame.parameters is None:
            given = version.get("parameters")
            if isinstance(given, list) and all(isinstance(n, str) for n in given):
                frame.parameters = list(given)
        if frame is not None and frame.qualname is None:
            frame.qualname = text_of(version.get("qualname"))
            frame.wraps = text_of(version.get("wraps"))


def _without_attempt(compile_id: str) -> str:
    return re.sub(r"_\d+$", "", compile_id)


def _decompiled(data: Any) -> DecompiledCode | None:
    if not isinstance(data, dict) or not isinstance(data.get("source"), str):
        return None
    verified = data.get("verified") if isinstance(data.get("verified"), bool) else None
    return DecompiledCode(
        source=data["source"],
        complete=data.get("complete") is True,
        note=text_of(data.get("note")),
        verified=verified,
        difference=text_of(data.get("difference")),
        made_by_dynamo=data.get("made_by_dynamo") is True,
    )


def hook_failures(state: BuildState, data: dict[str, Any]) -> None:
    """What a hook of ours said failed inside torch's compile (record/hook_failures.py), from
    compilescope's record of the calls or of the generated code."""
    failures = [short(f) for f in list_of(data.get("failures")) if isinstance(f, str)][: LIMIT_HOOK_FAILURES + 1]
    state.session.capture_problems.extend(failures)


def place_compiled_modules(state: BuildState) -> None:
    """torch's wrapper of a module compiled whole (`inner`, in torch's external_utils.py)
    is placed at the user's torch.compile call of that module."""
    by_forward = {f"{m.module}.forward": m for m in state.session.compiled_modules or [] if m.compiled_from}
    for frame in state.session.frames:
        module = by_forward.get(frame.wraps or "")
        if module is not None and library(frame.filename) == "torch":  # (not a library's decorator: transformers' `wrapper`)
            frame.compiled_at = module.compiled_from[-1].split(" in ")[0]


def incomplete(state: BuildState) -> Incomplete | None:
    """What says the trace holds only part of its run: a compile begun (dynamo_start) that
    torch never reported the end of (compilation_metrics: written also where a compile
    fails), the last such where there are several; and, for `compilescope run`'s trace of
    its program, no record of the program's end."""
    unended = [item for item in state.order if item.began and not item.ended]
    compile_id = unended[-1].compile.compile_id if unended else None
    program_finished = state.program_recorded if state.records_program_end else None
    if compile_id is None and program_finished is not False:
        return None
    return Incomplete(incomplete_reason(compile_id, program_finished), compile_id, program_finished)
