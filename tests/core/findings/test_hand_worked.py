"""The estimators on small cases worked out by hand (the numbers in the comments)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from guiapp.core.findings import (
    CodedSample,
    CodingStepDraws,
    KnownProbabilities,
    RandomSample,
    Step,
    Stratified,
    estimate_findings,
)

CATS = ("a", "b")


def two(first: list[float]) -> np.ndarray:
    """Probabilities of two categories from those of the first."""
    a = np.asarray(first, dtype=float)
    return np.column_stack([a, 1 - a])


def test_random_sample_is_the_corpus_mean_of_f_plus_the_coded_mean_residual():
    corpus = two([0.9, 0.2, 0.6, 0.3, 0.5])
    coded = CodedSample(["a", "b", "b"], two([0.8, 0.3, 0.6]), [0, 1, 2])
    found = estimate_findings(corpus, CATS, coded, RandomSample(), power_tuning=False)
    share = found.share("a")
    # f with the coded rows cross-fitted: .8 .3 .6 .3 .5 → mean .5; residuals .2 -.3 -.6 → mean -.2333
    assert share.estimate == pytest.approx(0.5 - 0.7 / 3)
    assert found.share("b").estimate == pytest.approx(0.5 + 0.7 / 3)
    # (1 - n/N) S²(r) / n = 0.4 × 0.163333 / 3
    assert share.standard_error == pytest.approx(np.sqrt(0.4 * 0.49 / 3 / 3), rel=1e-9)
    assert found.method_key == "dsl" and found.power is None


def test_random_sample_score_interval_solves_its_equation():
    corpus = two([0.9, 0.2, 0.6, 0.3, 0.5])
    coded = CodedSample(["a", "b", "b"], two([0.8, 0.3, 0.6]), [0, 1, 2])
    share = estimate_findings(corpus, CATS, coded, RandomSample(), power_tuning=False).share("a")
    z = norm.ppf(0.975)
    estimate = 0.5 - 0.7 / 3
    # S²(f) = .063333, S(y, f) = .116667 → λ²S²(f) − 2λS(y, f) = -.17; an indicator's variance θ(1−θ)·N/(N−1)
    for theta in (share.low, share.high):
        if 0 < theta < 1:
            variance = 0.4 / 3 * (theta * (1 - theta) * 5 / 4 - 0.17)
            assert (estimate - theta) ** 2 == pytest.approx(z**2 * variance, abs=1e-9)
    assert share.low < estimate < share.high


def test_coded_texts_alone_of_a_random_sample_is_wilsons_interval():
    corpus = two(np.full(1000, 0.5))
    labels = ["a"] * 3 + ["b"] * 17
    coded = CodedSample(labels, two(np.full(20, 0.5)), list(range(20)))
    share = estimate_findings(corpus, CATS, coded).share("a")
    assert share.coded_only == pytest.approx(0.15)
    z, n, big_n, p = norm.ppf(0.975), 20, 1000, 0.15
    a = z**2 * (1 - n / big_n) / n * big_n / (big_n - 1)
    centre, half = (2 * p + a) / (2 * (1 + a)), np.sqrt(a * (4 * p * (1 - p) + a)) / (2 * (1 + a))
    assert (share.coded_only_low, share.coded_only_high) == pytest.approx((centre - half, centre + half))


def test_rare_category_without_coded_texts_keeps_an_upper_bound():
    corpus = two(np.full(2000, 0.0))  # the model never says "a"
    coded = CodedSample(["b"] * 200, two(np.zeros(200)), list(range(200)))
    share = estimate_findings(corpus, CATS, coded).share("a")
    assert share.estimate == 0.0 and share.low == 0.0
    assert 0.01 < share.high < 0.03  # Wilson's 3.84 / 203.8, a little less with the finite corpus


def test_known_probabilities_weight_by_their_inverse():
    corpus = two([0.9, 0.4, 0.7, 0.9])
    coded = CodedSample(["a", "b"], two([0.6, 0.2]), [0, 3])
    share = estimate_findings(corpus, CATS, coded, KnownProbabilities([0.5, 0.25]), power_tuning=False).share("a")
    # (1.9 + 0.4/0.5 - 0.2/0.25) / 4; variance Σ (1-π)/π² (r/N)² = 2 × 0.01 + 12 × 0.0025 = 0.05, but
    # the model expects larger squares, f(1-f)/N²: half of 2 × 0.24/16 + 12 × 0.16/16 = 0.075 — the floor
    assert share.estimate == pytest.approx(0.475)
    assert share.standard_error == pytest.approx(np.sqrt(0.075))
    wrong = estimate_findings(two([0.99, 0.4, 0.7, 0.01]), CATS, CodedSample(["b", "a"], two([0.99, 0.01]), [0, 3]),
                              KnownProbabilities([0.5, 0.25]), power_tuning=False).share("a")
    # a sure model, wrong twice: the observed 2 × (.99/4)² + 12 × (.99/4)² is above its floor 14 × .0099/16
    assert wrong.standard_error == pytest.approx(np.sqrt(14 * (0.99 / 4) ** 2))


def test_stratified_weights_each_group_by_its_size_over_its_coded_texts():
    corpus = two([0.5, 0.5, 0.5, 0.5, 0.5, 0.5])
    coded = CodedSample(["a", "a", "b", "a"], two([0.6, 0.4, 0.2, 0.9]), [0, 1, 4, 5])
    design = Stratified(["x", "x", "x", "x", "y", "y"])
    share = estimate_findings(corpus, CATS, coded, design, power_tuning=False).share("a")
    # f: .6 .4 .5 .5 .2 .9 (3.1); Σ c r = 2 × (.4 + .6) + 1 × (-.2 + .1) = 1.9 → 5 / 6
    assert share.estimate == pytest.approx(5 / 6)
    # group x: 4² × (1 - 2/4) × S²(.4, .6) / 2 = 0.08; group y is coded whole: 0
    assert share.standard_error == pytest.approx(np.sqrt(0.08) / 6)


def test_sequential_draws_average_the_per_draw_estimates():
    corpus = two([0.25, 0.1, 0.5, 0.3, 0.8])
    coded = CodedSample(["b", "a", "a"], two([0.25, 0.5, 0.8]), [0, 2, 4])
    design = CodingStepDraws((), (Step(2, 0.2), Step(0, 0.5), Step(4, 0.4)))
    share = estimate_findings(corpus, CATS, coded, design, power_tuning=False).share("a")
    # per-draw estimates of Σ r: 0.5/0.2 = 2.5; 0.5 - 0.25/0.5 = 0; 0.25 + 0.2/0.4 = 0.75 → mean 13/12
    assert share.estimate == pytest.approx((1.95 + 13 / 12) / 5)
    # observed: Σ (e - ē)² / (T (T - 1)) / N² = 3.291667 / 6 / 25 = 0.021944, above the model's floor:
    # half of Σ f(1-f)/N² / p² / T² = (.01/.04 + .0075/.25 + .0064/.16) / 9 / 2 = 0.017778
    assert share.standard_error == pytest.approx(np.sqrt(3.2916667 / 6) / 5, rel=1e-6)
    # three draws, unequal weights: a t quantile on Kish's effective number, wider than the normal one
    assert share.high == 1.0 or share.high - share.estimate > norm.ppf(0.975) * share.standard_error


def test_file_codings_and_draws_are_averaged_by_their_numbers():
    corpus = two([0.7, 0.4, 0.2, 0.6, 0.5, 0.3])
    coded = CodedSample(["a", "b", "a", "b"], two([0.7, 0.4, 0.6, 0.3]), [0, 1, 3, 5])
    design = CodingStepDraws((0, 1), (Step(3, 0.25), Step(5, 0.5)))
    share = estimate_findings(corpus, CATS, coded, design, power_tuning=False).share("a")
    # A = 3 × (0.3 - 0.4) = -0.3; B = -0.1 + mean(0.4/0.25, 0.4 - 0.3/0.5) = 0.6; half each
    assert share.estimate == pytest.approx((2.7 + 0.15) / 6)
    # ¼ × 36 × (1 - 2/6) × 0.245 / 2 + ¼ × 1.62 / 2, over 36 = 0.026042, above the floor that keeps the
    # file's part and takes half the draws' from the model: 0.735/36 + ¼ / 4 × (.24/.0625 + .21/.25) / 36 / 2
    assert share.standard_error == pytest.approx(np.sqrt((0.735 + 0.2025) / 36))


def test_draws_that_all_missed_the_models_mistakes_keep_the_models_floor():
    corpus = two([0.9] * 8 + [0.5, 0.5])
    # four draws of sure texts the model got right, with small chances: the observed residuals are alike
    coded = CodedSample(["a"] * 4, two([0.9] * 4), [0, 1, 2, 3])
    design = CodingStepDraws((), tuple(Step(i, 0.05) for i in range(4)))
    share = estimate_findings(corpus, CATS, coded, design, power_tuning=False).share("a")
    # e_t = Σ_{before} r + r/p with r = 0.1: 2, 2.1, 2.2, 2.3 → observed Σ(e - ē)²/(4·3)/N² = 0.05/12/100
    # floor: half of Σ 0.09/100/0.0025/16 = 0.045
    assert share.standard_error == pytest.approx(np.sqrt(0.045))
    assert 0.05 / 12 / 100 < 0.045


def test_classify_and_count_counts_predictions_and_the_codings():
    corpus = two([0.9, 0.8, 0.1, 0.2, 0.6])
    coded = CodedSample(["b", "b"], two([0.5, 0.5]), [0, 1])
    share = estimate_findings(corpus, CATS, coded).share("a")
    # predicted a: rows 0, 1, 4; the coded rows 0 and 1 count as b → 1 of 5
    assert share.naive == pytest.approx(0.2)
    assert share.probabilistic == pytest.approx((0 + 0 + 0.1 + 0.2 + 0.6) / 5)
    assert share.naive_low < 0.2 < share.naive_high


def test_power_tuning_lowers_the_variance_and_keeps_shares_summing_to_one():
    rng = np.random.default_rng(3)
    truth = rng.random(3000)
    y = rng.random(3000) < truth
    noisy = np.clip(truth + rng.normal(0, 0.4, 3000), 0, 1)  # a poor model: λ well below 1
    positions = rng.choice(3000, 300, replace=False)
    labels = np.where(y[positions], "a", "b").tolist()
    coded = CodedSample(labels, two(noisy[positions]), positions)
    tuned = estimate_findings(two(noisy), CATS, coded)
    plain = estimate_findings(two(noisy), CATS, coded, power_tuning=False)
    assert 0 < tuned.power < 0.9
    assert tuned.share("a").standard_error < plain.share("a").standard_error
    assert sum(s.estimate for s in tuned.overall()) == pytest.approx(1.0)
