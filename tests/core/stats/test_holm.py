"""Holm's step-down correction against worked examples and a direct reading of the definition."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.stats.holm import holm_adjust


def test_holm_worked_example_with_the_monotone_step() -> None:
    # Wikipedia's Holm example: sorted 0.005*4, 0.01*3, 0.03*2, 0.04*1 -> 0.02, 0.03, 0.06, max(0.06, 0.04)
    assert holm_adjust([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_holm_matches_r_p_adjust() -> None:
    # R: p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05), "holm") gives 0.05 0.08 0.09 0.09 0.09
    assert holm_adjust([0.01, 0.02, 0.03, 0.04, 0.05]) == pytest.approx([0.05, 0.08, 0.09, 0.09, 0.09])


def test_holm_caps_at_one_and_keeps_a_single_p_value() -> None:
    assert holm_adjust([0.4, 0.6, 0.5]) == [1.0, 1.0, 1.0]
    assert holm_adjust([0.03]) == [0.03]
    assert holm_adjust([]) == []


def direct_holm(p: list[float]) -> list[float]:
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def test_holm_on_random_p_values_is_monotone_and_matches_the_definition() -> None:
    rng = np.random.default_rng(3)
    for m in (2, 7, 30):
        p = rng.uniform(0, 0.2, m).tolist()
        adjusted = holm_adjust(p)
        assert adjusted == pytest.approx(direct_holm(p))
        by_raw = [adjusted[i] for i in np.argsort(p)]
        assert all(x <= y for x, y in zip(by_raw, by_raw[1:]))
        assert all(a >= raw for a, raw in zip(adjusted, p))


def test_holm_refuses_values_that_are_not_p_values() -> None:
    with pytest.raises(ValueError, match="between 0 and 1"):
        holm_adjust([0.1, 1.5])
    with pytest.raises(ValueError, match="between 0 and 1"):
        holm_adjust([0.1, float("nan")])
