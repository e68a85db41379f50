"""Exact word shares in a linear model's scores on sentence embeddings.

A sentence embedding is the mean of the sentence model's final states over the pieces of the
text (special tokens included), divided by its length when normalised
(:class:`~guiapp.core.features.sentence_embeddings.SentenceEmbeddings`):
``e = m / ‖m‖`` with ``m = (1/n) Σ_t h_t``. A logistic regression's scores are linear in ``e``,
so for each category ``score = Σ_t (w · h_t) / (n ‖m‖) + b``: every piece's final state has an
exact share, and a word's share is the sum over its pieces — the same arithmetic as for averaged
word vectors (:mod:`.linear_contributions`), with one difference worth saying: a piece's final
state is computed from the whole text, so a word's share also carries what its neighbours put
into it. The special tokens ([CLS], [SEP]) have shares too; they are kept apart.

One pass of the sentence model per document (documents of similar length share a pass), the
cost of predicting them once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from guiapp.core.events import EventCallback, Progress, ignore_events
from guiapp.core.explain.subword_words import _word_shares
from guiapp.core.explain.words import WordSpan, split_words
from guiapp.core.predict.trained_model import ConventionalModel, TrainedModel

# Pieces per pass through the sentence model (benchmarks/bench_explain.py); a GPU takes far more at once.
CPU_PIECES_PER_PASS = 2048
GPU_PIECES_PER_PASS = 65536


@dataclass
class PieceShares:
    """One document: each word's share in each of the classifier's scores, and what is left."""

    words: np.ndarray  # (words, scores)
    special: np.ndarray  # (scores,): the special tokens' shares
    unseen: list[tuple[int, int]] = field(default_factory=list)  # characters cut off (never read)
    n_pieces: int = 0


def has_sentence_contributions(model: TrainedModel) -> bool:
    """Whether :func:`sentence_contributions` applies: a logistic regression on sentence embeddings
    (one per category, where a text can have several)."""
    from sklearn.linear_model import LogisticRegression

    from guiapp.core.explain.category_parts import representative
    from guiapp.core.features.sentence_embeddings import SentenceEmbeddings

    return (isinstance(model, ConventionalModel) and isinstance(model.representation, SentenceEmbeddings)
            and isinstance(representative(model.classifier), LogisticRegression))


def _score_rows(classifier) -> np.ndarray:  # noqa: ANN001 - a fitted logistic regression, or one per category
    """The regression's coefficients, one row per score; one regression per category: per category
    its coefficients toward "yes" (zeros for a category it learnt nothing for)."""
    from guiapp.core.explain.category_parts import is_one_per_category, yes_no_parts

    if not is_one_per_category(classifier):
        return np.asarray(classifier.coef_, dtype=np.float64)
    rows = {category: (1.0 if position == 1 else -1.0) * np.asarray(part.coef_[0], dtype=np.float64)
            for category, part, position in yes_no_parts(classifier)}
    width = len(next(iter(rows.values()))) if rows else 0
    return np.vstack([rows.get(category, np.zeros(width)) for category in range(classifier.n_categories)])


@dataclass
class _Encoded:
    ids: list[int]
    special: list[bool]
    shares: list[list[tuple[int, float]]]
    words: list[WordSpan]
    unseen: list[tuple[int, int]]


def _encode(tokenizer: Any, text: str, max_length: int) -> _Encoded:
    """The pieces the sentence model reads for ``text`` (cut as at prediction), tied to its words."""
    encoded = tokenizer(text, truncation=True, max_length=max_length, return_offsets_mapping=True,
                        return_special_tokens_mask=True)
    words = split_words(text)
    starts = [word.start for word in words]
    special = [bool(flag) for flag in encoded["special_tokens_mask"]]
    offsets = [(int(a), int(b)) for a, b in encoded["offset_mapping"]]
    shares = [[] if is_special else _word_shares(words, starts, a, b)
              for (a, b), is_special in zip(offsets, special, strict=True)]
    read_to = max((b for (_, b), is_special in zip(offsets, special, strict=True) if not is_special), default=0)
    cut = [word for word in words if word.start >= read_to]
    unseen = [(cut[0].start, len(text))] if cut and read_to > 0 else []
    return _Encoded(list(encoded["input_ids"]), special, shares, words, unseen)


def _sentence_model(model: ConventionalModel) -> tuple[Any, Any, int]:
    from guiapp.core.features.sentence_embeddings import load_model, resolve_model

    representation = model.representation
    tokenizer, net = load_model(resolve_model(representation.model)[0])
    limit = getattr(tokenizer, "model_max_length", None) or representation.max_length
    max_length = min(representation.max_length, limit) if limit < 1_000_000 else representation.max_length
    if not getattr(tokenizer, "is_fast", False):
        raise ValueError("the sentence model's tokenizer cannot trace its pieces back to words")
    return tokenizer, net, int(max_length)


def sentence_contributions(model: ConventionalModel, texts: Sequence[str], *,
                           on_event: EventCallback = ignore_events) -> list[PieceShares]:
    """Each word's exact share in each of the regression's scores (without the intercept), per text."""
    import torch

    tokenizer, net, max_length = _sentence_model(model)
    device = next(net.parameters()).device
    budget = GPU_PIECES_PER_PASS if device.type == "cuda" else CPU_PIECES_PER_PASS
    encoded = [_encode(tokenizer, text, max_length) for text in texts]
    coef = _score_rows(model.classifier)
    pad_id = getattr(tokenizer, "pad_token_id", None) or 0
    out: list[PieceShares | None] = [None] * len(texts)
    groups = _groups([len(document.ids) for document in encoded], budget)
    total, done = len(texts), 0
    on_event(Progress(0.0, f"Reading the sentence model: 0 of {total:,} documents", 0, total))
    with torch.inference_mode():
        for group in groups:
            longest = max(len(encoded[d].ids) for d in group)
            ids = torch.full((len(group), longest), pad_id, dtype=torch.long)
            mask = torch.zeros((len(group), longest), dtype=torch.long)
            for row, document in enumerate(group):
                ids[row, :len(encoded[document].ids)] = torch.as_tensor(encoded[document].ids)
                mask[row, :len(encoded[document].ids)] = 1
            hidden = net(input_ids=ids.to(device), attention_mask=mask.to(device)).last_hidden_state
            hidden = hidden.double().cpu().numpy()
            for row, document in enumerate(group):
                out[document] = _shares(encoded[document], hidden[row, :len(encoded[document].ids)], coef,
                                        model.representation.normalize)
            done += len(group)
            on_event(Progress(done / total, f"Reading the sentence model: {done:,} of {total:,} documents", done,
                              total))
    return [shares for shares in out if shares is not None]


def _groups(lengths: list[int], budget: int) -> list[list[int]]:
    """Documents in passes of about ``budget`` pieces, longest first (little padding)."""
    groups: list[list[int]] = []
    group: list[int] = []
    for document in sorted(range(len(lengths)), key=lambda d: -lengths[d]):
        if group and (len(group) + 1) * lengths[group[0]] > budget:
            groups.append(group)
            group = []
        group.append(document)
    if group:
        groups.append(group)
    return groups


def _shares(document: _Encoded, hidden: np.ndarray, coef: np.ndarray, normalize: bool) -> PieceShares:
    mean = hidden.mean(axis=0)
    scale = len(hidden) * (max(float(np.linalg.norm(mean)), 1e-12) if normalize else 1.0)
    pieces = hidden @ coef.T / scale  # (pieces, scores)
    words = np.zeros((len(document.words), coef.shape[0]))
    special = np.zeros(coef.shape[0])
    for piece, is_special, shares in zip(pieces, document.special, document.shares, strict=True):
        if is_special or not shares:
            special += piece
        for word, share in shares:
            words[word] += share * piece
    return PieceShares(words, special, document.unseen, len(document.ids))
