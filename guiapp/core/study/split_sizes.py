"""How many texts a study will train on and test on, before it runs.

The random hold-out sets aside ``ceil(test_share × coded texts)`` texts for the test (the rule of
:func:`guiapp.core.study.split.random_holdout`, scikit-learn's ``train_test_split``); a split
column marks the test texts itself; a separate test file brings its own. Estimates, the Models
step's sentence and the question before a large run all count with these functions, so they
agree with the split the run will make.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from guiapp.core.study.mapping import ColumnMapping, category_labels, split_labels

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd

    from guiapp.core.study.spec import ExperimentSpec


def held_out_count(test_share: float, n_coded: int) -> int:
    """The test texts of a random hold-out of ``test_share`` of ``n_coded`` coded texts."""
    return math.ceil(test_share * n_coded)


def holdout_sizes(test_share: float, n_coded: int) -> tuple[int, int]:
    """(training texts, test texts) of a random hold-out."""
    n_test = held_out_count(test_share, n_coded)
    return n_coded - n_test, n_test


def split_column_sizes(frame: pd.DataFrame | None, mapping: ColumnMapping) -> tuple[int, int] | None:
    """(training texts, test texts) that the split column marks among the coded texts; None without
    a split column (or when the table lacks it or the category column)."""
    if frame is None or not mapping.split_column or not mapping.category_column:
        return None
    if mapping.split_column not in frame.columns or mapping.category_column not in frame.columns:
        return None
    coded = category_labels(frame[mapping.category_column]).notna().to_numpy()
    split = split_labels(frame[mapping.split_column])[0].to_numpy()
    return int((coded & (split == "train")).sum()), int((coded & (split == "test")).sum())


def planned_sizes(spec: ExperimentSpec, n_coded: int, test_file_count: int | None = None,
                  frame: pd.DataFrame | None = None) -> tuple[int, int]:
    """(training texts, test texts) the study ``spec`` will have: with a test file, all ``n_coded``
    coded texts of the table train and the file's ``test_file_count`` coded texts test; with a split
    column (counted in ``frame``, the study's table, when given), the rows it marks; else the random
    hold-out of ``spec.evaluation.test_share``."""
    if spec.data.test_source:
        return n_coded, test_file_count or 0
    marked = split_column_sizes(frame, spec.data.mapping)
    if marked is not None:
        return marked
    return holdout_sizes(spec.evaluation.test_share, n_coded)


def oversampled_size(category_counts: Sequence[int], n_coded: int, n_train: int, ratio: float) -> int:
    """About how many training texts random oversampling gives: every smaller category grows to
    ``ratio`` × the largest (``resampling.oversampling_targets``), counted on the ``n_coded`` coded
    texts of the whole table (``category_counts``) and scaled to the ``n_train`` training texts."""
    if not category_counts or n_coded <= 0:
        return n_train
    target = math.ceil(ratio * max(category_counts))
    grown = sum(max(count, target) for count in category_counts)
    return round(grown * n_train / n_coded)
