"""What `compilescope run` is asked to do, in one typed description.

`run` builds it from its command line; `decompile` and `run --try` build it in code; run_program
(cli/run.py) takes nothing else. A plain class, not a dataclass: run imports as little as it can
before the program starts (docs/cli.md, "What run costs"), and the dataclasses module is not small.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence


class RunOptions:
    __slots__ = (
        "target", "args", "module", "json", "trace", "html", "no_html", "no_save", "profile", "no_calls",
        "no_children", "decompile", "try_fixes", "apply_fixes", "explanation", "show", "frame", "all_frames",
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

    @classmethod
    def from_command_line(cls, parsed: argparse.Namespace) -> RunOptions:
        """From `run`'s parsed arguments (its parser sets every option)."""
        given = {name: value for name, value in vars(parsed).items() if name in cls.__slots__ and value is not None}
        return cls(**given)
