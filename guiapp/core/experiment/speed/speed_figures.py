"""The measured speed figures every estimate shares (``estimates.py``, ``few_shot_estimates.py``):
CPU seconds on a 2-core laptop-class CPU with short texts, and a Transformer's seconds per text
from its registry entry."""

from __future__ import annotations

EMBED_TEXTS_PER_SECOND = 120.0  # all-MiniLM-L6-v2 on 2 CPU cores, short texts
TORCH_LOAD_SECONDS = 6.0  # importing PyTorch and loading an embedding model, once

TOKENS_PER_TEXT = 64  # the text length the registry's speed figures were measured at
LOAD_SECONDS = 1.5  # loading the model's weights and tokenising, once per training run
PREDICT_SHARE = 1 / 3  # predicting a text costs about a third of learning from it


def per_text_finetune_seconds(model_name: str, on_gpu: bool, mean_tokens: float | None, max_length: int) -> float:
    """The registry's seconds to learn from one text of ``mean_tokens`` subword tokens, one epoch."""
    from guiapp.core.models.transformers.sources.registry import info_for

    info = info_for(model_name)
    per_text = (info.seconds_per_1000_samples_gpu if on_gpu else info.seconds_per_1000_samples_cpu) / 1000.0
    if mean_tokens:
        per_text *= max(0.5, min(float(mean_tokens), float(max_length)) / TOKENS_PER_TEXT)
    return per_text
