"""The choices the command line offers, named where the commands' options (built before anything
runs, `compilescope report --help` included) and the layers that act on them both find them
without loading those layers: a command's help imports argparse and its own module, not rich,
the session model or torch.

- DETAILS: what a compiled function's block can show, by name: render/sections/functions.py draws them, and
  `--show` picks them (cli/options.py).
- SIZES: the sizes of a model built by name: benchmark/by_name.py builds them, and `bench
  --size` and `zoo --size` pick one.
- DEFAULT_TIME_LIMIT_S: the seconds `zoo` gives each model's processes together, unless
  `--time-limit` says otherwise (benchmark/zoo.py stops them there).
"""

DETAILS = ("graph", "guards", "dynamic", "aot", "kernels", "code", "time", "cache", "passes")

SIZES = ("tiny", "base")

DEFAULT_TIME_LIMIT_S = 900
