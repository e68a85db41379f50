"""The interval of a model's mean cross-validation score, corrected for the folds' shared texts."""

from __future__ import annotations

import math
import statistics

import pytest
from scipy import stats

from guiapp.core.stats.fold_interval import fold_interval, fold_sizes

SCORES = [0.70, 0.72, 0.74, 0.71, 0.73]


def test_the_interval_is_nadeau_and_bengios_corrected_t_interval():
    low, high = fold_interval(SCORES, n_train=500, folds=5)
    # each fold trains on 400 texts and scores 100: variance × (1/5 + 100/400), t with 4 degrees of freedom
    half = stats.t.ppf(0.975, 4) * math.sqrt(statistics.variance(SCORES) * (1 / 5 + 100 / 400))
    assert (low, high) == pytest.approx((0.72 - half, 0.72 + half))
    naive = stats.t.ppf(0.975, 4) * statistics.stdev(SCORES) / math.sqrt(5)
    assert high - low > 2 * naive  # wider than the interval that ignores the overlap


def test_repeated_cross_validation_holds_out_a_kth_of_the_texts_per_fold():
    scores = SCORES + [0.69, 0.75, 0.72, 0.70, 0.74]  # 2 × 5 folds
    low, high = fold_interval(scores, n_train=503, folds=5)
    mean = statistics.fmean(scores)
    half = stats.t.ppf(0.975, 9) * math.sqrt(statistics.variance(scores) * (1 / 10 + 100 / 403))
    assert (low, high) == pytest.approx((mean - half, mean + half))
    assert fold_interval(scores, n_train=503, folds=None) != (low, high)  # k taken as the 10 scores


def test_a_wider_level_gives_a_wider_interval():
    low95, high95 = fold_interval(SCORES, 500, 5)
    low99, high99 = fold_interval(SCORES, 500, 5, level=0.99)
    assert low99 < low95 < high95 < high99


@pytest.mark.parametrize(("scores", "n_train", "folds"), [
    ([0.7, 0.8], 500, 2),  # too few folds to say anything
    (SCORES, 4, 5),  # fewer training texts than folds
    (SCORES, 0, None),  # the number of training texts was not recorded
])
def test_no_interval_when_it_cannot_be_computed(scores, n_train, folds):
    assert fold_interval(scores, n_train, folds) is None


def test_each_fold_holds_out_a_kth_of_the_training_texts():
    assert fold_sizes(500, 5) == (400, 100)
    assert fold_sizes(168, 5) == (135, 33)  # folds of 33 and 34 texts: the smaller size
