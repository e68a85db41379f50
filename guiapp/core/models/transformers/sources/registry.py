"""The Transformer models a researcher picks from, in plain words, with sensible defaults.

Each entry says what the model is and when to choose it, where its files come from
(``"bundled"`` with TextLab, assembled from optional ``"parts"`` packages, or a ``"hub"``
download), its size, and the defaults a study starts from: the grid of learning rates × epochs
searched by cross-validation, the batch size, the text length and how longer texts are cut.

Default grids: base-size models (hidden size 768) get the reference paper's grid,
learning rate {1, 2, 3}e-5 × epochs {2, 3, 4}. Small models need larger steps: with the bundled
MiniLM (hidden 384) on a 3-class stance task of 653 training tweets (a plain AdamW loop, batch 16,
dynamic padding, test macro-F1), 3e-5 × 4 epochs reached a macro-F1 of 0.46, 5e-5 × 8 epochs 0.58,
1e-4 × 4 epochs 0.61 and 1e-4 × 8 epochs 0.60.

The entries themselves are data, one table each in ``transformer_models.toml`` beside this module.

The speed figures are rough, for the Models step's "about N minutes" only: seconds for one
epoch over 1,000 texts of about 64 subword tokens, on a 2-core laptop CPU and on one data-centre
GPU. Sources: MiniLM 1.46 s per batch of 16 × 128 tokens and 42.7 texts/s with dynamic padding
(mean 30 tokens); MPNet about 7.5 s per batch of 16 × 128 tokens, i.e. about five times MiniLM;
BERT-base-size models cost about the same as MPNet; a GPU is roughly 100 times faster for
base-size models (less for the small one, which cannot keep a GPU busy).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from guiapp.core.models.transformers.sources.folders import CONFIG_LIMIT
from guiapp.core.untrusted.json_reading import read_json_file

Source = Literal["bundled", "parts", "hub", "folder"]

PAPER_GRID: dict[str, list[Any]] = {"learning_rate": [1e-5, 2e-5, 3e-5], "epochs": [2, 3, 4]}
# Small models (hidden < 768): 1e-4 was best in the measurement above, 5e-5 is the safer
# neighbour for noisy or very small data; 3 / 4 / 6 epochs span the measured optimum (4) and
# let the slower rate catch up, at 6 grid points instead of the paper's 9.
SMALL_MODEL_GRID: dict[str, list[Any]] = {"learning_rate": [5e-5, 1e-4], "epochs": [3, 4, 6]}


@dataclass(frozen=True)
class TransformerInfo:
    """One Transformer model on the short list, with the defaults a study starts from."""

    key: str
    label: str
    description: str
    source: Source
    hub_id: str
    params_millions: float
    layers: int
    hidden: int
    language: str  # "English", "German", "multilingual" (or "unknown" for a folder)
    max_length: int  # the longest input the model can take, in subword tokens
    cased: bool  # whether it tells "Tax" from "tax"
    default_grid: dict[str, list[Any]] = field(default_factory=lambda: _copy(PAPER_GRID))
    default_batch_size: int = 16
    default_truncation: str = "head_tail"  # "head_tail", "head" or "middle"
    default_max_length: int = 512  # what a study uses by default (≤ max_length)
    seconds_per_1000_samples_cpu: float = 200.0  # one epoch, ~64 tokens, 2 CPU cores (rough)
    seconds_per_1000_samples_gpu: float = 2.0  # one epoch, ~64 tokens, one GPU (rough)


def _copy(grid: dict[str, list[Any]]) -> dict[str, list[Any]]:
    return {name: list(values) for name, values in grid.items()}


BUNDLED_KEY = "all-MiniLM-L6-v2"
MPNET_KEY = "all-mpnet-base-v2"

MODELS_FILE = Path(__file__).with_name("transformer_models.toml")


def _short_list() -> tuple[TransformerInfo, ...]:
    """The entries of ``transformer_models.toml``; small models (hidden < 768) start from the small grid."""
    entries = tomllib.loads(MODELS_FILE.read_text(encoding="utf-8"))["model"]
    return tuple(
        TransformerInfo(**entry, default_grid=_copy(SMALL_MODEL_GRID if entry["hidden"] < 768 else PAPER_GRID))
        for entry in entries
    )


_REGISTRY: tuple[TransformerInfo, ...] = _short_list()

# Other names the same models go by (old hub ids without the organisation).
_ALIASES = {
    "google-bert/bert-base-uncased": "bert-base-uncased",
    "FacebookAI/roberta-base": "roberta-base",
    "allenai/longformer-base-4096": "longformer-base-4096",
    "deepset/gbert-base": "gbert-base",
    "FacebookAI/xlm-roberta-base": "xlm-roberta-base",
    "xlm-roberta-base": "xlm-roberta-base",
}


def registry() -> list[TransformerInfo]:
    """The short list, in the order the Models step shows it (the bundled default first)."""
    return list(_REGISTRY)


def registry_entry(source: str) -> TransformerInfo | None:
    """The entry for a key or hub id on the short list (case-sensitive), else None."""
    name = str(source).strip()
    name = _ALIASES.get(name, name)
    for info in _REGISTRY:
        if name in (info.key, info.hub_id):
            return info
    return None


def info_for(source: str | Path) -> TransformerInfo:
    """What TextLab knows about ``source``: a short-list key or hub id, a folder, or another id.

    For a folder (or a hub id already downloaded to this computer) the size comes from its
    ``config.json``; an unknown, not yet downloaded hub id is assumed to be base size.
    """
    name = str(source).strip()
    known = registry_entry(name)
    if known is not None:
        return known
    folder = Path(name).expanduser()
    if folder.is_dir():
        config = _read_config(folder)
        if config and "do_lower_case" not in config:
            tokenizer_config = _read_json(folder / "tokenizer_config.json")
            config = {**config, "do_lower_case": bool(tokenizer_config.get("do_lower_case", False))}
        return _generic_info(name, "folder", name, config)
    return _generic_info(name, "hub", name, _cached_hub_config(name))


def _generic_info(key: str, source: Source, hub_id: str, config: dict[str, Any]) -> TransformerInfo:
    hidden = _positive_int(config.get("hidden_size") or config.get("d_model") or config.get("dim"), 768)
    layers = _positive_int(
        config.get("num_hidden_layers") or config.get("n_layers") or config.get("num_layers"), 12
    )
    max_positions = _positive_int(config.get("max_position_embeddings"), 512)
    if config.get("model_type") in {"roberta", "xlm-roberta", "camembert", "longformer"} and max_positions > 2:
        max_positions -= 2  # RoBERTa-style models reserve two positions (padding offset)
    small = hidden < 768
    scale = estimate_params_millions(config, hidden, layers) / 110.0
    where = "local folder" if source == "folder" else "Hugging Face model"
    info = TransformerInfo(
        key=key,
        label=f"{Path(key).name} (local folder)" if source == "folder" else key,
        description=(
            f"A {where} not on TextLab's short list"
            + (f" ({config['model_type']}, {layers} layers)." if config.get("model_type") else ".")
        ),
        source=source,
        hub_id=hub_id if source == "hub" else "",
        params_millions=round(estimate_params_millions(config, hidden, layers), 1),
        layers=layers,
        hidden=hidden,
        language="unknown",
        max_length=max_positions,
        cased=not bool(config.get("do_lower_case", False)),
        default_grid=_copy(SMALL_MODEL_GRID if small else PAPER_GRID),
        default_max_length=min(512, max_positions),
        seconds_per_1000_samples_cpu=round(max(20.0, 200.0 * scale), 1),
        seconds_per_1000_samples_gpu=round(max(1.0, 2.0 * scale), 2),
    )
    return info if config else replace(info, description=info.description + " Its size is not known yet.")


def estimate_params_millions(config: dict[str, Any], hidden: int, layers: int) -> float:
    """Parameters of a BERT-like encoder, in millions, from its configuration.

    Embeddings (words, positions, segments) plus per layer 4·h² for attention and 2·h·i for the
    feed-forward part (i = intermediate size, usually 4·h), biases and layer norms included
    roughly. Gives 22.7 M for MiniLM-L6 and 109.5 M for BERT-base.
    """
    vocab = _positive_int(config.get("vocab_size"), 30522)
    positions = _positive_int(config.get("max_position_embeddings"), 512)
    segments = _positive_int(config.get("type_vocab_size"), 2)
    intermediate = _positive_int(config.get("intermediate_size"), 4 * hidden)
    embeddings = (vocab + positions + segments) * hidden + 2 * hidden
    per_layer = 4 * hidden * hidden + 2 * hidden * intermediate + 9 * hidden + intermediate
    pooler = hidden * hidden + hidden
    return (embeddings + layers * per_layer + pooler) / 1e6


def _positive_int(value: object, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default


def _read_config(folder: Path) -> dict[str, Any]:
    for candidate in (folder / "config.json", folder / "0_Transformer" / "config.json"):
        data = _read_json(candidate)
        if data:
            return data
    return {}


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = read_json_file(path, max_bytes=CONFIG_LIMIT)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _cached_hub_config(repo_id: str) -> dict[str, Any]:
    """The config.json of a hub model already downloaded into TextLab's cache, else {}."""
    try:
        from huggingface_hub import try_to_load_from_cache

        from guiapp.core import locations

        path = try_to_load_from_cache(repo_id, "config.json", cache_dir=locations.cache_dir() / "hub")
    except Exception:  # noqa: BLE001 - an invalid id or an odd cache only means "unknown"
        return {}
    return _read_config(Path(path).parent) if isinstance(path, str) else {}
