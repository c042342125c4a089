"""compilescope repro: one compile's graph as a standalone script that runs it eagerly and
compiled, without torch until the script runs."""

from __future__ import annotations

import argparse
import sys

from compilescope.app.errors import CommandError


class ReproCommand:
    """Write a standalone script that runs one compile's graph eagerly and compiled, and says
    whether they match.

    compilescope repro compilescope-train.json 0/0 -o repro.py
    compilescope repro trace.log.gz 1/0            # writes repro_1_0.py
    python repro.py                                # in any folder, without your program or data

    The script is built from the trace alone: torch's fx_graph_runnable where Inductor compiled
    the graph, else Dynamo's graph and its inputs' recorded sizes, strides, dtypes and devices
    (symbolic sizes at the values torch recorded). Its inputs are seeded random values; it runs
    the graph eagerly and through torch.compile with the backend and mode the trace shows, prints
    both times (median of 10 runs after 3 warm-up) and whether the results match, and exits 1
    where they differ. A compile whose graph or inputs cannot be rebuilt is refused, saying why.
    """

    @staticmethod
    def prepare_parser(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("session", help="a session .json, a trace .log / .log.gz, or a TORCH_TRACE folder of one rank")
        parser.add_argument("compile_id", metavar="COMPILE_ID", help='the compile, as the report names it: "0/0"')
        parser.add_argument("-o", "--output", metavar="PATH", help="the script to write (default: repro_<id>.py)")
        parser.add_argument("--rank", type=int, metavar="N", help="the rank, where SESSION holds several")

    def run(self, args: argparse.Namespace) -> int:
        from compilescope.app.report import read_sessions
        from compilescope.app.repro import file_name, write_repro
        from compilescope.outputs import absolute, check_writable
        from compilescope.render.text import escape_control

        output = args.output if args.output is not None else file_name(args.compile_id)
        if output == "":
            raise CommandError("-o: an empty path: name the file to write")
        check_writable(absolute(output), "the repro script")  # before reading anything
        sessions = read_sessions(args.session)
        if args.rank is not None:
            sessions = [s for s in sessions if s.rank == args.rank]
            if not sessions:
                raise CommandError(f"{args.session} holds no rank {args.rank}")
        if len(sessions) > 1:
            ranks = ", ".join(str(s.rank) for s in sessions)
            raise CommandError(f"{args.session} holds {len(sessions)} ranks ({ranks}): say which with --rank N")
        print(escape_control(write_repro(sessions[0], args.compile_id, output, args.session)), file=sys.stderr)
        return 0
