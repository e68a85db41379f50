"""F1 scores of a study where a text can have several categories, one at a time or for many
bootstrap resamples of the texts at once.

The coding and the predictions are indicator matrices (texts × categories, 1 where the text is in
the category). Per category, TP/FP/FN count the texts the model put in it rightly, wrongly and
missed; F1 = 2·TP / (2·TP + FP + FN). **Macro-F1** is the unweighted mean of F1 over the categories
coded or predicted in the texts scored — a category with neither is left out rather than scored 0,
the rule of single-label macro-F1 (:mod:`classification_scores`). Equal to scikit-learn's
``f1_score(average="macro", zero_division=0, labels=<those categories>)``. **Micro-F1** pools every
(text, category) decision: 2·ΣTP / (2·ΣTP + ΣFP + ΣFN).

**Resampling.** :func:`bootstrap_category_counts` draws the texts with replacement (a whole text
keeps all its categories) and gives each resample's TP/FP/FN per category for several prediction
matrices at once, from one matrix product of the resample weights (how often each text was drawn)
with the texts' hit/miss indicators: 1,000 resamples of 10,000 texts × 10 categories take a
fraction of a second. Every prediction matrix sees the same resamples, so differences between
models are paired.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from guiapp.core.stats.bootstrap_draws import resample_weights


def as_indicators(values, name: str = "The coding") -> np.ndarray:
    """``values`` as a texts × categories matrix of 0/1 (uint8); ValueError saying what is wrong."""
    array = np.asarray(values)
    if array.ndim != 2:
        raise ValueError(f"{name} must have one row per text and one 0/1 column per category.")
    if array.size and not np.isin(array, (0, 1)).all():
        raise ValueError(f"{name} may hold only 0 (not in the category) or 1 (in the category).")
    return array.astype(np.uint8)


def check_pair(y_true, y_pred) -> tuple[np.ndarray, np.ndarray]:
    """The coding and the predictions as indicator matrices of the same shape."""
    truth = as_indicators(y_true, "The coding")
    predicted = as_indicators(y_pred, "The predictions")
    if truth.shape != predicted.shape:
        raise ValueError(f"The coding covers {truth.shape[0]:,} texts × {truth.shape[1]:,} categories but the "
                         f"predictions {predicted.shape[0]:,} × {predicted.shape[1]:,}.")
    return truth, predicted


def category_counts(y_true, y_pred) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(TP, FP, FN) per category, as int64 arrays."""
    truth, predicted = check_pair(y_true, y_pred)
    t, p = truth.astype(bool), predicted.astype(bool)
    tp = np.count_nonzero(t & p, axis=0).astype(np.int64)
    fp = np.count_nonzero(~t & p, axis=0).astype(np.int64)
    fn = np.count_nonzero(t & ~p, axis=0).astype(np.int64)
    return tp, fp, fn


def f1_from_counts(tp, fp, fn) -> tuple[np.ndarray, np.ndarray]:
    """(F1, counted) per category from counts of any shape (categories on the last axis); F1 is 0
    and ``counted`` False where a category was neither coded nor predicted."""
    tp, fp, fn = (np.asarray(a, dtype=float) for a in (tp, fp, fn))
    denominator = 2 * tp + fp + fn
    counted = denominator > 0
    f1 = np.divide(2 * tp, denominator, out=np.zeros_like(denominator), where=counted)
    return f1, counted


def macro_f1_from_counts(tp, fp, fn) -> np.ndarray | float:
    """Macro-F1 over the counted categories (last axis); 0 where no category is counted."""
    f1, counted = f1_from_counts(tp, fp, fn)
    macro = f1.sum(axis=-1) / np.maximum(counted.sum(axis=-1), 1)
    return float(macro) if np.ndim(macro) == 0 else macro


def micro_f1_from_counts(tp, fp, fn) -> float:
    """Micro-F1: every (text, category) decision pooled (0 when nothing was coded or predicted)."""
    tp, fp, fn = (float(np.sum(a)) for a in (tp, fp, fn))
    return 2 * tp / (2 * tp + fp + fn) if 2 * tp + fp + fn > 0 else 0.0


def category_table(y_true, y_pred) -> dict[str, np.ndarray]:
    """Per category: precision, recall, f1 (0 where undefined, as scikit-learn's ``zero_division=0``),
    support (texts coded with it) and predicted (texts the model put in it)."""
    tp, fp, fn = category_counts(y_true, y_pred)
    f1, _ = f1_from_counts(tp, fp, fn)
    predicted, support = tp + fp, tp + fn
    return {
        "precision": np.divide(tp, predicted, out=np.zeros(len(tp)), where=predicted > 0),
        "recall": np.divide(tp, support, out=np.zeros(len(tp)), where=support > 0),
        "f1": f1, "support": support, "predicted": predicted,
    }


def macro_f1(y_true, y_pred) -> float:
    """Macro-F1 over the categories coded or predicted in these texts (0 for no texts)."""
    return float(macro_f1_from_counts(*category_counts(y_true, y_pred)))


def micro_f1(y_true, y_pred) -> float:
    return micro_f1_from_counts(*category_counts(y_true, y_pred))


def bootstrap_category_counts(
    y_true, predictions: Sequence, samples: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """TP, FP and FN per resample, prediction matrix and category: three arrays of shape
    (samples, len(predictions), categories). Every prediction matrix is scored on the same
    resamples of the texts (seeded by ``seed``)."""
    truth = as_indicators(y_true, "The coding")
    matrices = [check_pair(truth, p)[1] for p in predictions]
    n, k = truth.shape
    m = len(matrices)
    if samples < 1:
        raise ValueError("The bootstrap needs at least one resample.")
    if n == 0:
        raise ValueError("The bootstrap needs at least one text.")
    t = truth.astype(float)
    # per text: hits (TP) and predicted (TP + FP) for every matrix, then the coded (TP + FN) once
    columns = np.concatenate([t * p for p in matrices] + [p.astype(float) for p in matrices] + [t], axis=1)
    tp = np.empty((samples, m, k))
    predicted = np.empty((samples, m, k))
    coded = np.empty((samples, 1, k))
    rng = np.random.default_rng(seed)
    for start, stop, weights in resample_weights(rng, n, samples):
        sums = weights @ columns
        tp[start:stop] = sums[:, : m * k].reshape(-1, m, k)
        predicted[start:stop] = sums[:, m * k: 2 * m * k].reshape(-1, m, k)
        coded[start:stop] = sums[:, 2 * m * k:].reshape(-1, 1, k)
    return tp, predicted - tp, coded - tp


def bootstrap_f1(y_true, predictions: Sequence, samples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(macro-F1 of shape (samples, models), per-category F1 of shape (samples, models, categories)
    with NaN where a resample neither codes nor predicts the category)."""
    tp, fp, fn = bootstrap_category_counts(y_true, predictions, samples, seed)
    f1, counted = f1_from_counts(tp, fp, fn)
    macro = f1.sum(axis=-1) / np.maximum(counted.sum(axis=-1), 1)
    return macro, np.where(counted, f1, np.nan)


def percentile_interval(values, level: float) -> tuple[float, float] | None:
    """The ``level`` percentile interval of the finite values (None when there are none)."""
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    if len(values) == 0:
        return None
    low, high = np.quantile(values, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)
