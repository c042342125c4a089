# Wrapping a model in torch.compile costs nothing; its first call compiles; later calls reuse that.
import time

import torch


class TinyNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(64, 64)

    def forward(self, x):
        return torch.relu(self.layer(x) + 1.0)


def seconds(call, x):
    began = time.perf_counter()
    call(x)
    return time.perf_counter() - began


def main():
    net = TinyNet()
    batch = torch.randn(8, 64)

    torch.compile(net)  # the first wrap imports the compiler's modules: keep that out of the timing
    began = time.perf_counter()
    compiled = torch.compile(net)
    print(f"wrapping took {time.perf_counter() - began:.4f} s")
    print("model is a", type(compiled).__name__, "around a", type(net).__name__)

    with torch.no_grad():
        for number in range(1, 4):
            print(f"call {number}: {seconds(compiled, batch):.4f} s")


if __name__ == "__main__":
    main()
