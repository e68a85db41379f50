"""Exact tree contributions (SHAP) for XGBoost on a bag of words, traced back to the words.

XGBoost computes TreeSHAP itself (``pred_contribs=True``): per feature, its share in the trees'
raw score (margin) for each category, plus a bias; they add up to the margin exactly. Unlike a
linear model, a tree also reacts to a word being *absent* ("does the text lack 'tax'?"), so
features the document does not contain get SHAP values too. Those cannot be coloured in the
text: their total goes to ``details["absent_words_score"]`` and the largest of them to
``details["absent_words"]``, so that scores + absent + base_value = the model's margin.

The margin is the target's raw score (a logit before softmax); with two categories XGBoost keeps
one score, the log-odds of the second category, and the first category's margin is its negative.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from guiapp.core.explain.attribution import TREE_SHAP, Attribution
from guiapp.core.explain.category_parts import category_classifier, is_one_per_category, representative
from guiapp.core.explain.linear_contributions import exact_attribution, exact_share_sentence, not_exact
from guiapp.core.explain.term_spans import bow_term_occurrences, spread_terms
from guiapp.core.explain.words import split_words
from guiapp.core.features.bow import BagOfWords
from guiapp.core.predict.trained_model import ConventionalModel

TOP_ABSENT = 5


def is_tree_on_words(model: ConventionalModel) -> bool:
    """Whether :func:`explain_tree` applies: XGBoost on a bag of words (one per category, where a
    text can have several)."""
    return hasattr(representative(model.classifier), "get_booster") and isinstance(model.representation, BagOfWords)


def target_contributions(model: ConventionalModel, features: sp.csr_matrix, position: int,
                         classifier: Any = None) -> np.ndarray:
    """SHAP values toward class ``position`` of ``classifier`` (default: the model's) for one
    document: one per feature, then the bias."""
    import xgboost

    booster = (model.classifier if classifier is None else classifier).get_booster()
    contributions = booster.predict(xgboost.DMatrix(features, missing=np.nan), pred_contribs=True)
    if contributions.ndim == 3:  # several categories: (documents, classes, features + 1)
        return np.asarray(contributions[0, position], dtype=np.float64)
    row = np.asarray(contributions[0], dtype=np.float64)  # one score, toward the second class
    return row if position == 1 else -row


def tree_sentence(target_name: str, own_chance: bool = False) -> str:
    """What the colours mean; ``own_chance``: the category has its own trees (a text can have several)."""
    return exact_share_sentence("the score of the trees" if own_chance else "the trees' score", target_name,
                                own_chance, note="words the text lacks count too; they are listed apart")


def explain_tree(model: ConventionalModel, text: str, target: int, probability: float | None = None) -> Attribution:
    """Exact SHAP contributions of the words of ``text`` to XGBoost's margin for ``target``."""
    if not is_tree_on_words(model):
        raise not_exact("Exact tree contributions need an XGBoost model on a bag of words.")
    estimator, position = category_classifier(model.classifier, target)
    representation = model.representation
    features = sp.csr_matrix(representation.transform([text]), dtype=np.float32)
    contributions = target_contributions(model, features, position, estimator)
    terms = representation.feature_names()
    present = np.zeros(len(terms), dtype=bool)
    present[features.indices] = True
    values = {terms[j]: float(contributions[j]) for j in np.flatnonzero(present)}
    spans = split_words(text)
    scores, unplaced = spread_terms(values, bow_term_occurrences(representation, text, spans), len(spans))
    absent = np.flatnonzero(~present & (contributions[:-1] != 0))
    largest = absent[np.argsort(-np.abs(contributions[absent]), kind="stable")[:TOP_ABSENT]]
    bias = float(contributions[-1])
    details: dict[str, Any] = {
        "absent_words_score": float(contributions[absent].sum()),
        "absent_words": [[terms[j], float(contributions[j])] for j in largest],
        "margin": float(contributions.sum()),
        "margin_kind": "log-odds" if contributions.size and _n_scores(estimator) == 1 else "logit",
    }
    if unplaced:
        details["unplaced_score"] = unplaced
    sentence = tree_sentence(model.categories[target], is_one_per_category(model.classifier))
    return exact_attribution(model, text, target, TREE_SHAP, sentence, spans, scores, bias, details, probability)


def _n_scores(classifier: Any) -> int:
    return 1 if len(classifier.textlab_classes_) == 2 else len(classifier.textlab_classes_)


def tree_margin(model: ConventionalModel, text: str, target: int) -> float:
    """XGBoost's own raw score for ``target`` (what :func:`explain_tree` decomposes), for checks."""
    estimator, position = category_classifier(model.classifier, target)
    margins = np.atleast_1d(estimator.predict(model.representation.transform([text]), output_margin=True)[0])
    if margins.size == 1:
        return float(margins[0] if position == 1 else -margins[0])
    return float(margins[position])
