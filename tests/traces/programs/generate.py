"""nanoGPT's sample.py, small: the model is compiled, then its `generate` method is called,
which calls the original module's forward, never the compiled one (findings: torch.compile was
applied to TinyLM, whose forward was never called through it; `generate` was called instead)."""

import torch
from torch import nn


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(32, 16)
        self.head = nn.Linear(16, 32)

    def forward(self, idx):
        return self.head(self.embed(idx))

    @torch.no_grad()
    def generate(self, idx, max_new_tokens):
        for _ in range(max_new_tokens):
            logits = self(idx)
            next_token = logits[:, -1].argmax(-1, keepdim=True)
            idx = torch.cat([idx, next_token], dim=1)
        return idx


torch.manual_seed(0)
model = TinyLM()
model.eval()
model = torch.compile(model, backend="eager")
tokens = model.generate(torch.zeros(1, 1, dtype=torch.long), max_new_tokens=5)
print(tokens.tolist())
