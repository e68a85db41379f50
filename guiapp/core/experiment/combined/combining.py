"""Combining the compared models' probabilities: a weighted vote and stacking.

Both are learnt from *out-of-fold* probabilities — for every training text, each model's
probabilities from a fit that never saw that text (``out_of_fold.py``) — and never from the test
texts, which are only used once, to evaluate the combination like any other model.

* **Weighted vote** (soft voting): the combined probabilities are a weighted mean of the models'
  probabilities; the weights are chosen by greedy ensemble selection with replacement (Caruana et
  al. 2004, "Ensemble selection from libraries of models", as in auto-sklearn and AutoGluon):
  start empty, repeatedly add the model whose addition gives the best macro-F1 on the out-of-fold
  probabilities (ties: the lower log loss), and weigh each model by how often it was added. The
  weights are non-negative and sum to one; one model alone gets weight 1 and the vote *is* that
  model.
Where a text can have several categories, each category's decision is "its chance reaches one half",
the vote averages each category's chances, and stacking is one yes/no regression per category on all
the models' probabilities (``_fit_per_category_stacking``).

* **Stacking**: a multinomial logistic regression on the models' probabilities side by side, L2
  regularised, its strength chosen by stratified cross-validation on the same out-of-fold rows
  (macro-F1), and categories weighted by their size so small categories count as they do in
  macro-F1. A regression learnt on few texts is noisy, so its probabilities are shrunk towards the
  weighted vote's: the regression counts ``n / (n + SHRINK_TEXTS)`` of the answer for ``n`` texts
  (a third on 100 texts, nine tenths on 1,800), the vote the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

VOTE_ROUNDS = 25  # greedy additions; weights are then multiples of 1/25
STACKING_C = (0.01, 0.1, 1.0, 10.0, 100.0)
SHRINK_TEXTS = 200  # texts at which stacking's regression and the vote count alike
_EPSILON = 1e-7


@dataclass
class WeightedVote:
    """Soft voting with fixed weights (one per part, summing to one)."""

    weights: list[float]
    method: str = "weighted_vote"
    thresholds: list[float] = field(default_factory=list)  # several categories per text: tuned, else 0.5 each

    def combine(self, probabilities: list[np.ndarray]) -> np.ndarray:
        _check_parts(probabilities, len(self.weights))
        combined = np.zeros_like(np.asarray(probabilities[0], dtype=float))
        for weight, part in zip(self.weights, probabilities, strict=True):
            if weight:
                combined += weight * np.asarray(part, dtype=float)
        return combined

    def to_dict(self) -> dict:
        return {"method": self.method, "weights": [float(value) for value in self.weights],
                **({"thresholds": self.thresholds} if self.thresholds else {})}


@dataclass
class Stacking:
    """A logistic regression on the parts' probabilities, stored as plain numbers."""

    coefficients: list[list[float]]  # (categories, parts × categories); binary: one row
    intercepts: list[float]
    classes: list[int]  # category index of each of the regression's classes
    n_categories: int
    C: float
    cv_macro_f1: float = float("nan")
    method: str = "stacking"
    part_influence: list[float] = field(default_factory=list)  # share of |coefficients| per part
    fold_scores: list[float] = field(default_factory=list)  # the chosen C's macro-F1 per held-out fold
    regression_share: float = 1.0  # how much the regression counts; the rest is the vote's
    vote_weights: list[float] = field(default_factory=list)  # the vote it is shrunk towards
    # a text can have several categories: one yes/no regression per category (rows of ``coefficients``),
    # each on every part's probabilities of every category, answering that category's own chance
    multi_label: bool = False
    thresholds: list[float] = field(default_factory=list)  # several categories per text: tuned, else 0.5 each

    def combine(self, probabilities: list[np.ndarray]) -> np.ndarray:
        regression = self._regression(probabilities)
        if self.regression_share >= 1.0 or not self.vote_weights:
            return regression
        vote = WeightedVote(self.vote_weights).combine(probabilities)
        return self.regression_share * regression + (1.0 - self.regression_share) * vote

    def _regression(self, probabilities: list[np.ndarray]) -> np.ndarray:
        features = _stack(probabilities)
        n_parts = len(probabilities)
        coefficients = np.asarray(self.coefficients, dtype=float)
        if coefficients.shape[1] != features.shape[1]:
            raise ValueError(f"the stacking was learnt on {coefficients.shape[1] // self.n_categories} models, "
                             f"not {n_parts}")
        scores = features @ coefficients.T + np.asarray(self.intercepts, dtype=float)
        if self.multi_label:
            return 1.0 / (1.0 + np.exp(-scores))
        if len(self.classes) == 2 and scores.shape[1] == 1:  # binary: one column for the second class
            scores = np.hstack([np.zeros_like(scores), scores])
        scores -= scores.max(axis=1, keepdims=True)
        exp = np.exp(scores)
        partial = exp / exp.sum(axis=1, keepdims=True)
        full = np.zeros((features.shape[0], self.n_categories))
        full[:, self.classes] = partial
        return full

    def to_dict(self) -> dict:
        return {
            "method": self.method,
            "coefficients": self.coefficients,
            "intercepts": self.intercepts,
            "classes": self.classes,
            "n_categories": self.n_categories,
            "C": self.C,
            "cv_macro_f1": None if np.isnan(self.cv_macro_f1) else self.cv_macro_f1,
            "part_influence": self.part_influence,
            "regression_share": self.regression_share,
            "vote_weights": self.vote_weights,
            **({"multi_label": True} if self.multi_label else {}),
            **({"thresholds": self.thresholds} if self.thresholds else {}),
        }


