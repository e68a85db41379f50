"""The stop signal: stabilising predictions on a fixed stop set, with the gain of out-of-fold macro-F1."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from guiapp.core.coding.stopping import Round, draw_stop_set, stop_reading
from guiapp.core.errors import DataError

CATEGORIES = np.array(["health", "defence", "energy"], dtype=object)
STOP_SET = 1000


def rounds_changing(shares, f1=None, size=STOP_SET, seed=0) -> list[Round]:
    """Rounds whose predictions on the stop set change by exactly the given shares, one after another."""
    rng = np.random.default_rng(seed)
    predictions = CATEGORIES[rng.integers(0, 3, size)]
    f1 = list(f1) if f1 is not None else [None] * (len(shares) + 1)
    rounds = [Round(20, predictions.copy(), f1[0])]
    for i, share in enumerate(shares, start=1):
        predictions = predictions.copy()
        changed = rng.choice(size, int(round(share * size)), replace=False)
        for j in changed:  # always to another category, so exactly `share` of the answers change
            predictions[j] = CATEGORIES[(list(CATEGORIES).index(predictions[j]) + 1) % 3]
        rounds.append(Round(20 + 10 * i, predictions, f1[i]))
    return rounds


def test_stable_rounds_give_the_stop_sentence():
    reading = stop_reading(rounds_changing([0.25, 0.12, 0.008, 0.004, 0.0]))
    assert reading.should_stop and reading.state == "stable"
    assert reading.sentence == ("The last 3 rounds changed the answer for fewer than 1 % of the uncoded texts; "
                                "coding more is unlikely to change your results much.")
    assert reading.changed_share == (None, 0.25, 0.12, 0.008, 0.004, 0.0)
    assert reading.n_coded == (20, 30, 40, 50, 60, 70)


def test_exactly_window_comparisons_are_enough():
    assert stop_reading(rounds_changing([0.005, 0.002, 0.0])).should_stop


def test_a_round_that_changed_many_answers_keeps_coding_going():
    reading = stop_reading(rounds_changing([0.3, 0.004, 0.003, 0.07]))
    assert not reading.should_stop and reading.state == "changing"
    assert "the last round changed the answer for 7 % of the 1,000 uncoded texts" in reading.sentence
    assert reading.sentence.startswith("Keep coding")


def test_one_changing_round_inside_the_window_holds_the_stop_back():
    reading = stop_reading(rounds_changing([0.004, 0.03, 0.002, 0.001]))
    assert not reading.should_stop and reading.state == "changing"
    assert "0.1 %" in reading.sentence and "3 %" in reading.sentence
    # one more quiet round moves the changing one out of the window
    assert stop_reading(rounds_changing([0.004, 0.03, 0.002, 0.001, 0.0])).should_stop


def test_the_threshold_is_strict_and_adjustable():
    at_one_percent = rounds_changing([0.01, 0.01, 0.01])
    assert not stop_reading(at_one_percent).should_stop
    reading = stop_reading(at_one_percent, threshold=0.02)
    assert reading.should_stop and "fewer than 2 %" in reading.sentence


@pytest.mark.parametrize("n_rounds", [0, 1, 2, 3])
def test_fewer_than_window_comparisons_say_not_yet(n_rounds):
    rounds = rounds_changing([0.0] * 5)[:n_rounds]
    reading = stop_reading(rounds)
    assert not reading.should_stop and reading.state == "not yet"
    assert reading.sentence.startswith("Too early to say when to stop")
    if n_rounds:
        assert "needs 4 to see whether its answers settle" in reading.sentence
    assert len(reading.changed_share) == n_rounds == len(reading.f1_gain)


def test_a_smaller_window_needs_fewer_rounds():
    rounds = rounds_changing([0.0, 0.0])
    assert stop_reading(rounds, window=2).should_stop
    assert not stop_reading(rounds, window=3).should_stop


def test_agreement_with_the_coding_still_rising_holds_the_stop_back():
    rounds = rounds_changing([0.1, 0.0, 0.0, 0.0], f1=[0.50, 0.60, 0.62, 0.64, 0.66])
    reading = stop_reading(rounds)
    assert not reading.should_stop and reading.state == "rising"
    assert "macro-F1 went up by 6.0 points over those rounds" in reading.sentence
    assert reading.f1_gain[0] is None
    assert reading.f1_gain[1:] == pytest.approx([0.10, 0.02, 0.02, 0.02])
    flat = rounds_changing([0.1, 0.0, 0.0, 0.0], f1=[0.50, 0.60, 0.605, 0.60, 0.607])
    assert stop_reading(flat).should_stop
    # an unknown F1 leaves the decision to the stabilising predictions
    unknown = rounds_changing([0.1, 0.0, 0.0, 0.0], f1=[0.50, None, 0.62, 0.64, 0.66])
    assert stop_reading(unknown).should_stop
    assert stop_reading(unknown).f1_gain == (None, None, None, pytest.approx(0.02), pytest.approx(0.02))


def test_kappa_between_successive_rounds_is_cohens():
    rounds = rounds_changing([0.2, 0.0])
    reading = stop_reading(rounds)
    expected = cohen_kappa_score(rounds[0].stop_set_predictions.astype(str), rounds[1].stop_set_predictions.astype(str))
    assert reading.kappa[0] is None
    assert reading.kappa[1] == pytest.approx(expected)
    assert reading.kappa[2] == pytest.approx(1.0)


def test_a_new_stop_set_starts_the_count_again():
    rounds = rounds_changing([0.0, 0.0, 0.0]) + rounds_changing([0.0, 0.0], size=800, seed=1)
    reading = stop_reading(rounds)
    assert reading.changed_share[4] is None
    assert reading.state == "not yet" and "new set of uncoded texts" in reading.sentence
    assert "trained 3 times on it" in reading.sentence
    assert stop_reading(rounds + rounds_changing([0.0], size=800, seed=1)[1:]).should_stop


def test_an_empty_stop_set_cannot_tell():
    rounds = [Round(10, np.array([], dtype=object)), Round(20, np.array([], dtype=object))]
    reading = stop_reading(rounds)
    assert not reading.should_stop and "no uncoded texts to watch" in reading.sentence


def test_rounds_from_probabilities_compare_by_category_name():
    before = Round.from_probabilities(10, np.array([[0.9, 0.1], [0.2, 0.8]]), ["a", "b"])
    # a category was added in between and sorts first: the indices moved, the names did not
    after = Round.from_probabilities(20, np.array([[0.1, 0.8, 0.1], [0.1, 0.2, 0.7]]), ["_new", "a", "b"])
    assert list(after.stop_set_predictions) == ["a", "b"]
    reading = stop_reading([before, after], window=1)
    assert reading.changed_share == (None, 0.0) and reading.should_stop
    with pytest.raises(DataError):
        Round.from_probabilities(10, np.array([[0.9, 0.1]]), ["a", "b", "c"])


def test_a_round_survives_json():
    original = Round.from_probabilities(30, np.array([[0.9, 0.1], [0.2, 0.8]]), ["a", "b"], oof_macro_f1=0.71)
    copy = Round.from_dict(json.loads(json.dumps(original.to_dict())))
    assert copy.n_coded == 30 and copy.oof_macro_f1 == 0.71
    assert list(copy.stop_set_predictions) == ["a", "b"]
    indices = Round(5, np.array([0, 2, 1]), None)
    assert list(Round.from_dict(json.loads(json.dumps(indices.to_dict()))).stop_set_predictions) == [0, 2, 1]
    with pytest.raises(DataError, match="cannot be read"):
        Round.from_dict({"stop_set_predictions": []})


def test_the_stop_set_is_a_fixed_seeded_sample_of_the_pool():
    pool = [f"row {i}" for i in range(5000)]
    first = draw_stop_set(pool, size=1000, seed=3)
    assert first == draw_stop_set(pool, size=1000, seed=3)
    assert first != draw_stop_set(pool, size=1000, seed=4)
    assert len(first) == len(set(first)) == 1000 and set(first) <= set(pool)
    assert first == sorted(first, key=pool.index)  # kept in the pool's order
    assert draw_stop_set(pool[:300], size=1000) == pool[:300]
    assert draw_stop_set([]) == []


@pytest.mark.parametrize("size", [0, -5, 2.5, True])
def test_a_stop_set_size_that_makes_no_sense_is_refused(size):
    with pytest.raises(DataError):
        draw_stop_set(range(10), size=size)


@pytest.mark.parametrize("settings", [{"window": 0}, {"window": 1.5}, {"threshold": 0}, {"threshold": 1.2},
                                      {"f1_threshold": -0.1}])
def test_settings_that_make_no_sense_are_refused(settings):
    with pytest.raises(DataError):
        stop_reading(rounds_changing([0.0] * 3), **settings)
