"""What one `compilescope run` is asked to do, in one typed description: the run's plan.

A RunPlan names the program (a script or `-m module`) and its arguments, the outputs (the
session, the report, the trace, the decompiled files), whether the program's children are
followed and its calls recorded, the fixes to try or to set, and how the explanation is shown.
`run` builds it from its command line (from_command_line), `decompile` in code, and `run --try`
copies it with a few fields changed (replace) and hands each copy to a fresh process as JSON
(to_json / from_json): every field is copied, so an option added here is carried to both runs
without anyone listing it. The pipeline (app/pipeline.py) takes nothing else.

A plain class with __slots__, not a dataclass: run imports as little as it can before the
program starts (docs/cli.md, "What run costs"), and the dataclasses module is not small.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import Any


class RunPlan:
    __slots__ = (
        "target", "args", "module", "json", "trace", "html", "no_html", "no_save", "profile", "no_calls",
        "no_children", "decompile", "try_fixes", "apply_fixes", "explanation", "show", "frame", "all_frames",
        "quiet",
        "timeline",
        "debug_dir",
        "check_accuracy",
    )  # fmt: skip

    def __init__(
        self,
        target: str,
        args: Sequence[str] = (),
        *,
        module: bool = False,  # -m: target is a module, run like python -m
        json: str | None = None,  # where to save the session (None: the default path)
        trace: str | None = None,  # where to save torch's raw trace
        html: str | None = None,  # where to write the report
        no_html: bool = False,
        no_save: bool = False,  # save nothing at all
        profile: bool = False,  # torch.profiler over the whole run
        no_calls: bool = False,  # do not record which version served each call
        no_children: bool = False,  # do not follow the program's Python child processes
        decompile: str | None = None,  # also write the .py files of Dynamo's code here
        try_fixes: Sequence[str] = (),  # --try: run twice, without and with these fixes
        apply_fixes: Sequence[str] = (),  # set these fixes (run --try's second run)
        explanation: bool = True,  # print the explanation at the end
        show: str = "",  # --show: details per compile, comma-separated
        frame: str | None = None,  # --frame: only this compiled function
        all_frames: bool = False,  # --all: every compiled function
        quiet: bool = False,  # --quiet: no live progress line while the program compiles
        timeline: str | None = None,  # --timeline: write the compile timeline (Chrome Trace JSON) here
        debug_dir: str | None = None,  # --debug-dir: write Dynamo's code here and run it from there
        check_accuracy: int | None = None,  # --check-accuracy=N: compare each graph's first N calls with eager
    ) -> None:
        self.target = target
        self.args = list(args)
        self.module = module
        self.json = json
        self.trace = trace
        self.html = html
        self.no_html = no_html
        self.no_save = no_save
        self.profile = profile
        self.no_calls = no_calls
        self.no_children = no_children
        self.decompile = decompile
        self.try_fixes = list(try_fixes)
        self.apply_fixes = list(apply_fixes)
        self.explanation = explanation
        self.show = show
        self.frame = frame
        self.all_frames = all_frames
        self.quiet = quiet
        self.timeline = timeline
        self.debug_dir = debug_dir
        self.check_accuracy = check_accuracy

    @classmethod
    def from_command_line(cls, parsed: argparse.Namespace) -> RunPlan:
        """From `run`'s parsed arguments (its parser sets every option)."""
        given = {name: value for name, value in vars(parsed).items() if name in cls.__slots__ and value is not None}
        return cls(**given)

    def fields(self) -> dict[str, Any]:
        """Every field, by name (lists copied)."""
        return {name: _copied(getattr(self, name)) for name in self.__slots__}

    def replace(self, **changes: Any) -> RunPlan:
        """A copy with `changes` made: every other field as it is here (dataclasses.replace's
        contract, for a class that is not a dataclass)."""
        unknown = set(changes) - set(self.__slots__)
        if unknown:
            raise TypeError(f"RunPlan has no field {', '.join(sorted(unknown))}")
        return type(self)(**{**self.fields(), **changes})

    def to_json(self) -> str:
        """The plan as JSON, for a run in another process (run --try)."""
        import json

        return json.dumps(self.fields())

    @classmethod
    def from_json(cls, text: str) -> RunPlan:
        """The plan to_json wrote (a field it lacks keeps its default)."""
        import json

        given = json.loads(text)
        return cls(**{name: value for name, value in given.items() if name in cls.__slots__})

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RunPlan) and self.fields() == other.fields()

    def __repr__(self) -> str:
        return f"RunPlan({', '.join(f'{name}={value!r}' for name, value in self.fields().items())})"


def _copied(value: Any) -> Any:
    return list(value) if isinstance(value, list) else value
