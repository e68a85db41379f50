"""How well predictions agree with the human coding: macro-F1, per-category scores, confusion
matrix, and a bootstrap confidence interval for the test macro-F1.

Each function also takes the indicator matrices (texts × categories) of a study where a text can
have several categories (``y_true.ndim == 2``) and then gives the multi-label measure
(:mod:`guiapp.core.stats.multilabel_scores`; the full evaluation is ``multilabel_metrics.py``).
"""

from __future__ import annotations

import numpy as np

from guiapp.core.experiment.results.result_parts import CategoryScores
from guiapp.core.stats import multilabel_scores


def _multi_label(y_true) -> bool:
    return np.ndim(y_true) == 2


def macro_f1(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Macro-averaged F1 over the categories that occur in the coding or the predictions.

    The same as scikit-learn's ``f1_macro`` scorer, which GridSearchCV uses. For indicator
    matrices (several categories per text): the mean F1 over the categories coded or predicted.
    """
    if _multi_label(y_true):
        return multilabel_scores.macro_f1(y_true, y_pred)
    from sklearn.metrics import f1_score

    return float(f1_score(y_true, y_pred, average="macro", zero_division=0))


def category_scores(y_true: np.ndarray, y_pred: np.ndarray, categories: list[str]) -> list[CategoryScores]:
    if _multi_label(y_true):
        table = multilabel_scores.category_table(y_true, y_pred)
        return [CategoryScores(name, float(p), float(r), float(f), int(s), int(n)) for name, p, r, f, s, n in zip(
            categories, table["precision"], table["recall"], table["f1"], table["support"], table["predicted"],
            strict=True)]
    from sklearn.metrics import precision_recall_fscore_support

    labels = np.arange(len(categories))
    precision, recall, f1, support = precision_recall_fscore_support(y_true, y_pred, labels=labels, zero_division=0)
    predicted = np.bincount(np.asarray(y_pred, dtype=np.int64), minlength=len(categories))[:len(categories)]
    return [
        CategoryScores(name, float(p), float(r), float(f), int(s), int(n))
        for name, p, r, f, s, n in zip(categories, precision, recall, f1, support, predicted, strict=True)
    ]


def accuracy(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """The share of texts coded as in the coding (several categories per text: all of them exactly)."""
    if _multi_label(y_true):
        truth, predicted = multilabel_scores.check_pair(y_true, y_pred)
        return float(np.all(truth == predicted, axis=1).mean()) if len(truth) else 0.0
    from sklearn.metrics import accuracy_score

    return float(accuracy_score(y_true, y_pred))


def confusion(y_true: np.ndarray, y_pred: np.ndarray, n_classes: int) -> list[list[int]]:
    """Rows: the human coding; columns: the model's prediction ([] for several categories per text:
    each category has its own 2×2 table, ``multilabel_metrics.category_confusions``)."""
    if _multi_label(y_true):
        return []
    from sklearn.metrics import confusion_matrix

    return confusion_matrix(y_true, y_pred, labels=np.arange(n_classes)).astype(int).tolist()


def bootstrap_macro_f1(
    y_true: np.ndarray, y_pred: np.ndarray, n_classes: int, samples: int, seed: int, level: float = 0.95
) -> tuple[float, float] | None:
    """Percentile bootstrap interval for the test macro-F1 (resampling test texts with replacement).

    Vectorised: each resample's confusion counts come from one ``bincount``, so 1,000 resamples
    of 10,000 test texts take well under a second. ``None`` when ``samples`` is 0. For indicator
    matrices (several categories per text) whole texts are resampled, keeping their categories.
    """
    if samples <= 0 or len(y_true) == 0:
        return None
    if _multi_label(y_true):
        scores = multilabel_scores.bootstrap_f1(y_true, [y_pred], samples, seed)[0][:, 0]
        return multilabel_scores.percentile_interval(scores, level)
    rng = np.random.default_rng(seed)
    n = len(y_true)
    pair = np.asarray(y_true) * n_classes + np.asarray(y_pred)
    scores = np.empty(samples)
    chunk = max(1, 2_000_000 // max(n, 1))
    for start in range(0, samples, chunk):
        stop = min(samples, start + chunk)
        draws = rng.integers(0, n, size=(stop - start, n))
        offsets = (np.arange(stop - start) * n_classes * n_classes)[:, None]
        counts = np.bincount((pair[draws] + offsets).ravel(), minlength=(stop - start) * n_classes**2)
        matrices = counts.reshape(stop - start, n_classes, n_classes)
        tp = np.diagonal(matrices, axis1=1, axis2=2).astype(float)
        predicted = matrices.sum(axis=1)
        actual = matrices.sum(axis=2)
        denominator = predicted + actual
        present = denominator > 0
        f1 = np.divide(2 * tp, denominator, out=np.zeros_like(tp), where=present)
        scores[start:stop] = f1.sum(axis=1) / np.maximum(present.sum(axis=1), 1)
    alpha = (1 - level) / 2
    low, high = np.quantile(scores, [alpha, 1 - alpha])
    return float(low), float(high)
