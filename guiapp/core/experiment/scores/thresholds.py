"""Each category's decision threshold in a study where a text can have several categories, and the
two forms of a text's categories (an indicator matrix in memory, a list of category numbers in results).

A model gives every text a probability per category, each on its own (they need not sum to one);
a text is put in category k when its probability reaches the threshold: ``P[:, k] >= thresholds[k]``.
The threshold is 0.5 unless the study asks to tune it; :func:`tune_thresholds` then chooses, per
category, the threshold with the highest F1 for that category on the **out-of-fold probabilities
of the training texts** (each text scored by a model that did not see it). Thresholds are never
chosen on the test texts: the engine calls it with out-of-fold probabilities only, so the test
scores stay an honest estimate.
"""

from __future__ import annotations

import numpy as np

DEFAULT_THRESHOLD = 0.5
LOWEST, HIGHEST, STEP = 0.05, 0.95, 0.01
# the thresholds tried when the probabilities have more distinct values than this grid has points
GRID = np.unique(np.round(np.append(np.arange(LOWEST, HIGHEST + STEP / 2, STEP), DEFAULT_THRESHOLD), 10))


def _check(y: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    y, p = np.asarray(y), np.asarray(p, dtype=float)
    if y.ndim != 2 or p.ndim != 2:
        raise ValueError("Thresholds need the coding and the probabilities as texts × categories tables.")
    if y.shape != p.shape:
        raise ValueError(f"The coding covers {y.shape[0]:,} texts × {y.shape[1]:,} categories but the probabilities "
                         f"{p.shape[0]:,} × {p.shape[1]:,}.")
    if y.size and not np.isin(y, (0, 1)).all():
        raise ValueError("The coding may hold only 0 (not in the category) or 1 (in the category).")
    finite = p[np.isfinite(p)]
    if finite.size and (finite.min() < 0 or finite.max() > 1):
        raise ValueError("Probabilities must lie between 0 and 1.")
    return y.astype(bool), p


def candidate_thresholds(probabilities: np.ndarray) -> np.ndarray:
    """The thresholds worth trying for one category: the midpoints between its distinct
    probabilities (any threshold between two of them decides alike) within 0.05 … 0.95, and 0.5;
    the grid 0.05, 0.06 … 0.95 instead when there would be more midpoints than grid points."""
    values = np.unique(probabilities[np.isfinite(probabilities)])
    midpoints = (values[:-1] + values[1:]) / 2
    midpoints = midpoints[(midpoints >= LOWEST) & (midpoints <= HIGHEST)]
    if len(midpoints) > len(GRID):
        return GRID.copy()
    return np.unique(np.append(midpoints, DEFAULT_THRESHOLD))


def _f1_at(truth: np.ndarray, probabilities: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """F1 of one category at each candidate threshold, by counting with sorted probabilities."""
    positives = np.sort(probabilities[truth])
    every = np.sort(probabilities)
    hits = len(positives) - np.searchsorted(positives, candidates, side="left")  # positives with p >= t
    predicted = len(every) - np.searchsorted(every, candidates, side="left")
    denominator = len(positives) + predicted
    return np.divide(2.0 * hits, denominator, out=np.zeros(len(candidates)), where=denominator > 0)


def tune_thresholds(y: np.ndarray, p: np.ndarray, candidates=None) -> np.ndarray:  # noqa: ANN001 — any sequence
    """Per category, the threshold with the highest F1 on out-of-fold probabilities.

    ``y`` is the coding of the training texts (texts × categories, 0/1), ``p`` their out-of-fold
    probabilities (same shape). Never pass test texts: thresholds chosen on them would flatter the
    test scores. Texts without a probability for a category (NaN) are left out for it. Ties go to
    the threshold closest to 0.5; a category with no coded text among the scored ones keeps 0.5.
    ``candidates`` replaces the thresholds tried (by default :func:`candidate_thresholds`)."""
    truth, probabilities = _check(y, p)
    given = None
    if candidates is not None:
        given = np.unique(np.asarray(candidates, dtype=float))
        if given.size == 0 or not np.isfinite(given).all() or given.min() <= 0 or given.max() > 1:
            raise ValueError("Candidate thresholds must be numbers above 0 and at most 1.")
    chosen = np.full(truth.shape[1], DEFAULT_THRESHOLD)
    for k in range(truth.shape[1]):
        scored = np.isfinite(probabilities[:, k])
        t, q = truth[scored, k], probabilities[scored, k]
        if not t.any():
            continue
        tried = given if given is not None else candidate_thresholds(q)
        f1 = _f1_at(t, q, tried)
        best = np.flatnonzero(np.isclose(f1, f1.max(), rtol=0, atol=1e-12))
        chosen[k] = tried[best[np.argmin(np.abs(tried[best] - DEFAULT_THRESHOLD))]]
    return chosen


def apply_thresholds(p: np.ndarray, thresholds) -> np.ndarray:  # noqa: ANN001 — a sequence per category
    """The predicted categories: 1 where a text's probability reaches the category's threshold
    (uint8, texts × categories; a missing probability, NaN, gives 0)."""
    probabilities = np.asarray(p, dtype=float)
    limits = np.asarray(thresholds, dtype=float)
    if probabilities.ndim != 2 or limits.shape != (probabilities.shape[1],):
        raise ValueError(f"Need one threshold per category: {limits.size:,} given for "
                         f"{probabilities.shape[-1] if probabilities.ndim else 0:,} categories.")
    with np.errstate(invalid="ignore"):
        return (probabilities >= limits[None, :]).astype(np.uint8)


def predicted_sets(y_pred: np.ndarray) -> list[list[int]]:
    """Each text's categories as a list of category numbers (the form results keep), e.g. [[0, 3], [], [2]]."""
    matrix = np.asarray(y_pred)
    if matrix.ndim != 2:
        raise ValueError("Need a texts × categories table of 0/1.")
    return [np.flatnonzero(row).tolist() for row in matrix]


def indicator(sets, n_categories: int) -> np.ndarray:  # noqa: ANN001 — lists of category numbers
    """The texts × categories 0/1 table (uint8) of each text's list of category numbers."""
    matrix = np.zeros((len(sets), n_categories), dtype=np.uint8)
    for row, members in enumerate(sets):
        if isinstance(members, int | np.integer) or members is None:
            raise ValueError(f"Text {row + 1:,} has {members!r} where a list of category numbers is expected: "
                             "these results are not from a study where a text can have several categories.")
        for k in members:
            if isinstance(k, bool) or not isinstance(k, int | np.integer) or not 0 <= k < n_categories:
                raise ValueError(f"Text {row + 1:,} names category {k!r}, but the study has categories "
                                 f"0 to {n_categories - 1}.")
            matrix[row, k] = 1
    return matrix
