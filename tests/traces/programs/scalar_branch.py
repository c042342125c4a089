"""Scalars read with .item(): one that decides a Python `if` a line later (capturing it cannot
remove the break: torch then breaks on the branch), and one only multiplied (capturing it can)."""

import torch


@torch.compile(backend="eager")
def keep_best(x, best):
    loss = (x * x).mean().item()
    if loss < best:
        best = loss
    return x * 2, best


@torch.compile(backend="eager")
def scaled(x):
    scale = x.sum().item()
    return x * scale


def main() -> None:
    best = float("inf")
    for step in range(3):
        x = torch.randn(8) / (step + 1)
        _, best = keep_best(x, best)
        scaled(x)
    print(f"best {best:.3f}")


if __name__ == "__main__":
    main()
