# What Dynamo captured from forward, and the conditions (guards) under which it reuses it.
import contextlib
import io

import torch


class TinyNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(64, 64)

    def forward(self, x):
        return torch.relu(self.layer(x) + 1.0)


def guard_log(model, x):
    """The lines torch logs about guards while it compiles model(x), caught in a string."""
    caught = io.StringIO()
    with contextlib.redirect_stderr(caught):
        torch._logging.set_logs(guards=True)
        model(x)
    torch._logging.set_logs()
    return caught.getvalue().splitlines()


def main():
    net = TinyNet()
    x = torch.randn(8, 64)

    # explain runs Dynamo alone: no Inductor, no C++ compiler.
    explained = torch._dynamo.explain(net)(x)
    print("graphs:      ", explained.graph_count)
    print("graph breaks:", explained.graph_break_count)
    print("operations:  ", explained.op_count)

    print("\nThe graph, one line for each step:")
    for node in explained.graphs[0].graph.nodes:
        print(f"  {node.op:14} {node.name}")

    # The eager backend stops after Dynamo as well, and the guards are logged.
    lines = guard_log(torch.compile(net, backend="eager"), x)
    print("\nThe guard on our input x:")
    for line in (line for line in lines if "check_tensor(L['x']" in line):
        guard = line.split("TENSOR_MATCH: ", 1)[1]
        print(" ", guard.split("  #", 1)[0])
    print("Guards in all:", len([line for line in lines if "_MATCH:" in line]))


if __name__ == "__main__":
    main()
