"""Per-category decision thresholds chosen on out-of-fold probabilities, and the two forms of a
text's categories."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import f1_score

from guiapp.core.experiment.scores.thresholds import (
    DEFAULT_THRESHOLD,
    GRID,
    apply_thresholds,
    candidate_thresholds,
    indicator,
    predicted_sets,
    tune_thresholds,
)


def _columns(*columns: tuple[list[int], list[float]]) -> tuple[np.ndarray, np.ndarray]:
    y = np.column_stack([np.asarray(c[0], dtype=np.uint8) for c in columns])
    p = np.column_stack([np.asarray(c[1], dtype=float) for c in columns])
    return y, p


def test_the_threshold_that_separates_the_coded_texts_is_found() -> None:
    # category 0: every coded text has p > 0.3, every other p < 0.25: only thresholds in (0.25, 0.32]
    # give F1 = 1, and the midpoint 0.285 is the one tried; at 0.5 F1 would be 0.5
    y, p = _columns(([1, 1, 1, 0, 0, 0], [0.32, 0.4, 0.6, 0.1, 0.2, 0.25]),
                    ([0, 0, 0, 1, 1, 0], [0.05, 0.1, 0.7, 0.8, 0.9, 0.2]))
    chosen = tune_thresholds(y, p)
    assert chosen[0] == pytest.approx(0.285)
    assert 0.7 < chosen[1] <= 0.8  # the text at 0.7 is not coded: the threshold lies above it
    assert (apply_thresholds(p, chosen) == y).all()
    assert f1_score(y[:, 0], apply_thresholds(p, [0.5, 0.5])[:, 0]) == pytest.approx(0.5)


def test_ties_go_to_the_threshold_closest_to_one_half() -> None:
    y, p = _columns(([1, 0], [0.8, 0.1]))
    assert tune_thresholds(y, p, candidates=[0.2, 0.25, 0.45, 0.7])[0] == pytest.approx(0.45)
    assert tune_thresholds(y, p)[0] == pytest.approx(DEFAULT_THRESHOLD)  # 0.45 (the midpoint) ties with 0.5


def test_texts_without_a_probability_are_left_out() -> None:
    y, p = _columns(([1, 1, 1, 0, 0, 0], [0.32, 0.4, 0.6, 0.1, 0.2, 0.25]))
    with_gaps = np.vstack([p, [[np.nan]], [[np.nan]]])
    y_gaps = np.vstack([y, [[1]], [[0]]])
    assert tune_thresholds(y_gaps, with_gaps) == pytest.approx(tune_thresholds(y, p))
    # a NaN in one category only leaves that text out for that category alone
    two_y = np.column_stack([y_gaps[:, 0], y_gaps[:, 0]])
    two_p = np.column_stack([with_gaps[:, 0], np.append(p[:, 0], [0.27, 0.05])])
    chosen = tune_thresholds(two_y, two_p)
    assert chosen == pytest.approx([0.285, 0.26])  # the coded text at 0.27 moves the second one down
    assert apply_thresholds(with_gaps, [0.0])[-2:, 0].tolist() == [0, 0]  # no probability: not put in


def test_a_category_without_a_coded_text_keeps_one_half() -> None:
    y, p = _columns(([0, 0, 0], [0.9, 0.1, 0.7]), ([1, 0, 0], [0.9, 0.1, 0.7]), ([1, 1, 0], [np.nan] * 3))
    chosen = tune_thresholds(y, p)
    assert chosen[0] == DEFAULT_THRESHOLD and chosen[2] == DEFAULT_THRESHOLD  # all scored texts NaN: none coded
    assert chosen[1] == pytest.approx(0.8)


def test_the_chosen_threshold_has_the_best_f1_among_those_tried() -> None:
    rng = np.random.default_rng(0)
    y = (rng.random((500, 4)) < [0.1, 0.3, 0.5, 0.05]).astype(np.uint8)
    p = np.clip(0.35 * y + rng.random(y.shape) * 0.6, 0, 1).round(3)
    chosen = tune_thresholds(y, p)
    for k in range(y.shape[1]):
        tried = candidate_thresholds(p[:, k])
        best = max(f1_score(y[:, k], p[:, k] >= t, zero_division=0) for t in tried)
        assert f1_score(y[:, k], p[:, k] >= chosen[k], zero_division=0) == pytest.approx(best)
        assert chosen[k] in tried


def test_candidates_are_midpoints_or_the_grid() -> None:
    few = candidate_thresholds(np.array([0.01, 0.03, 0.3, 0.3, 0.99, 1.0, np.nan]))
    assert few.tolist() == pytest.approx([0.165, 0.5, 0.645])  # 0.02 and 0.995 lie outside 0.05 … 0.95
    many = candidate_thresholds(np.linspace(0, 1, 1000))
    assert np.array_equal(many, GRID) and many.min() == pytest.approx(0.05) and many.max() == pytest.approx(0.95)
    assert DEFAULT_THRESHOLD in GRID.tolist()


def test_thresholds_refuse_what_cannot_be_tuned() -> None:
    y, p = _columns(([1, 0], [0.8, 0.1]))
    with pytest.raises(ValueError, match="covers"):
        tune_thresholds(y, np.hstack([p, p]))
    with pytest.raises(ValueError, match="between 0 and 1"):
        tune_thresholds(y, p * 3)
    with pytest.raises(ValueError, match="above 0"):
        tune_thresholds(y, p, candidates=[0.0, 0.5])
    with pytest.raises(ValueError, match="one threshold per category"):
        apply_thresholds(p, [0.5, 0.5])


def test_sets_and_indicator_tables_convert_both_ways() -> None:
    sets = [[0, 3], [], [2], [0, 1, 2, 3]]
    matrix = indicator(sets, 4)
    assert matrix.dtype == np.uint8 and matrix.tolist() == [[1, 0, 0, 1], [0, 0, 0, 0], [0, 0, 1, 0], [1, 1, 1, 1]]
    assert predicted_sets(matrix) == sets
    assert predicted_sets(apply_thresholds(np.array([[0.6, 0.2], [0.5, 0.9]]), [0.5, 0.95])) == [[0], [0]]
    with pytest.raises(ValueError, match="not from a study where a text can have several"):
        indicator([0, 1], 2)
    with pytest.raises(ValueError, match="categories 0 to 1"):
        indicator([[2]], 2)
