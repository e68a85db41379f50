"""Findings where a text can have several categories: each category's share estimated on its own, as
one category per text would be estimated for that yes/no question."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from guiapp.core.findings import CodedSample, SeparateSample, estimate_findings
from guiapp.core.findings.regression import regress
from guiapp.core.findings.several_categories import EACH_ON_ITS_OWN, estimate_each, regress_one, yes_or_no

CATEGORIES = ("economy", "health", "crime")


def _corpus(seed: int = 0, n_texts: int = 3000, n_coded: int = 500):
    """Three categories a text can have together, shares differing by party; an imperfect model."""
    rng = np.random.default_rng(seed)
    party = rng.choice(["D", "R"], size=n_texts + n_coded)
    base = np.array([0.35, 0.25, 0.15])
    shift = np.where(party == "R", 0.1, -0.05)[:, None]
    truth = (rng.random((n_texts + n_coded, 3)) < np.clip(base + shift, 0, 1)).astype(np.uint8)
    chances = np.clip(np.where(truth == 1, 0.65, 0.2) + rng.normal(0, 0.15, truth.shape), 0.01, 0.99)
    corpus = chances[:n_texts]
    coded_rows = slice(n_texts, None)
    coded = CodedSample(["economy"] * n_coded, chances[coded_rows], None, groups=party[coded_rows].tolist(),
                        metadata=pd.DataFrame({"party": party[coded_rows]}))
    return corpus, coded, truth[coded_rows], truth[:n_texts], party[:n_texts]


def test_each_category_is_its_own_yes_or_no_question():
    corpus, coded, coded_truth, _, _ = _corpus()
    chances, names, answered = yes_or_no(corpus, CATEGORIES, coded, coded_truth, 1)
    assert names == ("health", "not health")
    np.testing.assert_allclose(chances[:, 0], corpus[:, 1])
    np.testing.assert_allclose(chances.sum(axis=1), 1.0)
    assert answered.labels[:5] == ["health" if has else "not health" for has in coded_truth[:5, 1]]


def test_the_shares_are_those_of_each_yes_or_no_estimate_and_hold_the_truth():
    corpus, coded, coded_truth, truth, party = _corpus()
    found = estimate_each(corpus, CATEGORIES, coded, coded_truth, SeparateSample(), groups=party.tolist(),
                          group_name="party")
    assert found.categories == CATEGORIES and EACH_ON_ITS_OWN in found.assumption
    assert [share.category for share in found.overall()] == list(CATEGORIES)
    assert sum(share.estimate for share in found.overall()) > 0.6  # not forced to 100 %
    for k, name in enumerate(CATEGORIES):
        chances, names, answered = yes_or_no(corpus, CATEGORIES, coded, coded_truth, k)
        alone = estimate_findings(chances, names, answered, SeparateSample(), groups=party.tolist(),
                                  group_name="party")
        assert found.share(name).estimate == pytest.approx(alone.share(name).estimate)
        assert found.share(name, "R").high == pytest.approx(alone.share(name, "R").high)
        share = found.share(name)  # near the truth, as far as its standard error says
        assert abs(share.estimate - truth[:, k].mean()) < 3.5 * share.standard_error
    assert [share.group for share in found.shares] == [None] * 3 + ["D"] * 3 + ["R"] * 3
    assert {d.category for d in found.differences} == set(CATEGORIES)


def test_a_category_is_regressed_as_a_yes_or_no_outcome():
    corpus, coded, coded_truth, _, party = _corpus(1)
    data = pd.DataFrame({"party": party})
    found = regress_one("crime ~ party", data, corpus, CATEGORIES, coded, coded_truth, SeparateSample())
    chances, names, answered = yes_or_no(corpus, CATEGORIES, coded, coded_truth, 2)
    alone = regress("crime ~ party", data, chances, names, answered, SeparateSample())
    assert found.outcome == "crime"
    np.testing.assert_allclose([c.estimate for c in found.coefficients], [c.estimate for c in alone.coefficients])


def test_the_table_s_own_texts_with_too_few_codings_are_refused_in_words():
    # measured, each category as its own yes/no question, once enough texts are coded
    # (tests/core/findings/test_label_set_findings.py)
    from guiapp.core.errors import DataError
    from guiapp.core.findings.from_table import table_findings_inputs
    from guiapp.core.study.mapping import ColumnMapping

    frame = pd.DataFrame({"text": ["a b", "c d"], "economy": [1, 0], "health": [0, 1]})
    mapping = ColumnMapping(text_columns=["text"], multi_label=True, category_columns=["economy", "health"])
    with pytest.raises(DataError, match="Only 2 texts of the table are coded"):
        table_findings_inputs(frame, mapping)
