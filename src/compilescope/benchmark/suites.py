"""The zoo's suites: which models `compilescope zoo --suite hf,timm` sweeps.

Hugging Face: architectures of each kind transformers has (encoders, decoders, encoder-decoders,
speech, vision), as model types (`hf:MODEL_TYPE`, by_name.py builds them). timm: models of the
families PyTorch's own timm benchmark runs (convolutional, mobile, transformer, MLP), by name.
Each list goes from the smaller models to the larger, so that a sweep cut short (a time budget)
has measured the most models it could."""

from __future__ import annotations

# In the order of their default (base) size: from ELECTRA-small's 14M parameters to Gemma's 8.5B.
HF = (
    "electra",  # encoders, decoders, encoder-decoders, speech and vision, mixed by size
    "mobilebert",
    "bloom",
    "distilbert",
    "whisper",
    "marian",
    "t5",
    "swin",
    "convnext",
    "vit",
    "deit",
    "bert",
    "roberta",
    "gpt2",
    "opt",
    "longformer",
    "albert",
    "bart",
    "pegasus",
    "mbart",
    "deberta-v2",
    "gpt_neo",
    "phi",
    "llama",
    "mistral",
    "qwen2",
    "gemma",
)

TIMM = (
    "resnet18",
    "resnet50",
    "resnext50_32x4d",
    "wide_resnet50_2",
    "densenet121",
    "regnety_016",
    "dla34",
    "dpn68",
    "res2net50_14w_8s",
    "inception_v3",
    "mobilenetv2_100",
    "mobilenetv3_large_100",
    "efficientnet_b0",
    "ghostnet_100",
    "mnasnet_100",
    "rexnet_100",
    "repvgg_a2",
    "convnext_tiny",
    "vit_base_patch16_224",
    "deit_small_patch16_224",
    "swin_tiny_patch4_window7_224",
    "beit_base_patch16_224",
    "levit_128",
    "mixer_b16_224",
)

SUITES = {"hf": tuple(f"hf:{name}" for name in HF), "timm": tuple(f"timm:{name}" for name in TIMM)}
