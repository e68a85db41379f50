"""Per-group scores, intervals and the "much worse" flag with its plain sentence."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import f1_score

from guiapp.core.stats.subgroups import MUCH_WORSE, NO_VALUE, NOT_CLEARLY_WORSE, TOO_FEW, subgroup_report


def predictions_with_errors(rng: np.random.Generator, y: np.ndarray, error_rate: float, k: int = 3) -> np.ndarray:
    wrong = rng.random(len(y)) < error_rate
    return np.where(wrong, (y + rng.integers(1, k, len(y))) % k, y)


def study(sizes_and_errors: dict, seed: int = 0):
    rng = np.random.default_rng(seed)
    y, p, g = [], [], []
    for group, (n, error_rate) in sizes_and_errors.items():
        truth = rng.integers(0, 3, n)
        y.append(truth)
        p.append(predictions_with_errors(rng, truth, error_rate))
        g += [group] * n
    return np.concatenate(y), np.concatenate(p), g


def test_a_group_with_many_more_errors_is_flagged_and_a_tiny_one_is_not_judged() -> None:
    y, p, g = study({"CDU": (300, 0.1), "SPD": (300, 0.1), "AfD": (200, 0.35), "BSW": (12, 0.9)})
    report = {r.group: r for r in subgroup_report(y, p, g, n_classes=3, samples=300, seed=1, label="party")}
    assert list(report) == ["AfD", "BSW", "CDU", "SPD"]
    assert report["AfD"].verdict == MUCH_WORSE and report["AfD"].flagged
    assert report["CDU"].verdict == report["SPD"].verdict == NOT_CLEARLY_WORSE
    assert report["BSW"].verdict == TOO_FEW and not report["BSW"].flagged
    assert report["BSW"].sentence == "Only 12 texts with party BSW: too few texts to judge (at least 30 are needed)."
    afd = report["AfD"]
    assert afd.sentence.startswith("Texts with party AfD (200) are coded wrongly clearly more often than the rest")
    assert f"against {afd.rest_error_rate:.0%} of all other texts" in afd.sentence
    assert "does not show that the model works equally well" in report["CDU"].sentence


def test_scores_and_intervals_per_group() -> None:
    y, p, g = study({2019: (150, 0.2), 2020: (150, 0.2)}, seed=3)
    results = subgroup_report(y, p, g, n_classes=3, samples=300, seed=0)
    for result in results:
        inside = np.array(g) == result.group
        assert result.n_texts == 150
        assert result.error_rate == pytest.approx((y[inside] != p[inside]).mean())
        assert result.macro_f1 == pytest.approx(f1_score(y[inside], p[inside], average="macro", zero_division=0))
        assert result.error_interval[0] < result.error_rate < result.error_interval[1]
        assert result.macro_f1_interval[0] < result.macro_f1 < result.macro_f1_interval[1]
        assert result.rest_error_rate == pytest.approx((y[~inside] != p[~inside]).mean())
    assert [r.verdict for r in results] == [NOT_CLEARLY_WORSE, NOT_CLEARLY_WORSE]
    again = subgroup_report(y, p, g, n_classes=3, samples=300, seed=0)
    assert [r.error_interval for r in again] == [r.error_interval for r in results]
    other_seed = subgroup_report(y, p, g, n_classes=3, samples=300, seed=9)
    assert [r.error_interval for r in other_seed] != [r.error_interval for r in results]


def test_a_metric_can_be_passed_in_and_sees_the_same_resamples() -> None:
    y, p, g = study({"a": (100, 0.3), "b": (100, 0.1)}, seed=4)
    accuracy = subgroup_report(y, p, g, 3, metric=lambda t, q: float((t == q).mean()), samples=200)
    for result in accuracy:
        assert result.macro_f1 == pytest.approx(1 - result.error_rate)
        low, high = result.macro_f1_interval
        assert (low, high) == pytest.approx((1 - result.error_interval[1], 1 - result.error_interval[0]))


def test_missing_group_values_form_their_own_group_and_one_group_has_nothing_to_compare() -> None:
    y, p, _ = study({"x": (40, 0.2)})
    groups = ["Bild"] * 35 + [None, float("nan"), None, None, None]
    names = [r.group for r in subgroup_report(y, p, groups, 3, samples=50)]
    assert names == [NO_VALUE, "Bild"]
    alone = subgroup_report(y, p, ["Bild"] * 40, 3, samples=50, label="outlet")
    assert alone[0].verdict == TOO_FEW and alone[0].rest_error_rate is None
    assert "nothing to compare" in alone[0].sentence


def test_inputs_must_line_up() -> None:
    with pytest.raises(ValueError, match="one value per test text"):
        subgroup_report([0, 1], [0, 1], ["a"], 2)


def test_many_equally_good_groups_raise_no_flag() -> None:
    y, p, g = study({f"outlet {i}": (120, 0.2) for i in range(10)}, seed=6)
    assert all(r.verdict == NOT_CLEARLY_WORSE for r in subgroup_report(y, p, g, 3, samples=400, seed=2))
