"""Models by name: `hf:MODEL_TYPE` (a Hugging Face architecture, from transformers' default
config for that model type) and `timm:NAME`, built with random weights (nothing is downloaded),
with inputs that fit them: token ids and a mask for text, pixel values for images, labels for
training (the model then returns its loss).

`--size tiny` shrinks the default config to a few small layers (the same names set on every
config that has them: transformers maps `hidden_size` to `n_embd` or `d_model` itself); `base`
keeps it. `--config key=value,...` sets anything else, after the size.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

PREFIXES = ("hf:", "timm:")  # (the sizes, tiny and base: compilescope/choices.py)

# A few small layers: enough for every kind of layer to run and compile, small enough for a CPU.
TINY_TEXT = {
    "num_hidden_layers": 2,
    "num_layers": 2,
    "num_decoder_layers": 2,
    "encoder_layers": 2,
    "decoder_layers": 2,
    "hidden_size": 64,
    "num_attention_heads": 2,
    "num_key_value_heads": 2,
    "encoder_attention_heads": 2,
    "decoder_attention_heads": 2,
    "intermediate_size": 128,
    "d_ff": 128,
    "d_kv": 32,
    "encoder_ffn_dim": 128,
    "decoder_ffn_dim": 128,
    "vocab_size": 1024,
    "decoder_vocab_size": 1024,  # (Marian: a vocabulary of its own)
    "max_position_embeddings": 128,
    "head_dim": 32,
    "rotary_dim": 16,  # (GPT-J, CodeGen: at most the head's width)
    "embedding_size": 64,  # (ALBERT: factorised embeddings)
    "axial_pos_embds_dim": (32, 32),  # (Reformer: summing to the width, over 4 x 8 = 32 positions)
    "axial_pos_shape": (4, 8),
}
TINY_VISION = {"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 2, "intermediate_size": 128, "embed_dim": 32}
SEQUENCE = {"tiny": 32, "base": 128}
BATCH = {"tiny": 2, "base": 8}
TIMM_TINY_SCALE = 64 / 224  # a timm model's image at --size tiny: its own, scaled (224 to 64)


# The library each kind of model by name is built with, and what installs it (pyproject.toml's
# extra "models": transformers and timm)
LIBRARIES = {"hf:": "transformers", "timm:": "timm"}
INSTALL = "pip install 'compilescope[models]'"


def is_by_name(target: str) -> bool:
    return target.startswith(PREFIXES)


def library_of(target: str) -> str | None:
    """The library a model by name needs ("transformers" for hf:gpt2); None for a file.py:make."""
    return next((library for prefix, library in LIBRARIES.items() if target.startswith(prefix)), None)


def missing_libraries(targets: list[str], python: str | None = None) -> dict[str, str]:
    """The libraries these targets need that are not installed here: library -> Python's words
    ("No module named 'transformers'"). Each is imported in a fresh Python (`python`, the one
    bench's workers run: this one's by default), as the workers would, so this process imports
    neither; a library that is there but fails otherwise on import is left to the worker to say."""
    import subprocess
    import sys

    missing = {}
    for library in dict.fromkeys(filter(None, map(library_of, targets))):
        probe = f"try:\n    import {library}\nexcept ModuleNotFoundError as error:\n    print(error)\n    raise SystemExit(3)\n"
        try:
            done = subprocess.run([python or sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.TimeoutExpired):
            continue  # (cannot tell: the workers will say)
        if done.returncode == 3:
            missing[library] = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else f"No module named {library!r}"
    return missing


def missing_said(missing: dict[str, str]) -> str:
    """What is missing and the extra that installs it, to end a line ("hf:gpt2 needs ..."):
    "transformers, not installed here (No module named 'transformers'); install it with: pip
    install 'compilescope[models]'"."""
    names = " and ".join(missing)
    why = "; ".join(missing.values())
    return f"{names}, not installed here ({why}); install {'it' if len(missing) == 1 else 'them'} with: {INSTALL}"


def parse_overrides(text: str | None) -> dict[str, Any]:
    """`key=value,key=value`: each value a Python literal where it reads as one (2, 0.1, True,
    "gelu"), else the text itself."""
    out: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        key, sep, value = part.partition("=")
        if not sep or not key.strip().isidentifier():
            raise ValueError(f"--config: {part!r} is not key=value")
        try:
            out[key.strip()] = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            out[key.strip()] = value.strip()
    return out


