# Faster or not? The first compiled call apart, then plain and compiled calls taking turns.
import statistics
import time

import torch

WARM_UP = 3
TIMED = 50


class ManySmallSteps(torch.nn.Module):
    # Many cheap element-wise steps in a row: what fusion is for.
    def forward(self, x):
        for _ in range(20):
            x = torch.relu(x + 0.1) * 0.99
        return x


class OneBigMatmul(torch.nn.Module):
    # One matrix product, which a tuned library already does well.
    def forward(self, x):
        return x @ x


def one_call(model, x):
    began = time.perf_counter()
    model(x)
    if torch.cuda.is_available():
        torch.cuda.synchronize()  # a GPU's queued work belongs to the call
    return time.perf_counter() - began


def median_ms(times):
    return statistics.median(times) * 1000


def compare(net, x):
    compiled = torch.compile(net)
    first = one_call(compiled, x)
    for _ in range(WARM_UP):
        one_call(net, x)
        one_call(compiled, x)

    plain, fast = [], []
    for _ in range(TIMED):  # in turns, so that neither gets the machine's quieter moments
        plain.append(one_call(net, x))
        fast.append(one_call(compiled, x))

    print(type(net).__name__)
    print(f"  first compiled call {first:8.2f} s")
    print(f"  plain, each call    {median_ms(plain):8.2f} ms")
    print(f"  compiled, each call {median_ms(fast):8.2f} ms")
    print(f"  plain / compiled    {median_ms(plain) / median_ms(fast):8.2f} times")


def main():
    print(torch.get_num_threads(), "CPU threads")
    with torch.no_grad():
        compare(ManySmallSteps(), torch.randn(256, 256))
        compare(OneBigMatmul(), torch.randn(1500, 1500))


if __name__ == "__main__":
    main()
