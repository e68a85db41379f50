"""The shared protocol: which texts are for testing, the cross-validation folds, oversampling.

Everything random here is driven by the study's one seed, so a study run twice gives the same
split, the same folds and the same oversampled rows. Oversampling is only ever applied to the
training part of a split — callers pass it the training rows and nothing else, and the
validation fold and the test set are taken from the original rows (see ``tuning.py``).
"""

from __future__ import annotations

import math

import numpy as np
from imblearn.over_sampling import RandomOverSampler
from sklearn.model_selection import StratifiedKFold

from guiapp.core.errors import DataError
from guiapp.core.study.split import stratification_target
from guiapp.core.study.study_data import check_fold_sizes


def cv_folds(y: np.ndarray, n_folds: int, seed: int, repeats: int = 1) -> list[tuple[np.ndarray, np.ndarray]]:
    """Stratified k-fold splits of the training texts (positions into ``y``); with ``repeats`` > 1,
    repeated cross-validation: the first k splits are exactly the single k-fold's, then each further
    repeat draws the k folds again (seeds ``seed + 1``, ``seed + 2`` …), r × k splits in all.

    Where a text can have several categories (``y`` an indicator matrix, texts × categories), the
    folds come from iterative stratification (Sechidis et al. 2011), ``MultilabelStratifiedKFold``
    of the package iterative-stratification — kept up and built on scikit-learn's splitters, unlike
    scikit-multilearn, which is no longer maintained —, shuffled and seeded the same way, so that
    rare categories reach every fold. Its folds are deterministic for a given seed."""
    check_fold_sizes(y, n_folds)  # the same check `textlab health --spec` makes (study_data.py)
    if y.ndim == 2:
        from iterstrat.ml_stratifiers import MultilabelStratifiedKFold

        target = stratification_target(y)
        splits = []
        for repeat in range(max(1, repeats)):
            splitter = MultilabelStratifiedKFold(n_splits=n_folds, shuffle=True, random_state=seed + repeat)
            splits += list(splitter.split(np.zeros((len(y), 1)), target))
        return splits
    splits = []
    for repeat in range(max(1, repeats)):
        splitter = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=seed + repeat)
        splits += list(splitter.split(np.zeros(len(y)), y))
    return splits


def oversampling_targets(y: np.ndarray, ratio: float) -> dict[int, int]:
    """How many rows each category should have: smaller ones grow to ``ratio`` × the largest.

    Categories already at or above that size keep their size (imbalanced-learn's dictionary
    ``sampling_strategy``). Works as a callable ``sampling_strategy`` too.
    """
    labels, counts = np.unique(y, return_counts=True)
    target = math.ceil(ratio * counts.max())
    return {int(label): max(int(count), target) for label, count in zip(labels, counts, strict=True)}


def oversample(X, y: np.ndarray, ratio: float, seed: int):
    """Random oversampling of the smaller categories (imbalanced-learn), for training rows only.

    Returns ``(X, y)`` with the original rows first, followed by the drawn copies — exactly what
    ``RandomOverSampler(sampling_strategy=oversampling_targets, random_state=seed)`` returns.
    """
    if np.ndim(y) == 2:
        raise DataError(
            "Oversampling repeats texts of the smaller categories, which needs one category per text.",
            "Switch oversampling off for a study where a text can have several categories.",
        )
    sampler = RandomOverSampler(sampling_strategy=lambda labels: oversampling_targets(labels, ratio), random_state=seed)
    return sampler.fit_resample(X, y)


def oversampled_rows(y: np.ndarray, ratio: float, seed: int) -> np.ndarray:
    """Positions into ``y`` that :func:`oversample` would return (original rows, then copies)."""
    positions = np.arange(len(y)).reshape(-1, 1)
    resampled, _ = oversample(positions, y, ratio, seed)
    return np.asarray(resampled).ravel()
