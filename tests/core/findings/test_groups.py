"""Shares per group, differences between groups, and the warnings and errors about small groups."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.errors import DataError
from guiapp.core.findings import CodedSample, RandomSample, SeparateSample, Stratified, estimate_findings

CATS = ("economy", "other")


def _study(seed: int = 0, n_texts: int = 2000, n_coded: int = 400):
    """Two parties; economy is 40 % among R and 25 % among D; the model under-counts it."""
    rng = np.random.default_rng(seed)
    party = rng.choice(["D", "R"], size=n_texts)
    chance = np.where(party == "R", 0.4, 0.25)
    economy = rng.random(n_texts) < chance
    seen = np.clip(np.where(economy, 0.6, 0.2) + rng.normal(0, 0.15, n_texts), 0.01, 0.99)
    probabilities = np.column_stack([seen, 1 - seen])
    positions = rng.choice(n_texts, n_coded, replace=False)
    labels = np.where(economy[positions], "economy", "other").tolist()
    coded = CodedSample(labels, probabilities[positions], positions)
    return probabilities, coded, party, economy


def test_group_shares_and_their_difference():
    probabilities, coded, party, economy = _study()
    found = estimate_findings(probabilities, CATS, coded, groups=party, group_name="party")
    assert found.groups == ("D", "R") and found.group_name == "party"
    for name in ("D", "R"):
        share = found.share("economy", name)
        true = economy[party == name].mean()
        assert share.low <= true <= share.high
        assert share.n_texts == int((party == name).sum())
        assert share.n_coded == int((party[coded.positions] == name).sum())
    (difference,) = [d for d in found.differences if d.category == "economy"]
    assert (difference.group, difference.other) == ("D", "R")
    d_share, r_share = found.share("economy", "D"), found.share("economy", "R")
    assert difference.estimate == pytest.approx(d_share.estimate - r_share.estimate)
    assert difference.low < difference.estimate < difference.high < 0  # D has clearly less economy
    assert difference.p_value < 0.01
    assert difference.sentence().startswith("D: -")
    assert "points" in difference.sentence() and difference.sentence().endswith("compared with R")


def test_a_difference_of_independent_groups_adds_their_variances():
    probabilities, coded, party, _ = _study(1)
    found = estimate_findings(probabilities, CATS, coded, Stratified(party), groups=party, power_tuning=False)
    d_share, r_share = found.share("economy", "D"), found.share("economy", "R")
    (difference,) = [d for d in found.differences if d.category == "economy"]
    assert difference.standard_error == pytest.approx(np.hypot(d_share.standard_error, r_share.standard_error))


def test_differences_against_a_reference_group():
    rng = np.random.default_rng(4)
    probabilities, coded, _, _ = _study(2)
    outlet = rng.choice(["A", "B", "C"], size=probabilities.shape[0])
    found = estimate_findings(probabilities, CATS, coded, groups=outlet, reference="B")
    assert {(d.group, d.other) for d in found.differences} == {("A", "B"), ("C", "B")}
    with pytest.raises(DataError, match="no group “Z”"):
        estimate_findings(probabilities, CATS, coded, groups=outlet, reference="Z")


def test_a_group_without_two_coded_texts_is_left_out_with_a_warning_and_a_small_one_warned():
    probabilities, coded, party, economy = _study(3, n_coded=200)
    groups = party.astype(object)
    uncoded = np.setdiff1d(np.arange(len(groups)), coded.positions)
    groups[uncoded[:5]] = "Independent"  # five texts, none coded
    groups[coded.positions[0]] = "Green"  # one text, coded
    found = estimate_findings(probabilities, CATS, coded, groups=groups)
    assert found.groups == ("D", "R")  # the others get no share of their own, and no difference
    assert {d.group for d in found.differences} | {d.other for d in found.differences} == {"D", "R"}
    (warning,) = [w for w in found.warnings if "Independent" in w]
    assert "2 groups have fewer than two coded texts" in warning and "“Green” (1)" in warning
    share = found.share("economy", "R")  # the naive count of R is still R's own
    assert share.naive == pytest.approx((probabilities[groups == "R"].argmax(axis=1) == 0).mean(), abs=0.05)
    assert share.low <= economy[groups == "R"].mean() <= share.high
    with pytest.raises(DataError, match="Every group") as error:
        estimate_findings(probabilities, CATS, coded, groups=np.arange(len(groups)))
    assert "Code at least two texts" in error.value.hint
    groups[coded.positions[:12]] = "Independent"
    found = estimate_findings(probabilities, CATS, coded, groups=groups)
    share = found.share("economy", "Independent")
    assert share.n_coded == 12 and "Only 12 coded texts" in share.warning
    assert any("Independent" in warning for warning in found.warnings)
    assert found.share("economy", "D").warning == ""


def test_empty_group_values_form_their_own_group():
    probabilities, coded, party, _ = _study(5)
    groups = party.astype(object)
    groups[::7] = None
    found = estimate_findings(probabilities, CATS, coded, groups=groups)
    assert found.groups == ("D", "R", "(no value)")


def test_separate_sample_groups_use_the_coded_texts_groups():
    probabilities, coded, party, economy = _study(6)
    rng = np.random.default_rng(7)
    outside = rng.choice(len(party), 500, replace=False)  # coded texts of the same kind, another collection
    coded_outside = CodedSample(np.where(economy[outside], "economy", "other").tolist(), probabilities[outside],
                                groups=party[outside].tolist())
    found = estimate_findings(probabilities, CATS, coded_outside, SeparateSample(), groups=party)
    assert found.groups == ("D", "R")
    assert found.share("economy", "R").n_coded == int((party[outside] == "R").sum())
    with pytest.raises(DataError, match="group column are not given"):
        estimate_findings(probabilities, CATS, CodedSample(coded_outside.labels, coded_outside.probabilities),
                          SeparateSample(), groups=party)


def test_many_groups_are_compared_with_the_largest():
    probabilities, coded, _, _ = _study(8, n_texts=3000, n_coded=1500)
    groups = np.array([f"g{i % 14:02d}" for i in range(3000)], dtype=object)
    groups[:400] = "g00"
    found = estimate_findings(probabilities, CATS, coded, RandomSample(), groups=groups)
    assert {d.other for d in found.differences} == {"g00"}
    assert len(found.differences) == 13 * 2


def test_a_separate_sample_group_of_three_texts_of_one_category_gets_an_interval_not_a_point():
    rng = np.random.default_rng(5)
    probabilities = rng.dirichlet([2, 2], size=500)
    groups = np.where(np.arange(500) < 20, "small", "large")
    coded_probabilities = rng.dirichlet([2, 2], size=60)
    labels = ["economy"] * 3 + [str(rng.choice(CATS)) for _ in range(57)]
    coded_groups = ["small"] * 3 + ["large"] * 57
    found = estimate_findings(probabilities, CATS, CodedSample(labels, coded_probabilities, groups=coded_groups),
                              SeparateSample(), groups=groups)
    small = found.share("economy", "small")
    assert small.n_coded == 3 and small.high == pytest.approx(1.0) and small.low < 0.5  # Wilson's [0.44, 1]
    assert found.share("other", "small").high > 0.4
