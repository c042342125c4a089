"""word_language_model's Transformer, small: forward makes a causal mask when the sequence
length changes and keeps it in `self.src_mask`, then calls nn.TransformerEncoder with it
(findings: the break in torch's `_detect_is_causal_mask`, located at the encoder call, fixed
by is_causal=True; the recompiles on `self.src_mask`, located at its assignment)."""

import torch
import torch.nn.functional as F
from torch import nn


class TransformerModel(nn.Module):
    def __init__(self, ntoken=50, ninp=16, nhead=2, nhid=32, nlayers=1):
        super().__init__()
        self.src_mask = None
        self.input_emb = nn.Embedding(ntoken, ninp)
        layer = nn.TransformerEncoderLayer(ninp, nhead, nhid, dropout=0.0)
        self.encoder = nn.TransformerEncoder(layer, nlayers, enable_nested_tensor=False)
        self.decoder = nn.Linear(ninp, ntoken)

    def _generate_square_subsequent_mask(self, sz):
        return torch.log(torch.tril(torch.ones(sz, sz)))

    def forward(self, src, has_mask=True):
        if has_mask:
            if self.src_mask is None or self.src_mask.size(0) != len(src):
                mask = self._generate_square_subsequent_mask(len(src))
                self.src_mask = mask
        else:
            self.src_mask = None
        src = self.input_emb(src)
        output = self.encoder(src, mask=self.src_mask)
        output = self.decoder(output)
        return F.log_softmax(output, dim=-1)


def get_batch(source, i, bptt=8):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i : i + seq_len], source[i + 1 : i + 1 + seq_len].reshape(-1)


torch.manual_seed(0)
train_data = torch.randint(0, 50, (30, 2))
model = torch.compile(TransformerModel(), backend="eager")
for i in range(0, train_data.size(0) - 1, 8):
    data, targets = get_batch(train_data, i)
    output = model(data)
    loss = F.nll_loss(output.view(-1, 50), targets)
    loss.backward()
print(f"loss {loss.item():.3f}")
