"""Choosing a Transformer's setting: the paper's top score, or the cheapest within one standard error;
the noise is said, and a best setting on the edge of the grid is pointed out with a grid beyond it."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.experiment.families.setting_choice import (
    BEST_SCORE,
    CHEAPEST_WITHIN_NOISE,
    choose_setting,
    describe_choice,
    grid_edges,
)

POINTS = [{"learning_rate": rate, "epochs": epochs} for rate in (2e-5, 5e-5) for epochs in (2, 4, 6)]


def _one_split(accuracy_per_setting: list[float], n: int = 150, seed: int = 0):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n)
    order = rng.permutation(n)  # setting i is right on the first round(accuracy × n) texts of one order
    predictions = np.array([np.where(order < round(accuracy * n), truth, (truth + 1) % 3)
                            for accuracy in accuracy_per_setting])
    from guiapp.core.experiment.combined.combining import macro_f1

    scores = np.array([[macro_f1(truth, row)] for row in predictions])
    return scores, [predictions], [truth]


def test_close_settings_give_the_cheapest_and_the_paper_rule_keeps_the_top_score() -> None:
    scores, predictions, truths = _one_split([0.81, 0.82, 0.83, 0.60, 0.80, 0.82])
    best = int(np.argmax(scores[:, 0]))
    cheap = choose_setting(POINTS, scores, predictions, truths, CHEAPEST_WITHIN_NOISE, seed=1)
    paper = choose_setting(POINTS, scores, predictions, truths, BEST_SCORE, seed=1)
    assert paper.chosen == paper.best == best
    assert cheap.best == best and cheap.chosen in cheap.within_noise
    assert POINTS[cheap.chosen]["epochs"] == 2  # fewer epochs, as good within the noise
    assert 3 not in cheap.within_noise  # 0.60 is clearly worse
    low, high = cheap.interval
    assert low < scores[best, 0] < high and cheap.standard_error > 0


def test_a_clearly_better_setting_is_chosen_by_both_rules() -> None:
    scores, predictions, truths = _one_split([0.5, 0.5, 0.98, 0.5, 0.5, 0.5], n=400)
    choice = choose_setting(POINTS, scores, predictions, truths, CHEAPEST_WITHIN_NOISE)
    assert choice.chosen == choice.best == 2 and choice.within_noise == [2]


def test_folds_give_the_standard_error_across_folds() -> None:
    scores = np.array([[0.80, 0.82, 0.81], [0.90, 0.60, 0.75]] + [[0.1, 0.1, 0.1]] * 4)
    choice = choose_setting(POINTS, scores, None, None, CHEAPEST_WITHIN_NOISE)
    assert choice.best == 0
    assert choice.standard_error == pytest.approx(np.std([0.80, 0.82, 0.81], ddof=1) / np.sqrt(3))
    low, high = choice.interval
    assert low < 0.81 < high


def test_edges_of_the_grid_are_found_and_extended() -> None:
    edges, extended = grid_edges(POINTS, best=5)  # 5e-5 and 6 epochs: both highest
    assert edges == {"learning_rate": "highest", "epochs": "highest"}
    assert extended["learning_rate"] == [2e-5, 5e-5, 1.25e-4] and extended["epochs"] == [2, 4, 6, 8]
    edges, extended = grid_edges(POINTS, best=1)  # 2e-5 (lowest) and 4 epochs (inside)
    assert edges == {"learning_rate": "lowest"} and extended["learning_rate"][0] == 8e-6
    assert extended["epochs"] == [2, 4, 6]
    scores = np.array([[0.5], [0.5], [0.5], [0.5], [0.5], [0.9]])
    sentences = describe_choice(choose_setting(POINTS, scores, None, None), POINTS, "the validation texts")
    assert any("highest learning rate" in sentence and "1.25e-04" in sentence or "0.000125" in sentence
               for sentence in sentences)