Combiner = WeightedVote | Stacking


def combiner_from_dict(data: dict) -> Combiner:
    """The combiner saved by ``to_dict`` (plain JSON numbers; nothing is executed)."""
    method = data.get("method")
    thresholds = [float(value) for value in data.get("thresholds", [])]
    if not all(0.0 <= value <= 1.0 for value in thresholds):
        raise ValueError("a threshold outside 0 to 1")
    if method == "weighted_vote":
        return WeightedVote([float(value) for value in data["weights"]], thresholds=thresholds)
    if method == "stacking":
        return Stacking(
            coefficients=[[float(value) for value in row] for row in data["coefficients"]],
            intercepts=[float(value) for value in data["intercepts"]],
            classes=[int(value) for value in data["classes"]],
            n_categories=int(data["n_categories"]),
            C=float(data["C"]),
            cv_macro_f1=float("nan") if data.get("cv_macro_f1") is None else float(data["cv_macro_f1"]),
            part_influence=[float(value) for value in data.get("part_influence", [])],
            regression_share=float(data.get("regression_share", 1.0)),
            vote_weights=[float(value) for value in data.get("vote_weights", [])],
            multi_label=bool(data.get("multi_label", False)),
            thresholds=thresholds,
        )
    raise ValueError(f"unknown way of combining models: {method!r}")


def choose_vote_weights(probabilities: list[np.ndarray], y: np.ndarray, rounds: int = VOTE_ROUNDS) -> WeightedVote:
    """Greedy ensemble selection with replacement (see the module docstring)."""
    _check_parts(probabilities, len(probabilities))
    parts = [np.asarray(part, dtype=float) for part in probabilities]
    y = np.asarray(y)
    if len(parts) == 1:
        return WeightedVote([1.0])
    counts = np.zeros(len(parts), dtype=int)
    total = np.zeros_like(parts[0])
    for step in range(1, rounds + 1):
        best_key, best_index = None, 0
        for index, part in enumerate(parts):
            candidate = (total + part) / step
            key = (macro_f1(y, decide(candidate, y.ndim == 2)), -_log_loss(y, candidate))
            if best_key is None or key > best_key:  # ties keep the earlier model
                best_key, best_index = key, index
        counts[best_index] += 1
        total += parts[best_index]
    return WeightedVote((counts / counts.sum()).tolist())


def fit_stacking(probabilities: list[np.ndarray], y: np.ndarray, n_categories: int, seed: int,
                 folds: int = 5, vote: WeightedVote | None = None) -> Stacking:
    """The stacking regression (see the module docstring), its strength chosen by cross-validation;
    ``fold_scores`` keeps the chosen strength's macro-F1 on each held-out fold (of the regression alone).
    With ``vote``, the regression is shrunk towards it by the number of texts."""
    from threadpoolctl import threadpool_limits

    # one thread: these small regressions are slower with several (5-20× when the machine is busy)
    with threadpool_limits(limits=1):
        if np.ndim(y) == 2:
            stacking = _fit_per_category_stacking(probabilities, np.asarray(y), seed, folds)
        else:
            stacking = _fit_stacking(probabilities, y, n_categories, seed, folds)
    if vote is not None:
        stacking.vote_weights = list(vote.weights)
        stacking.regression_share = regression_share(len(y))
    return stacking


