"""Integrated gradients of a fine-tuned Transformer's probabilities, for a Transformer that is a
part of a combined model.

A combined model reads its parts' probabilities, so what each word did to a part is wanted on
the probability scale, weighed per category by how much the combined probability depends on it
(the ``direction``, one number per category: :mod:`.combined_contributions`). The quantity
explained per document is therefore ``s(text) = Σ_c direction_c · softmax(logits(text))_c``, and
integrated gradients (Sundararajan et al., 2017) share ``s(text) − s(blank text)`` among the
words, exactly as for a Transformer alone (:mod:`.transformer_attributions`: Captum's layer
integrated gradients on the embedding table, from a text of padding pieces with the special
tokens kept, ``steps`` steps), one document at a time. The convergence delta is kept. Where a
text can have several categories, the part's probabilities are each category's own sigmoid
(``Σ_c direction_c · sigmoid(logits)_c``), not a softmax.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from guiapp.core.events import EventCallback, Progress, ignore_events
from guiapp.core.explain.subword_words import PieceAlignment
from guiapp.core.predict.trained_model import TransformerModel


@dataclass
class GradientScores:
    """One document: each word's share of ``s(text) − s(blank text)``."""

    scores: np.ndarray
    special_tokens_score: float
    delta: float  # |Σ scores + special − (s(text) − s(blank))|
    unseen: list[tuple[int, int]] = field(default_factory=list)  # characters cut off (never read)
    details: dict[str, Any] = field(default_factory=dict)


def transformer_gradients(
    model: TransformerModel,
    texts: Sequence[str],
    directions: np.ndarray,
    *,
    steps: int,
    on_event: EventCallback = ignore_events,
) -> list[GradientScores]:
    """Integrated gradients of ``Σ_c directions[d, c] · softmax(logits)_c`` (several categories per
    text: ``sigmoid``) for every text of a fine-tuned Transformer (read as at prediction: long texts
    cut the same way)."""
    import torch
    from captum.attr import LayerIntegratedGradients

    from guiapp.core.explain.subword_words import align_for_model
    from guiapp.core.explain.transformer_attributions import _blank_baseline, _default_batch, _word_embeddings
    from guiapp.core.models.transformers.training.batches import pad_id

    net = model.fine_tuned.model
    device = next(net.parameters()).device
    several = bool(getattr(model, "multi_label", False))  # each category's own sigmoid
    out = []
    total = len(texts)
    was_training = net.training
    net.eval()
    try:
        for number, text in enumerate(texts):
            on_event(Progress(number / max(total, 1), f"Integrated gradients: {number:,} of {total:,} documents",
                              number, total))
            alignment: PieceAlignment = align_for_model(model, text)
            inputs = torch.tensor([alignment.input_ids], dtype=torch.long, device=device)
            baseline = _blank_baseline(alignment, pad_id(model.fine_tuned.tokenizer), device)
            mask = torch.ones_like(inputs)
            direction = torch.as_tensor(directions[number], dtype=torch.float32, device=device)

            def value(input_ids: Any, attention_mask: Any, direction: Any = direction) -> Any:
                logits = net(input_ids=input_ids, attention_mask=attention_mask).logits.float()
                chances = torch.sigmoid(logits) if several else torch.softmax(logits, dim=-1)
                return (chances * direction).sum(dim=-1)

            batch = _default_batch(len(alignment.input_ids), steps, device)
            with torch.inference_mode(False), torch.enable_grad():
                attributions, delta = LayerIntegratedGradients(value, _word_embeddings(net)).attribute(
                    inputs, baselines=baseline, additional_forward_args=(mask,), n_steps=steps,
                    internal_batch_size=batch, return_convergence_delta=True)
            piece_scores = attributions.detach().sum(dim=-1)[0].double().cpu().numpy()
            words, special, unplaced = alignment.word_scores(piece_scores)
            out.append(GradientScores(words, special + unplaced, float(delta.abs().max()), list(alignment.unseen),
                                      {"steps": steps, "n_pieces": len(alignment.input_ids),
                                       "internal_batch_size": batch, "rule": "Gauss-Legendre"}))
    finally:
        net.train(was_training)
    on_event(Progress(1.0, f"Integrated gradients: {total:,} of {total:,} documents", total, total))
    return out


__all__ = ["GradientScores", "transformer_gradients"]
