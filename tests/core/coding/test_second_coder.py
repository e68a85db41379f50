"""Two coders: a seeded sample of the first coder's texts, and agreement with its disagreements."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from guiapp.core.coding.second_coder import (
    compare_coders,
    default_sample_size,
    draw_second_coder_sample,
    sample_key,
    sample_order,
    second_coder_queue,
    second_coder_sample,
    split_by_coder,
)
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


def test_the_keys_are_uniform_draws_fixed_by_seed_and_row() -> None:
    keys = np.array([sample_key(row, seed=3) for row in range(4000)])
    assert ((0 <= keys) & (keys < 1)).all() and len(set(keys)) == 4000
    assert abs(keys.mean() - 0.5) < 0.02 and abs((keys < 0.25).mean() - 0.25) < 0.03
    assert sample_key(np.int64(12), 3) == sample_key(12, 3) != sample_key("12", 3)  # NumPy's rows keep their key
    assert sample_key(12, 4) != sample_key(12, 3)
    with pytest.raises(DataError, match="seed"):
        sample_key(12, seed="x")


def test_the_sample_is_the_coded_texts_with_the_smallest_keys_in_key_order() -> None:
    sample = draw_second_coder_sample(FIRST, 20, seed=5)
    keys = {row: sample_key(row, 5) for row in FIRST}
    assert sample == sorted(FIRST, key=keys.get)[:20]
    assert [keys[row] for row in sample] == sorted(keys[row] for row in sample)
    assert sample_order(FIRST, 5)[:20] == sample
    assert draw_second_coder_sample(FIRST, 30, seed=5)[:20] == sample  # a larger sample holds a smaller one


def test_the_sample_stays_as_more_texts_are_coded_unless_smaller_keys_push_a_text_out() -> None:
    coded = {row: FIRST[row] for row in list(FIRST)[:30]}
    sample = draw_second_coder_sample(coded, 10, seed=1)
    for row in range(100, 400):  # the first coder goes on coding, one text at a time
        largest = max(sample_key(r, 1) for r in sample)
        coded[row] = "support"
        now = draw_second_coder_sample(coded, 10, seed=1)
        if sample_key(row, 1) < largest:  # the new text enters and pushes out the largest key only
            assert set(sample) - set(now) == {max(sample, key=lambda r: sample_key(r, 1))}
            assert set(now) - set(sample) == {row}
        else:
            assert now == sample
        assert [r for r in now if r in sample] == [r for r in sample if r in now]  # those that stay keep their order
        sample = now
    assert set(sample) <= set(coded)


def test_the_second_coder_is_shown_the_sample_not_yet_coded_skips_last() -> None:
    first = dict(FIRST)
    first[100], first[101] = None, float("nan")  # skipped by the first coder: never drawn
    sample = draw_second_coder_sample(first, 12, seed=0)
    assert 100 not in sample_order(first) and 101 not in sample_order(first)
    second = {sample[0]: "support", sample[2]: "oppose", sample[5]: None}
    queue = second_coder_queue(first, second, 12, skipped=[sample[1]])
    assert queue == [row for row in sample if row not in (sample[0], sample[2], sample[1])] + [sample[1]]
    state = second_coder_sample(first, second, 12, skipped=[sample[1]])
    assert state.rows == sample and state.coded == [sample[0], sample[2]] and state.skipped == [sample[1]]
    assert state.to_code == queue and state.size == 12 and state.n_first == 60 and not state.done
    assert state.outside == [] and state.covering_size == 3
    smaller = second_coder_sample(first, second, 2)
    assert smaller.coded == [sample[0]] and smaller.outside == [sample[2]] and smaller.covering_size == 3
    everything = {row: "support" for row in sample}
    assert second_coder_sample(first, everything, 12).done


def test_the_sample_starts_with_fifty_texts_or_as_many_as_the_second_coder_coded() -> None:
    assert default_sample_size({}, {}) == 0
    assert default_sample_size({1: "a", 2: "b"}, {}) == 2
    assert default_sample_size(FIRST, {}) == 50
    order = sample_order(FIRST)
    assert default_sample_size(FIRST, {order[3]: "a", order[57]: "b"}) == 58


@pytest.mark.parametrize(("size", "words"), [(0, "sample of 0 texts cannot be drawn from the 60"),
                                             (61, "sample of 61 texts cannot be drawn from the 60"),
                                             (2.5, "must be a whole number"), (True, "must be a whole number")])
def test_a_sample_size_that_does_not_fit_is_refused_in_words(size, words) -> None:
    for ask in (lambda: second_coder_queue(FIRST, {}, size), lambda: second_coder_sample(FIRST, {}, size),
                lambda: draw_second_coder_sample(FIRST, size)):
        with pytest.raises(DataError, match=words) as caught:
            ask()
        assert caught.value.hint


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
