"""How the categories are spread in a study where a text can have several categories.

:func:`label_health` counts, per category, the coded texts that have it and its share; whether it
is too rare for the cross-validation folds; the coded texts with none of the categories; the most
frequent combinations of categories; and how often two categories are given to the same text
(the co-occurrence matrix the Data step draws as a small heatmap). The data-health report keeps
the result as ``HealthReport.label_health``. Plain frozen dataclasses of ints, floats and strings,
so the report's ``to_dict`` stays JSON-ready.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from guiapp.core.study.label_sets import LabelSets

TOP_COMBINATIONS = 10


@dataclass(frozen=True)
class LabelCount:
    """One category of a study where a text can have several."""

    label: str
    count: int  # coded texts that have it
    share: float  # of the coded texts, 0..1 (shares add up to more than 1 when texts have several)
    train_count: int  # training texts that have it: as the run will split, or expected (see LabelHealth.needed)
    too_rare: bool  # fewer training texts than cross-validation folds: a run would stop


@dataclass(frozen=True)
class LabelCombination:
    labels: tuple[str, ...]  # in category order; () = coded texts with none of the categories
    count: int


@dataclass(frozen=True)
class LabelHealth:
    """Per category counts, the most frequent combinations and the co-occurrence counts."""

    categories: tuple[LabelCount, ...]  # in the study's category order
    n_coded: int
    n_no_category: int  # coded texts with none of the categories
    n_folds: int
    # coded texts a category needs so that each of the n_folds folds gets a training text with it
    # once the test texts are set aside: n_folds, or ceil(n_folds / (1 − test share)) with a random hold-out
    needed: int
    combinations: tuple[LabelCombination, ...]  # most frequent first (at most 10)
    co_occurrence: tuple[tuple[int, ...], ...]  # K × K: coded texts with both; the diagonal is each count
    n_thresholded: int = 0  # values between 0 and 1 (averaged coders) counted as the category from 0.5

    @property
    def labels(self) -> list[str]:
        return [category.label for category in self.categories]

    @property
    def too_rare(self) -> list[str]:
        return [category.label for category in self.categories if category.too_rare]

    def co_occurrence_matrix(self) -> np.ndarray:
        return np.array(self.co_occurrence, dtype=np.int64).reshape(len(self.categories), len(self.categories))


def needed_texts(n_folds: int, test_share: float | None) -> int:
    """Coded texts a category needs for ``n_folds`` folds when ``test_share`` of the texts are set
    aside at random for the test (None: the test texts come from elsewhere)."""
    if test_share is None:
        return n_folds
    return max(2, math.ceil(n_folds / (1.0 - test_share) - 1e-9))


def label_health(label_sets_or_matrix: LabelSets | np.ndarray, categories: Sequence[str] | None = None,
                 n_folds: int = 5, test_share: float | None = 0.3, *,
                 train_counts: Sequence[int] | np.ndarray | None = None) -> LabelHealth:
    """The spread of the categories (see the module docstring).

    ``label_sets_or_matrix``: the table's :class:`LabelSets` (only its coded rows count) or an
    indicator matrix of coded texts (texts × categories, 0/1) with its ``categories``.
    ``train_counts``: training texts per category as the run will split them (the data-health
    report counts them so); without them a category is too rare when it has fewer coded texts
    than :func:`needed_texts` — ``n_folds`` after ``test_share`` of the texts go to the test.
    """
    thresholded = 0
    if isinstance(label_sets_or_matrix, LabelSets):
        sets = label_sets_or_matrix
        matrix = sets.matrix[sets.coded]
        names = list(sets.categories if categories is None else categories)
        thresholded = sets.thresholded
    else:
        matrix = np.asarray(label_sets_or_matrix)
        if matrix.ndim != 2:
            raise ValueError(f"an indicator matrix (texts × categories) is needed, not shape {matrix.shape}")
        names = [str(k) for k in range(matrix.shape[1])] if categories is None else list(categories)
    if len(names) != matrix.shape[1]:
        raise ValueError(f"{len(names)} category names for {matrix.shape[1]} columns")
    y = (matrix > 0).astype(np.int64)
    n_coded = len(y)
    counts = y.sum(axis=0)
    needed = needed_texts(n_folds, test_share)
    if train_counts is not None:
        trained = np.asarray(train_counts, dtype=np.int64)
        rare = trained < n_folds
    else:
        share = 0.0 if test_share is None else test_share
        trained = np.floor(counts * (1.0 - share) + 1e-9).astype(np.int64)
        rare = counts < needed
    per_category = tuple(
        LabelCount(label=names[k], count=int(counts[k]), share=float(counts[k]) / n_coded if n_coded else 0.0,
                   train_count=int(trained[k]), too_rare=bool(rare[k]))
        for k in range(len(names))
    )
    return LabelHealth(
        categories=per_category,
        n_coded=n_coded,
        n_no_category=int((y.sum(axis=1) == 0).sum()),
        n_folds=n_folds,
        needed=needed,
        combinations=_combinations(y, names),
        co_occurrence=tuple(tuple(int(v) for v in row) for row in (y.T @ y)),
        n_thresholded=int(thresholded),
    )


def _combinations(y: np.ndarray, names: list[str], top: int = TOP_COMBINATIONS) -> tuple[LabelCombination, ...]:
    """The most frequent sets of categories (ties: fewer categories first, then by name)."""
    if len(y) == 0:
        return ()
    if y.shape[1] == 0:
        return (LabelCombination((), len(y)),)
    combos, counts = np.unique(y, axis=0, return_counts=True)
    found = [(tuple(names[k] for k in np.flatnonzero(combo)), int(count)) for combo, count in zip(combos, counts,
                                                                                                  strict=True)]
    found.sort(key=lambda item: (-item[1], len(item[0]), item[0]))
    return tuple(LabelCombination(labels, count) for labels, count in found[:top])
