"""Plain-language sentences for model comparisons and human-readable p-values."""

from __future__ import annotations

import pytest

from guiapp.core.stats.pairwise import PairComparison
from guiapp.core.stats.wording import describe_comparison, format_p, with_interval


@pytest.mark.parametrize(
    ("p", "alpha", "shown"),
    [
        (0.04, None, "p = 0.04"),
        (0.0123, None, "p = 0.012"),
        (0.00042, None, "p < 0.001"),
        (0.8213, None, "p = 0.82"),
        (1.0, None, "p = 1"),
        (0.0496, 0.05, "p = 0.0496"),  # 0.05 would look like "not below 0.05"
        (0.0504, 0.05, "p = 0.05"),
    ],
)
def test_p_values_are_written_for_people(p, alpha, shown) -> None:
    assert format_p(p, alpha) == shown


def mcnemar_record(only_a: int, only_b: int, p_holm: float, n_comparisons: int = 3) -> PairComparison:
    return PairComparison(
        model_a="A", model_b="B", method="McNemar", statistic=1.0, p_value=p_holm / 3, p_holm=p_holm,
        n_comparisons=n_comparisons, n_texts=1000, n_only_a_right=only_a, n_only_b_right=only_b,
    )


def test_a_clear_difference_names_the_better_model_and_the_numbers() -> None:
    sentence = describe_comparison(mcnemar_record(371, 412, 0.04))
    assert sentence == (
        "B agrees with your coding more often than A (on 412 vs 371 of 1,000 test texts where only one of them "
        "was right); if both were equally good, a difference this large would arise by chance with probability "
        "p = 0.04 (McNemar's test, Holm-corrected for 3 comparisons)."
    )


def test_no_clear_difference_does_not_claim_equality() -> None:
    sentence = describe_comparison(mcnemar_record(40, 38, 0.82))
    assert sentence.startswith("No clear difference between A and B")
    assert "p = 0.82" in sentence and "Holm-corrected for 3 comparisons" in sentence
    assert "does not show that they are equally good" in sentence
    assert "more often" not in sentence


def test_a_single_comparison_mentions_no_correction_and_tiny_p_values_stay_readable() -> None:
    sentence = describe_comparison(mcnemar_record(300, 100, 1e-12, n_comparisons=1))
    assert sentence.startswith("A agrees with your coding more often than B")
    assert "p < 0.001 (McNemar's test)." in sentence and "Holm" not in sentence


def test_fold_comparison_sentences() -> None:
    record = PairComparison(
        model_a="SVM", model_b="BERT", method="t", statistic=-4.0, p_value=0.001, p_holm=0.003, n_comparisons=3,
        mean_difference=-0.052, ci_low=-0.08, ci_high=-0.024, level=0.95,
    )
    sentence = describe_comparison(record)
    assert sentence.startswith("BERT scores higher than SVM across the cross-validation folds (macro-F1 0.052 higher")
    assert "95% interval -0.080 to -0.024" in sentence and "p = 0.003" in sentence
    unclear = describe_comparison(PairComparison(**{**record.to_dict(), "p_holm": 0.3, "ci_high": 0.01}))
    assert unclear.startswith("No clear difference between SVM and BERT") and "equally good" in unclear


def test_a_coefficient_is_written_with_its_interval_or_alone_or_as_a_dash():
    assert with_interval(0.7123, (0.65, 0.771)) == "0.71  (0.65 to 0.77)"
    assert with_interval(0.7123, (0.65, 0.771), 3, "{value} ({low}–{high})") == "0.712 (0.650–0.771)"
    assert with_interval(0.7123, (float("nan"), float("nan"))) == "0.71"  # no interval: the value alone
    assert with_interval(float("nan"), (0.1, 0.2)) == "–"  # one category only: nothing to compute
