"""A tiny GPT trained on random tokens, the way nanoGPT's train.py does it: torch.compile(model),
a training loop, and every few steps an evaluation of the loss under torch.no_grad()."""

import math

import torch
import torch.nn as nn
from torch.nn import functional as F

torch.manual_seed(0)
BLOCK, VOCAB, EMBD, HEADS, LAYERS = 16, 64, 32, 4, 2
BATCH, STEPS, EVAL_EVERY, EVAL_ITERS = 4, 6, 3, 2


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(EMBD, 3 * EMBD)
        self.c_proj = nn.Linear(EMBD, EMBD)

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(EMBD, dim=2)
        q = q.view(B, T, HEADS, C // HEADS).transpose(1, 2)
        k = k.view(B, T, HEADS, C // HEADS).transpose(1, 2)
        v = v.view(B, T, HEADS, C // HEADS).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(EMBD)
        self.attn = CausalSelfAttention()
        self.ln_2 = nn.LayerNorm(EMBD)
        self.mlp = nn.Sequential(nn.Linear(EMBD, 4 * EMBD), nn.GELU(), nn.Linear(4 * EMBD, EMBD))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, EMBD)
        self.wpe = nn.Embedding(BLOCK, EMBD)
        self.h = nn.ModuleList([Block() for _ in range(LAYERS)])
        self.ln_f = nn.LayerNorm(EMBD)
        self.lm_head = nn.Linear(EMBD, VOCAB, bias=False)

    def forward(self, idx, targets=None):
        t = idx.size(1)
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss


data = torch.randint(0, VOCAB, (2000,))


def get_batch():
    ix = torch.randint(len(data) - BLOCK, (BATCH,))
    x = torch.stack([data[i : i + BLOCK] for i in ix])
    y = torch.stack([data[i + 1 : i + 1 + BLOCK] for i in ix])
    return x, y


@torch.no_grad()
def estimate_loss(model):
    model.eval()
    losses = torch.zeros(EVAL_ITERS)
    for k in range(EVAL_ITERS):
        X, Y = get_batch()
        logits, loss = model(X, Y)
        losses[k] = loss.item()
    model.train()
    return losses.mean()


model = GPT()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
model = torch.compile(model, backend="eager")

for it in range(STEPS):
    if it % EVAL_EVERY == 0:
        print(f"step {it}: val loss {estimate_loss(model):.4f}")
    X, Y = get_batch()
    logits, loss = model(X, Y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
print(f"final loss {loss.item():.4f} (ln {VOCAB} = {math.log(VOCAB):.4f})")
