"""An LSTM language model trained on random tokens, the way pytorch/examples'
word_language_model does it, with torch.compile(model) added: the corpus cut into columns,
chunks of bptt tokens (the last chunk shorter), the hidden state carried between chunks."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
NTOKEN, NINP, NHID, NLAYERS, BPTT, BATCH = 50, 16, 32, 2, 8, 4


class RNNModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(0.2)
        self.encoder = nn.Embedding(NTOKEN, NINP)
        self.rnn = nn.LSTM(NINP, NHID, NLAYERS, dropout=0.2)
        self.decoder = nn.Linear(NHID, NTOKEN)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, NTOKEN)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(NLAYERS, bsz, NHID), weight.new_zeros(NLAYERS, bsz, NHID))


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    return data[: nbatch * bsz].view(bsz, -1).t().contiguous()


def get_batch(source, i):
    seq_len = min(BPTT, len(source) - 1 - i)
    data = source[i : i + seq_len]
    target = source[i + 1 : i + 1 + seq_len].view(-1)
    return data, target


def repackage_hidden(h):
    return tuple(v.detach() for v in h)


train_data = batchify(torch.randint(0, NTOKEN, (4 * (3 * BPTT + 4),)), BATCH)  # 28 rows: chunks of 8, 8, 8, 3
model = RNNModel()
compiled = torch.compile(model, backend="eager")
criterion = nn.NLLLoss()
lr = 5.0
for epoch in range(2):
    model.train()
    hidden = model.init_hidden(BATCH)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, BPTT)):
        data, targets = get_batch(train_data, i)
        model.zero_grad()
        hidden = repackage_hidden(hidden)
        output, hidden = compiled(data, hidden)
        loss = criterion(output, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
    print(f"epoch {epoch}: loss {loss.item():.3f}")
