"""Bootstrap intervals for Krippendorff's alpha and Cohen's kappa: the vectorised resampling equals
a plain loop over the same draws, is seeded, and narrows with more units."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from guiapp.core.stats.agreement import alpha_from_counts, cohen_kappa, krippendorff_alpha, value_counts
from guiapp.core.stats.agreement_intervals import bootstrap_alpha, bootstrap_alpha_from_counts, bootstrap_kappa
from tests.core.stats.test_agreement import random_codings


def loop_interval(statistic, n_units: int, samples: int, seed: int, level: float = 0.95) -> tuple[float, float]:
    draws = np.random.default_rng(seed).integers(0, n_units, size=(samples, n_units))
    values = np.array([statistic(rows) for rows in draws])
    values = values[np.isfinite(values)]
    return tuple(np.quantile(values, [(1 - level) / 2, (1 + level) / 2]))


def test_alpha_interval_equals_resampling_units_one_by_one() -> None:
    data = random_codings(7, 4, 80, 3, 0.3)
    counts, _ = value_counts(data)
    ours = bootstrap_alpha(data, samples=200, seed=11)
    assert ours == pytest.approx(loop_interval(lambda rows: alpha_from_counts(counts[rows]), 80, 200, 11))
    assert bootstrap_alpha_from_counts(counts, samples=200, seed=11) == ours


def test_alpha_interval_is_seeded_holds_the_estimate_and_narrows_with_more_units() -> None:
    small = random_codings(8, 3, 60, 3, 0.1)
    large = random_codings(8, 3, 1500, 3, 0.1)
    low, high = bootstrap_alpha(small, samples=300, seed=1)
    assert low < krippendorff_alpha(small) < high
    assert bootstrap_alpha(small, samples=300, seed=1) == (low, high)
    assert bootstrap_alpha(small, samples=300, seed=2) != (low, high)
    large_low, large_high = bootstrap_alpha(large, samples=300, seed=1)
    assert large_high - large_low < (high - low) / 3
    narrow = bootstrap_alpha(small, samples=300, seed=1, level=0.5)
    assert low < narrow[0] < narrow[1] < high


def test_kappa_interval_equals_resampling_units_one_by_one() -> None:
    rng = np.random.default_rng(2)
    a = rng.integers(0, 3, 120)
    b = np.where(rng.random(120) < 0.6, a, rng.integers(0, 3, 120))
    ours = bootstrap_kappa(a, b, samples=80, seed=5)
    assert ours == pytest.approx(loop_interval(lambda rows: cohen_kappa_score(a[rows], b[rows]), 120, 80, 5))
    assert ours[0] < cohen_kappa(a, b) < ours[1]


def test_intervals_refuse_unusable_settings() -> None:
    with pytest.raises(ValueError, match="at least one resample"):
        bootstrap_kappa([1, 2, 1], [1, 2, 2], samples=0)
    with pytest.raises(ValueError, match="between 0 and 1"):
        bootstrap_alpha_from_counts([[2, 0], [1, 1]], level=95)
