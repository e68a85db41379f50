"""A group's interval never rests on its handful of coded texts alone: the pooled floor, the coded
texts alone with 0 of n, the warning about thin groups, and the sentence on shares above 100 %."""

from __future__ import annotations

import numpy as np

from guiapp.core.findings import (
    CodedSample,
    CodingStepDraws,
    RandomSample,
    SeparateSample,
    Step,
    estimate_findings,
)
from guiapp.core.findings.group_floor import floor_bounds, pooled_ratio
from guiapp.core.findings.records import Share, sum_note

CATS = ("rare", "common", "other")


def _corpus(seed: int = 0, n_texts: int = 3000, n_coded: int = 600):
    """Six years; "rare" is 2 % of every year and the model never sees it (f ≈ 0)."""
    rng = np.random.default_rng(seed)
    year = rng.integers(0, 6, n_texts)
    label = rng.choice(3, size=n_texts, p=[0.02, 0.38, 0.60])
    seen = np.full((n_texts, 3), 0.01)
    seen[np.arange(n_texts), np.where(label == 0, 2, label)] = 0.98  # rare texts look like "other"
    probabilities = seen / seen.sum(axis=1, keepdims=True)
    positions = np.sort(rng.choice(n_texts, n_coded, replace=False))
    return year, label, probabilities, positions


def _group_without_errors(year, label, positions):
    """Keep the coded texts, but those of year 0 hold no "rare" text (so no mistake of the model)."""
    keep = ~((year[positions] == 0) & (label[positions] == 0))
    return positions[keep]


def test_a_group_whose_coded_texts_hold_no_error_gets_at_least_the_pooled_score_interval():
    year, label, probabilities, positions = _corpus()
    positions = _group_without_errors(year, label, positions)
    coded = CodedSample([CATS[k] for k in label[positions]], probabilities[positions], positions)
    found = estimate_findings(probabilities, CATS, coded, RandomSample(), groups=year.tolist())
    share = found.share("rare", "0")
    in_year = year[positions] == 0
    assert label[positions][in_year].tolist().count(0) == 0
    # the model explains none of "rare": the pooled ratio is about 1, so the floor is Wilson's on the year's
    ratio = pooled_ratio(np.eye(3)[label[positions]], probabilities[positions], 1.0, np.ones(len(positions)),
                         year[positions])
    assert ratio[0] > 0.9
    n_g, big_n = int(in_year.sum()), int((year == 0).sum())
    _, high = floor_bounds(np.array([share.estimate]), np.array([ratio[0] * (1 - n_g / big_n) / n_g]), 0.95)
    assert share.high >= high[0] - 1e-9
    assert share.high - share.low > 0.03  # not a point at the model's count (which is about 0)
    truth = (label[year == 0] == 0).mean()
    assert share.low <= truth <= share.high


def test_coding_step_draws_with_zero_of_n_still_give_an_interval():
    year, label, probabilities, positions = _corpus(1, n_coded=300)
    first, drawn = positions[:200], positions[200:]
    steps = tuple(Step(int(p), 1.0 / (3000 - 200 - i)) for i, p in enumerate(drawn))
    design = CodingStepDraws(tuple(int(p) for p in first), steps)
    coded = CodedSample([CATS[k] for k in label[positions]], probabilities[positions], positions)
    found = estimate_findings(probabilities, CATS, coded, design, groups=year.tolist())
    zero = [s for s in found.shares if s.group is not None and s.category == "rare"
            and label[positions][year[positions] == int(s.group)].tolist().count(0) == 0]
    assert zero, "the draw should leave some year without a coded text of the rare category"
    for share in zero:
        assert share.coded_only == 0.0
        assert share.coded_only_high > 0.01  # 0 of n is not 0.0 % (0.0–0.0 %)


def test_separate_sample_groups_take_the_whole_samples_power_and_keep_a_floor():
    rng = np.random.default_rng(3)
    year, label, probabilities, _ = _corpus(2, n_texts=2000)
    coded_label = rng.choice(3, size=300, p=[0.02, 0.38, 0.60])
    coded_year = rng.integers(0, 6, 300)
    coded_label[coded_year == 1] = np.where(coded_label[coded_year == 1] == 0, 2, coded_label[coded_year == 1])
    seen = np.full((300, 3), 0.01)
    seen[np.arange(300), np.where(coded_label == 0, 2, coded_label)] = 0.98
    coded = CodedSample([CATS[k] for k in coded_label], seen / seen.sum(axis=1, keepdims=True),
                        groups=coded_year.tolist())
    found = estimate_findings(probabilities, CATS, coded, SeparateSample(), groups=year.tolist())
    share = found.share("rare", "1")  # year 1's coded texts hold no rare text and the model sees none
    assert share.high > 0.03
    assert share.standard_error > 0.005


