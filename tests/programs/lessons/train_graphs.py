# The ATen graphs AOT Autograd hands to the compiler, seen through a backend that only lists them.
import torch
from functorch.compile import make_boxed_func
from torch._dynamo.backends.common import aot_autograd


class TinyNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(4, 4)

    def forward(self, x):
        return torch.relu(self.layer(x) + 1.0)


def listing(title):
    """A compiler for AOT Autograd that prints the ops of each graph and runs it as it is."""

    def compiler(graph_module, example_inputs):
        print(title)
        for node in graph_module.graph.nodes:
            if node.op == "call_function":
                print("  ", node.target)
        return make_boxed_func(graph_module.forward)

    return compiler


def main():
    backend = aot_autograd(fw_compiler=listing("FORWARD graph:"), bw_compiler=listing("BACKWARD graph:"))
    model = torch.compile(TinyNet(), backend=backend)

    print("--- training: the gradients are needed ---")
    model(torch.randn(2, 4)).sum().backward()

    print("\n--- inference: a new batch size, and no gradients ---")
    with torch.no_grad():
        model(torch.randn(3, 4))


if __name__ == "__main__":
    main()
