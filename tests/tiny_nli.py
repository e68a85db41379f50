"""A tiny randomly initialised NLI model for zero-shot tests (no download): a BERT sequence classifier
(hidden 32, 2 layers) whose answers carry the names an NLI model's configuration gives them."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

NLI_LABELS = {0: "contradiction", 1: "neutral", 2: "entailment"}


def save_tiny_nli(folder: Path, words: Iterable[str], labels: dict[int, str] | None = None, seed: int = 0) -> Path:
    """Save the model and a tokenizer over ``words`` to ``folder`` (config.json, model.safetensors,
    tokenizer files), as a user's model folder; ``labels``: the answers' names (default: contradiction,
    neutral, entailment)."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    from guiapp.core.models.transformers.sources.files import quiet_loading
    from tests.tiny_bert import tiny_tokenizer

    labels = dict(NLI_LABELS if labels is None else labels)
    tokenizer = tiny_tokenizer(folder, words)
    config = BertConfig(vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=128, num_labels=len(labels),
                        id2label=labels, label2id={name: i for i, name in labels.items()})
    torch.manual_seed(seed)
    net = BertForSequenceClassification(config).eval()
    with quiet_loading():
        net.save_pretrained(str(folder))
        tokenizer.save_pretrained(str(folder))
    return folder
