"""The terminal's runtime section, as views (render/blocks.py): bench's table of eager against
compiled (bench_view) with its verdicts in words (verdict_words, bench_lead), and where the
compiled time went, kernel by kernel (kernel_time_view: bench --profile, run --profile).

The same views feed the report page (render/html.py puts to_data of each in its data), so the
terminal and the page say the same facts in the same words.
"""

from __future__ import annotations

from rich.text import Text

from compilescope.findings.rules import plural
from compilescope.render.blocks import Block, Lines, Table, to_rich
from compilescope.render.terminal import Column, Escaped, limited, one_line_of, printable, seconds, short_path, together, unknown
from compilescope.session.benchmarks import BenchConditions, Benchmark, KernelTime, Profile
from compilescope.session.model import Session


def runtime(session: Session) -> list:
    """bench's table, and where the compiled time went (bench --profile, run --profile)."""
    out: list = []
    if session.benchmarks:
        out += [Text(""), bench_table(session)]
        out += [
            kernel_time_table(b.profile)
            for b in session.benchmarks
            if b.profile is not None and (b.profile.kernels or b.profile.profile_error)
        ]
    if session.profile is not None:
        out += [Text(""), kernel_time_table(session.profile)]
    return out


_VERDICT_STYLE = {"faster": "green", "slower": "red", "about even": "", "too noisy to say": "yellow"}


def verdict_words(verdict: str | None, speedup: float | None) -> str:
    """A speedup with its verdict in words, for a terminal, a log or a page alike (a colour
    alone is lost in a CI log): "faster 1.30x", "slower 0.76x", "about even 1.02x", "too noisy
    to say (0.98x)"; the speedup alone where no verdict was given (a session saved before
    verdicts), "unknown" where neither is known."""
    if speedup is None:
        return verdict or "unknown"
    figure = f"{speedup:.2f}x"
    if verdict is None:
        return figure
    return f"{verdict} ({figure})" if verdict == "too noisy to say" else f"{verdict} {figure}"


def verdict_text(verdict: str | None, speedup: float | None) -> Text:
    """verdict_words in the verdict's colour."""
    style = _VERDICT_STYLE.get(verdict or "", "dim" if speedup is None else "")
    if verdict is None and speedup is not None:  # (no verdict: the speedup's own colour)
        style = "green" if speedup >= 1.05 else ("red" if speedup < 0.95 else "")
    return Text(together(verdict_words(verdict, speedup)), style=style)  # (one phrase: never cut in a cell)


def bench_lead(session: Session) -> list[tuple[str, str, list[str]]]:
    """What a bench report leads with, per configuration: its verdict in words and what a reader
    needs to judge it (why; a busy machine; a warm-up that had not settled), as the terminal
    says them under its table."""
    return [
        (
            b.config,
            f"no figures: {b.skipped}" if b.skipped else verdict_words(b.verdict, b.speedup),
            [] if b.skipped else [*_judged(b), *_machine(b)],
        )
        for b in session.benchmarks
    ]


def _machine(bench: Benchmark) -> list[str]:
    """The machine's state while it measured, where bench recorded it and _judged did not say it
    was busy (it says that)."""
    conditions = bench.conditions
    if conditions is None or conditions.busy:
        return []
    facts = _machine_facts(conditions)
    return ["measured on a quiet machine" + (f" ({'; '.join(facts)})" if facts else "") + "."]


def _machine_facts(conditions: BenchConditions) -> list[str]:
    """What bench recorded of the machine while it measured: the other processes' CPU, the load
    before and after, the cores."""
    facts = []
    if conditions.others_cpu is not None:
        facts.append(f"other processes used {conditions.others_cpu:.1f} cores' worth of CPU while it measured")
    if conditions.load_before is not None or conditions.load_after is not None:
        facts.append(f"load {unknown(conditions.load_before)} before, {unknown(conditions.load_after)} after")
    if conditions.cpus is not None:
        facts.append(f"on {plural(conditions.cpus, 'core')}")
    return facts


def bench_table(session: Session) -> Escaped:
    """bench_view for the terminal, bounded and escaped: `compilescope bench` prints it as it is."""
    return printable(to_rich(bench_view(session)))


