"""Learning curves in words that follow the numbers: default sizes that give a curve at least four
points, a gain too small to matter called so (one rule for the reading and the methods appendix),
and a gain within the spread between draws not called a rise."""

from __future__ import annotations

import pytest

from guiapp.core.experiment.curves.learning_curve_reading import (
    WORTH_A_DOUBLING,
    read_curve,
    trend_of,
)
from guiapp.core.experiment.curves.learning_curve_results import CurvePoint, LearningCurveResult, ModelCurve
from guiapp.core.experiment.curves.nested_subsets import curve_sizes, default_sizes
from guiapp.core.export.appendix_data import _learning_curve
from guiapp.core.export.appendix_text import _curve_sentence

CATEGORIES = ["a", "b"]


def _curve(means: dict[int, list[float]], name: str = "Word vectors · SVM") -> ModelCurve:
    points = [CurvePoint(size, repeat + 1, value, [value, value])
              for size, values in means.items() for repeat, value in enumerate(values)]
    return ModelCurve(name, "word_vectors", "svm", {}, points=points)


def test_639_training_texts_give_a_curve_of_at_least_four_points():
    sizes, notes = curve_sizes(None, 639)
    assert sizes == [80, 160, 320, 639] and notes == []
    assert default_sizes(3_000) == [500, 1_000, 2_000, 3_000]  # the reference protocol's sizes where they fit
    assert default_sizes(20_000) == [500, 1_000, 2_000, 5_000, 10_000, 20_000]
    for n_train in range(13, 6_000, 7):
        sizes = curve_sizes(None, n_train)[0]
        assert len(sizes) >= 4 and sizes[-1] == n_train and sizes[0] >= 10, n_train
        assert sizes == sorted(set(sizes))
        if n_train >= 40:
            assert all(b / a > 1.09 for a, b in zip(sizes, sizes[1:], strict=False)), sizes  # no near-repeats


def test_one_rule_reads_the_last_doubling():
    assert trend_of(0.006, 0.005) == "levelling off"  # beyond the spread, but too small to matter
    assert trend_of(-0.009, 0.001) == "levelling off"
    assert trend_of(0.03, 0.01) == "rising"
    assert trend_of(0.03, 0.05) == "unclear"
    assert trend_of(-0.03, 0.01) == "falling" and trend_of(-0.03, 0.05) == "levelling off"
    assert WORTH_A_DOUBLING == 0.01


def test_a_gain_too_small_to_matter_is_not_called_still_rising():
    reading = read_curve(_curve({160: [0.580, 0.581], 320: [0.584, 0.585], 639: [0.590, 0.591]}), CATEGORIES)
    assert reading.gain_per_doubling == pytest.approx(0.006, abs=1e-3) and reading.trend == "levelling off"
    assert "still rising" not in reading.words and "would likely still help" not in reading.words
    assert "too small to matter" in reading.words and "less than 0.01 per doubling" in reading.words


def test_a_gain_within_the_spread_between_draws_is_said_to_be_uncertain():
    reading = read_curve(_curve({160: [0.50, 0.52], 320: [0.45, 0.61], 639: [0.50, 0.64]}), CATEGORIES)
    assert reading.trend == "unclear" and "cannot tell" in reading.words and "±0.0" in reading.words
    rising = read_curve(_curve({160: [0.40, 0.41], 320: [0.45, 0.46], 639: [0.52, 0.53]}), CATEGORIES)
    assert rising.trend == "rising" and "still rising" in rising.words


def _appendix_sentence(*curves: ModelCurve) -> str:
    sizes = sorted({point.size for curve in curves for point in curve.points})
    result = LearningCurveResult({}, CATEGORIES, sizes, [1, 2], sizes[-1], 275, "once", list(curves))
    return _curve_sentence(_learning_curve(result))


def test_the_appendix_wording_follows_the_numbers():
    rose_then_flat = _curve({80: [0.49, 0.49], 160: [0.55, 0.55], 320: [0.584, 0.585], 639: [0.590, 0.591]})
    text = _appendix_sentence(rose_then_flat)
    assert "rose from a mean macro-F1 of 0.49 with 80 texts to 0.59 with 639" in text
    assert "+0.006 per doubling" in text and "less than the 0.01 per doubling taken to matter" in text
    assert "had levelled off" in text
    uncertain = _curve({80: [0.47, 0.51], 160: [0.50, 0.56], 320: [0.45, 0.61], 639: [0.54, 0.64]})
    text = _appendix_sentence(uncertain)
    assert "rose from a mean macro-F1 of 0.49" in text and "levelled off" not in text
    assert "within the spread between draws" in text and "cannot be told" in text
    climbing = _curve({80: [0.40, 0.40], 160: [0.45, 0.45], 320: [0.50, 0.50], 639: [0.56, 0.56]})
    assert "it was still improving" in _appendix_sentence(climbing)