def test_a_thin_group_is_warned_in_its_rows_and_in_one_sentence():
    year, label, probabilities, positions = _corpus()
    coded = CodedSample([CATS[k] for k in label[positions]], probabilities[positions], positions)
    found = estimate_findings(probabilities, CATS, coded, RandomSample(), groups=year.tolist())
    thin = [w for w in found.warnings if "fewer than 5 coded texts of their category" in w]
    assert len(thin) == 1 and "“rare” in" in thin[0]
    rare = found.share("rare", "0")
    counted = label[positions][year[positions] == 0].tolist().count(0)
    if counted < 5:
        assert "of this category" in rare.warning
    assert found.share("other", "0").warning == ""


def test_shares_above_100_percent_are_explained_in_one_sentence():
    def share(group, estimate):
        return Share(group, "x", estimate, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 10, 5)

    assert sum_note([share(None, 0.5), share(None, 0.5)], several=False) == ""
    note = sum_note([share("1996", 0.6), share("1996", 0.444)], several=False)
    assert "104.4 %" in note and "“1996”" in note and "below 0 %" in note
    assert "several categories" in sum_note([share(None, 0.6), share(None, 0.6)], several=True)


def test_differences_are_against_a_reference_group_by_default():
    year, label, probabilities, positions = _corpus(4)
    coded = CodedSample([CATS[k] for k in label[positions]], probabilities[positions], positions)
    found = estimate_findings(probabilities, CATS, coded, RandomSample(), groups=year.tolist(), reference="2")
    assert len(found.differences) == 5 * len(CATS)
    assert {d.other for d in found.differences} == {"2"}


def test_eleven_years_are_compared_with_the_largest_unless_every_pair_is_asked_for():
    rng = np.random.default_rng(5)
    _, label, probabilities, positions = _corpus(5)
    year = rng.choice(11, size=len(label), p=np.r_[0.2, np.full(10, 0.08)])
    coded = CodedSample([CATS[k] for k in label[positions]], probabilities[positions], positions)
    found = estimate_findings(probabilities, CATS, coded, RandomSample(), groups=year.tolist())
    assert len(found.differences_frame()) == 10 * len(CATS)  # the Differences sheet: 30 rows, not 165
    assert {d.other for d in found.differences} == {"0"}  # the largest year
    every = estimate_findings(probabilities, CATS, coded, RandomSample(), groups=year.tolist(), all_pairs=True)
    assert len(every.differences) == 55 * len(CATS)


def test_the_floor_of_unequal_chances_is_the_design_variance_not_a_random_samples():
    """Texts where the model is unsure are chosen with a high chance (small weights), sure ones with a
    low chance (large weights): a group's floor, at its own spread of the category, is the variance the
    weighted estimate has (Σ c(c − 1) e² / N², the design's own for independent choices), not the one
    a random sample of as many texts would have."""
    from guiapp.core.findings import KnownProbabilities
    from guiapp.core.findings.design_weights import weighting_for
    from guiapp.core.findings.group_floor import (
        design_factor,
        design_factors,
        model_moments,
    )
    from guiapp.core.findings.inputs import check_inputs
    from guiapp.core.findings.shares import in_group

    rng = np.random.default_rng(11)
    n_texts = 20000
    group = rng.integers(0, 2, n_texts)
    sure = rng.random(n_texts) < 0.7
    probabilities = np.full((n_texts, 3), 0.02)
    probabilities[np.arange(n_texts), rng.choice(3, size=n_texts, p=[0.2, 0.3, 0.5])] = 0.96
    unsure = ~sure
    probabilities[unsure] = rng.dirichlet(np.ones(3), unsure.sum())  # unsure texts: the model guesses
    # a calibrated model: each text's category drawn from the model's probabilities
    label = (rng.random(n_texts)[:, None] > probabilities.cumsum(axis=1)).sum(axis=1).clip(0, 2)
    chance = np.where(sure, 0.01, 0.15)
    chosen = np.flatnonzero(rng.random(n_texts) < chance)
    coded = CodedSample([CATS[k] for k in label[chosen]], probabilities[chosen], chosen)
    checked = check_inputs(probabilities, CATS, coded)
    weighting = weighting_for(KnownProbabilities(chance[chosen].tolist()), checked)
    of_coded, sizes = group[chosen], np.bincount(group).astype(float)
    factors = design_factors(weighting.weights, model_moments(checked.f_coded, 1.0), of_coded, sizes)
    ratio = pooled_ratio(checked.y, checked.f_coded, 1.0, weighting.weights, of_coded, factors, sizes)
    srs_ratio = pooled_ratio(checked.y, checked.f_coded, 1.0, weighting.weights, of_coded)
    for g in (0, 1):
        rows = of_coded == g
        estimate = in_group(checked, weighting, group == g, rows, False, power=1.0)
        design = np.diag(estimate.covariance)
        c, y = weighting.weights[rows][:, None], checked.y[rows]
        spread = (c * (y - (c * y).sum(axis=0) / c.sum()) ** 2).sum(axis=0) / c.sum()
        floor = ratio * factors[g] * spread
        srs = srs_ratio * design_factor(int(rows.sum()), int(sizes[g])) * spread
        assert np.abs(np.log(floor / design)).mean() < 0.2  # within about a fifth of the design's variance
        assert np.abs(np.log(srs / design)).mean() > 0.3  # a random sample's floor is not
