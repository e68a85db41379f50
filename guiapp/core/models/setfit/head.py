"""SetFit's head: logistic regression on the fine-tuned sentence vectors, kept as plain numbers.

scikit-learn's ``LogisticRegression(C=1, class_weight="balanced", max_iter=2000)`` is fitted, then
only its weights and intercepts are kept; the probabilities are computed here from them — the
logistic function for two categories, the softmax for more — exactly as scikit-learn does, so
a head saved as JSON numbers and read back answers the same, and opening it runs no code.

- One category per text: one regression over the categories the training texts have; a category
  no training text has gets probability 0 (and when the training texts all have one category,
  that category gets probability 1).
- Several categories per text: one yes-or-no regression per category; a category that every
  training text has, or none has, answers its share (1 or 0) for every text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from guiapp.core.numbers import is_finite_number, is_whole_number

C = 1.0
MAX_ITER = 2000


@dataclass(frozen=True)
class Regression:
    """A fitted logistic regression: ``weights`` (1 × d for two classes, k × d for k > 2) and
    ``intercepts``; answers the probabilities of its classes, in their order."""

    weights: np.ndarray
    intercepts: np.ndarray

    def probabilities(self, X: np.ndarray) -> np.ndarray:
        scores = X @ self.weights.T + self.intercepts
        if self.weights.shape[0] == 1:
            from scipy.special import expit  # no overflow for very negative scores

            positive = expit(scores[:, 0])
            return np.column_stack([1.0 - positive, positive])
        scores -= scores.max(axis=1, keepdims=True)
        exp = np.exp(scores)
        return exp / exp.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class SingleLabelHead:
    """One category per text: ``classes`` are the category indices the training texts had."""

    n_categories: int
    classes: tuple[int, ...]
    regression: Regression | None  # None when the training texts all had one category

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        out = np.zeros((len(X), self.n_categories))
        if self.regression is None:
            out[:, self.classes[0]] = 1.0
        else:
            out[:, list(self.classes)] = self.regression.probabilities(X)
        return out

    def to_json(self) -> dict[str, Any]:
        return {"kind": "single_label", "classes": list(self.classes), **_regression_json(self.regression)}


@dataclass(frozen=True)
class MultiLabelHead:
    """Several categories per text: per category a yes-or-no regression, or its constant share."""

    parts: tuple[Regression | float, ...]

    @property
    def n_categories(self) -> int:
        return len(self.parts)

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        out = np.zeros((len(X), len(self.parts)))
        for k, part in enumerate(self.parts):
            out[:, k] = part if isinstance(part, float) else part.probabilities(X)[:, 1]
        return out

    def to_json(self) -> dict[str, Any]:
        parts = [{"constant": part} if isinstance(part, float) else _regression_json(part) for part in self.parts]
        return {"kind": "multi_label", "categories": parts}


Head = SingleLabelHead | MultiLabelHead


def fit_head(X: np.ndarray, y: np.ndarray, n_categories: int, seed: int) -> Head:
    """The head for vectors ``X`` of texts coded ``y`` (category indices, or a 0/1 matrix)."""
    X = np.asarray(X, dtype=np.float64)
    if y.ndim == 2:
        parts: list[Regression | float] = []
        for k in range(n_categories):
            column = y[:, k].astype(np.int64)
            share = float(column.mean())
            parts.append(share if share in (0.0, 1.0) else _fitted(X, column, seed))
        return MultiLabelHead(tuple(parts))
    classes = tuple(int(c) for c in np.unique(y))
    regression = _fitted(X, y, seed) if len(classes) > 1 else None
    return SingleLabelHead(n_categories, classes, regression)


def _fitted(X: np.ndarray, y: np.ndarray, seed: int) -> Regression:
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=C, class_weight="balanced", max_iter=MAX_ITER, random_state=seed % 2**32)
    model.fit(X, y)
    return Regression(np.asarray(model.coef_, dtype=np.float64), np.asarray(model.intercept_, dtype=np.float64))


def _regression_json(regression: Regression | None) -> dict[str, Any]:
    if regression is None:
        return {"weights": [], "intercepts": []}
    return {"weights": regression.weights.tolist(), "intercepts": regression.intercepts.tolist()}


# ------------------------------------------------------------------------------------ reading back
def head_from_json(data: Any, n_categories: int, dimensions: int, multi_label: bool) -> Head:
    """The head a saved model records, checked against its categories and the sentence vectors'
    ``dimensions``; ValueError says what does not fit."""
    if not isinstance(data, Mapping):
        raise ValueError("the head is not a set of named values")
    if multi_label:
        if data.get("kind") != "multi_label":
            raise ValueError("the head is not one for several categories per text")
        parts = data.get("categories")
        if not isinstance(parts, list) or len(parts) != n_categories:
            raise ValueError(f"the head does not hold one regression for each of the {n_categories} categories")
        return MultiLabelHead(tuple(_part_from_json(part, dimensions) for part in parts))
    if data.get("kind") != "single_label":
        raise ValueError("the head is not one for one category per text")
    classes = data.get("classes")
    if (not isinstance(classes, list) or not classes or not all(is_whole_number(c) for c in classes)
            or sorted(set(classes)) != classes or classes[0] < 0 or classes[-1] >= n_categories):
        raise ValueError("the head's categories do not fit the model's categories")
    if len(classes) == 1:
        if data.get("weights") != [] or data.get("intercepts") != []:
            raise ValueError("a head for one category holds weights")
        return SingleLabelHead(n_categories, tuple(classes), None)
    rows = 1 if len(classes) == 2 else len(classes)
    return SingleLabelHead(n_categories, tuple(classes), _regression_from_json(data, rows, dimensions))


def _part_from_json(part: Any, dimensions: int) -> Regression | float:
    if isinstance(part, Mapping) and "constant" in part:
        share = part["constant"]
        if not is_finite_number(share) or float(share) not in (0.0, 1.0):
            raise ValueError("a category's constant answer is not 0 or 1")
        return float(share)
    if not isinstance(part, Mapping):
        raise ValueError("a category's regression is not a set of named values")
    return _regression_from_json(part, 1, dimensions)


def _regression_from_json(data: Mapping[str, Any], rows: int, dimensions: int) -> Regression:
    weights, intercepts = data.get("weights"), data.get("intercepts")
    if (not isinstance(weights, list) or len(weights) != rows
            or not all(isinstance(row, list) and len(row) == dimensions for row in weights)):
        raise ValueError(f"the head's weights are not {rows} rows of {dimensions} numbers")
    if not isinstance(intercepts, list) or len(intercepts) != rows:
        raise ValueError(f"the head's intercepts are not {rows} numbers")
    if not all(is_finite_number(value) for row in weights for value in row) or not all(map(is_finite_number, intercepts)):
        raise ValueError("the head holds something other than finite numbers")
    return Regression(np.asarray(weights, dtype=np.float64), np.asarray(intercepts, dtype=np.float64))



__all__ = ["Head", "MultiLabelHead", "Regression", "SingleLabelHead", "fit_head", "head_from_json"]