def bench_view(session: Session) -> list[Block]:
    """The benchmark results as a table, with how they were measured underneath."""
    columns = [
        # The configuration is never cut ("inductor/reduce-o…" names no mode): it wraps.
        Column("configuration"),
        Column("eager ms", "right", label="eager (ms)"),
        Column("compiled ms", "right", label="compiled (ms)"),
        # the verdict in words with the speedup ("slower 0.76x"): a colour alone is lost in a log
        Column("speedup", "right"),
        Column("first call: cold / warm", "right", label="first call (cold / warm)"),
        Column("break-even calls", "right"),
        Column("peak memory", "right"),
        Column("accuracy"),
    ]
    table = Table(columns, title=f"Eager vs torch.compile · {session.environment.device or 'unknown device'}", box="SIMPLE_HEAD")

    def ms(median: float | None, iqr: list[float] | None) -> Text:
        if median is None:
            return Text("unknown", style="dim")
        text = Text(f"{median:.3f}")
        if iqr and len(iqr) == 2:  # (a session from elsewhere may hold any list)
            text.append(f"\n({iqr[0]:.3f}–{iqr[1]:.3f})", style="dim")
        return text

    for b in session.benchmarks:
        if b.skipped:
            table.add_note(Text(b.config), Text("no figures (below)", style="yellow"))
            continue
        speed = verdict_text(b.verdict, b.speedup)
        even = (
            "never"
            if b.break_even_calls is None and b.speedup is not None
            else unknown(None if b.break_even_calls is None else f"{b.break_even_calls:.0f}")
        )
        table.add_row(
            Text(b.config),
            ms(b.eager_ms, b.eager_iqr_ms),
            ms(b.compiled_ms, b.compiled_iqr_ms),
            speed,
            f"{together(seconds(b.first_call_cold_s))} / {together(seconds(b.first_call_warm_s))}",
            even,
            together(unknown(None if b.peak_memory_mb is None else f"{b.peak_memory_mb:.0f} MB")),
            Text(unknown(b.accuracy), style="red" if (b.accuracy or "").startswith("fail") else ""),
        )
    measured = next((b for b in session.benchmarks if not b.skipped), None)
    notes = Text("", style="dim")
    built = next((b.model for b in session.benchmarks if b.model), None)
    if built:  # a model by name: what was built (--config's values show in its size)
        target = session.program.target if session.program and session.program.target else "the model"
        notes.append(f"{target}: {built}\n")
    for b in session.benchmarks:
        if b.skipped:
            notes.append(f"{b.config}: no figures: ", style="yellow")
            notes.append(b.skipped + "\n", style="yellow")
    for b in session.benchmarks:
        for line in _judged(b):
            notes.append(f"{b.config}: ", style="bold")
            notes.append(line + "\n", style="yellow" if b.conditions is not None and b.conditions.busy else "")
    if measured is not None:
        warmed = f"{measured.warmup} warm-up calls"
        if measured.conditions is not None and measured.conditions.warmup_s is not None:
            warmed += f" ({measured.conditions.warmup_s:.1f} s, until the times stopped falling)"
        notes.append(
            f"medians of {measured.runs} timed calls each (IQR in brackets) after {warmed}, eager and compiled "
            f"taking turns{' in short blocks' if measured.conditions is not None else ''}; {measured.threads} threads; timer: {measured.timer}; memory: {measured.memory_kind or 'not measured'}.\n"
            "break-even: calls after which the compile has paid for itself (first call's extra time / time saved per call)."
        )
        if measured.warm_in_process:
            notes.append("\nwarm first call measured in the same process as the cold one (in-memory caches help it).")
    return [table, Lines([notes])]


def _judged(bench: Benchmark) -> list[str]:
    """What a reader needs to judge one benchmark's figures, where bench said it: why its
    verdict, a machine busy with other work, a warm-up that ended before the times settled."""
    out = []
    if bench.verdict_why:
        out.append(one_line_of(bench.verdict_why))
    conditions = bench.conditions
    if conditions is not None and conditions.busy and bench.verdict_why and "busy" in bench.verdict_why:
        # The verdict said so already: add only the load it does not give.
        if conditions.load_before is not None or conditions.load_after is not None:
            out.append(f"load average {unknown(conditions.load_before)} before, {unknown(conditions.load_after)} after.")
    elif conditions is not None and conditions.busy:
        facts = _machine_facts(conditions)
        out.append(
            "measured on a busy machine" + (f" ({'; '.join(facts)})" if facts else "") + ": its figures may not hold on a quiet one."
        )
    if conditions is not None and conditions.warmup_steady is False:
        took = " after " + together(f"{conditions.warmup_s:.1f} s") if conditions.warmup_s is not None else ""
        out.append(f"the per-call times were still falling when the warm-up ended{took}.")
    if conditions is not None and conditions.rounds is not None and conditions.rounds > 1:
        out.append(
            f"timed in {conditions.rounds} rounds: the first did not settle the verdict (a busy machine or a wide spread); the figures are the quietest round's."
        )
    return out


