"""All pairwise model comparisons with Holm's correction over the pairs."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.stats.holm import holm_adjust
from guiapp.core.stats.paired_tests import corrected_resampled_t_test, mcnemar
from guiapp.core.stats.pairwise import compare_across_folds, compare_on_test_set


def test_every_pair_is_tested_once_and_holm_runs_over_all_pairs() -> None:
    rng = np.random.default_rng(0)
    right = {name: rng.random(500) < share for name, share in [("SVM", 0.7), ("XGBoost", 0.72), ("BERT", 0.85)]}
    records = compare_on_test_set(right)
    assert [(r.model_a, r.model_b) for r in records] == [("SVM", "XGBoost"), ("SVM", "BERT"), ("XGBoost", "BERT")]
    raw = [mcnemar(right[r.model_a], right[r.model_b]).p_value for r in records]
    assert [r.p_value for r in records] == pytest.approx(raw)
    assert [r.p_holm for r in records] == pytest.approx(holm_adjust(raw))
    assert all(r.n_comparisons == 3 and r.n_texts == 500 for r in records)
    assert records[1].p_holm < 0.001 < records[0].p_holm  # BERT is clearly better than SVM; SVM ~ XGBoost
    assert records[1].n_only_b_right > records[1].n_only_a_right
    assert set(records[0].to_dict()) >= {"model_a", "model_b", "p_holm", "method", "n_only_a_right"}


def test_fold_comparisons_carry_the_difference_and_its_interval() -> None:
    rng = np.random.default_rng(1)
    base = 0.6 + rng.normal(0, 0.02, 10)
    scores = {"A": base, "B": base + 0.001 + rng.normal(0, 0.01, 10), "C": base + 0.05 + rng.normal(0, 0.005, 10)}
    records = compare_across_folds(scores, n_train=900, n_test=100)
    assert len(records) == 3
    direct = corrected_resampled_t_test(scores["A"], scores["C"], 900, 100)
    assert records[1].mean_difference == pytest.approx(direct.mean_difference) and records[1].mean_difference < 0
    assert records[1].p_value == pytest.approx(direct.p_value)
    assert records[1].p_holm == pytest.approx(holm_adjust([r.p_value for r in records])[1])
    assert records[1].ci_low < records[1].mean_difference < records[1].ci_high
    assert records[0].n_only_a_right is None and records[0].level == 0.95


def test_comparing_needs_two_models() -> None:
    with pytest.raises(ValueError, match="at least two models"):
        compare_on_test_set({"only": np.array([True, False])})
