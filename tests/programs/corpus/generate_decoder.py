"""A small decoder-only model that samples with its own generate() method, the way nanoGPT's
sample.py and many model repos do: first torch.compile(model) and model.generate(...) called on
the compiled module (as sample.py --compile=True does), then a sampling loop that calls the
compiled model on a sequence one token longer each step."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, EMBD, BLOCK = 40, 32, 32


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, EMBD)
        self.pos = nn.Embedding(BLOCK, EMBD)
        layer = nn.TransformerEncoderLayer(EMBD, 4, 64, dropout=0.0, batch_first=True)
        self.blocks = nn.TransformerEncoder(layer, 2)
        self.head = nn.Linear(EMBD, VOCAB)

    def forward(self, idx):
        t = idx.size(1)
        x = self.tok(idx) + self.pos(torch.arange(t, device=idx.device))
        mask = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
        x = self.blocks(x, mask=mask)
        return self.head(x)

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0):
        for _ in range(max_new_tokens):
            idx_cond = idx[:, -BLOCK:]
            logits = self(idx_cond)
            probs = F.softmax(logits[:, -1, :] / temperature, dim=-1)
            idx = torch.cat((idx, torch.multinomial(probs, num_samples=1)), dim=1)
        return idx


model = Decoder().eval()
model = torch.compile(model, backend="eager")
start = torch.zeros(1, 1, dtype=torch.long)
print("generate():", model.generate(start, 5)[0].tolist())


@torch.no_grad()
def sample(model, idx, max_new_tokens):
    for _ in range(max_new_tokens):
        logits = model(idx)
        next_token = logits[:, -1, :].argmax(dim=-1, keepdim=True)
        idx = torch.cat((idx, next_token), dim=1)
    return idx


print("sample():", sample(model, start, 5)[0].tolist())
