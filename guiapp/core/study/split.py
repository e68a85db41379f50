"""The study's test texts when it has neither a split column nor a test file: a stratified random
hold-out, seeded by the study's one seed."""

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
