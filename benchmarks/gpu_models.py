"""Real models for `compilescope bench` on a GPU, built from their configs (random weights,
nothing downloaded): BERT-base (transformers) and ResNet-50 (timm), in fp32 and bf16.

    compilescope bench benchmarks/gpu_models.py:bert_bf16 --device cuda --train
"""

import torch


def _bert(dtype):
    from transformers import BertConfig, BertModel

    torch.manual_seed(0)
    model = BertModel(BertConfig()).to("cuda", dtype)  # BERT-base: 12 layers, hidden 768
    ids = torch.randint(0, 30522, (8, 128), device="cuda")  # batch 8, sequence 128
    return model, (ids,)


def _resnet(dtype):
    import timm

    torch.manual_seed(0)
    model = timm.create_model("resnet50", pretrained=False).to("cuda", dtype)
    images = torch.randn(64, 3, 224, 224, device="cuda", dtype=dtype)  # batch 64
    return model, (images,)


def bert_fp32():
    return _bert(torch.float32)


def bert_bf16():
    return _bert(torch.bfloat16)


def resnet_fp32():
    return _resnet(torch.float32)


def resnet_bf16():
    return _resnet(torch.bfloat16)


class ManySmallSteps(torch.nn.Module):
    # The tutorial's pointwise chain, at 8192x8192: memory-bound, one fused kernel when compiled.
    def forward(self, x):
        for _ in range(20):
            x = torch.relu(x + 0.1) * 0.99
        return x


def small_steps_8192():
    return ManySmallSteps(), (torch.randn(8192, 8192, device="cuda"),)
