"""One zoo result from the parts of a sweep split across device calls:

    python benchmarks/merge_zoo.py [--measured-again] OUT.json OUT.html PART.json PART.json ...

The parts must have measured the same way (size, device, training, precision, backend, mode);
each model once, or with --measured-again, a model in more than one part takes its last part's
result (measured again after a fix), which `command` says. The summary is computed again over
all the models, as `compilescope zoo` computes it; `command` lists the parts' commands, `wall_s`
is their sum."""

from __future__ import annotations

import argparse
import copy
import sys
from pathlib import Path

from compilescope.benchmark.suites import SUITES
from compilescope.render.zoo import zoo_html
from compilescope.session.zoo import load_zoo, summarize

SAME = ("size", "device", "training", "precision", "backend", "mode")


def main(out_json: str, out_html: str, parts: list[str], measured_again: bool = False) -> int:
    runs = [load_zoo(Path(part).read_text()) for part in parts]
    first = runs[0]
    for part, run in zip(parts, runs):
        differs = [name for name in SAME if getattr(run, name) != getattr(first, name)]
        if differs:
            print(f"{part} measured differently ({', '.join(differs)}): not merged", file=sys.stderr)
            return 1
    merged = copy.copy(first)  # (its fields but not its lists, which are filled here)
    where: dict[str, int] = {}  # a model's name: its index in merged.models
    merged.models = []
    merged.command = []
    for part, run in zip(parts, runs):
        merged.command += [f"[{Path(part).name}]", *run.command]
        for model in run.models:
            if model.name not in where:
                where[model.name] = len(merged.models)
                merged.models.append(model)
            elif measured_again:
                merged.models[where[model.name]] = model
                merged.command.append(f"[{Path(part).name} measured {model.name} again: its result replaces the earlier part's]")
            else:
                print(f"{model.name} is in more than one part ({Path(part).name}); --measured-again takes the last", file=sys.stderr)
                return 1
    # (a part that named its models reads "models": the suites all of them belong to, where they do)
    suites = [name for name, members in SUITES.items() if any(m.name in members for m in merged.models)]
    if all(any(m.name in SUITES[name] for name in suites) for m in merged.models) and suites:
        merged.suite = ",".join(suites)
    else:
        merged.suite = ",".join(dict.fromkeys(s for run in runs for s in run.suite.split(",")))
    merged.wall_s = sum(run.wall_s or 0 for run in runs)
    merged.stopped = None
    merged.summary = summarize(merged.models)
    merged.save(out_json)
    Path(out_html).write_text(zoo_html(merged), encoding="utf-8")
    print(f"{len(merged.models)} models from {len(parts)} parts: {out_json}, {out_html}")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], usage=__doc__.split("\n\n")[1].strip())
    parser.add_argument("--measured-again", action="store_true", help="a model in more than one part: its last part's result")
    parser.add_argument("out_json")
    parser.add_argument("out_html")
    parser.add_argument("parts", nargs="+")
    options = parser.parse_args()
    sys.exit(main(options.out_json, options.out_html, options.parts, options.measured_again))
