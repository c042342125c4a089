"""Python values read from the compiled code: class indices read with .tolist() to look up their
names in a Python list (a break torch hints to capture, but captured, the index has no number
while compiling and the lookup stops the program), and a loss whose reduction is a string
argument ('mean', then 'sum': a version per value, as it should be)."""

import torch

NAMES = ["cat", "dog", "fish", "bird"]


@torch.compile(backend="eager")
def classify(logits, names):
    idx = logits.argmax(-1).tolist()
    labels = [names[i] for i in idx]
    return logits.softmax(-1), labels


@torch.compile(backend="eager")
def loss_fn(pred, target, reduction):
    err = (pred - target) ** 2
    if reduction == "mean":
        return err.mean()
    return err.sum()


torch.manual_seed(0)
for step in range(3):
    probs, labels = classify(torch.randn(3, 4), NAMES)
    loss = loss_fn(probs[:, 0], probs[:, 1], "mean" if step % 2 == 0 else "sum")
    print(labels, round(float(loss), 4))
