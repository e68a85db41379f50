"""Integrated gradients of a part's probabilities, for the parts of a combined model that have
gradients: a logistic regression on sentence embeddings, and a fine-tuned Transformer.

A combined model reads its parts' probabilities, so what each word did to a part is wanted on
the probability scale, weighed per category by how much the combined probability depends on it
(the ``direction``, one number per category: :mod:`.combined_contributions`). The quantity
explained per document is therefore ``s(text) = Σ_c direction_c · p_c(text)``, and integrated
gradients (Sundararajan et al., 2017) share ``s(text) − s(blank text)`` among the words: the walk
goes from a text of padding pieces (special tokens kept) to the real text in the space of the
word-piece embeddings, as for a Transformer alone (:mod:`.transformer_attributions`).

- Sentence embeddings + logistic regression: the walk goes through the sentence model, its mean
  pooling (and normalisation) and the regression, exactly as :class:`SentenceEmbeddings` and
  scikit-learn compute them. The integral uses Gauss–Legendre nodes, which are exact for
  polynomials of degree ``2 · steps − 1`` along the path, so few steps suffice on these smooth
  paths; the paths of several documents share each pass of the model. The convergence delta
  (``|Σ scores − (s(text) − s(blank))|``) is kept per document.
- Fine-tuned Transformers: Captum's layer integrated gradients on the embedding table, with
  ``steps`` steps, one document at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from guiapp.core.events import EventCallback, Progress, ignore_events
from guiapp.core.explain.subword_words import PieceAlignment, _word_shares
from guiapp.core.explain.words import WordSpan, split_words
from guiapp.core.predict.trained_model import ConventionalModel, TrainedModel, TransformerModel

SENTENCE_EMBEDDING_STEPS = 8
# Path points × pieces per pass through the sentence model (benchmarks/bench_explain.py): on a 2-core CPU
# larger passes gained nothing; a GPU takes far more at once.
CPU_PIECES_PER_PASS = 4096
GPU_PIECES_PER_PASS = 65536


@dataclass
class GradientScores:
    """One document: each word's share of ``s(text) − s(blank text)``."""

    scores: np.ndarray
    special_tokens_score: float
    delta: float  # |Σ scores + special − (s(text) − s(blank))|
    unseen: list[tuple[int, int]] = field(default_factory=list)  # characters cut off (never read)
    details: dict[str, Any] = field(default_factory=dict)


def has_embedding_gradients(model: TrainedModel) -> bool:
    """Whether :func:`sentence_embedding_gradients` applies: a logistic regression on sentence
    embeddings whose tokenizer can say where its pieces come from."""
    from sklearn.linear_model import LogisticRegression

    from guiapp.core.features.sentence_embeddings import SentenceEmbeddings

    if not isinstance(model, ConventionalModel) or not isinstance(model.representation, SentenceEmbeddings):
        return False
    return isinstance(model.classifier, LogisticRegression)


def _sentence_model(model: ConventionalModel) -> tuple[Any, Any, int]:
    from guiapp.core.features.sentence_embeddings import load_model, resolve_model

    representation = model.representation
    tokenizer, net = load_model(resolve_model(representation.model)[0])
    limit = getattr(tokenizer, "model_max_length", None) or representation.max_length
    max_length = min(representation.max_length, limit) if limit < 1_000_000 else representation.max_length
    return tokenizer, net, int(max_length)


def gauss_legendre(steps: int) -> tuple[np.ndarray, np.ndarray]:
    """Points in (0, 1) along the path and their weights (summing to 1)."""
    if steps < 1:
        raise ValueError("integrated gradients need at least 1 step")
    nodes, weights = np.polynomial.legendre.leggauss(steps)
    return (nodes + 1.0) / 2.0, weights / 2.0


@dataclass
class _Encoded:
    ids: list[int]
    special: list[bool]
    shares: list[list[tuple[int, float]]]
    words: list[WordSpan]
    unseen: list[tuple[int, int]]


