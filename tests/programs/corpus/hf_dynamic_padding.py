"""A Trainer-free Hugging Face fine-tuning loop: a tiny BertForSequenceClassification built from
its config (random weights, nothing downloaded), sentences of random token ids, a collate
function that pads each batch to its longest sentence (dynamic padding), model(**batch)."""

import torch
from torch.utils.data import DataLoader
from transformers import BertConfig, BertForSequenceClassification

torch.manual_seed(0)
config = BertConfig(
    vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, max_position_embeddings=64, num_labels=2
)
model = BertForSequenceClassification(config)
model.train()

lengths = [12, 9, 20, 7, 15, 11, 18, 10]
examples = [{"input_ids": torch.randint(1, 100, (n,)).tolist(), "label": n % 2} for n in lengths]


def collate(features):
    longest = max(len(f["input_ids"]) for f in features)
    input_ids = torch.zeros(len(features), longest, dtype=torch.long)
    attention_mask = torch.zeros(len(features), longest, dtype=torch.long)
    for row, f in enumerate(features):
        input_ids[row, : len(f["input_ids"])] = torch.tensor(f["input_ids"])
        attention_mask[row, : len(f["input_ids"])] = 1
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": torch.tensor([f["label"] for f in features])}


loader = DataLoader(examples, batch_size=2, collate_fn=collate)
compiled = torch.compile(model, backend="eager")
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
for step, batch in enumerate(loader):
    outputs = compiled(**batch)
    loss = outputs.loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    print(f"step {step}: seq len {batch['input_ids'].shape[1]}, loss {loss.item():.4f}")
