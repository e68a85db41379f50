"""Checking a folder that should hold a Transformer model, before anything tries to load it.

:func:`check_model_folder` finds the folder with ``config.json`` + weights + tokenizer (also
inside a sentence-transformers layout, where they may sit in ``0_Transformer/``) and explains
each problem in plain words: missing folder, missing or unreadable ``config.json``, a model type
this version of Transformers does not know, a model that needs its own program code (an
``auto_map`` in its configuration or its tokenizer's: refused in words by
:func:`refuse_custom_code`, never run and never left to a library that would ask the user), missing
or damaged weights, missing tokenizer files. Weights only as ``pytorch_model.bin`` are refused: that format is a
pickle and can run code when opened; safetensors files cannot.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, ignore_events
from guiapp.core.untrusted.json_reading import read_json_file

CONFIG_LIMIT = 64 << 20  # the most a model's configuration file can need (they are a few KB)
# Configuration files whose "auto_map" (or "custom_pipelines") tells Transformers to import Python
# code that comes with the model.
CODE_MAPS = ("config.json", "tokenizer_config.json", "processor_config.json", "preprocessor_config.json",
             "feature_extractor_config.json", "image_processor_config.json")

_CHOOSE = (
    "Choose a folder that holds a complete Hugging Face model (config.json, model.safetensors and "
    "the tokenizer files), or the bundled MiniLM model."
)
TOKENIZER_FILES = (
    "tokenizer.json",  # fast tokenizers (most models)
    "vocab.txt",  # BERT-style WordPiece
    "spiece.model",  # SentencePiece (ALBERT, T5, XLNet …)
    "sentencepiece.bpe.model",  # XLM-RoBERTa, CamemBERT
    "tokenizer.model",
    "spm.model",  # DeBERTa-v3
)


def check_model_folder(folder: str | Path, on_event: EventCallback = ignore_events) -> Path:
    """The folder inside ``folder`` that Transformers can load; a :class:`UserError` if none.

    Reads only small files and the weights' header, so it is quick even for large models.
    """
    root = Path(folder).expanduser()
    if not root.exists():
        raise UserError(f"The model folder “{root}” does not exist.",
                        "Check that the drive is connected and the folder was not moved. " + _CHOOSE)
    if not root.is_dir():
        raise UserError(f"“{root}” is a file, not a model folder.",
                        f"Choose the folder that contains it ({root.parent}), not a file inside it.")
    model_dir = find_model_dir(root)
    if model_dir is None:
        raise UserError(
            f"The folder “{root}” has no config.json, so it does not look like a Transformer model.",
            "A model folder holds config.json with the model's settings. " + _CHOOSE,
        )
    config = read_config(model_dir)
    check_model_type(model_dir, config)
    refuse_custom_code(model_dir)
    check_weights(model_dir, on_event)
    check_tokenizer(model_dir)
    return model_dir


def find_model_dir(root: Path) -> Path | None:
    """``root`` if it holds config.json, else the Transformer part of a sentence-transformers folder."""
    if (root / "config.json").is_file():
        return root
    try:
        modules = read_json_file(root / "modules.json", max_bytes=CONFIG_LIMIT)
    except (OSError, ValueError):
        modules = []
    for module in modules if isinstance(modules, list) else []:
        if isinstance(module, dict) and str(module.get("type", "")).endswith("models.Transformer"):
            candidate = root / str(module.get("path", ""))
            if (candidate / "config.json").is_file():
                return candidate
    weights = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin", "pytorch_model.bin.index.json")
    candidates = [  # e.g. 0_Transformer/ without modules.json; not 1_Pooling/ (a config, no weights)
        child for child in sorted(root.iterdir())
        if (child / "config.json").is_file() and any((child / name).is_file() for name in weights)
    ]
    return candidates[0] if len(candidates) == 1 else None


def read_config(model_dir: Path) -> dict[str, Any]:
    config = _read_json(model_dir, "config.json")
    if not isinstance(config, dict) or not config.get("model_type"):
        raise UserError(
            f"The config.json in “{model_dir}” does not say which kind of model this is (no model_type).",
            "Models saved with the Transformers library have it. " + _CHOOSE,
        )
    return config


def check_model_type(model_dir: Path, config: dict[str, Any]) -> None:
    """Refuse models that need their own program code or that Transformers does not know."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    model_type = str(config["model_type"])
    if model_type in CONFIG_MAPPING_NAMES:
        return
    if config.get("auto_map"):
        raise UserError(
            f"The model in “{model_dir}” needs its own program code to run (model type “{model_type}”).",
            "TextLab does not run code that comes with a model, for your computer's safety. "
            "Choose a model of a standard type such as BERT, RoBERTa, MPNet or XLM-RoBERTa.",
        )
    raise UserError(
        f"This version of TextLab does not know the model type “{model_type}” of “{model_dir}”.",
        "The model may be newer than TextLab's Transformers library: update TextLab, or choose "
        "another model.",
    )


