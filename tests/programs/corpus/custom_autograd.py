"""A custom torch.autograd.Function inside a compiled training step: a gradient reversal layer
as domain-adversarial training (DANN) uses it, its strength alpha following the usual schedule
(a Python float that changes every step), and a straight-through rounding function."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.neg() * ctx.alpha, None


class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x.abs() <= 4).to(grad_output.dtype)


features = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 16))
label_head = nn.Linear(16, 3)
domain_head = nn.Linear(16, 2)
params = [*features.parameters(), *label_head.parameters(), *domain_head.parameters()]
optimizer = torch.optim.SGD(params, lr=0.05)


@torch.compile(backend="eager")
def train_step(x, y, domain, alpha):
    h = RoundSTE.apply(features(x) * 4) / 4
    label_loss = F.cross_entropy(label_head(h), y)
    domain_loss = F.cross_entropy(domain_head(GradReverse.apply(h, alpha)), domain)
    return label_loss + domain_loss


STEPS = 4
for step in range(STEPS):
    p = step / STEPS
    alpha = 2.0 / (1.0 + math.exp(-10 * p)) - 1
    x = torch.randn(32, 16)
    loss = train_step(x, torch.randint(0, 3, (32,)), torch.randint(0, 2, (32,)), alpha)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step}: alpha {alpha:.3f}, loss {loss.item():.4f}")
