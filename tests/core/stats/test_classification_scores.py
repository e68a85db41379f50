"""The local macro-F1 equals the app's definition (scikit-learn's macro F1 over the categories
present), and the vectorised bootstrap equals scoring each resample on its own."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import f1_score

from guiapp.core.stats.classification_scores import bootstrap_scores, macro_f1


def test_macro_f1_equals_scikit_learn_over_present_categories() -> None:
    rng = np.random.default_rng(0)
    for n, k in ((50, 2), (200, 5), (30, 8)):
        y = rng.integers(0, k, n)
        p = np.where(rng.random(n) < 0.6, y, rng.integers(0, k, n))
        assert macro_f1(y, p, k) == pytest.approx(f1_score(y, p, average="macro", zero_division=0))
    # categories 2 and 3 occur nowhere here: left out, not scored 0
    assert macro_f1([0, 0, 1, 1], [0, 1, 1, 1], n_classes=4) == pytest.approx((2 / 3 + 0.8) / 2)
    assert macro_f1([], [], 3) == 0.0


def test_bootstrap_scores_equal_scoring_each_resample() -> None:
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 90)
    p = np.where(rng.random(90) < 0.7, y, rng.integers(0, 3, 90))
    f1s, errors = bootstrap_scores(y, p, 3, 50, np.random.default_rng(4))
    draws = np.random.default_rng(4).integers(0, 90, size=(50, 90))
    assert f1s == pytest.approx([f1_score(y[d], p[d], average="macro", zero_division=0) for d in draws])
    assert errors == pytest.approx([(y[d] != p[d]).mean() for d in draws])
