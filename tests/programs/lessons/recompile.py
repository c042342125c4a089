# A guard fails (a new number of rows), and torch compiles forward again.
import time

import torch


class TinyNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(64, 64)

    def forward(self, x):
        return torch.relu(self.layer(x) + 1.0)


CALLS = [
    (8, "8 rows, first time"),
    (8, "8 rows again"),
    (16, "16 rows, first time"),
    (8, "8 rows, back again"),
    (16, "16 rows again"),
    (32, "32 rows, first time"),
]


def main():
    model = torch.compile(TinyNet())
    torch._logging.set_logs(recompiles=True)  # torch says why it compiles again

    with torch.no_grad():
        for rows, label in CALLS:
            x = torch.randn(rows, 64)
            began = time.perf_counter()
            model(x)
            print(f"{label:28} {time.perf_counter() - began:8.4f} s")


if __name__ == "__main__":
    main()
