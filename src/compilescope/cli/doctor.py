"""compilescope doctor: is everything here that torch.compile needs?"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from dataclasses import dataclass
from pathlib import Path

_TINY_COMPILE = textwrap.dedent(
    """
    import sys, torch
    device = sys.argv[1]
    def step(x):
        return torch.relu(x + 1.0) * 2.0
    x = torch.randn(64, device=device)
    expected = step(x)
    got = torch.compile(step, backend="inductor")(x)
    assert torch.allclose(got, expected), "compiled result differs from eager"
    print("ok")
    """
)


@dataclass
class Check:
    name: str
    ok: bool | None  # None: not applicable / only informative
    found: str
    fix: str = ""


class DoctorCommand:
    """Check that torch.compile can work here, and say how to fix what is missing.

    Checks Python, torch, the device, the C++ compilers Inductor can use, Python.h,
    Triton (for GPUs), then runs a tiny real Inductor compile on each device. Exit status 1
    if anything torch.compile needs is missing.
    """

    @staticmethod
    def prepare_parser(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--no-compile", action="store_true", help="skip the tiny real compile (it takes seconds)")

    def run(self, args: argparse.Namespace) -> int:
        from rich.text import Text

        from compilescope.render.terminal import console_for

        console = console_for(sys.stdout)
        checks = list(self.checks(compile_test=not args.no_compile, console=console))
        failed = [c for c in checks if c.ok is False]
        console.print(
            Text(
                f"\n{'All good: torch.compile can work here.' if not failed else f'{len(failed)} problem(s) found.'}",
                style="bold green" if not failed else "bold red",
            )
        )
        return 1 if failed else 0

    def checks(self, compile_test: bool, console):
        from rich.text import Text

        def emit(check: Check) -> Check:
            mark, style = {True: ("✓", "green"), False: ("✖", "red"), None: ("·", "dim")}[check.ok]
            line = Text(f" {mark} ", style=style)
            line.append(f"{check.name:14}", style="bold")
            line.append(check.found)
            if check.fix:
                line.append(f"\n     fix: {check.fix}", style="yellow")
            console.print(line)
            return check

        yield emit(Check("Python", True, f"{platform.python_version()} ({sys.executable})"))
        try:
            import torch
        except ImportError as error:
            yield emit(Check("torch", False, f"cannot be imported ({error})", "pip install torch (in this environment)"))
            return
        yield emit(Check("torch", True, str(torch.__version__)))
        cuda = torch.cuda.is_available()
        if cuda:
            yield emit(Check("device", True, f"CUDA {torch.version.cuda}: {torch.cuda.get_device_name()}"))
        else:
            yield emit(Check("device", None, "CPU only (no CUDA device visible): Inductor writes C++ for the CPU"))

        from compilescope.record import torch_adapter

        inductor_cxx = torch_adapter.inductor_cxx()
        found = {name: shutil.which(name) for name in ("g++", "clang++", "cl")}
        listing = ", ".join(f"{n} {'found' if p else 'not found'}" for n, p in found.items())
        if inductor_cxx and shutil.which(inductor_cxx):
            yield emit(Check("C++ compiler", True, f"Inductor uses {inductor_cxx} ({shutil.which(inductor_cxx)}); {listing}"))
        else:
            fix = (
                "install a C++ compiler: `sudo apt install g++` (Debian/Ubuntu), `xcode-select --install` (macOS); "
                "or point Inductor at one with the CXX environment variable, e.g. CXX=g++"
            )
            if os.environ.get("CXX"):
                fix = f"CXX={os.environ['CXX']} names a compiler that is not on PATH; unset it or name one that exists (g++ or clang++)"
            yield emit(Check("C++ compiler", False, f"Inductor would use {inductor_cxx or 'none'}, which is not found; {listing}", fix))

        header = Path(sysconfig.get_paths()["include"]) / "Python.h"
        if header.exists():
            yield emit(Check("Python.h", True, str(header)))
        else:
            yield emit(
                Check(
                    "Python.h",
                    False,
                    f"not found at {header}",
                    f"install the Python headers: `sudo apt install python{sys.version_info.major}.{sys.version_info.minor}-dev` (or python3-dev)",
                )
            )

        if cuda:
            try:
                import triton

                yield emit(Check("Triton", True, str(triton.__version__)))
            except ImportError:
                yield emit(
                    Check(
                        "Triton",
                        False,
                        "not installed: Inductor needs it for GPU kernels",
                        "pip install triton (the version your torch was built with)",
                    )
                )
        else:
            yield emit(Check("Triton", None, "not needed on the CPU"))

        if not compile_test:
            return
        for device in ["cpu"] + (["cuda"] if cuda else []):
            console.print(Text(f"   compiling a tiny function with Inductor on {device}…", style="dim"))
            yield emit(self._tiny_compile(device))

    @staticmethod
    def _tiny_compile(device: str) -> Check:
        # In a child process: a broken toolchain can abort the process, and the child's clean
        # state shows what a fresh program would meet.
        result = subprocess.run(
            [sys.executable, "-c", _TINY_COMPILE, device],
            capture_output=True,
            text=True,
            timeout=600,
        )
        if result.returncode == 0 and result.stdout.strip().endswith("ok"):
            return Check(f"compile ({device})", True, "a real Inductor compile ran and matched eager")
        error = _last_error_line(result.stderr)
        return Check(f"compile ({device})", False, f"failed: {error}", _fix_for(error))


def _last_error_line(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in reversed(lines):
        if "Error" in line or "error:" in line:
            return line
    return lines[-1] if lines else "no error message"


def _fix_for(error: str) -> str:
    if "Compiler:" in error and "is not found" in error or "No working C++ compiler" in error:
        return "install g++ (`sudo apt install g++`) or set CXX to a compiler on PATH"
    if "Python.h" in error:
        return "install the Python headers (`sudo apt install python3-dev`)"
    if "triton" in error.lower():
        return "install Triton matching your torch (`pip install triton`)"
    if "omp.h" in error or "libgomp" in error:
        return "install OpenMP for your compiler (`sudo apt install libgomp1`, or `brew install libomp` on macOS)"
    return "run the failing compile with TORCH_LOGS=output_code to see where it stops"
