"""Real models from their configs (random weights, nothing downloaded), compiled with the eager
backend: the code Dynamo generates for a BERT encoder and a GPT-2 decoder (with its graph breaks
and recompiles) is what the decompiler tests read back."""

import torch
import transformers


def main():
    torch.manual_seed(0)
    bert = transformers.BertModel(transformers.BertConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=2, intermediate_size=128, vocab_size=1000)).eval()
    gpt2 = transformers.GPT2LMHeadModel(transformers.GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=1000)).eval()
    with torch.no_grad():
        for model in (bert, gpt2):
            compiled = torch.compile(model, backend="eager")
            for length in (8, 12):
                ids = torch.randint(0, 1000, (2, length))
                compiled(input_ids=ids, attention_mask=torch.ones_like(ids))


if __name__ == "__main__":
    main()
