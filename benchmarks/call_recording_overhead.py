"""What recording the calls each compiled version serves costs a compiled call.

    python benchmarks/call_recording_overhead.py [--device cpu|cuda] [--rounds 15]

Needs Python 3.12+ (sys.monitoring). In one process, compiles two functions with compilescope's
CallRecorder attached, as `compilescope run` attaches it: a tiny pointwise function (the worst
case: the call does almost nothing, so fixed costs show) and a small MLP. Then it alternates
blocks of 2,000 calls with the recorder's callbacks on and off, and compares the median per-call
time of the blocks: the difference is what recording adds to each compiled call. (Comparing
whole processes, `python` against `compilescope run`, was tried first: process-to-process noise
on a shared machine was larger than the effect.)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

BLOCK = 2000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()

    import torch

    from compilescope.record.calls import CallRecorder

    recorder = CallRecorder()
    recorder.start()
    if recorder.unavailable:
        sys.exit(recorder.unavailable)

    def pointwise(x):
        return torch.relu(x * 2 + 1)

    mlp = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.GELU(), torch.nn.Linear(512, 256)).to(args.device)
    cases = (
        ("pointwise, 64 floats", torch.compile(pointwise), torch.randn(64, device=args.device)),
        ("MLP 256-512-256, batch 32", torch.compile(mlp), torch.randn(32, 256, device=args.device)),
    )
    sync = torch.cuda.synchronize if args.device == "cuda" else (lambda: None)
    print(
        f"Python {sys.version.split()[0]}, torch {torch.__version__}, device {args.device}"
        + (f" ({torch.cuda.get_device_name()})" if args.device == "cuda" else f", {torch.get_num_threads()} threads")
    )
    with torch.no_grad():
        for name, fn, arg in cases:
            for _ in range(100):
                fn(arg)
            blocks: dict[bool, list[float]] = {True: [], False: []}
            for _ in range(args.rounds):
                for on in (True, False):
                    recorder.watching(on)
                    sync()
                    start = time.perf_counter_ns()
                    for _ in range(BLOCK):
                        fn(arg)
                    sync()
                    blocks[on].append((time.perf_counter_ns() - start) / BLOCK / 1000)
            recorder.watching(True)
            off, on = statistics.median(blocks[False]), statistics.median(blocks[True])
            print(
                f"  {name:26} per call: recording off {off:7.2f} µs, on {on:7.2f} µs, added {on - off:+6.2f} µs ({on / off - 1:+.1%});"
                f" {args.rounds} rounds of {BLOCK} calls each way, medians of the rounds"
            )
    recorder.stop()
    facts = recorder.facts()
    print("  calls recorded:", ", ".join(f"{v['label']} {v['calls']}" for v in facts["versions"]))


if __name__ == "__main__":
    main()
