"""Krippendorff's alpha and Cohen's kappa per category (a text in it or not), checked against the
``krippendorff`` package and scikit-learn, with bootstrap intervals over the texts."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from guiapp.core.stats.agreement_categories import alpha_per_category, category_agreement, kappa_per_category


def _codings(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Two codings of four categories; the last category is used by neither."""
    rng = np.random.default_rng(seed)
    first = (rng.random((n, 4)) < [0.35, 0.15, 0.5, 0.0]).astype(np.uint8)
    second = first.copy()
    flips = rng.random(first.shape) < [0.1, 0.2, 0.3, 0.0]
    second[flips] = 1 - second[flips]
    return first, second


def test_alpha_and_kappa_of_each_category_match_the_reference_packages() -> None:
    first, second = _codings(250)
    alphas = alpha_per_category(first, second)
    kappas = kappa_per_category(first, second)
    for k in range(3):
        reference = krippendorff.alpha(reliability_data=np.vstack([first[:, k], second[:, k]]),
                                       level_of_measurement="nominal")
        assert alphas[k] == pytest.approx(reference)
        assert kappas[k] == pytest.approx(cohen_kappa_score(first[:, k], second[:, k]))
    assert np.isnan(alphas[3]) and np.isnan(kappas[3])  # a category neither coding used has none
    assert alphas[0] > alphas[1] > alphas[2]  # more disagreement, lower alpha


def test_the_mean_leaves_out_undefined_categories_and_intervals_hold_the_estimates() -> None:
    first, second = _codings(300, seed=1)
    found = category_agreement(first, second, samples=400, seed=3)
    assert found.mean_alpha == pytest.approx(np.mean(found.alpha[:3]))
    assert found.mean_kappa == pytest.approx(np.mean(found.kappa[:3]))
    for value, (low, high) in zip(found.alpha[:3], found.alpha_intervals[:3], strict=True):
        assert low <= value <= high
    for value, (low, high) in zip(found.kappa[:3], found.kappa_intervals[:3], strict=True):
        assert low <= value <= high
    assert found.mean_alpha_interval[0] <= found.mean_alpha <= found.mean_alpha_interval[1]
    assert all(np.isnan(v) for v in found.alpha_intervals[3])
    assert found.share_agreeing == pytest.approx((first == second).mean(axis=0).tolist())
    assert repr(category_agreement(first, second, samples=400, seed=3)) == repr(found)  # seeded (NaN != NaN)


def test_the_intervals_resample_whole_texts_as_a_loop_would() -> None:
    first, second = _codings(80, seed=2)
    samples, seed = 60, 5
    draws = np.random.default_rng(seed).integers(0, len(first), size=(samples, len(first)))
    loop = np.array([alpha_per_category(first[d], second[d]) for d in draws])
    found = category_agreement(first, second, samples=samples, seed=seed)
    for k in range(3):
        assert found.alpha_intervals[k] == pytest.approx(tuple(np.nanquantile(loop[:, k], [0.025, 0.975])))
    means = np.nanmean(loop[:, :3], axis=1)
    assert found.mean_alpha_interval == pytest.approx(tuple(np.quantile(means, [0.025, 0.975])))


def test_perfect_agreement_and_refusals() -> None:
    first, _ = _codings(40, seed=4)
    found = category_agreement(first, first, samples=50, seed=0)
    assert found.alpha[:3] == pytest.approx([1.0] * 3) and found.mean_alpha == pytest.approx(1.0)
    with pytest.raises(ValueError, match="covers 40 texts"):
        category_agreement(first, first[:10])
    single = category_agreement(first[:1], first[:1], samples=50)  # one text: no interval
    assert all(np.isnan(v) for v in single.mean_alpha_interval)
