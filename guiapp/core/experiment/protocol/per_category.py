"""One classifier per category: how the conventional families learn studies where a text can have
several categories (one-vs-rest, also called binary relevance).

Each category gets its own yes/no classifier of the study's family and setting, trained on every
training text (the texts that have the category against those that do not). Oversampling, when the
study asks for it, is done per category on that category's yes/no problem, inside the training part
only. A category that every training text has, or none, cannot be learnt: its "classifier" answers
with the training share (:class:`ConstantAnswer`), so it never stops the study.

XGBoost can learn all categories in one model (its own multi-output training), but on this
project's measurements it was slower than one model per category (88 s against 57 s for six
categories, 3,000 texts, 200 trees), so every family uses one model per category.

The answer of :class:`PerCategoryClassifier`: probabilities (n_texts, n_categories), each column the
independent chance of that category, and decisions ``probability >= threshold`` per category (0.5
unless thresholds were tuned on out-of-fold probabilities). An SVM in the grid search has no
probabilities; its decisions are the SVM's own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

FitOne = Callable[[np.ndarray, np.ndarray], Any]  # (rows to train on, yes/no labels) -> fitted classifier


class ConstantAnswer:
    """The answer for a category the training texts never (or always) have: the training share."""

    def __init__(self, share: float) -> None:
        self.share = float(share)

    def decision(self, n: int) -> np.ndarray:
        return np.full(n, 1 if self.share >= 0.5 else 0, dtype=np.uint8)

    def probability(self, n: int) -> np.ndarray:
        return np.full(n, self.share)


class PerCategoryClassifier:
    """Fitted yes/no classifiers, one per category (see the module docstring)."""

    def __init__(self, parts: list[Any], thresholds: np.ndarray | None = None) -> None:
        self.parts = parts
        self.thresholds = np.full(len(parts), 0.5) if thresholds is None else np.asarray(thresholds, dtype=float)
        self.textlab_classes_ = np.arange(len(parts))

    @property
    def n_categories(self) -> int:
        return len(self.parts)

    def predict_proba(self, X) -> np.ndarray:
        """Each category's probability (columns in category order); AttributeError when one of the
        classifiers has none (an SVM without calibration)."""
        n = X.shape[0]
        columns = []
        for part in self.parts:
            if isinstance(part, ConstantAnswer):
                columns.append(part.probability(n))
                continue
            if not hasattr(part, "predict_proba"):
                raise AttributeError("no probabilities")
            probabilities = part.predict_proba(X)  # raises AttributeError for an SVM without them
            classes = list(part.textlab_classes_)
            columns.append(probabilities[:, classes.index(1)])
        return np.column_stack(columns) if columns else np.zeros((n, 0))

    def predict(self, X, n_trees: int | None = None) -> np.ndarray:
        """Decisions (n_texts, n_categories) as 0/1: probability ≥ the category's threshold, or the
        classifier's own decision when it has no probabilities; ``n_trees`` for XGBoost settings
        that share a fit."""
        if n_trees is None:
            try:
                return (self.predict_proba(X) >= self.thresholds).astype(np.uint8)
            except AttributeError:
                pass
        n = X.shape[0]
        columns = []
        for part in self.parts:
            if isinstance(part, ConstantAnswer):
                columns.append(part.decision(n))
            elif n_trees is not None:
                columns.append(part.textlab_classes_[np.asarray(part.predict(X, iteration_range=(0, n_trees)), dtype=int)])
            else:
                decided = np.asarray(part.predict(X))
                columns.append(part.textlab_classes_[decided] if hasattr(part, "get_booster") else decided)
        return np.column_stack(columns).astype(np.uint8)


def fit_per_category(Y: np.ndarray, fit_one: FitOne, oversampled: Callable[[np.ndarray], np.ndarray] | None = None,
                     check: Callable[[], None] | None = None) -> PerCategoryClassifier:
    """One classifier per column of the 0/1 matrix ``Y``. ``fit_one(rows, labels)`` fits one;
    ``oversampled(labels)`` gives the rows to train on for a category's yes/no labels (the
    original rows, then drawn copies of the smaller side), or None for all rows once."""
    parts: list[Any] = []
    everyone = np.arange(Y.shape[0])
    for column in range(Y.shape[1]):
        if check is not None:
            check()
        labels = np.asarray(Y[:, column], dtype=np.int64)
        share = float(labels.mean()) if len(labels) else 0.0
        if share in (0.0, 1.0):
            parts.append(ConstantAnswer(share))
            continue
        rows = everyone if oversampled is None else oversampled(labels)
        parts.append(fit_one(rows, labels[rows]))
    return PerCategoryClassifier(parts)
