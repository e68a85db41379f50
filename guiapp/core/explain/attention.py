"""The attention of a fine-tuned Transformer for one text: every layer and head, and rolled out.

Fast attention kernels (PyTorch's SDPA, the default in transformers 5) never form the attention
matrix, so they cannot hand it out. For this one forward pass the model switches to the plain
("eager") implementation, which computes the same numbers and keeps the matrices, and switches
back afterwards whatever happens.

Rollout (Abnar & Zuidema, 2020) follows attention through the layers: per layer the heads are
averaged, the identity is added for the residual connection, rows are renormalised, and the
layers' matrices are multiplied from the first to the last. Row i of the result says how much
of token i's final representation traces back to each input token.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np
import torch

from guiapp.core.errors import UserError
from guiapp.core.explain.attention_maps import AttentionMaps
from guiapp.core.explain.subword_words import align_for_model
from guiapp.core.predict.trained_model import TransformerModel

EAGER = "eager"


def attention_maps(model: TransformerModel, text: str) -> AttentionMaps:
    """All layers' and heads' attention of ``model`` for ``text`` as the model reads it (long texts
    cut as at prediction), with the pieces as labels, their words and the rollout."""
    net = model.fine_tuned.model
    alignment = align_for_model(model, text)
    device = next(net.parameters()).device
    inputs = torch.tensor([alignment.input_ids], dtype=torch.long, device=device)
    was_training = net.training
    net.eval()
    try:
        with _eager_attention(net), torch.inference_mode():
            output = net(input_ids=inputs, attention_mask=torch.ones_like(inputs), output_attentions=True)
    finally:
        net.train(was_training)
    layers = getattr(output, "attentions", None)
    if not layers:
        raise UserError(f"The model “{model.name}” does not show its attention.",
                        "Use the word colours (attributions) to see why it decided as it did.")
    attentions = torch.stack([layer[0].float() for layer in layers]).cpu().numpy().astype(np.float32)
    return AttentionMaps(
        model=model.name, tokens=list(alignment.tokens), word_index=list(alignment.word_index),
        attentions=attentions, rollout=attention_rollout(attentions), cut=alignment.cut,
    )


def attention_rollout(attentions: np.ndarray) -> np.ndarray:
    """Abnar & Zuidema's rollout of ``attentions`` (layers, heads, tokens, tokens): (tokens, tokens),
    rows summing to 1."""
    n_tokens = attentions.shape[-1]
    identity = np.eye(n_tokens, dtype=np.float64)
    rollout = identity
    for layer in attentions.astype(np.float64):
        mixed = layer.mean(axis=0) + identity  # heads averaged; the residual connection keeps the token itself
        mixed /= mixed.sum(axis=-1, keepdims=True)
        rollout = mixed @ rollout  # the later layer mixes what the earlier ones already mixed
    return rollout.astype(np.float32)


@contextlib.contextmanager
def _eager_attention(net: Any) -> Iterator[None]:
    """Run ``net`` with the attention implementation that returns its weights, then restore it."""
    config = getattr(net, "config", None)
    before = getattr(config, "_attn_implementation", None)
    switch = getattr(net, "set_attn_implementation", None)
    if before in (None, EAGER) or not callable(switch):
        yield
        return
    switch(EAGER)
    try:
        yield
    finally:
        switch(before)


__all__ = ["attention_maps", "attention_rollout"]
