"""Exact word contributions where the model's score is a linear function of its features.

For a linear score ``w · x + b`` each feature's part is ``w_j · x_j``, exactly, with the features
``x`` as the representation computes them (binary, counts or tf-idf after L2 normalisation: the
normalisation is a number per document, so the score stays linear in that document's features).
The parts are then traced back to the written words (:mod:`guiapp.core.explain.term_spans`).
The scores plus ``base_value`` (``b``) equal the model's raw score for the target, called its
margin here:

- logistic regression: the target's logit (two categories: the log-odds of the target);
- linear-kernel SVM, two categories: the signed distance toward the target (``decision_function``);
- linear-kernel SVM, three or more: scikit-learn's SVC is one-vs-one, and its decision counts
  votes of the pairwise SVMs, which is not linear. What is exact is each pairwise decision, so
  the margin is the sum of the target's pairwise decisions (each signed toward the target) —
  the quantity SVC adds to the votes to break ties, before squashing it;
- multinomial naive Bayes: its log-probability is linear in the counts; with two categories the
  margin is the log-odds of the target, with more the target's log-probability minus the mean
  over all categories (softmax of these centred scores gives the same probabilities).

Averaged word vectors: ``x = (1/n) Σ v_i`` over the n counted word vectors, so a word's part is
``(1/n) v_i · w`` — its share of the average times the coefficients.
"""

from __future__ import annotations

import itertools
import weakref
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import MultinomialNB
from sklearn.svm import SVC

from guiapp.core.errors import UserError
from guiapp.core.experiment.protocol.fitting import CalibratedSVM
from guiapp.core.explain.attribution import LINEAR_EXACT, Attribution
from guiapp.core.explain.category_parts import category_classifier, is_one_per_category, representative
from guiapp.core.explain.term_spans import bow_term_occurrences, spread_terms, vector_span_rows, word_vector_table
from guiapp.core.explain.words import WordSpan, split_words
from guiapp.core.features.bow import BagOfWords
from guiapp.core.features.word_vectors import AveragedWordVectors
from guiapp.core.predict.trained_model import ConventionalModel


def base_classifier(classifier: Any) -> Any:
    """The estimator that decides: the SVC inside a calibrated SVM, else the classifier itself."""
    return classifier.svm_ if isinstance(classifier, CalibratedSVM) else classifier


def is_linear(model: ConventionalModel) -> bool:
    """Whether :func:`explain_linear` gives exact contributions for this model (one classifier per
    category: whether its categories' classifiers are linear)."""
    classifier = base_classifier(representative(model.classifier))
    representation = model.representation
    if isinstance(classifier, MultinomialNB):
        return isinstance(representation, BagOfWords)
    linear_svm = isinstance(classifier, SVC) and classifier.kernel == "linear"
    on_words = isinstance(representation, BagOfWords | AveragedWordVectors)
    return (isinstance(classifier, LogisticRegression) or linear_svm) and on_words


_WEIGHTS: weakref.WeakKeyDictionary[Any, dict[int, tuple[np.ndarray, float, str]]] = weakref.WeakKeyDictionary()
_COEFS: weakref.WeakKeyDictionary[Any, dict[str, np.ndarray]] = weakref.WeakKeyDictionary()


def target_weights(classifier: Any, position: int) -> tuple[np.ndarray, float, str]:
    """``(w, b, what)`` with the model's margin for class ``position`` equal to ``w · x + b``.

    Kept per trained classifier: a one-vs-one SVM's ``coef_`` is rebuilt from its support vectors
    on every access (about half a second for 20 categories), and explaining the predictions of many
    new texts asks for the same weights again and again. Trained models are never refitted in place.
    """
    estimator = base_classifier(classifier)
    known = _WEIGHTS.setdefault(estimator, {})
    if position not in known:
        if "coef" not in _COEFS.get(estimator, {}) and not isinstance(estimator, MultinomialNB):
            coef = estimator.coef_.toarray() if sp.issparse(estimator.coef_) else np.asarray(estimator.coef_)
            _COEFS[estimator] = {"coef": coef, "intercept": np.asarray(estimator.intercept_, dtype=np.float64)}
        known[position] = _target_weights(estimator, position, _COEFS.get(estimator, {}))
    return known[position]


def _target_weights(estimator: Any, position: int, arrays: dict[str, np.ndarray]) -> tuple[np.ndarray, float, str]:
    if isinstance(estimator, MultinomialNB):
        log_prob, prior = estimator.feature_log_prob_, estimator.class_log_prior_
        if len(prior) == 2:
            other = 1 - position
            return log_prob[position] - log_prob[other], float(prior[position] - prior[other]), "log-odds"
        return (log_prob[position] - log_prob.mean(axis=0), float(prior[position] - prior.mean()),
                "centred log-probability")
    coef, intercept = arrays["coef"], arrays["intercept"]
    if coef.shape[0] == 1:  # two categories: one score, positive toward the second class
        sign = 1.0 if position == 1 else -1.0
        what = "log-odds" if isinstance(estimator, LogisticRegression) else "signed distance"
        return sign * coef[0], sign * float(intercept[0]), what
    if isinstance(estimator, LogisticRegression):
        return coef[position], float(intercept[position]), "logit"
    weights, bias = np.zeros(coef.shape[1]), 0.0  # one-vs-one SVC: positive pair decision → first class
    for pair, (first, second) in enumerate(itertools.combinations(range(len(estimator.classes_)), 2)):
        if position in (first, second):
            sign = 1.0 if position == first else -1.0
            weights += sign * coef[pair]
            bias += sign * float(intercept[pair])
    return weights, bias, "sum of pairwise decisions"


