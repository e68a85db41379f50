"""Majority coding, the leave-one-coder-out human baseline, and a model against several coders."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from guiapp.core.stats.agreement import alpha_from_counts
from guiapp.core.stats.coder_counts import (
    NO_MAJORITY,
    coder_agreement_with_others,
    majority_coding,
    model_versus_coders,
)
from tests.core.stats.test_agreement import davidson_counts


def test_majority_coding_marks_ties_and_uncoded_units() -> None:
    counts = [[3, 0, 0], [1, 2, 0], [1, 1, 1], [2, 2, 0], [0, 0, 0], [0, 1, 5]]
    assert majority_coding(counts).tolist() == [0, 1, NO_MAJORITY, NO_MAJORITY, NO_MAJORITY, 2]


def test_human_baseline_compares_each_coder_with_the_others() -> None:
    # unit [3, 0, 0]: every coder agrees with the other two -> 3 of 3
    # unit [2, 1, 0]: the two in category 0 see others [1, 1, 0], a tie -> 1/2 each; the third sees [2, 0, 0] -> 0
    assert coder_agreement_with_others([[3, 0, 0], [2, 1, 0]]) == pytest.approx((3 + 1) / 6)
    assert np.isnan(coder_agreement_with_others([[1, 0], [0, 1]]))  # nobody has a second coder
    assert coder_agreement_with_others([[2, 0], [1, 0]]) == 1.0  # the one-coder unit is left out


def test_model_against_the_coders() -> None:
    counts = np.array([[3, 0, 0], [0, 3, 0], [2, 1, 0], [0, 1, 2], [1, 1, 1], [0, 0, 3]])
    predictions = np.array([0, 1, 1, 2, 2, 0])
    result = model_versus_coders(counts, predictions)
    assert result.n_texts == 6 and result.n_without_majority == 1
    # right on units 0, 1, 3; wrong on 2 and 5; one of three tied categories on unit 4
    assert result.model_agrees_with_majority == pytest.approx((3 + 1 / 3) / 6)
    clear = [0, 1, 2, 3, 5]
    assert result.kappa_model_vs_majority == pytest.approx(
        cohen_kappa_score(majority_coding(counts)[clear], predictions[clear])
    )
    assert result.alpha_between_coders == pytest.approx(alpha_from_counts(counts))
    assert result.coder_agrees_with_other_coders == pytest.approx(coder_agreement_with_others(counts))
    with pytest.raises(ValueError, match="category numbers"):
        model_versus_coders(counts, predictions + 1)


@pytest.mark.shared_data
def test_davidson_majority_is_the_published_class_and_humans_disagree_sometimes(shared_data) -> None:
    import pandas as pd

    counts = davidson_counts(shared_data)
    published = pd.read_csv(shared_data / "davidson2017_hate_offensive" / "labeled_data.csv", usecols=["class"])
    published = published["class"].to_numpy()
    assert np.array_equal(majority_coding(counts), published)
    perfect = model_versus_coders(counts, published)
    assert perfect.model_agrees_with_majority == 1.0 and perfect.kappa_model_vs_majority == 1.0
    assert 0.5 < perfect.coder_agrees_with_other_coders < 1.0  # a single human reproduces the panel less often