def refuse_custom_code(model_dir: Path) -> None:
    """A :class:`UserError` when the folder's configuration asks to run program code that comes with
    the model (``auto_map``): TextLab never runs it, and says so before any library can ask."""
    model_dir = Path(model_dir)
    for name in CODE_MAPS:
        if not (model_dir / name).is_file():
            continue
        data = _read_json(model_dir, name)
        asks = [key for key in ("auto_map", "custom_pipelines") if isinstance(data, dict) and data.get(key)]
        if asks:
            raise UserError(
                f"The model in “{model_dir}” asks to run program code that comes with it ({name} has "
                f"“{asks[0]}”). TextLab never runs such code, for your computer's safety, so it does not open this model.",
                "Choose a model that works with the standard Transformers classes (BERT, RoBERTa, MPNet, XLM-RoBERTa …), "
                "and delete this folder if you do not know where it came from.",
            )


def _read_json(model_dir: Path, name: str) -> Any:
    """The JSON in the model's file ``name``; a :class:`UserError` in words when it cannot be read."""
    try:
        return read_json_file(model_dir / name, max_bytes=CONFIG_LIMIT)
    except (OSError, ValueError) as error:
        raise UserError(f"The file {name} in “{model_dir}” cannot be read.",
                        "It may be damaged or incomplete; copy or download the model again.",
                        details=str(error)) from error


def check_weights(model_dir: Path, on_event: EventCallback = ignore_events) -> Path:
    """The weights file (or shard index); checks the safetensors headers."""
    single = model_dir / "model.safetensors"
    index = model_dir / "model.safetensors.index.json"
    if single.is_file():
        check_safetensors(single)
        return single
    if index.is_file():
        for shard in _shards(index):
            check_safetensors(shard)
        return index
    for name in ("pytorch_model.bin", "pytorch_model.bin.index.json"):
        if (model_dir / name).is_file():
            raise UserError(
                f"The model in “{model_dir}” holds its weights only in the older PyTorch format ({name}), "
                "which can run code when opened; TextLab opens only model.safetensors files.",
                "Convert the model to safetensors (for example with Hugging Face's convert tool), or "
                "download the safetensors version of the model.",
            )
    other = [name for name in ("tf_model.h5", "flax_model.msgpack", "model.onnx") if (model_dir / name).is_file()]
    if other:
        raise UserError(
            f"The model in “{model_dir}” has weights only for another framework ({', '.join(other)}).",
            "TextLab needs PyTorch weights (model.safetensors). Download the model's safetensors "
            "version, or choose another model.",
        )
    raise UserError(
        f"The model folder “{model_dir}” has no weights (model.safetensors is missing).",
        "The download or copy may be incomplete; copy or download the model again. " + _CHOOSE,
    )


def _shards(index: Path) -> list[Path]:
    try:
        weight_map = read_json_file(index, max_bytes=CONFIG_LIMIT)["weight_map"]
        names = sorted(set(weight_map.values()))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise UserError(f"The weights index {index.name} in “{index.parent}” cannot be read.",
                        "Copy or download the model again.", details=str(error)) from error
    missing = [name for name in names if not (index.parent / name).is_file()]
    if missing or not names:
        raise UserError(
            f"The model in “{index.parent}” is incomplete: "
            + (f"{len(missing)} of its {len(names)} weight files are missing ({missing[0]} …)."
               if missing else "its weights index lists no files."),
            "Copy or download the model again.",
        )
    return [index.parent / name for name in names]


def check_safetensors(path: Path) -> None:
    """Open the header of a safetensors file; damaged or truncated files raise a UserError."""
    from safetensors import safe_open

    try:
        with safe_open(str(path), framework="numpy") as handle:
            if not list(handle.keys()):
                raise ValueError("the file holds no tensors")
    except Exception as error:  # SafetensorError, OSError, ValueError …
        raise UserError(
            f"The weights file {path.name} in “{path.parent}” is damaged or incomplete.",
            "It may not have finished downloading or copying. Copy or download the model again.",
            details=f"{type(error).__name__}: {error}",
        ) from error


def check_tokenizer(model_dir: Path) -> None:
    present = any((model_dir / name).is_file() for name in TOKENIZER_FILES)
    byte_level_bpe = (model_dir / "vocab.json").is_file() and (model_dir / "merges.txt").is_file()
    if not (present or byte_level_bpe):
        raise UserError(
            f"The model folder “{model_dir}” has no tokenizer files (tokenizer.json or a vocabulary).",
            "The tokenizer splits texts into the pieces the model knows; save it with the model "
            "(tokenizer.save_pretrained) or copy the complete model folder. " + _CHOOSE,
        )
