"""The numbers of training and test texts a study will have, counted as the split counts them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from guiapp.core.experiment.protocol.resampling import oversampled_rows
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import EvaluationSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from guiapp.core.study.split import random_holdout
from guiapp.core.study.split_sizes import (
    held_out_count,
    holdout_sizes,
    oversampled_size,
    planned_sizes,
    split_column_sizes,
)

MAPPING = ColumnMapping(["Text"], "Topic", split_column="Sample")


@pytest.mark.parametrize(("share", "n"), [(0.3, 101), (0.25, 10), (0.3, 240), (0.2, 7), (0.5, 3)])
def test_the_count_is_the_random_holdouts_own(share, n):
    y = np.arange(n) % 2
    n_test = len(random_holdout(y, share, seed=1).test) if n >= 4 else held_out_count(share, n)
    assert held_out_count(share, n) == n_test
    assert holdout_sizes(share, n) == (n - n_test, n_test)


def test_half_a_text_goes_to_the_test():
    assert held_out_count(0.25, 10) == 3  # 2.5 texts: the split takes 3, not round()'s 2
    assert holdout_sizes(0.3, 101) == (70, 31)


def _table() -> pd.DataFrame:
    return pd.DataFrame({
        "Text": [f"text {i}" for i in range(8)],
        "Topic": ["a", "b", None, "a", "b", "a", "", "b"],
        "Sample": ["train", "train", "test", "test", "train", "Test", "test", None],
    })


def test_a_split_column_counts_the_coded_texts_it_marks():
    assert split_column_sizes(_table(), MAPPING) == (3, 2)
    assert split_column_sizes(_table(), ColumnMapping(["Text"], "Topic")) is None
    assert split_column_sizes(None, MAPPING) is None
    assert split_column_sizes(_table(), ColumnMapping(["Text"], "Topic", split_column="Gone")) is None


def test_the_planned_sizes_follow_the_studys_way_of_testing():
    random = ExperimentSpec(DataSpec("a.xlsx", mapping=ColumnMapping(["Text"], "Topic")),
                            evaluation=EvaluationSpec(test_share=0.25))
    assert planned_sizes(random, 10) == (7, 3)
    test_file = ExperimentSpec(DataSpec("a.xlsx", mapping=ColumnMapping(["Text"], "Topic"), test_source="b.xlsx"))
    assert planned_sizes(test_file, 10, test_file_count=4) == (10, 4)
    assert planned_sizes(test_file, 10) == (10, 0)
    column = ExperimentSpec(DataSpec("a.xlsx", mapping=MAPPING))
    assert planned_sizes(column, 5, frame=_table()) == (3, 2)


def test_the_oversampled_size_is_what_oversampling_gives_the_training_texts():
    y = np.repeat([0, 1, 2], [50, 10, 5])
    assert oversampled_size([50, 10, 5], 65, 65, 0.5) == len(oversampled_rows(y, 0.5, seed=3)) == 100
    assert oversampled_size([50, 10, 5], 65, 13, 0.5) == 20  # the same growth for a fifth of the texts
    assert oversampled_size([], 0, 13, 0.5) == 13