def _kernel_name(kernel: KernelTime, whole: bool) -> Text:
    text = Text(kernel.name)
    if kernel.device_kernels:  # a library call: the cuBLAS/cuDNN kernels it ran
        names = ", ".join(kernel.device_kernels) if whole else limited([name[:60] for name in kernel.device_kernels], 2)
        text.append("\n" + names, style="dim")
    return text


def kernel_time_table(bench: Profile, limit: int = 15) -> Escaped:
    """kernel_time_view for the terminal, bounded and escaped: `compilescope bench` prints it
    as it is."""
    return printable(to_rich(kernel_time_view(bench, limit)))


def kernel_time_view(bench: Profile, limit: int | None = 15) -> list[Block]:
    """Where the compiled time went, kernel by kernel (bench --profile, run --profile): the
    first `limit` kernels (None: all of them, and each library call's kernels whole, as the
    report page shows them)."""
    if bench.profile_error:
        return [Lines([Text(f"{bench.config}: no profile: {bench.profile_error}", style="yellow")])]
    if not bench.kernels:
        return [Lines([Text(f"{bench.config}: the profile recorded no kernel time", style="yellow")])]
    gpu = bench.kernels[0].where == "device"
    where = "GPU time" if gpu else "CPU time"
    title = f"{bench.config}: {where} by kernel over {bench.profiled_calls} calls of compiled code"
    columns = [
        Column("kernel"),
        Column("kind"),
        Column("calls", "right"),
        Column("µs per call", "right"),
        Column("share", "right"),
        Column("made from (ATen)", long=True),
        Column("your code", long=True),
    ]
    if gpu:
        columns += [Column("GB/s", "right"), Column("of copy peak", "right"), Column("TFLOP/s", "right")]
    table = Table(columns, title=title)
    for k in bench.kernels[:limit]:
        row: list[str | Text] = [
            _kernel_name(k, whole=limit is None),
            Text(k.kind),
            str(k.calls),
            f"{k.total_us / max(k.calls, 1):.1f}",
            f"{100 * k.share:.0f}%",
            Text(", ".join(k.aten_ops) if k.aten_ops else "unknown", style="" if k.aten_ops else "dim"),
            Text(
                "\n".join(_short_source(s) for s in k.source_lines[:3]) if k.source_lines else "unknown",
                style="" if k.source_lines else "dim",
            ),
        ]
        if gpu:
            row += [
                unknown(None if k.achieved_gbps is None else f"{k.achieved_gbps:.0f}"),
                unknown(None if k.bandwidth_of_peak is None else f"{100 * k.bandwidth_of_peak:.0f}%"),
                unknown(None if k.achieved_tflops is None else f"{k.achieved_tflops:.1f}"),
            ]
        table.add_row(*row)
    notes = Text("", style="dim")
    if limit is not None and len(bench.kernels) > limit:
        notes.append(f"… {len(bench.kernels) - limit} more kernels in the JSON\n")
    if bench.compiled_regions:
        notes.append(
            "calls served by each compiled version: " + ", ".join(f"{cid}: {n}" for cid, n in bench.compiled_regions.items()) + "\n"
        )
    if bench.peak_copy_gbps:
        notes.append(
            f"device limits measured here: copy {bench.peak_copy_gbps:.0f} GB/s (read + write), matrix product {bench.peak_matmul_tflops:.0f} TFLOP/s\n"
        )
    for note in bench.profile_notes:
        notes.append(note + "\n")
    return [table, Lines([notes])]


def _short_source(line: str) -> str:
    where, _, code = line.partition("  ")
    return f"{short_path(where.rsplit(':', 1)[0])}:{where.rsplit(':', 1)[-1]}  {code}" if ":" in where else line
