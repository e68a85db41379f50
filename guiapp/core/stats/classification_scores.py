"""Macro-F1 and error rate of predictions against the human coding, one at a time or for many
bootstrap resamples at once.

Macro-F1 is the unweighted mean of the per-category F1 = 2·TP / (2·TP + FP + FN) over the
categories that occur in the coding or the predictions of the texts scored — the definition of
``guiapp.core.experiment.scores.metrics.macro_f1`` and of scikit-learn's
``f1_score(average="macro", zero_division=0)`` (Sokolova & Lapalme 2009). Categories absent from
both are left out rather than scored 0, so a subgroup is not punished for categories it does not
contain. Labels are category numbers 0 … n_classes - 1.
"""

from __future__ import annotations

import numpy as np

_CELLS_PER_CHUNK = 2_000_000


def _f1_from_tables(tables: np.ndarray) -> np.ndarray:
    """Macro-F1 of a stack of confusion tables (resamples × coding × prediction)."""
    tp = np.diagonal(tables, axis1=-2, axis2=-1).astype(float)
    denominator = tables.sum(axis=-2) + tables.sum(axis=-1)
    present = denominator > 0
    f1 = np.divide(2 * tp, denominator, out=np.zeros_like(tp), where=present)
    return f1.sum(axis=-1) / np.maximum(present.sum(axis=-1), 1)


def macro_f1(y_true, y_pred, n_classes: int | None = None) -> float:
    """Macro-F1 over the categories present in the coding or the predictions (0 for no texts)."""
    y_true, y_pred = np.asarray(y_true, dtype=int), np.asarray(y_pred, dtype=int)
    if len(y_true) == 0:
        return 0.0
    k = n_classes if n_classes is not None else int(max(y_true.max(), y_pred.max())) + 1
    table = np.bincount(y_true * k + y_pred, minlength=k * k).reshape(k, k)
    return float(_f1_from_tables(table))


def bootstrap_scores(y_true, y_pred, n_classes: int, samples: int, rng: np.random.Generator):
    """(macro-F1, error rate) of ``samples`` resamples of the texts, drawn with replacement."""
    pair = np.asarray(y_true, dtype=int) * n_classes + np.asarray(y_pred, dtype=int)
    n = len(pair)
    f1 = np.empty(samples)
    errors = np.empty(samples)
    chunk = max(1, _CELLS_PER_CHUNK // max(n, 1))
    diagonal = np.arange(n_classes) * (n_classes + 1)
    for start in range(0, samples, chunk):
        stop = min(samples, start + chunk)
        offsets = (np.arange(stop - start) * n_classes**2)[:, None]
        cells = (pair[rng.integers(0, n, size=(stop - start, n))] + offsets).ravel()
        tables = np.bincount(cells, minlength=(stop - start) * n_classes**2).reshape(-1, n_classes, n_classes)
        f1[start:stop] = _f1_from_tables(tables)
        errors[start:stop] = 1 - tables.reshape(stop - start, -1)[:, diagonal].sum(axis=1) / n
    return f1, errors
