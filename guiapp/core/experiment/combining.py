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

    def combine(self, probabilities: list[np.ndarray]) -> np.ndarray:
        _check_parts(probabilities, len(self.weights))
        combined = np.zeros_like(np.asarray(probabilities[0], dtype=float))
        for weight, part in zip(self.weights, probabilities, strict=True):
            if weight:
                combined += weight * np.asarray(part, dtype=float)
        return combined

    def to_dict(self) -> dict:
        return {"method": self.method, "weights": [float(value) for value in self.weights]}


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
        }


Combiner = WeightedVote | Stacking


def combiner_from_dict(data: dict) -> Combiner:
    """The combiner saved by ``to_dict`` (plain JSON numbers; nothing is executed)."""
    method = data.get("method")
    if method == "weighted_vote":
        return WeightedVote([float(value) for value in data["weights"]])
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
            key = (macro_f1(y, candidate.argmax(axis=1)), -_log_loss(y, candidate))
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


def macro_f1(y: np.ndarray, predicted: np.ndarray) -> float:
    """Macro-F1 over the categories in the coding or the predictions (scikit-learn's ``f1_macro``),
    from one ``bincount``: the greedy search calls it hundreds of times."""
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
