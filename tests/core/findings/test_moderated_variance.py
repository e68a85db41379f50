"""A group's variance is the floor's and its own, each counted by its degrees of freedom (empirical
Bayes, Smyth 2004): not the larger of two noisy variances."""

from __future__ import annotations

import numpy as np

from guiapp.core.findings import CodedSample, RandomSample, estimate_findings
from guiapp.core.findings.group_floor import (
    floor_bounds,
    floor_variance,
    own_degrees,
    pooled_kurtosis,
    prior_degrees,
)
from guiapp.core.findings.shares import Estimate

CATS = ("rare", "common", "other")


def _estimate(own: float, spread: float, own_df: float, prior_df: float, share: float = 0.3) -> Estimate:
    shares = np.array([share, 1 - share])
    return Estimate(shares, np.diag([own, own]), np.zeros((0, 2)), 1.0, 5000, 200, spread=np.array([spread, spread]),
                    own_df=np.array([own_df, own_df]), prior_df=prior_df)


def test_the_moderated_variance_lies_between_the_floor_and_the_own_weighted_by_their_degrees_of_freedom():
    spread = 0.002
    floor = float(floor_variance(np.array([0.3]), np.array([spread]))[0])
    own = 4 * floor
    estimate = _estimate(own, spread, own_df=30.0, prior_df=10.0)
    variance = estimate.standard_errors[0] ** 2
    assert floor < variance < own  # the larger of the two would be ``own``
    assert np.isclose(variance, (10 * floor + 30 * own) / 40)
    # the interval: Student's t on 40 degrees of freedom times that standard error, about
    low, high = estimate.widened(np.array([0.0, 0.0]), np.array([1.0, 1.0]), 0.95)
    assert 2 * 1.9 * np.sqrt(variance) < high[0] - low[0] < 2 * 2.2 * np.sqrt(variance)


def test_many_own_degrees_of_freedom_follow_the_group_and_few_follow_the_floor():
    spread = 0.002
    floor = float(floor_variance(np.array([0.3]), np.array([spread]))[0])
    many = _estimate(9 * floor, spread, own_df=500.0, prior_df=5.0)
    assert many.standard_errors[0] ** 2 > 8.5 * floor
    none_of_it = _estimate(0.0, spread, own_df=0.0, prior_df=5.0)  # no coded text of the category
    low, high = none_of_it.widened(np.zeros(2), np.ones(2), 0.95)
    wilson_low, wilson_high = floor_bounds(np.array([0.3]), np.array([spread]), 0.95)
    assert low[0] <= wilson_low[0] and high[0] >= wilson_high[0]  # never narrower than the floor


def test_a_share_of_zero_keeps_an_upper_end():
    estimate = _estimate(0.0, 0.01, own_df=3.0, prior_df=8.0, share=0.0)
    low, high = estimate.widened(np.zeros(2), np.zeros(2), 0.95)
    assert low[0] == 0.0 and high[0] > 0.02


def test_the_prior_degrees_of_freedom_are_estimated_from_the_spread_of_the_own_variances():
    rng = np.random.default_rng(0)
    cells, d, d0 = 4000, np.full(4000, 20.0), 12.0
    floor = rng.uniform(0.5, 2.0, cells)
    truth = floor * d0 / rng.chisquare(d0, cells)  # scaled inverse χ² around the floor
    own = truth * rng.chisquare(d, cells) / d
    assert 9 < prior_degrees(own, floor, d) < 16
    sampled_only = floor * rng.chisquare(d, cells) / d  # every group's true variance is the floor's
    assert prior_degrees(sampled_only, floor, d) > 100


def test_a_rare_categorys_own_variance_has_few_degrees_of_freedom():
    rng = np.random.default_rng(1)
    blocks = [np.column_stack([rng.random(200) < 0.01, rng.normal(size=200)]).astype(float) for _ in range(8)]
    kurtosis = pooled_kurtosis(blocks)
    assert kurtosis[0] > 30 and 2.5 < kurtosis[1] < 3.5
    degrees = own_degrees(200.0, kurtosis, np.array([2, 200]))
    assert degrees[0] < 15 and 150 < degrees[1] < 260
    assert own_degrees(200.0, kurtosis, np.array([0, 200]))[0] == 0.0  # no coded text of it: the floor alone


def _corpus(seed: int, bad_group_model: bool):
    """Six years; in year 0 the model guesses (its mistakes far above the others'), elsewhere it is good."""
    rng = np.random.default_rng(seed)
    n_texts = 6000
    year = rng.integers(0, 6, n_texts)
    label = rng.choice(3, size=n_texts, p=[0.05, 0.35, 0.60])
    probabilities = np.full((n_texts, 3), 0.02)
    probabilities[np.arange(n_texts), label] = 0.96
    if bad_group_model:
        guess = year == 0
        probabilities[guess] = rng.dirichlet(np.ones(3), guess.sum())
    return year, label, probabilities


def test_a_group_far_above_the_floor_with_many_coded_texts_keeps_about_its_own_interval():
    year, label, probabilities = _corpus(2, bad_group_model=True)
    rng = np.random.default_rng(3)
    positions = np.sort(rng.choice(len(year), 2400, replace=False))
    coded = CodedSample([CATS[k] for k in label[positions]], probabilities[positions], positions)
    found = estimate_findings(probabilities, CATS, coded, RandomSample(), groups=year.tolist())
    rows = year[positions] == 0
    e = np.eye(3)[label[positions][rows]] - found.power * probabilities[positions][rows]
    n_g, big_n = int(rows.sum()), int((year == 0).sum())
    own = (1 - n_g / big_n) * e.var(axis=0, ddof=1) / n_g
    for k, category in enumerate(CATS[1:], start=1):
        share = found.share(category, "0")
        assert share.standard_error**2 > 0.7 * own[k]
        truth = (label[year == 0] == k).mean()
        assert share.low <= truth <= share.high


def test_a_group_with_two_coded_texts_without_errors_follows_the_floor():
    year, label, probabilities = _corpus(4, bad_group_model=False)
    rng = np.random.default_rng(5)
    positions = rng.choice(np.flatnonzero(year != 0), 600, replace=False)
    two = rng.choice(np.flatnonzero((year == 0) & (label == 2)), 2, replace=False)
    positions = np.sort(np.concatenate([positions, two]))
    coded = CodedSample([CATS[k] for k in label[positions]], probabilities[positions], positions)
    found = estimate_findings(probabilities, CATS, coded, RandomSample(), groups=year.tolist())
    share = found.share("other", "0")
    assert share.high - share.low > 0.3  # two coded texts: an interval as wide as two texts allow
    truth = (label[year == 0] == 2).mean()
    assert share.low <= truth <= share.high
