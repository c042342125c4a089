"""GPT-2 (from its config, random weights: nothing downloaded) trained a few steps at two sequence
lengths, compiled: the program issue 18's findings were judged on.

    compilescope run benchmarks/gpt2_two_lengths.py                      # 2 layers, CPU, eager backend
    compilescope run benchmarks/gpt2_two_lengths.py --layers 24 --device cuda --backend inductor --mode reduce-overhead
"""

import argparse

import torch
import transformers

parser = argparse.ArgumentParser()
parser.add_argument("--layers", type=int, default=2)
parser.add_argument("--device", default="cpu")
parser.add_argument("--backend", default="eager")
parser.add_argument("--mode", default=None)
args = parser.parse_args()

torch.manual_seed(0)
config = transformers.GPT2Config(
    n_layer=args.layers, n_embd=64 if args.layers <= 2 else 768, n_head=2 if args.layers <= 2 else 12, vocab_size=1000
)
model = transformers.GPT2LMHeadModel(config).to(args.device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
step_model = torch.compile(model, backend=args.backend, mode=args.mode)
for length in (16, 16, 24, 24):
    ids = torch.randint(0, 1000, (2, length), device=args.device)
    out = step_model(input_ids=ids, labels=ids)
    out.loss.backward()
    optimizer.step()
    optimizer.zero_grad()
print("loss", float(out.loss))
