"""What a distributed wrapper did to the graphs: DDPOptimizer's split of a graph at DDP's
gradient buckets, said once per compiled function with its pieces and why they exist.

(A model whose compile captured nothing, DDP itself given to torch.compile, is the "captured
nothing" finding of findings/breaks.py; across ranks it is merged with the ranks it was seen on.)
"""

from __future__ import annotations

from compilescope.findings import INFO
from compilescope.findings.finding import Finding, listed, plural
from compilescope.findings.kinds import FindingKind
from compilescope.session.model import Session

MB = 2**20


def ddp_split_findings(session: Session) -> list[Finding]:
    out = []
    for frame in session.frames:
        split = [c for c in frame.compiles if c.ddp_pieces]
        if not split:
            continue
        first = split[0]
        pieces = first.ddp_pieces
        lines = []
        for piece in pieces:
            size = "size unknown" if piece.parameter_bytes is None else f"{piece.parameter_bytes / MB:.1f} MB"
            lines.append(f"{piece.name}: {listed(piece.ops) or 'no operations'} ({plural(piece.parameters or 0, 'parameter')}, {size})")
        versions = f"\nIn {plural(len(split), 'compiled version')} of it, each split alike." if len(split) > 1 else ""
        out.append(
            Finding(
                INFO,
                f"DDPOptimizer split {frame.known_as} into {plural(len(pieces), 'graph')} at DDP's gradient buckets",
                detail=(
                    "\n".join(lines) + versions + "\nDDP all-reduces gradients one bucket at a time (bucket_cap_mb, 25 MB by default). "
                    "DDPOptimizer compiles one graph per bucket, so that a bucket's all-reduce starts as soon as "
                    "the backward of its piece is done, while the backward of the pieces before it still runs."
                ),
                fix=(
                    "Nothing to change where the job scales well. The price is fusion: no kernel spans two pieces, "
                    "and each piece is compiled on its own. Fewer, larger buckets (DDP(..., bucket_cap_mb=...)) give "
                    "fewer pieces and less overlap; torch._dynamo.config.optimize_ddp = False gives one graph and "
                    "all-reduces the gradients only after the whole backward."
                ),
                kind=FindingKind.DDP_SPLIT,
                compile_ids=tuple(c.compile_id for c in split),
                frames=(frame.name,),
            )
        )
    return out
