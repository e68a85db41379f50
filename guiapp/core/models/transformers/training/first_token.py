"""The last layer computes only the first token: what a classifier reads, and nothing more.

A sequence classifier of the BERT family reads one vector: the output of the first token
([CLS] or <s>) after the last layer. The last layer still needs every token's keys and values (the
first token attends to all of them), but its queries, attention output, feed-forward block and
layer norms are needed for the first token only: the rest of that layer — about a sixth of all
the work of a 6-layer model — is thrown away unread. :func:`first_token_only` swaps the last
layer for one that computes the first token's output alone, with the same weights and the same
dropout; it gives the same logits and gradients (to floating-point rounding) and puts the
original layer back when the block ends, so the model saves, explains and predicts as before.

Only model classes whose head is known to read the first token alone are changed; any other
model, or a call asking for attention weights or hidden states, runs as usual.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

# Heads that read only the first token's last hidden state (pooler or classification head).
FIRST_TOKEN_HEADS = frozenset({
    "BertForSequenceClassification", "RobertaForSequenceClassification",
    "XLMRobertaForSequenceClassification", "CamembertForSequenceClassification",
    "ElectraForSequenceClassification",
})


def _returns_tuple() -> bool:
    """Layers of transformers 4 return a tuple; those of transformers 5 a tensor."""
    import transformers

    return int(transformers.__version__.split(".")[0]) < 5


class FirstTokenLayer(nn.Module):
    """A BERT-style encoder layer that returns the first token's output only (shape (b, 1, h))."""

    def __init__(self, layer: nn.Module) -> None:
        super().__init__()
        self.inner = layer
        self.as_tuple = _returns_tuple()
        self.train(layer.training)

    def forward(self, hidden_states: torch.Tensor, attention_mask: torch.Tensor | None = None,
                *args: Any, **kwargs: Any) -> Any:
        mask = _first_query_mask(attention_mask)
        if any(a is not None and a is not False for a in args) or kwargs.get("output_attentions") \
                or kwargs.get("head_mask") is not None or mask is False:
            return self.inner(hidden_states, attention_mask, *args, **kwargs)  # what only the full layer can do
        layer = self.inner
        attention = layer.attention.self
        batch, length, _ = hidden_states.shape
        heads, size = attention.num_attention_heads, attention.attention_head_size
        first = hidden_states[:, :1]
        query = attention.query(first).view(batch, 1, heads, size).transpose(1, 2)
        key = attention.key(hidden_states).view(batch, length, heads, size).transpose(1, 2)
        value = attention.value(hidden_states).view(batch, length, heads, size).transpose(1, 2)
        if mask is not None and mask.is_floating_point() and mask.dtype != query.dtype:
            mask = mask.to(query.dtype)
        context = F.scaled_dot_product_attention(
            query, key, value, attn_mask=mask, dropout_p=attention.dropout.p if self.training else 0.0,
            scale=size ** -0.5)
        context = context.transpose(1, 2).reshape(batch, 1, heads * size)
        attended = layer.attention.output(context, first)
        out = layer.output(layer.intermediate(attended), attended)
        return (out,) if self.as_tuple else out


def _first_query_mask(mask: torch.Tensor | None) -> torch.Tensor | None | bool:
    """The attention mask of the first query, shaped (b, 1 or heads, 1, length); False if its
    form is unknown (then the full layer runs)."""
    if mask is None:
        return None
    if mask.dim() == 2:  # (b, length), 1 for real tokens
        return mask[:, None, None, :].bool()
    if mask.dim() == 4:  # (b, 1 or heads, queries or 1, length): boolean or added to the scores
        return mask[:, :, :1, :]
    return False


def supports_first_token(model: nn.Module) -> bool:
    """Whether ``model`` is a classifier whose last layer can be limited to the first token."""
    if type(model).__name__ not in FIRST_TOKEN_HEADS:
        return False
    config = getattr(model, "config", None)
    if config is None or getattr(config, "is_decoder", False) or getattr(config, "add_cross_attention", False):
        return False
    if getattr(config, "position_embedding_type", "absolute") not in (None, "absolute"):
        return False  # relative positions enter the attention scores
    layers = _layers(model)
    if not layers:
        return False
    last = layers[-1]
    try:
        attention = last.attention.self
        parts = (attention.query, attention.key, attention.value, attention.dropout,
                 last.attention.output, last.intermediate, last.output)
        int(attention.num_attention_heads) * int(attention.attention_head_size)
    except (AttributeError, TypeError, ValueError):
        return False
    return all(isinstance(part, nn.Module) for part in parts)


def _layers(model: nn.Module) -> nn.ModuleList | None:
    encoder = getattr(getattr(model, "base_model", None), "encoder", None)
    layers = getattr(encoder, "layer", None)
    return layers if isinstance(layers, nn.ModuleList) and len(layers) > 0 else None


@contextmanager
def first_token_only(model: nn.Module, enabled: bool = True) -> Iterator[bool]:
    """Within the block, ``model``'s last layer computes the first token only (where the model
    allows it: the block yields whether it does). The original layer is back afterwards."""
    if not enabled or not supports_first_token(model):
        yield False
        return
    layers = _layers(model)
    assert layers is not None
    original = layers[-1]
    layers[-1] = FirstTokenLayer(original)
    try:
        yield True
    finally:
        layers[-1] = original


__all__ = ["FIRST_TOKEN_HEADS", "FirstTokenLayer", "first_token_only", "supports_first_token"]