@dataclass
class ByName:
    """What a target by name asks for, as it travels to the worker (JSON)."""

    target: str  # "hf:gpt2", "timm:resnet50"
    size: str = "tiny"
    config: dict[str, Any] = field(default_factory=dict)


class UnknownModel(Exception):
    """The name names no model the library has; the message says what it has, near that."""


def make(spec: ByName, training: bool, device: str = "cpu") -> tuple[Any, dict[str, Any]]:
    """The model (random weights, eval mode unless training), built on `device`, and its inputs,
    as keyword arguments (made on the CPU, from a seeded generator: the same on every device)."""
    library, _, name = spec.target.partition(":")
    if library == "hf":
        return _hf(name, spec.size, spec.config, training, device)
    return _timm(name, spec.size, spec.config, training, device)


# (which head to build: the first mapping that has the model type; its inputs follow from it)
_HEADS = (
    ("MODEL_FOR_SPEECH_SEQ_2_SEQ_MAPPING_NAMES", "speech"),
    ("MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES", "seq2seq"),
    # (an encoder is measured as one: BERT has a causal-LM head too, as a decoder)
    ("MODEL_FOR_MASKED_LM_MAPPING_NAMES", "masked"),
    ("MODEL_FOR_CAUSAL_LM_MAPPING_NAMES", "causal"),
    ("MODEL_FOR_IMAGE_CLASSIFICATION_MAPPING_NAMES", "image"),
)


def hf_kind(model_type: str) -> tuple[str, str] | None:
    """The model class to build for a model type and the kind of inputs it takes, or None where
    none of the heads the zoo knows has it."""
    from transformers.models.auto import modeling_auto

    for mapping, kind in _HEADS:
        name = getattr(modeling_auto, mapping, {}).get(model_type)
        if name:
            # (a few map to several classes, DeiT's with and without its teacher: the first)
            return (name if isinstance(name, str) else name[0]), kind
    return None


def _shrink(config: Any, kind: str) -> None:
    """A few small layers: the same names on every config that has them (a name the config does
    not take as such, a property derived from others or one checked for another shape, is left
    alone)."""
    values: dict[str, Any] = dict(TINY_VISION if kind == "image" else TINY_TEXT)
    if kind == "image":
        depths = getattr(config, "depths", None)
        if isinstance(depths, (list, tuple)):  # stages (Swin, ConvNeXt): one block each, narrow
            # (their num_hidden_layers, where they have one, names the stages: left alone)
            values = {key: value for key, value in values.items() if key not in ("num_hidden_layers", "hidden_size")}
            values["depths"] = [1] * len(depths)
            values["hidden_sizes"] = [16 * 2**i for i in range(len(depths))]
            values["num_heads"] = [2] * len(depths)
    if kind == "speech":
        values.update({"max_source_positions": 64, "max_target_positions": 64, "num_mel_bins": 16, "d_model": 64})
    for key, value in values.items():
        if hasattr(config, key):
            try:
                setattr(config, key, value)
            except Exception:  # (AttributeError, NotImplementedError, a validation error: each config says no its own way)
                pass
    # token ids the model reserves (padding, start, end) must lie inside the smaller vocabulary:
    # those past its end move to its last ids (GPT-2's 50256 to 1023), each to its own
    vocabulary = getattr(config, "vocab_size", None)
    if isinstance(vocabulary, int):
        moved: dict[int, int] = {}
        for name in ("pad_token_id", "bos_token_id", "eos_token_id", "decoder_start_token_id"):
            token = getattr(config, name, None)
            if isinstance(token, int) and token >= vocabulary:
                setattr(config, name, moved.setdefault(token, vocabulary - 1 - len(moved)))


