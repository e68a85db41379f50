"""Two coders: a seeded sample of the first coder's texts, and agreement with its disagreements."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from guiapp.core.coding.second_coder import compare_coders, draw_second_coder_sample, split_by_coder
from guiapp.core.errors import DataError

FIRST = {row: ("support", "oppose", "neutral")[row % 3] for row in range(2, 62)}


def test_the_sample_is_seeded_drawn_from_coded_texts_only_and_ignores_coding_order() -> None:
    first = dict(FIRST)
    first[100] = None  # skipped: not coded, never drawn
    sample = draw_second_coder_sample(first, 20, seed=7)
    assert len(sample) == len(set(sample)) == 20
    assert set(sample) <= set(FIRST)
    assert draw_second_coder_sample(first, 20, seed=7) == sample
    assert draw_second_coder_sample(first, 20, seed=8) != sample
    reversed_order = dict(reversed(list(first.items())))
    assert draw_second_coder_sample(reversed_order, 20, seed=7) == sample
    assert sorted(draw_second_coder_sample(first, 60, seed=1)) == sorted(FIRST)


def test_a_sample_larger_than_the_coding_is_refused_in_words() -> None:
    with pytest.raises(DataError, match="cannot be drawn from the 60 texts"):
        draw_second_coder_sample(FIRST, 61)
    with pytest.raises(DataError, match="not coded any texts"):
        draw_second_coder_sample({1: None}, 1)


def test_identical_codings_agree_perfectly() -> None:
    result = compare_coders(FIRST, dict(FIRST), samples=200)
    assert result.n_texts == 60
    assert result.share_agreeing == 1
    assert result.kappa == pytest.approx(1) and result.alpha == pytest.approx(1)
    assert result.kappa_interval == pytest.approx((1, 1)) and result.alpha_interval == pytest.approx((1, 1))
    assert result.disagreements == []
    assert "100%" in result.sentence() and "good enough" in result.sentence()


def test_disagreements_are_listed_in_sample_order_with_both_categories() -> None:
    sample = draw_second_coder_sample(FIRST, 30, seed=2)
    second = {row: FIRST[row] for row in sample}
    changed = sample[3], sample[11], sample[20]
    second[changed[0]] = "support" if FIRST[changed[0]] != "support" else "oppose"
    second[changed[1]] = "neutral" if FIRST[changed[1]] != "neutral" else "support"
    second[changed[2]] = None  # skipped by the second coder: left out
    result = compare_coders(FIRST, second, sample, samples=200)
    assert result.n_texts == 29
    assert [(d.row, d.first, d.second) for d in result.disagreements] == [
        (row, FIRST[row], second[row]) for row in changed[:2]
    ]
    assert result.table.sum() == 29 and np.trace(result.table) == 27
    both = [row for row in sample if second[row] is not None]
    a, b = [FIRST[r] for r in both], [second[r] for r in both]
    assert result.kappa == pytest.approx(cohen_kappa_score(a, b))
    assert 0 < result.alpha < 1 and result.kappa_interval[0] <= result.kappa <= result.kappa_interval[1]


def test_one_shared_category_has_no_coefficient_and_too_few_texts_are_refused() -> None:
    same = {1: "a", 2: "a", 3: "a"}
    result = compare_coders(same, same, samples=50)
    assert math.isnan(result.kappa) and math.isnan(result.alpha)
    assert "cannot be measured" in result.sentence()
    with pytest.raises(DataError, match="coded by both"):
        compare_coders({1: "a", 2: "b"}, {1: "a", 3: "b"})


def test_the_record_is_split_into_the_first_coding_and_the_second_coders() -> None:
    from guiapp.core.coding.coding_record import Coding

    def coding(row: int, category: str | None, coder: str, chosen_by: str) -> Coding:
        return Coding(row=row, category=category, coder=coder, at="2024-05-01T10:00:00+00:00",
                      chosen_by=chosen_by, probability=None)

    entries = [coding(1, "a", "Ana", "random"), coding(2, "b", "Ana", "uncertainty"),
               coding(1, "b", "Ben", "second coder"), coding(2, None, "Ben", "second coder"),
               coding(3, "a", "Ana", "in order"), coding(1, "a", "Ben", "second coder")]
    first, second = split_by_coder(entries)
    assert first == {1: "a", 2: "b", 3: "a"}
    assert second == {1: "a"}  # row 2 skipped by the second coder
