"""Splits, folds, oversampling and metrics of the shared protocol."""

from __future__ import annotations

import numpy as np
import pytest
from imblearn.over_sampling import RandomOverSampler
from sklearn.metrics import f1_score

from guiapp.core.errors import DataError
from guiapp.core.experiment.scores import metrics
from guiapp.core.experiment.protocol.resampling import cv_folds, oversample, oversampled_rows, oversampling_targets
from guiapp.core.study.split import random_holdout


def labels(counts: list[int]) -> np.ndarray:
    return np.repeat(np.arange(len(counts)), counts)


def test_oversampling_targets_grow_small_categories_to_the_ratio_of_the_largest() -> None:
    y = labels([400, 60, 10])
    assert oversampling_targets(y, 0.25) == {0: 400, 1: 100, 2: 100}
    assert oversampling_targets(y, 0.1) == {0: 400, 1: 60, 2: 40}  # never shrinks a category


def test_oversample_adds_copies_after_the_original_rows_only() -> None:
    y = labels([40, 6, 3])
    X = np.arange(len(y)).reshape(-1, 1)
    X_new, y_new = oversample(X, y, 0.25, seed=7)
    assert np.array_equal(X_new[: len(y), 0], np.arange(len(y)))  # originals first, untouched
    copies = X_new[len(y) :, 0]
    assert set(y[copies]) == {1, 2}  # only smaller categories are copied
    assert np.bincount(y_new).tolist() == [40, 10, 10]
    assert np.array_equal(oversampled_rows(y, 0.25, 7), X_new[:, 0])


def test_oversample_equals_imbalanced_learn_with_the_same_seed() -> None:
    y = labels([50, 9, 4])
    X = np.random.default_rng(0).normal(size=(len(y), 3))
    expected = RandomOverSampler(sampling_strategy=lambda t: oversampling_targets(t, 0.5), random_state=3).fit_resample(X, y)
    ours = oversample(X, y, 0.5, 3)
    assert np.array_equal(ours[0], expected[0]) and np.array_equal(ours[1], expected[1])


def test_random_holdout_is_stratified_and_seeded() -> None:
    y = labels([70, 20, 10])
    split = random_holdout(y, 0.3, seed=1)
    assert len(split.test) == 30 and len(split.train) == 70
    assert np.bincount(y[split.test]).tolist() == [21, 6, 3]
    assert not set(split.train) & set(split.test)
    assert np.array_equal(random_holdout(y, 0.3, seed=1).test, split.test)
    assert not np.array_equal(random_holdout(y, 0.3, seed=2).test, split.test)
    assert "30%" in split.describe()


def test_random_holdout_refuses_a_category_with_one_text() -> None:
    with pytest.raises(DataError, match="only one coded text"):
        random_holdout(labels([20, 1]), 0.3, 0)


def test_folds_refuse_categories_smaller_than_the_number_of_folds() -> None:
    with pytest.raises(DataError, match="fewer than the 5"):
        cv_folds(labels([30, 4]), 5, 0)
    folds = cv_folds(labels([30, 10]), 5, 0)
    assert len(folds) == 5
    assert all((labels([30, 10])[valid] == 1).sum() == 2 for _, valid in folds)


def test_macro_f1_matches_scikit_learn() -> None:
    rng = np.random.default_rng(0)
    y = rng.integers(0, 4, 200)
    p = np.where(rng.random(200) < 0.6, y, rng.integers(0, 4, 200))
    assert metrics.macro_f1(y, p) == pytest.approx(f1_score(y, p, average="macro"))
    scores = metrics.category_scores(y, p, ["a", "b", "c", "d"])
    assert [s.support for s in scores] == np.bincount(y, minlength=4).tolist()
    matrix = np.array(metrics.confusion(y, p, 4))
    assert matrix.sum() == 200 and np.trace(matrix) == (y == p).sum()


def test_bootstrap_interval_brackets_the_score_and_narrows_with_more_texts() -> None:
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 300)
    p = np.where(rng.random(300) < 0.7, y, rng.integers(0, 3, 300))
    low, high = metrics.bootstrap_macro_f1(y, p, 3, 1000, seed=5)
    assert low < metrics.macro_f1(y, p) < high
    big_low, big_high = metrics.bootstrap_macro_f1(np.tile(y, 10), np.tile(p, 10), 3, 1000, seed=5)
    assert big_high - big_low < (high - low) / 2
    assert metrics.bootstrap_macro_f1(y, p, 3, 1000, seed=5) == (low, high)  # seeded
    assert metrics.bootstrap_macro_f1(y, p, 3, 0, seed=5) is None


def test_bootstrap_resample_scores_equal_scikit_learn() -> None:
    """The vectorised resampling computes exactly scikit-learn's macro-F1 for each resample."""
    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, 50)
    p = np.where(rng.random(50) < 0.5, y, rng.integers(0, 3, 50))
    # a one-sample "interval" at level 0 is the median of 1 resample: its macro-F1
    draws = np.random.default_rng(9).integers(0, 50, size=(1, 50))[0]
    low, high = metrics.bootstrap_macro_f1(y, p, 3, 1, seed=9, level=0.0)
    assert low == pytest.approx(f1_score(y[draws], p[draws], average="macro", zero_division=0))


def test_the_macro_f1_and_the_per_category_table_count_the_same_categories():
    from guiapp.core.experiment.scores.metrics import category_scores, macro_f1

    y_true = np.array([0, 0, 1, 1, 0, 1])  # "c" never coded in the test texts, "d" neither coded nor predicted
    y_pred = np.array([0, 2, 1, 0, 0, 1])
    scores = category_scores(y_true, y_pred, ["a", "b", "c", "d"])
    assert [s.counted for s in scores] == [True, True, True, False]
    assert scores[2].predicted == 1 and scores[2].f1 == 0.0 and scores[3].predicted == 0
    assert macro_f1(y_true, y_pred) == pytest.approx(np.mean([s.f1 for s in scores if s.counted]))
    assert macro_f1(y_true, y_pred) != pytest.approx(np.mean([s.f1 for s in scores]))
