"""Output that reads well when it is not a terminal (a pipe, a file, a CI log): laid out at 100
columns (or $COLUMNS), phrases such as "expected 8, actual 16" never cut in two, no line ending
in padding, and tables that fall back to a row as lines rather than one word a line.

The CLI tests run the real command in a subprocess with its output piped, as a CI job would.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from rich.console import Console

from compilescope.render.sections.runtime import runtime
from compilescope.render.terminal import console_for, printable
from compilescope.render.text import PIPED_WIDTH, width_for
from compilescope.session.benchmarks import BenchConditions, Benchmark, KernelTime, Profile
from compilescope.session.model import Environment, Program, Session

# A recompile whose guard names a long argument, so its line is longer than the output is wide.
RECOMPILE = textwrap.dedent(
    """\
    import torch


    def scale_every_row_of_the_batch(a_batch_of_rows_with_a_long_descriptive_name):
        return a_batch_of_rows_with_a_long_descriptive_name * 2 + 1


    compiled = torch.compile(scale_every_row_of_the_batch, backend="eager")
    for rows in (8, 8, 16):
        compiled(torch.ones(rows, 4))
    print("done")
    """
)


def compilescope(*args: str, cwd: Path, columns: int | None = None) -> subprocess.CompletedProcess[str]:
    """The CLI with stdout and stderr piped, and $COLUMNS only where given."""
    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    if columns is not None:
        env["COLUMNS"] = str(columns)
    return subprocess.run(
        [sys.executable, "-m", "compilescope", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False
    )


def explanation(stderr: str) -> list[str]:
    """compilescope's own lines: from its header on (torch logs its own warnings before it)."""
    lines = stderr.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("compilescope · "))
    return lines[start:]


def assert_reads_whole(lines: list[str], width: int) -> None:
    text = "\n".join(lines)
    assert all(len(line) <= width for line in lines), max(lines, key=len)
    assert not [line for line in lines if line != line.rstrip()], "a line ends in padding"
    # the guard that failed: "expected 8, actual 16" on one line, wherever it is said
    assert text.count("expected 8, actual 16") == text.count("expected 8") >= 2
    assert "(8 → 16)" in text
    assert not re.search(r"expected 8,?\s*$|^\s*actual 16", text, re.MULTILINE)


@pytest.fixture(scope="module")
def recompiled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    folder = tmp_path_factory.mktemp("piped")
    (folder / "recompile.py").write_text(RECOMPILE)
    return folder, compilescope("run", "--no-html", "recompile.py", cwd=folder)


def test_piped_run_is_laid_out_at_100_columns_with_phrases_whole(recompiled) -> None:
    _, result = recompiled
    assert result.returncode == 0 and result.stdout == "done\n", result.stderr[-3000:]
    lines = explanation(result.stderr)
    assert_reads_whole(lines, PIPED_WIDTH)
    assert any(len(line) > 80 for line in lines)  # 100 columns, not rich's 80 for a pipe
    assert "compiled again" in result.stderr


def test_report_follows_columns_and_keeps_phrases_whole(recompiled) -> None:
    folder, _ = recompiled
    for columns in (64, 120):
        shown = compilescope("report", "compilescope-recompile.json", cwd=folder, columns=columns)
        assert shown.returncode == 0, shown.stderr
        assert_reads_whole(shown.stdout.splitlines(), columns)


def test_width_for_a_stream() -> None:
    class Pipe(io.StringIO):
        def isatty(self) -> bool:
            return False

    saved = os.environ.pop("COLUMNS", None)
    try:
        assert width_for(Pipe()) == 100
        assert console_for(Pipe()).width == 100
        os.environ["COLUMNS"] = "132"
        assert width_for(Pipe()) == 132
        os.environ["COLUMNS"] = "not a number"
        assert width_for(Pipe()) == 100
    finally:
        if saved is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = saved


# ---- tables at a narrow width ------------------------------------------------------------------

KERNELS = [
    KernelTime(
        name="cpp_fused_add_mean_native_layer_norm_relu_0",
        kind="cpp",
        calls=12,
        total_us=480.0,
        share=0.61,
        where="cpu",
        aten_ops=["aten.add", "aten.mean", "aten.native_layer_norm", "aten.relu"],
        source_lines=[
            "/home/user/project/model.py:16  x = torch.relu(self.layer(x) + 1.0)",
            "/home/user/project/model.py:18  if x.mean().item() > 0.5:",
        ],
    ),
    KernelTime(
        name="addmm",
        kind="library call",
        calls=12,
        total_us=300.0,
        share=0.38,
        where="cpu",
        aten_ops=["aten.t", "aten.addmm"],
        source_lines=["/home/user/project/model.py:16  x = torch.relu(self.layer(x) + 1.0)"],
    ),
    KernelTime(name="cpp_fused_mul_tanh_1", kind="cpp", calls=4, total_us=8.0, share=0.01, where="cpu", aten_ops=None),
]


def profiled() -> Session:
    return Session(
        environment=Environment(python="3.11.7", torch="2.13.0+cpu", device="cpu (AMD EPYC, 2 cores)"),
        program=Program(kind="script", target="model.py", exit_status=0),
        profile=Profile(config="the whole run", kernels=KERNELS, profiled_calls=12, compiled_regions={"0/0": 8, "0/1": 4}),
    )


