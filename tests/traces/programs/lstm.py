"""An LSTM language model in the style of pytorch/examples' word_language_model, compiled whole
with torch.compile(model): Dynamo cannot trace nn.LSTM, so it skips the rest of forward (the
LSTM, the decoder and log_softmax run without torch.compile on every call). The last batch is
shorter (the data is not a whole number of batches), which compiles forward again."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class RNNModel(nn.Module):
    def __init__(self, ntoken: int = 200, ninp: int = 32, nhid: int = 32, nlayers: int = 2) -> None:
        super().__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(0.2)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=0.2)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nlayers, self.nhid = nlayers, nhid

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz: int):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid), weight.new_zeros(self.nlayers, bsz, self.nhid))


def main() -> None:
    torch.manual_seed(0)
    model = RNNModel()
    compiled = torch.compile(model, backend="aot_eager")
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = torch.randint(0, 200, (35 * 7 + 20 + 1, 4))
    hidden = model.init_hidden(4)
    for i in range(0, data.size(0) - 1, 35):  # as word_language_model's get_batch
        seq_len = min(35, len(data) - 1 - i)
        source, target = data[i : i + seq_len], data[i + 1 : i + 1 + seq_len]
        hidden = tuple(h.detach() for h in hidden)
        output, hidden = compiled(source, hidden)
        loss = F.nll_loss(output, target.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
