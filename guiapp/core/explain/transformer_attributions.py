"""Integrated gradients for a fine-tuned Transformer: how much each word moved one category's score.

Integrated gradients (Sundararajan et al., 2017) walk in ``steps`` small steps from a baseline
text to the real one and add up, per input, how much the model's score changed along the way.
Here the walk is in the space of the word embeddings only (Captum's
:class:`~captum.attr.LayerIntegratedGradients` on the embedding table's output): positions,
segments and the attention mask stay those of the real text, so the model reads a text of the
same length in which the words fade in. The baseline keeps the special tokens ([CLS], [SEP])
and replaces every other piece by the padding token — "a text of blanks".

The score is the category's logit (before softmax), so the attributions add up to
f(text) − f(baseline) up to Captum's convergence delta (completeness); probabilities would
bend that sum through the softmax. Piece attributions are summed over the embedding dimension
and then over the pieces of each word (:mod:`guiapp.core.explain.subword_words`); what the
special tokens carry is kept in ``details`` so that nothing is lost (with this baseline it is 0:
their embeddings are the same in both texts, so the walk never moves them).

Where a text can have several categories, each category has its own sigmoid output: its logit is
the log-odds of that category alone, its probability the sigmoid of it (not a softmax over the
categories), and without a category asked for the first category the model gives the text (at its
threshold) is explained, else the most probable one.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from guiapp.core.events import EventCallback, Progress, ignore_events
from guiapp.core.explain.attribution import INTEGRATED_GRADIENTS, Attribution
from guiapp.core.explain.subword_words import PieceAlignment, align_for_model
from guiapp.core.models.transformers.training.batches import pad_id
from guiapp.core.predict.trained_model import TransformerModel

DEFAULT_STEPS = 50
# Pieces × steps per forward/backward pass. On a 2-core CPU (benchmarks/bench_explain.py, 128 pieces)
# batches of 5 to 25 texts ran alike and 50 ran slower, and memory grows with the batch; a GPU wants more.
CPU_TOKENS_PER_BATCH = 128 * 25
GPU_TOKENS_PER_BATCH = 512 * 50


def explain_transformer(
    model: TransformerModel,
    text: str,
    target: int | None = None,
    *,
    steps: int = DEFAULT_STEPS,
    internal_batch_size: int | None = None,
    on_event: EventCallback = ignore_events,
) -> Attribution:
    """Integrated gradients of ``model``'s score for category ``target`` (default: the category it
    predicts) over the words of ``text``, read as at prediction (long texts cut the same way).

    ``internal_batch_size`` is how many of the ``steps`` interpolated texts go through the model
    at once (default: as many as fit a token budget for the device). ``on_event`` hears a
    :class:`Progress` per batch and may raise ``Cancelled``.
    """
    from captum.attr import LayerIntegratedGradients

    if steps < 1:
        raise ValueError("integrated gradients need at least 1 step")
    net = model.fine_tuned.model
    device = next(net.parameters()).device
    alignment = align_for_model(model, text)
    inputs = torch.tensor([alignment.input_ids], dtype=torch.long, device=device)
    baseline = _blank_baseline(alignment, pad_id(model.fine_tuned.tokenizer), device)
    mask = torch.ones_like(inputs)
    batch = internal_batch_size or _default_batch(len(alignment.input_ids), steps, device)
    n_batches = math.ceil(steps / batch)
    was_training = net.training
    net.eval()
    try:
        with torch.inference_mode():
            logits = net(input_ids=torch.cat([inputs, baseline]), attention_mask=mask.expand(2, -1)).logits.float()
        several = bool(getattr(model, "multi_label", False))
        chances = torch.sigmoid(logits[0]) if several else torch.softmax(logits[0], dim=-1)
        chosen = _default_category(model, chances.cpu().numpy(), several) if target is None else int(target)
        if not 0 <= chosen < logits.shape[1]:
            raise ValueError(f"category index {chosen} outside 0 … {logits.shape[1] - 1}")
        probability = float(chances[chosen])
        on_event(Progress(0.0, f"Integrated gradients: 0 of {n_batches} passes", 0, n_batches))
        passes = [0]

        def score(input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            out = net(input_ids=input_ids, attention_mask=attention_mask).logits.float()
            if torch.is_grad_enabled():  # a pass along the path; Captum's own checks run without gradients
                passes[0] = min(n_batches, passes[0] + 1)
                on_event(Progress(passes[0] / n_batches, f"Integrated gradients: {passes[0]} of {n_batches} passes",
                                  passes[0], n_batches))
            return out

        with torch.inference_mode(False), torch.enable_grad():
            explainer = LayerIntegratedGradients(score, _word_embeddings(net))
            attributions, delta = explainer.attribute(
                inputs, baselines=baseline, target=chosen, additional_forward_args=(mask,), n_steps=steps,
                internal_batch_size=batch, return_convergence_delta=True,
            )
    finally:
        net.train(was_training)
    piece_scores = attributions.detach().sum(dim=-1)[0].double().cpu().numpy()
    word_scores, special_score, unplaced = alignment.word_scores(piece_scores)
    category = model.categories[chosen]
    details: dict[str, Any] = {
        "steps": steps, "internal_batch_size": batch, "baseline": "padding tokens, special tokens kept",
        "score": "log-odds of the category alone" if several else "logit",
        "special_tokens_score": special_score, "f_text": float(logits[0, chosen]),
        "n_pieces": len(alignment.input_ids), "unseen_words": len(alignment.words_unseen()),
    }
    if unplaced:
        details["unplaced_score"] = unplaced
    return Attribution(
        model=model.name, method=INTEGRATED_GRADIENTS, method_sentence=method_sentence(category, several),
        target=chosen, target_name=category, words=alignment.words, scores=[float(s) for s in word_scores],
        probability=probability, scale="logit", base_value=float(logits[1, chosen]),
        delta=float(delta.abs().max()), unseen=list(alignment.unseen), details=details,
    )


def method_sentence(category: str, own_chance: bool = False) -> str:
    """What the colours mean, in one plain sentence; ``own_chance``: the category has its own
    sigmoid output (a text can have several categories)."""
    if own_chance:
        return (f"Colours show integrated gradients: how much each word moved the model's own score for "
                f"“{category}”, which sets the chance of this category alone, up (red) or down (blue), compared "
                "with a text of blanks.")
    return (f"Colours show integrated gradients: how much each word moved the model's score for “{category}” "
            "up (red) or down (blue), compared with a text of blanks.")


def _default_category(model: TransformerModel, chances: Any, several: bool) -> int:
    """The category explained when none is asked for: the predicted one; where a text can have
    several, the first at or above its threshold, else the most probable."""
    import numpy as np

    from guiapp.core.explain.category_choice import default_target

    chances = np.asarray(chances, dtype=np.float64)
    if not several:
        return int(chances.argmax())
    return default_target((chances >= model.thresholds).astype(np.uint8), chances)


def _blank_baseline(alignment: PieceAlignment, pad_id: int, device: torch.device) -> torch.Tensor:
    """The same pieces with every one from the text replaced by padding; special tokens stay."""
    ids = [token if special else pad_id for token, special in zip(alignment.input_ids, alignment.special, strict=True)]
    return torch.tensor([ids], dtype=torch.long, device=device)


def _word_embeddings(net: Any) -> torch.nn.Module:
    """The token-embedding table (not positions or segments), whose output the walk varies."""
    layer = net.get_input_embeddings() if hasattr(net, "get_input_embeddings") else None
    if layer is None:
        base = getattr(net, getattr(net, "base_model_prefix", ""), net)
        layer = base.embeddings.word_embeddings
    return layer


def _default_batch(n_pieces: int, steps: int, device: torch.device) -> int:
    budget = GPU_TOKENS_PER_BATCH if device.type == "cuda" else CPU_TOKENS_PER_BATCH
    return max(1, min(steps, budget // max(1, n_pieces)))



__all__ = ["DEFAULT_STEPS", "explain_transformer", "method_sentence"]
