"""Where a Transformer's attention goes for one text: per layer and head, and rolled out."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

ATTENTION_CAUTION = (
    "Attention shows where the model looked, not why it decided: a word can receive much "
    "attention and still change nothing. The word colours (attributions) answer the why."
)


@dataclass
class AttentionMaps:
    """The attention of one text. ``attentions[layer, head, i, j]``: how much token i attends to token j."""

    model: str
    tokens: list[str]  # the model's pieces as labels ("[CLS]", "tax", "##es", "[SEP]")
    word_index: list[int]  # per token, the index of its word (explain.words.split_words), -1 for special ones
    attentions: np.ndarray  # (layers, heads, tokens, tokens) float32, each row sums to 1
    rollout: np.ndarray  # (tokens, tokens): attention rolled out across all layers (Abnar & Zuidema, 2020)
    cut: bool = False  # the text was longer than the model reads; only the pieces it read are here

    @property
    def n_layers(self) -> int:
        return int(self.attentions.shape[0])

    @property
    def n_heads(self) -> int:
        return int(self.attentions.shape[1])