def regression_share(n_texts: int) -> float:
    """How much stacking's regression counts when learnt on ``n_texts`` (the vote counts the rest)."""
    return round(n_texts / (n_texts + SHRINK_TEXTS), 4)


def _fit_stacking(probabilities: list[np.ndarray], y: np.ndarray, n_categories: int, seed: int,
                  folds: int) -> Stacking:
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold

    _check_parts(probabilities, len(probabilities))
    features = _stack(probabilities)
    y = np.asarray(y)
    present, counts = np.unique(y, return_counts=True)
    if len(present) < 2:
        raise ValueError("stacking needs texts of at least two categories")
    n_folds = int(min(folds, counts.min()))
    best_c, best_scores = STACKING_C[len(STACKING_C) // 2], []
    if n_folds >= 2:
        splits = list(StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=seed).split(features, y))
        best_mean = -1.0
        for C in STACKING_C:  # ties: the stronger regularisation (earlier in STACKING_C)
            scores = [macro_f1(y[held], _regression(LogisticRegression, C, seed).fit(features[learn], y[learn])
                               .predict(features[held])) for learn, held in splits]
            if np.mean(scores) > best_mean:
                best_c, best_scores, best_mean = C, scores, float(np.mean(scores))
    regression = _regression(LogisticRegression, best_c, seed).fit(features, y)
    coefficients = np.asarray(regression.coef_, dtype=float)
    n_parts = len(probabilities)
    influence = np.abs(coefficients).reshape(coefficients.shape[0], n_parts, -1).sum(axis=(0, 2))
    influence = influence / influence.sum() if influence.sum() > 0 else np.full(n_parts, 1 / n_parts)
    return Stacking(
        coefficients=coefficients.tolist(),
        intercepts=np.asarray(regression.intercept_, dtype=float).tolist(),
        classes=[int(value) for value in regression.classes_],
        n_categories=n_categories,
        C=float(best_c),
        cv_macro_f1=float(np.mean(best_scores)) if best_scores else float("nan"),
        part_influence=influence.tolist(),
        fold_scores=[float(score) for score in best_scores],
    )


