"""A Trainer-free Hugging Face-style loop with dynamic padding: each batch is a dict padded to
its longest sequence and passed as `model(**batch)` (findings: the sequence length changes; the
fix names `batch["input_ids"]` and `batch["attention_mask"]`, the tensors at the call)."""

import torch
from torch import nn


class TinyEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(100, 16)
        self.classify = nn.Linear(16, 2)

    def forward(self, input_ids, attention_mask):
        hidden = self.embed(input_ids) * attention_mask.unsqueeze(-1)
        pooled = hidden.sum(1) / attention_mask.sum(1, keepdim=True)
        return self.classify(pooled)


def collate(lengths):
    """Pad a batch of sequences to its longest one, as DataCollatorWithPadding does."""
    longest = max(lengths)
    input_ids = torch.zeros(len(lengths), longest, dtype=torch.long)
    attention_mask = torch.zeros(len(lengths), longest)
    for row, length in enumerate(lengths):
        input_ids[row, :length] = torch.randint(1, 100, (length,))
        attention_mask[row, :length] = 1
    return {"input_ids": input_ids, "attention_mask": attention_mask}


torch.manual_seed(0)
model = torch.compile(TinyEncoder(), backend="eager")
for lengths in ([3, 5], [9, 2], [7, 7], [12, 4]):
    batch = collate(lengths)
    logits = model(**batch)
print(logits.shape)
