# Where Dynamo cannot follow the Python (a tensor's value decides an if), it splits the graph.
import torch


class WithIf(torch.nn.Module):
    def forward(self, x):
        x = x + 1.0
        # The if needs a Python bool: the tensor's value has to leave the graph.
        if x.sum().item() > 0:
            x = x * 2.0
        return torch.relu(x)


class WithWhere(torch.nn.Module):
    def forward(self, x):
        x = x + 1.0
        # torch.where makes the same choice inside the graph.
        x = torch.where(x.sum() > 0, x * 2.0, x)
        return torch.relu(x)


def explain(name, net, x):
    found = torch._dynamo.explain(net)(x)
    print(name)
    print("  graphs:", found.graph_count, " breaks:", found.graph_break_count)
    for cut in found.break_reasons:
        print("  why:", cut.reason.splitlines()[0])


def main():
    x = torch.ones(4, 4)
    explain("WithIf", WithIf(), x)
    explain("WithWhere", WithWhere(), x)

    print("\nfullgraph=True on each of them:")
    for net in (WithWhere(), WithIf()):
        name = type(net).__name__
        try:
            torch.compile(net, fullgraph=True)(x)
        except Exception as error:
            print(" ", name, "stopped with", type(error).__name__)
        else:
            print(" ", name, "compiled as one graph")


if __name__ == "__main__":
    main()
