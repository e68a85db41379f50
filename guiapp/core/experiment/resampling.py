"""The shared protocol: which texts are for testing, the cross-validation folds, oversampling.

Everything random here is driven by the study's one seed, so a study run twice gives the same
split, the same folds and the same oversampled rows. Oversampling is only ever applied to the
training part of a split — callers pass it the training rows and nothing else, and the
validation fold and the test set are taken from the original rows (see ``tuning.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from imblearn.over_sampling import RandomOverSampler
from sklearn.model_selection import StratifiedKFold, train_test_split

from guiapp.core.errors import DataError


@dataclass(frozen=True)
class TrainTestSplit:
    """Row positions (into the coded texts) of the training and the test texts."""

    train: np.ndarray
    test: np.ndarray
    how: str  # "split column" | "test file" | "random hold-out"

    def describe(self) -> str:
        n_train, n_test = len(self.train), len(self.test)
        if self.how == "random hold-out":
            share = n_test / max(n_train + n_test, 1)
            return f"{n_test:,} texts ({share:.0%}) set aside at random for the test, {n_train:,} for training"
        return f"{n_test:,} test texts from the {self.how}, {n_train:,} for training"


def random_holdout(y: np.ndarray, test_share: float, seed: int) -> TrainTestSplit:
    """A stratified random hold-out: each category keeps its share in both parts."""
    rows = np.arange(len(y))
    counts = np.bincount(y)
    if (counts[counts > 0] < 2).any():
        raise DataError(
            "Some categories have only one coded text, so they cannot appear in both the "
            "training and the test texts.",
            "Code more texts for those categories or merge them with a related category.",
        )
    n_test = math.ceil(test_share * len(y))
    n_classes = int((counts > 0).sum())
    if n_test < n_classes or len(y) - n_test < n_classes:
        raise DataError(
            f"With {len(y)} coded texts and {n_classes} categories a {test_share:.0%} test share is too small "
            "to hold every category in both parts.",
            "Code more texts or choose a larger test share.",
        )
    train, test = train_test_split(rows, test_size=test_share, stratify=y, random_state=seed)
    return TrainTestSplit(np.sort(train), np.sort(test), "random hold-out")


def cv_folds(y: np.ndarray, n_folds: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Stratified k-fold splits of the training texts (positions into ``y``)."""
    counts = np.bincount(y)
    smallest = int(counts[counts > 0].min())
    if smallest < n_folds:
        raise DataError(
            f"The smallest category has only {smallest} training texts, fewer than the {n_folds} "
            "cross-validation folds, so some folds would miss it.",
            f"Code more texts for the rare categories, merge them, or use at most {max(smallest, 2)} folds.",
        )
    splitter = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=seed)
    return list(splitter.split(np.zeros(len(y)), y))


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
    sampler = RandomOverSampler(sampling_strategy=lambda labels: oversampling_targets(labels, ratio), random_state=seed)
    return sampler.fit_resample(X, y)


def oversampled_rows(y: np.ndarray, ratio: float, seed: int) -> np.ndarray:
    """Positions into ``y`` that :func:`oversample` would return (original rows, then copies)."""
    positions = np.arange(len(y)).reshape(-1, 1)
    resampled, _ = oversample(positions, y, ratio, seed)
    return np.asarray(resampled).ravel()