def _encode(tokenizer: Any, text: str, max_length: int) -> _Encoded:
    encoded = tokenizer(text, truncation=True, max_length=max_length, return_offsets_mapping=True,
                        return_special_tokens_mask=True)
    words = split_words(text)
    starts = [word.start for word in words]
    special = [bool(flag) for flag in encoded["special_tokens_mask"]]
    offsets = [(int(a), int(b)) for a, b in encoded["offset_mapping"]]
    shares = [[] if is_special else _word_shares(words, starts, a, b)
              for (a, b), is_special in zip(offsets, special, strict=True)]
    read_to = max((b for (_, b), is_special in zip(offsets, special, strict=True) if not is_special), default=0)
    cut = [word for word in words if word.start >= read_to] if words else []
    unseen = [(cut[0].start, len(text))] if cut and read_to > 0 else []
    return _Encoded(list(encoded["input_ids"]), special, shares, words, unseen)


def sentence_embedding_gradients(
    model: ConventionalModel,
    texts: Sequence[str],
    directions: np.ndarray,
    probabilities: np.ndarray,
    *,
    steps: int = SENTENCE_EMBEDDING_STEPS,
    on_event: EventCallback = ignore_events,
) -> list[GradientScores]:
    """Integrated gradients of ``Σ_c directions[d, c] · p_c`` for every text ``d`` of a logistic
    regression on sentence embeddings (``probabilities``: the model's own, for the deltas)."""
    import torch

    tokenizer, net, max_length = _sentence_model(model)
    if not getattr(tokenizer, "is_fast", False):
        raise ValueError("the sentence model's tokenizer cannot trace its pieces back to words")
    alphas, weights = gauss_legendre(steps)
    device = next(net.parameters()).device
    budget = GPU_PIECES_PER_PASS if device.type == "cuda" else CPU_PIECES_PER_PASS
    encoded = [_encode(tokenizer, text, max_length) for text in texts]
    order = sorted(range(len(texts)), key=lambda d: -len(encoded[d].ids))
    groups, group = [], []
    for document in order:  # longest first: each pass holds documents of about the same length
        longest = len(encoded[group[0]].ids) if group else len(encoded[document].ids)
        if group and (len(group) + 1) * steps * longest > budget:
            groups.append(group)
            group = []
        group.append(document)
    if group:
        groups.append(group)
    classifier = model.classifier
    classes = np.asarray(classifier.textlab_classes_, dtype=int)
    coef = torch.as_tensor(np.asarray(classifier.coef_, dtype=np.float64), device=device)
    intercept = torch.as_tensor(np.asarray(classifier.intercept_, dtype=np.float64), device=device)
    pad_id = getattr(tokenizer, "pad_token_id", None) or 0
    out: list[GradientScores | None] = [None] * len(texts)
    total, done = len(texts), 0
    on_event(Progress(0.0, f"Integrated gradients: 0 of {total:,} documents", 0, total))
    for group in groups:
        group_scores = _pass(net, [encoded[d] for d in group], directions[group][:, classes], alphas, weights,
                             pad_id, coef, intercept, model.representation.normalize, device)
        for document, (piece_scores, blank_value) in zip(group, group_scores, strict=True):
            out[document] = _to_words(encoded[document], piece_scores,
                                      float(directions[document] @ probabilities[document]) - blank_value, steps)
        done += len(group)
        on_event(Progress(done / total, f"Integrated gradients: {done:,} of {total:,} documents", done, total))
    return [scores for scores in out if scores is not None]


