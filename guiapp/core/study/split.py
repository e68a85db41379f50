"""The study's test texts when it has neither a split column nor a test file: a stratified random
hold-out, seeded by the study's one seed.

Where a text can have several categories (``y`` an indicator matrix, texts × categories), the
hold-out is made by iterative stratification (Sechidis et al. 2011) with the package
iterative-stratification (``iterstrat``) — kept up and built on scikit-learn's splitters, unlike
scikit-multilearn, which is no longer maintained. Each category keeps about its share in both
parts; afterwards a category of two or more texts that ended up on one side only gets one text
moved across, so every category is among both the training and the test texts. The test part
holds ``ceil(test_share × texts)`` texts as a rule, but stratification comes first, so it can be
a text or two off.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import train_test_split

from guiapp.core.errors import DataError
from guiapp.core.study.split_sizes import held_out_count


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


def stratification_target(y: np.ndarray) -> np.ndarray:
    """What iterative stratification spreads over the parts: the indicator matrix, plus — for a
    category that more texts have than not — a column of the texts *without* it, so that the few
    texts lacking a common category are spread too (every part keeps some of them)."""
    y = np.asarray(y, dtype=np.uint8)
    common = np.flatnonzero(2 * y.sum(axis=0, dtype=np.int64) > len(y))
    return np.hstack([y, 1 - y[:, common]]) if len(common) else y


def random_holdout(y: np.ndarray, test_share: float, seed: int) -> TrainTestSplit:
    """A stratified random hold-out: each category keeps its share in both parts (several
    categories per text: by iterative stratification, see the module docstring)."""
    if y.ndim == 2:
        return _multi_label_holdout(y, test_share, seed)
    rows = np.arange(len(y))
    counts = np.bincount(y)
    if (counts[counts > 0] < 2).any():
        raise DataError(
            "Some categories have only one coded text, so they cannot appear in both the "
            "training and the test texts.",
            "Code more texts for those categories or merge them with a related category.",
        )
    n_test = held_out_count(test_share, len(y))
    n_classes = int((counts > 0).sum())
    if n_test < n_classes or len(y) - n_test < n_classes:
        raise DataError(
            f"With {len(y)} coded texts and {n_classes} categories a {test_share:.0%} test share is too small "
            "to hold every category in both parts.",
            "Code more texts or choose a larger test share.",
        )
    train, test = train_test_split(rows, test_size=test_share, stratify=y, random_state=seed)
    return TrainTestSplit(np.sort(train), np.sort(test), "random hold-out")


def _multi_label_holdout(y: np.ndarray, test_share: float, seed: int) -> TrainTestSplit:
    from iterstrat.ml_stratifiers import MultilabelStratifiedShuffleSplit

    counts = y.sum(axis=0, dtype=np.int64)
    if (counts == 1).any():
        raise DataError(
            "Some categories have only one coded text, so they cannot appear in both the "
            "training and the test texts.",
            "Code more texts for those categories or merge them with a related category.",
        )
    n_test = held_out_count(test_share, len(y))
    if n_test < 1 or len(y) - n_test < 1:
        raise DataError(
            f"With {len(y)} coded texts a {test_share:.0%} test share leaves no texts for "
            f"{'the test' if n_test < 1 else 'training'}.",
            "Code more texts or choose another test share.",
        )
    splitter = MultilabelStratifiedShuffleSplit(n_splits=1, test_size=test_share, random_state=seed)
    _, test = next(splitter.split(np.zeros((len(y), 1)), stratification_target(y)))
    in_test = np.zeros(len(y), dtype=bool)
    in_test[test] = True
    _both_parts(np.asarray(y, dtype=bool), in_test)
    return TrainTestSplit(np.flatnonzero(~in_test), np.flatnonzero(in_test), "random hold-out")


def _both_parts(y: np.ndarray, in_test: np.ndarray) -> None:
    """Move one text across for each category of two or more texts that only one part has: the
    text with the fewest other categories whose move leaves each of them on its side (first
    position on ties). Changes ``in_test`` in place; no randomness, so the seed alone decides."""
    n_labels = y.sum(axis=1)
    for k in np.flatnonzero(y.sum(axis=0) >= 2):
        have = np.flatnonzero(y[:, k])
        for side in (True, False):  # a category missing from the test part, then from the training part
            if (in_test[have] == side).any():
                continue
            source = in_test != side
            left = y[source].sum(axis=0)
            movable = [row for row in have if (left[y[row]] >= 2).all()]
            if movable:
                row = min(movable, key=lambda r: (int(n_labels[r]), int(r)))
                in_test[row] = side
