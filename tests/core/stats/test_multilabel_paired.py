"""The paired bootstrap of the difference in macro-F1, for studies where a text can have several
categories: its counts per resample, its interval and p-value, and its words."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import f1_score

from guiapp.core.stats.holm import holm_adjust
from guiapp.core.stats.multilabel_scores import bootstrap_category_counts, bootstrap_f1, macro_f1
from guiapp.core.stats.paired_tests import PAIRED_BOOTSTRAP_METHOD, paired_bootstrap, paired_bootstrap_macro_f1
from guiapp.core.stats.pairwise import compare_on_test_set_by_bootstrap, is_bootstrap
from guiapp.core.stats.wording import describe_comparison


def _models(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A coding, a good model (8% of decisions wrong) and a weaker one (25% wrong)."""
    rng = np.random.default_rng(seed)
    truth = (rng.random((n, 4)) < [0.4, 0.3, 0.2, 0.1]).astype(np.uint8)

    def noisy(share: float) -> np.ndarray:
        flips = rng.random(truth.shape) < share
        return np.where(flips, 1 - truth, truth).astype(np.uint8)

    return truth, noisy(0.08), noisy(0.25)


def test_the_counts_of_every_resample_match_a_loop() -> None:
    truth, good, weak = _models(50)
    samples, seed = 30, 4
    tp, fp, fn = bootstrap_category_counts(truth, [good, weak], samples, seed)
    draws = np.random.default_rng(seed).integers(0, len(truth), size=(samples, len(truth)))
    for s, d in enumerate(draws):
        for m, predicted in enumerate((good, weak)):
            t, p = truth[d].astype(bool), predicted[d].astype(bool)
            assert tp[s, m].tolist() == (t & p).sum(axis=0).tolist()
            assert fp[s, m].tolist() == (~t & p).sum(axis=0).tolist()
            assert fn[s, m].tolist() == (t & ~p).sum(axis=0).tolist()
    macro, per_category = bootstrap_f1(truth, [good], samples, seed)
    labels = lambda d: [k for k in range(4) if truth[d, k].any() or good[d, k].any()]  # noqa: E731
    expected = [f1_score(truth[d], good[d], average="macro", labels=labels(d), zero_division=0) for d in draws]
    assert macro[:, 0] == pytest.approx(expected)
    assert per_category.shape == (samples, 1, 4)


def test_identical_models_show_no_difference() -> None:
    truth, good, _ = _models(300)
    found = paired_bootstrap_macro_f1(truth, good, good.copy(), samples=200, seed=1)
    assert found.difference == 0 and (found.ci_low, found.ci_high) == (0, 0)
    assert found.p_value == 1 and found.method == PAIRED_BOOTSTRAP_METHOD and found.n_texts == 300


def test_a_clearly_better_model_is_found_with_the_right_sign() -> None:
    truth, good, weak = _models(400)
    found = paired_bootstrap_macro_f1(truth, good, weak, samples=500, seed=2)
    assert found.difference == pytest.approx(macro_f1(truth, good) - macro_f1(truth, weak))
    assert found.difference > 0 and found.ci_low > 0 and found.p_value < 0.01
    assert found.p_value == pytest.approx(1 / 501)  # no centred resample as far from 0 as the difference
    reverse = paired_bootstrap_macro_f1(truth, weak, good, samples=500, seed=2)
    assert reverse.difference == pytest.approx(-found.difference)
    assert (reverse.ci_low, reverse.ci_high) == pytest.approx((-found.ci_high, -found.ci_low))


def test_the_p_value_counts_centred_resamples_as_far_from_zero() -> None:
    found = paired_bootstrap(0.1, [0.0, 0.05, 0.1, 0.15, 0.2, 0.3], level=0.5)
    # centred: -0.1, -0.05, 0, 0.05, 0.1, 0.2 → three at least 0.1 from 0
    assert found.p_value == pytest.approx((1 + 3) / 7)
    assert (found.ci_low, found.ci_high) == pytest.approx(tuple(np.quantile([0, 0.05, 0.1, 0.15, 0.2, 0.3],
                                                                            [0.25, 0.75])))
    with pytest.raises(ValueError, match="at least one resample"):
        paired_bootstrap(0.1, [])


def test_every_pair_shares_the_resamples_and_is_holm_corrected() -> None:
    truth, good, weak = _models(300, seed=3)
    models = {"Good": good, "Weak": weak, "Copy of good": good.copy()}
    pairs = compare_on_test_set_by_bootstrap(truth, models, samples=300, seed=9)
    assert [(c.model_a, c.model_b) for c in pairs] == [("Good", "Weak"), ("Good", "Copy of good"),
                                                        ("Weak", "Copy of good")]
    for c in pairs:
        alone = paired_bootstrap_macro_f1(truth, models[c.model_a], models[c.model_b], samples=300, seed=9)
        assert c.p_value == pytest.approx(alone.p_value) and c.mean_difference == pytest.approx(alone.difference)
        assert (c.ci_low, c.ci_high) == pytest.approx((alone.ci_low, alone.ci_high))
        assert is_bootstrap(c) and c.n_texts == 300 and c.n_only_a_right is None and c.n_comparisons == 3
    assert [c.p_holm for c in pairs] == pytest.approx(holm_adjust([c.p_value for c in pairs]))


def test_the_words_name_the_paired_bootstrap() -> None:
    truth, good, weak = _models(300, seed=4)
    clear, same, _ = compare_on_test_set_by_bootstrap(truth, {"Good": good, "Weak": weak, "Twin": good.copy()},
                                                      samples=200, seed=1)
    sentence = describe_comparison(clear)
    assert sentence.startswith("Good scores higher than Weak on the 300 test texts")
    assert "paired bootstrap over the test texts, Holm-corrected for 3 comparisons" in sentence
    assert "McNemar" not in sentence and "folds" not in sentence
    sentence = describe_comparison(same)
    assert sentence.startswith("No clear difference between Good and Twin on the 300 test texts")
    assert "does not show that they are equally good" in sentence