def _pass(net: Any, documents: list[_Encoded], directions: np.ndarray, alphas: np.ndarray, weights: np.ndarray,
          pad_id: int, coef: Any, intercept: Any, normalize: bool, device: Any) -> list[tuple[np.ndarray, float]]:
    """One pass through the sentence model for the paths of ``documents`` (and their blank texts):
    per document, the integrated gradients per piece and ``s(blank text)``."""
    import torch

    longest = max(len(document.ids) for document in documents)
    ids = torch.full((len(documents), longest), pad_id, dtype=torch.long, device=device)
    blank = ids.clone()
    mask = torch.zeros((len(documents), longest), dtype=torch.long, device=device)
    for row, document in enumerate(documents):
        n = len(document.ids)
        ids[row, :n] = torch.as_tensor(document.ids)
        blank[row, :n] = torch.as_tensor([t if s else pad_id for t, s in zip(document.ids, document.special,
                                                                              strict=True)])
        mask[row, :n] = 1
    embeddings = net.get_input_embeddings()
    n_points = len(alphas)
    direction = torch.as_tensor(directions, dtype=torch.float64, device=device)
    with torch.inference_mode(False), torch.enable_grad():
        with torch.no_grad():
            text, start = embeddings(ids).float(), embeddings(blank).float()
            blank_values = _value(_probabilities(net, start, mask, coef, intercept, normalize), direction)
        alpha = torch.as_tensor(alphas, dtype=text.dtype, device=device).view(1, -1, 1, 1)
        path = (start.unsqueeze(1) + alpha * (text - start).unsqueeze(1)).reshape(-1, longest, text.shape[-1])
        path = path.detach().requires_grad_(True)
        probabilities = _probabilities(net, path, mask.repeat_interleave(n_points, dim=0), coef, intercept, normalize)
        value = _value(probabilities, direction.repeat_interleave(n_points, dim=0))
        point_weights = torch.as_tensor(weights, dtype=torch.float64, device=device).repeat(len(documents))
        (gradient,) = torch.autograd.grad((value * point_weights).sum(), path)
    gradient = gradient.reshape(len(documents), n_points, longest, -1).sum(dim=1)
    piece_scores = (gradient * (text - start)).sum(dim=-1).double().cpu().numpy()
    blank_values = blank_values.cpu().numpy()
    return [(piece_scores[row, :len(document.ids)], float(blank_values[row])) for row, document in enumerate(documents)]


def _probabilities(net: Any, inputs: Any, mask: Any, coef: Any, intercept: Any, normalize: bool) -> Any:
    """The regression's probabilities (in its classes' order) for word-piece embeddings ``inputs``:
    the sentence model, mean pooling over the pieces, normalisation, then the regression."""
    import torch

    hidden = net(inputs_embeds=inputs, attention_mask=mask).last_hidden_state
    weight = mask.unsqueeze(-1).to(hidden.dtype)
    pooled = (hidden * weight).sum(dim=1) / weight.sum(dim=1).clamp(min=1e-9)
    if normalize:
        pooled = torch.nn.functional.normalize(pooled, p=2, dim=1)
    scores = pooled.double() @ coef.T + intercept
    if scores.shape[1] == 1:  # two categories: one score, toward the second
        second = torch.sigmoid(scores[:, 0])
        return torch.stack([1.0 - second, second], dim=1)
    return torch.softmax(scores, dim=1)


def _value(probabilities: Any, direction: Any) -> Any:
    return (probabilities * direction).sum(dim=1)


def _to_words(document: _Encoded, piece_scores: np.ndarray, expected: float, steps: int) -> GradientScores:
    scores = np.zeros(len(document.words), dtype=np.float64)
    special = 0.0
    for score, is_special, shares in zip(piece_scores, document.special, document.shares, strict=True):
        if is_special or not shares:
            special += float(score)
        for word, share in shares:
            scores[word] += share * float(score)
    delta = abs(float(scores.sum()) + special - expected)
    return GradientScores(scores, special, delta, document.unseen,
                          {"steps": steps, "n_pieces": len(document.ids), "rule": "Gauss-Legendre"})


def transformer_gradients(
    model: TransformerModel,
    texts: Sequence[str],
    directions: np.ndarray,
    *,
    steps: int,
    on_event: EventCallback = ignore_events,
) -> list[GradientScores]:
    """Integrated gradients of ``Σ_c directions[d, c] · softmax(logits)_c`` for every text of a
    fine-tuned Transformer (read as at prediction: long texts cut the same way)."""
    import torch
    from captum.attr import LayerIntegratedGradients

    from guiapp.core.explain.subword_words import align_for_model
    from guiapp.core.explain.transformer_attributions import _blank_baseline, _default_batch, _pad_id, _word_embeddings

    net = model.fine_tuned.model
    device = next(net.parameters()).device
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
            baseline = _blank_baseline(alignment, _pad_id(model.fine_tuned.tokenizer), device)
            mask = torch.ones_like(inputs)
            direction = torch.as_tensor(directions[number], dtype=torch.float32, device=device)

            def value(input_ids: Any, attention_mask: Any, direction: Any = direction) -> Any:
                logits = net(input_ids=input_ids, attention_mask=attention_mask).logits.float()
                return (torch.softmax(logits, dim=-1) * direction).sum(dim=-1)

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


__all__ = ["SENTENCE_EMBEDDING_STEPS", "GradientScores", "gauss_legendre", "has_embedding_gradients",
           "sentence_embedding_gradients", "transformer_gradients"]
