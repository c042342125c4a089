"""GPT-2 (from its config, random weights) trained four steps at lengths 16 and 24, compiled
whole: transformers' loss logs a warning (logger.warning_once) inside loss_function, a break
torch cannot resume from in GPT2LMHeadModel.forward; the loss and the output dataclass it then
calls are compiled as functions of their own."""

import torch
import transformers

torch.manual_seed(0)
config = transformers.GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=1000)
model = transformers.GPT2LMHeadModel(config)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
step_model = torch.compile(model, backend="eager")
for length in (16, 16, 24, 24):
    ids = torch.randint(0, 1000, (2, length))
    out = step_model(input_ids=ids, labels=ids)
    out.loss.backward()
    optimizer.step()
    optimizer.zero_grad()
