"""McNemar's test and Nadeau & Bengio's corrected resampled t-test, against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from guiapp.core.stats.paired_tests import (
    CHI_SQUARE_METHOD,
    EXACT_METHOD,
    corrected_resampled_t_test,
    mcnemar,
)


def correctness(only_a: int, only_b: int, both: int = 0, neither: int = 0) -> tuple[np.ndarray, np.ndarray]:
    a = [True] * only_a + [False] * only_b + [True] * both + [False] * neither
    b = [False] * only_a + [True] * only_b + [True] * both + [False] * neither
    return np.array(a), np.array(b)


def test_mcnemar_with_few_discordant_texts_is_the_exact_binomial_test() -> None:
    result = mcnemar(*correctness(2, 9, both=50, neither=10))
    # two-sided: 2 * P(X <= 2), X ~ Binomial(11, 1/2) = 2 * (1 + 11 + 55) / 2**11
    assert result.p_value == pytest.approx(134 / 2048)
    assert result.method == EXACT_METHOD
    assert (result.statistic, result.n_only_a_right, result.n_only_b_right) == (2.0, 2, 9)


def test_mcnemar_with_many_discordant_texts_is_chi_square_with_continuity_correction() -> None:
    result = mcnemar(*correctness(30, 50, both=900, neither=20))
    assert result.method == CHI_SQUARE_METHOD
    assert result.statistic == pytest.approx((20 - 1) ** 2 / 80)  # 4.5125
    # chi-square with 1 df is a squared standard normal
    assert result.p_value == pytest.approx(2 * stats.norm.sf(math.sqrt(4.5125)))
    assert result.p_value == pytest.approx(0.03365, abs=1e-5)


def test_mcnemar_switches_method_at_25_discordant_texts() -> None:
    assert mcnemar(*correctness(10, 14)).method == EXACT_METHOD
    assert mcnemar(*correctness(10, 15)).method == CHI_SQUARE_METHOD


def test_mcnemar_ignores_texts_both_models_got_right_or_wrong_and_is_symmetric() -> None:
    few = mcnemar(*correctness(40, 20))
    many = mcnemar(*correctness(40, 20, both=5000, neither=3000))
    assert many.p_value == few.p_value
    a, b = correctness(40, 20)
    swapped = mcnemar(b, a)
    assert swapped.p_value == few.p_value
    assert (swapped.n_only_a_right, swapped.n_only_b_right) == (20, 40)


def test_mcnemar_without_discordant_texts_finds_nothing() -> None:
    result = mcnemar(*correctness(0, 0, both=10, neither=3))
    assert result.p_value == 1.0 and result.statistic == 0.0


def test_mcnemar_refuses_different_test_sets_and_non_boolean_values() -> None:
    with pytest.raises(ValueError, match="different numbers of test texts"):
        mcnemar([True, False], [True])
    with pytest.raises(ValueError, match="right"):
        mcnemar([0, 2], [1, 0])
    assert mcnemar([1, 0, 1], [0, 0, 1]).n_only_a_right == 1  # 0/1 is read as wrong/right


def test_corrected_t_test_matches_a_hand_computed_example() -> None:
    # differences 0.02, 0.03, 0.01, 0.04, 0.00: mean 0.02, sample variance 2.5e-4;
    # correction 1/5 + 200/800 = 0.45; t = 0.02 / sqrt(0.45 * 2.5e-4) = 1.885618
    result = corrected_resampled_t_test([0.82, 0.83, 0.81, 0.84, 0.80], [0.80] * 5, n_train=800, n_test=200)
    assert result.t == pytest.approx(1.885618, rel=1e-6)
    assert result.df == 4
    assert result.mean_difference == pytest.approx(0.02)
    assert result.p_value == pytest.approx(0.13242, abs=1e-5)  # t table: 0.10 < p < 0.20 for df 4
    # half-width = t_{0.975, 4} * sqrt(1.125e-4) = 2.776445 * 0.0106066
    assert result.ci_low == pytest.approx(0.02 - 0.0294486, abs=1e-6)
    assert result.ci_high == pytest.approx(0.02 + 0.0294486, abs=1e-6)


def test_corrected_t_is_the_plain_paired_t_shrunk_by_the_nadeau_bengio_factor() -> None:
    # Bouckaert & Frank (2004): 10 x 10-fold CV, n_test / n_train = 1/9, J = 100
    rng = np.random.default_rng(5)
    a = 0.70 + rng.normal(0, 0.02, 100)
    b = a - 0.005 + rng.normal(0, 0.01, 100)
    plain = stats.ttest_rel(a, b)
    corrected = corrected_resampled_t_test(a, b, n_train=900, n_test=100)
    factor = math.sqrt((1 / 100) / (1 / 100 + 100 / 900))
    assert corrected.t == pytest.approx(plain.statistic * factor)
    assert corrected.df == 99
    assert corrected.p_value == pytest.approx(2 * stats.t.sf(abs(plain.statistic * factor), 99))
    assert corrected.p_value > plain.pvalue  # the plain test is too eager


def test_corrected_t_interval_excludes_zero_exactly_when_p_is_below_the_level() -> None:
    rng = np.random.default_rng(1)
    for shift in (0.0, 0.01, 0.03):
        a = 0.6 + rng.normal(0, 0.02, 10)
        result = corrected_resampled_t_test(a + shift, a + rng.normal(0, 0.01, 10), n_train=90, n_test=10)
        assert result.ci_low < result.mean_difference < result.ci_high
        assert (result.p_value < 0.05) == (result.ci_low > 0 or result.ci_high < 0)


def test_corrected_t_with_identical_differences_in_every_fold() -> None:
    same = corrected_resampled_t_test([0.5, 0.6, 0.7], [0.5, 0.6, 0.7], 80, 20)
    assert (same.t, same.p_value) == (0.0, 1.0)
    shifted = corrected_resampled_t_test([0.6, 0.7, 0.8], [0.5, 0.6, 0.7], 80, 20)
    assert shifted.p_value == 0.0 and shifted.t == math.inf


def test_corrected_t_refuses_unusable_input() -> None:
    with pytest.raises(ValueError, match="at least two folds"):
        corrected_resampled_t_test([0.5], [0.4], 80, 20)
    with pytest.raises(ValueError, match="same folds"):
        corrected_resampled_t_test([0.5, 0.6], [0.4], 80, 20)
    with pytest.raises(ValueError, match="not a number"):
        corrected_resampled_t_test([0.5, float("nan")], [0.4, 0.5], 80, 20)
    with pytest.raises(ValueError, match="positive"):
        corrected_resampled_t_test([0.5, 0.6], [0.4, 0.5], 0, 20)