def _hf(model_type: str, size: str, overrides: dict[str, Any], training: bool, device: str = "cpu") -> tuple[Any, dict[str, Any]]:
    import torch
    import transformers
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    if model_type not in CONFIG_MAPPING_NAMES:
        import difflib

        near = difflib.get_close_matches(model_type, list(CONFIG_MAPPING_NAMES), n=3)
        hint = f"; did you mean {', '.join(near)}?" if near else ""
        raise UnknownModel(f"transformers {transformers.__version__} has no model type {model_type!r}{hint}")
    found = hf_kind(model_type)
    if found is None:
        raise UnknownModel(f"hf:{model_type}: no causal-LM, masked-LM, seq2seq, speech or image-classification head in transformers for it")
    name, kind = found
    config = transformers.AutoConfig.for_model(model_type)
    if size == "tiny":
        _shrink(config, kind)
    for key, value in overrides.items():
        setattr(config, key, value)
    torch.manual_seed(0)
    # (built on the device it runs on: a base Llama's 7B random weights take minutes to
    # initialise on a CPU, seconds on a GPU)
    with torch.device(device):
        model = getattr(transformers, name)(config)
    model.train(training)
    generator = torch.Generator().manual_seed(0)
    batch = BATCH[size]
    inputs: dict[str, Any] = {}
    if kind == "image":
        side = getattr(config, "image_size", 224)
        side = side[0] if isinstance(side, (list, tuple)) else side
        channels = getattr(config, "num_channels", 3)
        inputs["pixel_values"] = torch.randn(batch, channels, side, side, generator=generator)
        if training:
            inputs["labels"] = torch.randint(0, int(getattr(config, "num_labels", 2) or 2), (batch,), generator=generator)
        return model, inputs
    vocabulary = int(config.vocab_size)
    try:
        limit = getattr(config, "max_position_embeddings", None)
    except NotImplementedError:  # (XLNet: "no sequence length limit")
        limit = None
    length = min(SEQUENCE[size], limit) if isinstance(limit, int) and limit > 0 else SEQUENCE[size]
    if kind == "speech":  # log-mel features: the encoder halves their length to its positions
        frames = 2 * int(config.max_source_positions)
        inputs["input_features"] = torch.randn(batch, int(config.num_mel_bins), frames, generator=generator)
        length = min(length, int(getattr(config, "max_target_positions", length)))
    else:
        ids = torch.randint(0, vocabulary, (batch, length), generator=generator)
        inputs.update({"input_ids": ids, "attention_mask": torch.ones_like(ids)})
    if kind in ("seq2seq", "speech"):
        inputs["decoder_input_ids"] = torch.randint(0, vocabulary, (batch, length), generator=generator)
    if "use_cache" in config.to_dict():
        # one forward, as the dashboard measures it: no key/value cache to build, return and
        # compare (a DynamicCache is not something outputs are compared on)
        inputs["use_cache"] = False
    if training:
        inputs["labels"] = torch.randint(0, vocabulary, (batch, length), generator=generator)
    return model, inputs


def _timm(name: str, size: str, overrides: dict[str, Any], training: bool, device: str = "cpu") -> tuple[Any, dict[str, Any]]:
    import torch

    try:
        import timm
    except Exception as error:  # torchvision beside the CPU torch here fails to import: say so
        raise UnknownModel(f"timm:{name}: timm does not import here ({type(error).__name__}: {error})") from None
    if name not in timm.list_models():
        import difflib

        near = difflib.get_close_matches(name, timm.list_models(), n=3)
        hint = f"; did you mean {', '.join(near)}?" if near else ""
        raise UnknownModel(f"timm {timm.__version__} has no model {name!r}{hint}")
    channels, height, width = timm.get_pretrained_cfg_value(name, "input_size") or (3, 224, 224)
    if size == "tiny":
        # The model's own image scaled by 64/224 (Inception v3's 299 to 85): each network's last
        # feature maps shrink alike, and stay large enough for its last kernels (at 64, Inception
        # v3's 3 x 3 met a 2 x 2 map). A model built for one image size (position embeddings,
        # attention biases: ViT, DeiT, BEiT, Swin, LeViT, Mixer) is built for the smaller one.
        height, width = (max(32, round(side * TIMM_TINY_SCALE)) for side in (height, width))
        if timm.get_pretrained_cfg_value(name, "fixed_input_size"):
            overrides = {"img_size": (height, width), **overrides}
    built_for = overrides.get("img_size")  # (--config img_size=...: the image is that size too)
    if isinstance(built_for, (int, tuple, list)):
        height, width = (built_for, built_for) if isinstance(built_for, int) else tuple(built_for)[-2:]
    torch.manual_seed(0)
    with torch.device(device):  # (on its device, as _hf builds)
        model = timm.create_model(name, pretrained=False, **overrides)
    model.train(training)
    generator = torch.Generator().manual_seed(0)
    return model, {"x": torch.randn(BATCH[size], channels, height, width, generator=generator)}
