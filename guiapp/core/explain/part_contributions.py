"""What each word did to one part of a combined model, on the scale of the part's probabilities.

A combined model reads its parts' probabilities. Per document it says, through a ``direction``
(one number per category), how much its own probability of the explained category changes with
each of the part's probabilities (:mod:`.combined_contributions`); a part's word scores are then
each word's push on ``Σ_c direction_c · p_c``, the part's probabilities weighed that way. Each
part is explained with the best method it allows:

- logistic regression and naive Bayes on a bag of words or word vectors, and logistic regression
  on sentence embeddings: the exact contributions of each word to every category's score
  (:mod:`.linear_contributions`, :mod:`.sentence_contributions`), turned into probability by the
  slope of the part's own softmax (or logistic) function at this text — first order;
- XGBoost on a bag of words: its exact tree contributions (SHAP) to every category's score, turned
  into probability the same way; words the text lacks count too (kept apart in ``details``);
- a fine-tuned Transformer: integrated gradients of the weighed probabilities themselves
  (:mod:`.probability_gradients`);
- every other part (SVMs, whose probabilities come from a calibration across pairwise contests,
  models on word vectors other than linear ones, …): the drop of its probabilities when the word
  is left out, for all documents in a few batched calls (:mod:`.batched_occlusion`).

Where a text can have several categories, a conventional part is one yes/no classifier per
category: category ``c``'s probability is ``σ(score_c)`` of its own classifier, so the slope of the
weighed probabilities in ``score_c`` is ``direction_c · p_c (1 − p_c)`` and each category's score has
its own row of weights (its classifier's, toward "yes").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from guiapp.core.events import EventCallback, ignore_events
from guiapp.core.explain.attribution import INTEGRATED_GRADIENTS, LINEAR_EXACT, OCCLUSION, TREE_SHAP
from guiapp.core.explain.batched_occlusion import leave_words_out
from guiapp.core.explain.category_parts import is_one_per_category, representative, yes_no_parts
from guiapp.core.explain.linear_contributions import base_classifier, is_linear, target_weights, vector_scores
from guiapp.core.explain.probability_gradients import transformer_gradients
from guiapp.core.explain.sentence_contributions import has_sentence_contributions, sentence_contributions
from guiapp.core.explain.term_spans import bow_term_occurrences, spread_terms
from guiapp.core.explain.tree_contributions import is_tree_on_words
from guiapp.core.explain.words import split_words
from guiapp.core.features.bow import BagOfWords
from guiapp.core.predict.trained_model import ConventionalModel, TrainedModel

FIRST_ORDER_METHODS = frozenset({LINEAR_EXACT, TREE_SHAP})


@dataclass
class PartScores:
    """One document, one part: each word's push on the part's weighed probabilities."""

    scores: np.ndarray
    details: dict[str, Any] = field(default_factory=dict)
    unseen: list[tuple[int, int]] = field(default_factory=list)


def part_method(part: TrainedModel) -> str:
    """How a part is explained inside a combined model (see the module docstring)."""
    from sklearn.svm import SVC

    if part.family == "transformer":
        return INTEGRATED_GRADIENTS
    if has_sentence_contributions(part):
        return LINEAR_EXACT
    if isinstance(part, ConventionalModel):
        if is_linear(part) and not isinstance(base_classifier(representative(part.classifier)), SVC):
            return LINEAR_EXACT
        if is_tree_on_words(part):
            return TREE_SHAP
    return OCCLUSION


def part_scores(
    part: TrainedModel,
    texts: Sequence[str],
    directions: np.ndarray,
    probabilities: np.ndarray,
    *,
    steps: int = 50,
    on_event: EventCallback = ignore_events,
) -> list[PartScores]:
    """Per text, each word's push on ``directions[d] · p(text)`` (``probabilities``: the part's own
    answers for the whole texts; ``steps``: integrated-gradient steps for a Transformer part)."""
    directions = np.asarray(directions, dtype=np.float64)
    probabilities = np.asarray(probabilities, dtype=np.float64)
    method = part_method(part)
    if method == OCCLUSION:
        found = leave_words_out(part, texts, probabilities, on_event=on_event)
        return [PartScores(result.drops() @ direction) for result, direction in zip(found, directions, strict=True)]
    if method == INTEGRATED_GRADIENTS:
        gradients = transformer_gradients(part, texts, directions, steps=steps, on_event=on_event)
        return [PartScores(found.scores, {"delta": found.delta, "special_tokens_score": found.special_tokens_score,
                                          **found.details}, found.unseen) for found in gradients]
    assert isinstance(part, ConventionalModel)
    slopes = [score_slopes(part, direction, row) for direction, row in zip(directions, probabilities, strict=True)]
    if has_sentence_contributions(part):
        shares = sentence_contributions(part, texts, on_event=on_event)
        return [PartScores(found.words @ slope, {"special_tokens_score": float(found.special @ slope),
                                                 "n_pieces": found.n_pieces}, found.unseen)
                for found, slope in zip(shares, slopes, strict=True)]
    if method == LINEAR_EXACT:
        return _linear_scores(part, texts, slopes)
    return _tree_scores(part, texts, slopes)


def score_slopes(part: ConventionalModel, direction: np.ndarray, probabilities: np.ndarray) -> np.ndarray:
    """How ``direction · p`` changes with each of the classifier's scores at this text.

    Two categories: one score, toward the second class, with ``p₂ = σ(score)``; more: one score per
    class with ``p = softmax(scores)``, so ``∂p_j/∂score_i = p_j (δ_ij − p_i)``. Naive Bayes keeps
    one joint log-probability per class even with two (its probabilities are their softmax).
    """
    from sklearn.naive_bayes import MultinomialNB

    if is_one_per_category(part.classifier):  # p_c = σ(score_c), each category on its own
        slopes = np.zeros(len(direction))
        for category, _, _ in yes_no_parts(part.classifier):
            p = float(probabilities[category])
            slopes[category] = float(direction[category]) * p * (1.0 - p)
        return slopes
    classes = np.asarray(part.classifier.textlab_classes_, dtype=int)
    p, g = probabilities[classes], direction[classes]
    softmax = p * (g - float(g @ p))  # ∂(g·p)/∂score_i for softmax scores
    if len(classes) == 2 and not isinstance(base_classifier(part.classifier), MultinomialNB):
        return np.array([p[0] * p[1] * (g[1] - g[0])])
    return softmax


def _score_weights(part: ConventionalModel) -> np.ndarray:
    """One row of feature weights per classifier score (what the scores are linear in); one
    classifier per category: per category its classifier's weights toward "yes" (zeros where it
    learnt none)."""
    from sklearn.naive_bayes import MultinomialNB

    if is_one_per_category(part.classifier):
        rows: dict[int, np.ndarray] = {category: target_weights(estimator, position)[0]
                                       for category, estimator, position in yes_no_parts(part.classifier)}
        width = len(next(iter(rows.values()))) if rows else 0
        return np.vstack([rows.get(category, np.zeros(width)) for category in range(part.classifier.n_categories)])
    classifier = base_classifier(part.classifier)
    if isinstance(classifier, MultinomialNB):
        return np.asarray(classifier.feature_log_prob_, dtype=np.float64)
    coef = classifier.coef_
    return coef.toarray() if sp.issparse(coef) else np.asarray(coef, dtype=np.float64)


def _linear_scores(part: ConventionalModel, texts: Sequence[str], slopes: list[np.ndarray]) -> list[PartScores]:
    representation = part.representation
    weights = _score_weights(part)
    out = []
    if isinstance(representation, BagOfWords):
        features = sp.csr_matrix(representation.transform(list(texts)))
        terms = representation.feature_names()
        for row, (text, slope) in enumerate(zip(texts, slopes, strict=True)):
            spans = split_words(text)
            effective = slope @ weights
            start, end = features.indptr[row], features.indptr[row + 1]
            values = {terms[j]: float(effective[j] * value)
                      for j, value in zip(features.indices[start:end], features.data[start:end], strict=True)}
            scores, unplaced = spread_terms(values, bow_term_occurrences(representation, text, spans), len(spans))
            out.append(PartScores(scores, {"unplaced_score": unplaced} if unplaced else {}))
        return out
    for text, slope in zip(texts, slopes, strict=True):
        out.append(PartScores(vector_scores(representation, split_words(text), slope @ weights)))
    return out


def _tree_scores(part: ConventionalModel, texts: Sequence[str], slopes: list[np.ndarray]) -> list[PartScores]:
    import xgboost

    representation = part.representation
    features = sp.csr_matrix(representation.transform(list(texts)), dtype=np.float32)
    matrix = xgboost.DMatrix(features, missing=np.nan)
    if is_one_per_category(part.classifier):  # per category its own trees, their score toward "yes"
        contributions = np.zeros((features.shape[0], part.classifier.n_categories, features.shape[1] + 1))
        for category, estimator, position in yes_no_parts(part.classifier):
            found = np.asarray(estimator.get_booster().predict(matrix, pred_contribs=True), dtype=np.float64)
            contributions[:, category, :] = found if position == 1 else -found
    else:
        booster = part.classifier.get_booster()
        contributions = np.asarray(booster.predict(matrix, pred_contribs=True), dtype=np.float64)
    if contributions.ndim == 2:  # two categories: one score, toward the second
        contributions = contributions[:, None, :]
    terms = representation.feature_names()
    out = []
    for row, (text, slope) in enumerate(zip(texts, slopes, strict=True)):
        effective = slope @ contributions[row, :, :-1]  # the last column is the bias
        present = np.zeros(len(terms), dtype=bool)
        present[features.indices[features.indptr[row]:features.indptr[row + 1]]] = True
        spans = split_words(text)
        values = {terms[j]: float(effective[j]) for j in np.flatnonzero(present)}
        scores, unplaced = spread_terms(values, bow_term_occurrences(representation, text, spans), len(spans))
        details = {"absent_words_score": float(effective[~present].sum())}
        if unplaced:
            details["unplaced_score"] = unplaced
        out.append(PartScores(scores, details))
    return out