def exact_share_sentence(score: str, target_name: str, own_chance: bool = False, aside: str = "",
                         note: str = "") -> str:
    """What the colours of exact word shares in ``score`` mean (linear models and trees); ``own_chance``:
    the category has its own score, which sets its chance alone (a text can have several categories);
    ``aside`` follows the category's name, ``note`` closes the sentence in brackets."""
    colours = (", which sets the chance of this category alone: red raises it, blue lowers it" if own_chance
               else ": red pushes toward it, blue away")
    return (f"Colours show each word's exact share in {score} for “{target_name}”{aside}{colours}"
            + (f" ({note})." if note else "."))


def linear_sentence(target_name: str, what: str, own_chance: bool = False) -> str:
    """What the colours mean; ``own_chance``: the category has its own yes/no score (a text can
    have several categories)."""
    if what == "sum of pairwise decisions":
        return exact_share_sentence("the SVM's score", target_name,
                                    aside=" (summed over its contests with each other category)")
    return exact_share_sentence("the model's own score" if own_chance else "the model's score", target_name, own_chance)


def not_exact(message: str) -> UserError:
    """The refusal of exact word shares for a model they do not fit, with the method that does."""
    return UserError(message, "Use “Leaving words out” for this model.")


def explain_linear(model: ConventionalModel, text: str, target: int, probability: float | None = None) -> Attribution:
    """Exact contributions of the words of ``text`` to the model's margin for category ``target``."""
    if not is_linear(model):
        raise not_exact("Exact word contributions need a linear model on a bag of words or on word vectors.")
    estimator, position = category_classifier(model.classifier, target)
    weights, bias, what = target_weights(estimator, position)
    spans = split_words(text)
    representation = model.representation
    details: dict[str, Any] = {"margin_kind": what}
    if isinstance(representation, BagOfWords):
        features = sp.csr_matrix(representation.transform([text]))
        terms = representation.feature_names()
        values = {terms[j]: float(weights[j] * value) for j, value in zip(features.indices, features.data, strict=True)}
        scores, unplaced = spread_terms(values, bow_term_occurrences(representation, text, spans), len(spans))
        if unplaced:
            details["unplaced_score"] = unplaced
    else:
        scores = vector_scores(representation, spans, weights)
    details["margin"] = float(scores.sum() + bias + details.get("unplaced_score", 0.0))
    sentence = linear_sentence(model.categories[target], what, is_one_per_category(model.classifier))
    return exact_attribution(model, text, target, LINEAR_EXACT, sentence, spans, scores, bias, details, probability)


def exact_attribution(model: ConventionalModel, text: str, target: int, method: str, sentence: str,
                      spans: list[WordSpan], scores: np.ndarray, bias: float, details: dict[str, Any],
                      probability: float | None) -> Attribution:
    """Exact word scores of ``text`` toward ``target`` on the model's margin (``bias`` is the part no
    word carries) as an :class:`Attribution`; the model is asked for the probability of ``target``
    only when the caller has none."""
    if probability is None:
        probability = float(model.answer([text])[1][0, target])
    return Attribution(model=model.name, method=method, method_sentence=sentence, target=target,
                       target_name=model.categories[target], words=spans, scores=scores.tolist(),
                       probability=probability, scale="margin", base_value=bias, details=details)


def vector_scores(representation: AveragedWordVectors, spans: list, weights: np.ndarray) -> np.ndarray:
    """Each span's share of the average vector, times the coefficients."""
    rows_per_span = vector_span_rows(representation, spans)
    scores = np.zeros(len(spans), dtype=np.float64)
    n = sum(len(rows) for _, rows in rows_per_span)
    if n == 0:  # no counted word: the text's vector is all zeros
        return scores
    table = word_vector_table(representation)
    for index, rows in rows_per_span:
        scores[index] = float(np.asarray(table[rows], dtype=np.float64).sum(axis=0) @ weights) / n
    return scores


def model_margin(model: ConventionalModel, text: str, target: int) -> float:
    """The margin :func:`explain_linear` decomposes, from the classifier's own scores (for checks)."""
    deciding, position = category_classifier(model.classifier, target)
    estimator = base_classifier(deciding)
    X = model.representation.transform([text])
    if isinstance(estimator, MultinomialNB):
        joint = estimator.predict_joint_log_proba(X)[0]
        return float(joint[position] - joint[1 - position] if joint.size == 2 else joint[position] - joint.mean())
    if isinstance(estimator, SVC) and len(estimator.classes_) > 2:
        shape = estimator.decision_function_shape
        estimator.decision_function_shape = "ovo"
        try:
            pairs = estimator.decision_function(X)[0]
        finally:
            estimator.decision_function_shape = shape
        total = 0.0
        for pair, (first, second) in enumerate(itertools.combinations(range(len(estimator.classes_)), 2)):
            if position in (first, second):
                total += pairs[pair] if position == first else -pairs[pair]
        return float(total)
    scores = np.atleast_1d(estimator.decision_function(X)[0])
    if scores.size == 1:
        return float(scores[0] if position == 1 else -scores[0])
    return float(scores[position])
