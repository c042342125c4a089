"""Graph breaks of every kind Dynamo resumes from: a data-dependent branch (the seed's toy_example),
print, a break inside an inlined helper, a module whose forward breaks on .item() and recompiles,
and a break inside a loop (Dynamo gives the frame up). Used by the decompiler tests."""

import torch


def toy_example(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


def printed(x, scale):
    y = torch.sin(x) * scale
    print("halfway")
    z = y + x.cos()
    return z.sum(), [y, z]


def looped(xs):
    total = torch.zeros(3)
    for i, x in enumerate(xs):
        total = total + x * i
        if i == 1:
            torch._dynamo.graph_break()
        total = total.relu()
    return total


def helper(x):
    x = x * 2
    torch._dynamo.graph_break()
    return x - 1


def nested_break(x, y):
    a = x + y
    b = helper(a) * y
    return a, b


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 4)

    def forward(self, x, flag=True):
        h = self.linear(x)
        if h.sum().item() > 0 and flag:
            h = h * 2
        return torch.relu(h), {"h": h}


def main():
    torch.manual_seed(0)
    f = torch.compile(toy_example, backend="eager")
    for _ in range(3):
        f(torch.randn(10), torch.randn(10))
    f(torch.randn(10), -torch.ones(10))
    torch.compile(printed, backend="eager")(torch.randn(5), 3.0)
    torch.compile(looped, backend="eager")([torch.randn(3) for _ in range(3)])
    torch.compile(nested_break, backend="eager")(torch.randn(3), torch.randn(3))
    net = torch.compile(Net(), backend="eager")
    with torch.no_grad():
        net(torch.randn(2, 4))
        net(torch.randn(3, 4), flag=False)


if __name__ == "__main__":
    main()
