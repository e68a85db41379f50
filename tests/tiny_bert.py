"""Tiny randomly initialised BERT models for tests that exercise Transformer code, not language.

Hidden size 32, 2 layers, 2 heads: a forward and backward pass takes about a millisecond on a CPU,
so training-loop, explanation and prediction tests run in seconds even on a busy 2-core machine.

- :func:`tiny_tokenizer` — a WordPiece tokenizer over a given list of words (no download needed).
- :func:`tiny_bert` — the network itself, seeded, with a classification head.
- :func:`save_tiny_bert` — a model folder as a user would choose it (config.json,
  model.safetensors, tokenizer files), opened by the engine's own loading code.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

SPECIAL_TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
LETTERS = "abcdefghijklmnopqrstuvwxyz0123456789.,;:!?'\"-()"


def tiny_tokenizer(folder: Path, words: Iterable[str]) -> Any:
    """A fast lower-casing BERT tokenizer whose vocabulary is ``words`` plus single characters
    (so any other word still splits into pieces instead of becoming [UNK])."""
    from transformers import BertTokenizerFast

    vocab = list(SPECIAL_TOKENS)
    for token in [*(w.lower() for w in words), *LETTERS, *(f"##{c}" for c in LETTERS)]:
        if token not in vocab:
            vocab.append(token)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tokenizer = BertTokenizerFast.from_pretrained(str(folder), do_lower_case=True, local_files_only=True)
    assert len(tokenizer) == len(vocab), "the vocabulary file was not read"
    return tokenizer


def tiny_bert(vocab_size: int, num_labels: int = 2, *, layers: int = 2, max_positions: int = 128,
              dropout: float = 0.1, seed: int = 0) -> Any:
    """A randomly initialised ``BertForSequenceClassification`` (hidden 32, 2 heads, in eval mode);
    the same ``seed`` gives the same weights."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    config = BertConfig(
        vocab_size=vocab_size, hidden_size=32, num_hidden_layers=layers, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=max_positions, num_labels=num_labels,
        hidden_dropout_prob=dropout, attention_probs_dropout_prob=dropout,
    )
    torch.manual_seed(seed)
    return BertForSequenceClassification(config).eval()


def save_tiny_bert(folder: Path, tokenizer: Any, *, max_positions: int = 128, seed: int = 0) -> Path:
    """Save a tiny "pretrained" BERT (no classification head, as on the Hugging Face hub) and
    ``tokenizer`` to ``folder`` with ``save_pretrained``; fine-tuning it adds a new head."""
    from guiapp.core.models.transformers.sources.files import quiet_loading

    net = tiny_bert(len(tokenizer), max_positions=max_positions, seed=seed).bert
    folder = Path(folder)
    with quiet_loading():  # no "Writing model shards" progress bar
        net.save_pretrained(str(folder))  # config.json + model.safetensors
        tokenizer.save_pretrained(str(folder))
    return folder