def _fit_per_category_stacking(probabilities: list[np.ndarray], Y: np.ndarray, seed: int, folds: int) -> Stacking:
    """Stacking where a text can have several categories: per category a yes/no logistic regression on
    every part's probabilities (so one category's answer can use another's), one strength for all,
    chosen by macro-F1 on iteratively stratified folds; a category the texts always or never have
    answers its share."""
    from iterstrat.ml_stratifiers import MultilabelStratifiedKFold
    from sklearn.linear_model import LogisticRegression

    _check_parts(probabilities, len(probabilities))
    features = _stack(probabilities)
    n_categories = Y.shape[1]
    positives = Y.sum(axis=0)
    if not ((positives > 0) & (positives < len(Y))).any():
        raise ValueError("stacking needs a category that some texts have and others do not")

    def fitted(C: float, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        coefficients, intercepts = np.zeros((n_categories, features.shape[1])), np.zeros(n_categories)
        for k in range(n_categories):
            labels = Y[rows, k]
            share = float(labels.mean())
            if share in (0.0, 1.0):
                intercepts[k] = 20.0 if share else -20.0
                continue
            regression = _regression(LogisticRegression, C, seed).fit(features[rows], labels)
            coefficients[k], intercepts[k] = regression.coef_[0], regression.intercept_[0]
        return coefficients, intercepts

    def decisions(weights: tuple[np.ndarray, np.ndarray], rows: np.ndarray) -> np.ndarray:
        return (features[rows] @ weights[0].T + weights[1] >= 0).astype(np.uint8)

    smallest = int(positives[positives > 0].min())
    n_folds = int(min(folds, smallest, len(Y) - int(positives.max())))
    best_c, best_scores = STACKING_C[len(STACKING_C) // 2], []
    if n_folds >= 2:
        splits = list(MultilabelStratifiedKFold(n_splits=n_folds, shuffle=True, random_state=seed).split(features, Y))
        best_mean = -1.0
        for C in STACKING_C:  # ties: the stronger regularisation (earlier in STACKING_C)
            scores = [macro_f1(Y[held], decisions(fitted(C, learn), held)) for learn, held in splits]
            if np.mean(scores) > best_mean:
                best_c, best_scores, best_mean = C, scores, float(np.mean(scores))
    coefficients, intercepts = fitted(best_c, np.arange(len(Y)))
    n_parts = len(probabilities)
    influence = np.abs(coefficients).reshape(n_categories, n_parts, -1).sum(axis=(0, 2))
    influence = influence / influence.sum() if influence.sum() > 0 else np.full(n_parts, 1 / n_parts)
    return Stacking(
        coefficients=coefficients.tolist(),
        intercepts=intercepts.tolist(),
        classes=list(range(n_categories)),
        n_categories=n_categories,
        C=float(best_c),
        cv_macro_f1=float(np.mean(best_scores)) if best_scores else float("nan"),
        part_influence=influence.tolist(),
        fold_scores=[float(score) for score in best_scores],
        multi_label=True,
    )


def decide(probabilities: np.ndarray, multi_label: bool, thresholds: list[float] | None = None) -> np.ndarray:
    """The combination's decisions: the most probable category, or where a text can have several
    categories each one whose chance reaches its threshold (one half unless tuned; a 0/1 matrix)."""
    if multi_label:
        return (probabilities >= (np.asarray(thresholds) if thresholds else 0.5)).astype(np.uint8)
    return probabilities.argmax(axis=1)


def macro_f1(y: np.ndarray, predicted: np.ndarray) -> float:
    """Macro-F1 over the categories in the coding or the predictions (scikit-learn's ``f1_macro``),
    from one ``bincount``: the greedy search calls it hundreds of times. 0/1 matrices (a text can
    have several categories): the mean of each category's F1, over the categories coded or predicted."""
    if np.ndim(y) == 2:
        y, predicted = np.asarray(y, dtype=bool), np.asarray(predicted, dtype=bool)
        true_positive = (y & predicted).sum(axis=0).astype(float)
        denominator = (y.sum(axis=0) + predicted.sum(axis=0)).astype(float)
        present = denominator > 0
        return float((2 * true_positive[present] / denominator[present]).mean()) if present.any() else 0.0
    y, predicted = np.asarray(y, dtype=np.int64), np.asarray(predicted, dtype=np.int64)
    size = int(max(y.max(initial=0), predicted.max(initial=0))) + 1
    matrix = np.bincount(y * size + predicted, minlength=size * size).reshape(size, size)
    true_positive = np.diagonal(matrix).astype(float)
    denominator = matrix.sum(axis=0) + matrix.sum(axis=1)
    present = denominator > 0
    return float((2 * true_positive[present] / denominator[present]).mean()) if present.any() else 0.0


def _regression(LogisticRegression, C: float, seed: int):  # noqa: N803 — the class, imported lazily
    return LogisticRegression(C=C, class_weight="balanced", max_iter=2000, random_state=seed)


def _stack(probabilities: list[np.ndarray]) -> np.ndarray:
    return np.hstack([np.asarray(part, dtype=float) for part in probabilities])


def _log_loss(y: np.ndarray, probabilities: np.ndarray) -> float:
    if np.ndim(y) == 2:  # each category's own yes/no loss, averaged
        clipped = np.clip(probabilities, _EPSILON, 1.0 - _EPSILON)
        return float(-np.mean(y * np.log(clipped) + (1 - y) * np.log(1.0 - clipped)))
    picked = probabilities[np.arange(len(y)), y]
    return float(-np.mean(np.log(np.clip(picked, _EPSILON, 1.0))))


def _check_parts(probabilities: list[np.ndarray], expected: int) -> None:
    if not probabilities:
        raise ValueError("no models to combine")
    if len(probabilities) != expected:
        raise ValueError(f"{len(probabilities)} models' probabilities for {expected} weights")
    shapes = {np.shape(part) for part in probabilities}
    if len(shapes) != 1:
        raise ValueError(f"the models' probabilities differ in shape: {sorted(shapes)}")
