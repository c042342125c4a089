"""A small program with the three things torch.compile users meet first:
a graph break, a recompile, and kernels Inductor fused. Run it with

    compilescope run examples/quickstart.py
"""

import torch


class Block(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(32, 32)

    def forward(self, x):
        x = torch.relu(self.layer(x) + 1.0)
        # Python needs a real bool here, so Dynamo cuts the graph (a graph break).
        if x.mean().item() > 0.5:
            x = x * 0.5
        return torch.tanh(x)


def main() -> None:
    torch.manual_seed(0)
    model = torch.compile(Block())
    with torch.no_grad():
        for rows in (8, 8, 16, 32):  # a new batch size makes torch compile again, once
            out = model(torch.randn(rows, 32))
            print(f"{rows:3} rows -> output mean {out.mean().item():+.4f}")


if __name__ == "__main__":
    main()
