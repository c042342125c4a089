# The code Inductor wrote for two small models, read from its output_code log.
import contextlib
import io

import torch


class BiasThenRelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(64))

    def forward(self, x):
        return torch.relu(x + self.bias)


class MatmulThenRelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = torch.nn.Parameter(torch.randn(64, 64))

    def forward(self, x):
        return torch.relu(x @ self.weights)


def output_code(net):
    """The lines of Inductor's output_code log for one compiled call of net."""
    caught = io.StringIO()
    with contextlib.redirect_stderr(caught), torch.no_grad():
        torch._logging.set_logs(output_code=True)
        torch.compile(net)(torch.randn(8, 64))
    torch._logging.set_logs()
    return caught.getvalue().splitlines()


def main():
    for net in (BiasThenRelu(), MatmulThenRelu()):
        lines = output_code(net)
        print(type(net).__name__, "-", len(lines), "lines of log")
        for line in lines:
            if "= async_compile" in line:
                print("   a kernel it wrote:", line.split(" = async_compile")[0].split()[-1])
            elif "extern_kernels." in line:
                print("   a library call:   ", line.split("extern_kernels.")[1].split("(")[0])
            elif "Original ATen" in line:
                print("     made from:", line.split("Original ATen: ")[1])


if __name__ == "__main__":
    main()