def benched(verdict: bool = True) -> Session:
    measured = Benchmark(
        config="inductor/max-autotune-no-cudagraphs/training",
        backend="inductor",
        mode="max-autotune-no-cudagraphs",
        training=True,
        eager_ms=1.234,
        eager_iqr_ms=[1.2, 1.3],
        compiled_ms=0.8,
        compiled_iqr_ms=[0.79, 0.82],
        speedup=1.54,
        first_call_cold_s=13.21,
        first_call_warm_s=1.02,
        break_even_calls=28_000,
        runs=40,
        warmup=3,
        threads=2,
        timer="time.perf_counter",
        peak_memory_mb=120,
        memory_kind="RSS",
        accuracy="pass",
        profile=Profile(config="inductor/max-autotune-no-cudagraphs/training", kernels=KERNELS, profiled_calls=12),
    )
    if verdict:
        measured.verdict = "too noisy to say"
        measured.verdict_why = "The middle halves of the eager and compiled times overlap: rerun on a quiet machine."
        measured.conditions = BenchConditions(
            cpus=2, load_before=1.9, load_after=2.4, others_cpu=1.1, busy=True, warmup_s=1.0, warmup_steady=True, rounds=1
        )
    skipped = Benchmark(
        config="inductor/reduce-overhead/inference",
        backend="inductor",
        mode="reduce-overhead",
        training=False,
        skipped="CUDA graphs need a GPU",
    )
    return Session(environment=Environment(device="cpu (AMD EPYC, 2 cores)"), benchmarks=[measured, skipped])


def rendered(session: Session, width: int) -> list[str]:
    buffer = io.StringIO()
    Console(file=buffer, width=width, color_system=None, highlight=False).print(printable(runtime(session)))
    return buffer.getvalue().splitlines()


_BOX = re.compile("[\u2500-\u257f]")


def cell_fragments(lines: list[str]) -> list[str]:
    """What each line holds in each table cell (split at the table's rules), stripped."""
    pieces = []
    for line in lines:
        for piece in _BOX.split(line):
            if piece.strip():
                pieces.append(piece.strip())
    return pieces


def cell_values(session: Session) -> list[str]:
    """The text of every cell of the session's tables (a source line as the table shows it)."""
    values = [b.config for b in session.benchmarks] + ["1.234", "(1.200–1.300)", "13.21 s / 1.02 s", "too noisy to say"]
    for k in KERNELS:
        values += [
            k.name,
            k.kind,
            str(k.calls),
            f"{k.total_us / k.calls:.1f}",
            f"{100 * k.share:.0f}%",
            ", ".join(k.aten_ops or []),
            *k.source_lines,
        ]
    return values


def pieces_of_cells(lines: list[str], session: Session) -> list[str]:
    """Lines (or a table cell's line) that hold one word of a cell's several: the mark of a
    table squeezed into a word per line."""
    values = cell_values(session)
    words = {word for value in values for word in value.split()}
    alone = {piece for piece in cell_fragments(lines) if " " not in piece and piece not in values}
    return sorted(piece for piece in alone if any(piece in word for word in words))


@pytest.mark.parametrize("width", [60, 80, 100])
@pytest.mark.parametrize("make", [profiled, benched])
def test_a_narrow_table_never_becomes_a_word_per_line(make, width: int) -> None:
    session = make()
    lines = rendered(session, width)
    assert all(len(line) <= width for line in lines), max(lines, key=len)
    assert pieces_of_cells(lines, session) == []
    text = "\n".join(lines)
    assert "…" not in text  # nothing cut
    for kernel in KERNELS:
        assert kernel.name in text
        if kernel.aten_ops:
            assert ", ".join(kernel.aten_ops) in " ".join(text.split())
    if session.benchmarks:
        assert "1.54x" in text and "13.21 s / 1.02 s" in text and "120 MB" in text


def test_a_wide_output_keeps_the_table() -> None:
    lines = rendered(profiled(), 200)
    assert any("┃ kernel" in line and "your code" in line for line in lines)
    row = next(line for line in lines if "cpp_fused_add_mean_native_layer_norm_relu_0" in line)
    assert "12" in row and "61%" in row  # the figures on the kernel's own row


def test_the_bench_verdict_and_what_it_was_measured_under() -> None:
    for width in (200, 80):
        text = " ".join("\n".join(rendered(benched(), width)).split())
        assert "too noisy to say (1.54x)" in text  # the verdict in words, with the speedup it judges
        assert "The middle halves of the eager and compiled times overlap: rerun on a quiet machine." in text
        assert "measured on a busy machine" in text and "1.1 cores' worth of CPU" in text
    wide = rendered(benched(), 200)
    row = next(line for line in wide if line.strip().startswith("inductor/max-autotune-no-cudagraphs/training"))
    assert "too noisy to say (1.54x)" in row  # in the speedup column, where it fits


def test_no_verdict_column_for_results_without_one() -> None:
    text = "\n".join(rendered(benched(verdict=False), 200))
    assert "verdict" not in text and "busy machine" not in text
    assert "1.54x" in text
